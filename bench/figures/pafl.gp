# MS-PAFL paper, Figures 3 to 6, with the tight PLD analysis of the same
# protocol (see fig_pafl.c for the data and our reading of the protocol).
# usage: gnuplot -e "data='DIR'; out='DIR'" pafl.gp
if (!exists("data")) data = 'data'
if (!exists("out")) out = '.'
set terminal pngcairo size 900,600 font ',11'
set datafile separator ','
set datafile columnheaders
set grid lc rgb '#dddddd'
c1 = '#1f77b4'; c2 = '#d62728'; c3 = '#2ca02c'

# ---- Fig. 3 (a): single round vs eps_l, p grid, q = 0.2 ----
set output out.'/pafl_fig3a.png'
set title "Fig. 3(a): one round, {/:Italic q} = 0.2, {/:Italic N} = 100, {/:Italic β} = 0.25, {/:Italic δ_l} = 10^{-4}"
set xlabel 'local privacy level {/:Italic ε_l}  (nats; Lemma 1 sets {/:Italic σ})'
set ylabel 'central {/:Italic ε_c^t}  (nats) at the {/:Italic δ_c^t} of Cor. 1'
set xrange [0:1]
set yrange [0:*]
set key top left box opaque width -4 samplen 3 font ',10'
f = data.'/pafl_fig3a.csv'
plot f u 1:3  w l lw 2 dt 2 lc rgb c1 t '{/:Italic p} = 0.1: Cor. 1 (paper; not certified)', \
     f u 1:6  w l lw 2      lc rgb c1 t '{/:Italic p} = 0.1: PLD of the protocol (certified)', \
     f u 1:8  w l lw 2 dt 2 lc rgb c2 t '{/:Italic p} = 0.5: Cor. 1 (paper; not certified)', \
     f u 1:11 w l lw 2      lc rgb c2 t '{/:Italic p} = 0.5: PLD of the protocol (certified)', \
     f u 1:13 w l lw 2 dt 2 lc rgb c3 t '{/:Italic p} = 1: Cor. 1 (paper; not certified)', \
     f u 1:16 w l lw 2      lc rgb c3 t '{/:Italic p} = 1: PLD of the protocol (certified)'

# ---- Fig. 3 (b): q grid, p = 0.5 ----
set output out.'/pafl_fig3b.png'
set title "Fig. 3(b): one round, {/:Italic p} = 0.5, {/:Italic N} = 100, {/:Italic β} = 0.25, {/:Italic δ_l} = 10^{-4}"
f = data.'/pafl_fig3b.csv'
plot f u 1:3  w l lw 2 dt 2 lc rgb c1 t '{/:Italic q} = 0.1: Cor. 1 (paper; not certified)', \
     f u 1:6  w l lw 2      lc rgb c1 t '{/:Italic q} = 0.1: PLD of the protocol (certified)', \
     f u 1:8  w l lw 2 dt 2 lc rgb c2 t '{/:Italic q} = 0.3: Cor. 1 (paper; not certified)', \
     f u 1:11 w l lw 2      lc rgb c2 t '{/:Italic q} = 0.3: PLD of the protocol (certified)', \
     f u 1:13 w l lw 2 dt 2 lc rgb c3 t '{/:Italic q} = 0.5: Cor. 1 (paper; not certified)', \
     f u 1:16 w l lw 2      lc rgb c3 t '{/:Italic q} = 0.5: PLD of the protocol (certified)'

# ---- Fig. 4: total over T rounds, log-log ----
set xlabel 'communication rounds {/:Italic T}'
set ylabel 'total {/:Italic ε} over {/:Italic T} rounds  (nats)'
set logscale xy
set xrange [1:1000]
set yrange [0.005:1000]
set format y '10^{%T}'
set key top left box opaque width -4 samplen 3 font ',10'
f = data.'/pafl_fig4.csv'

set output out.'/pafl_fig4a.png'
set title "Fig. 4(a): {/:Italic q} = 0.2, {/:Italic ε_l} = 1, {/:Italic δ̃} = 10^{-4} (Thm 4); PLD at Thm 4's total {/:Italic δ}"
plot f u 1:(column('thm4_eps_p0.1_q0.2')) w l lw 2 dt 2 lc rgb c1 t '{/:Italic p} = 0.1: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_hi_p0.1_q0.2'))   w l lw 2      lc rgb c1 t '{/:Italic p} = 0.1: PLD of the protocol (certified)', \
     f u 1:(column('thm4_eps_p0.5_q0.2')) w l lw 2 dt 2 lc rgb c2 t '{/:Italic p} = 0.5: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_hi_p0.5_q0.2'))   w l lw 2      lc rgb c2 t '{/:Italic p} = 0.5: PLD of the protocol (certified)', \
     f u 1:(column('thm4_eps_p1_q0.2'))   w l lw 2 dt 2 lc rgb c3 t '{/:Italic p} = 1: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_hi_p1_q0.2'))     w l lw 2      lc rgb c3 t '{/:Italic p} = 1: PLD of the protocol (certified)'

set output out.'/pafl_fig4b.png'
set title "Fig. 4(b): {/:Italic p} = 0.5, {/:Italic ε_l} = 1, {/:Italic δ̃} = 10^{-4} (Thm 4); PLD at Thm 4's total {/:Italic δ}"
plot f u 1:(column('thm4_eps_p0.5_q0.1')) w l lw 2 dt 2 lc rgb c1 t '{/:Italic q} = 0.1: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_hi_p0.5_q0.1'))   w l lw 2      lc rgb c1 t '{/:Italic q} = 0.1: PLD of the protocol (certified)', \
     f u 1:(column('thm4_eps_p0.5_q0.3')) w l lw 2 dt 2 lc rgb c2 t '{/:Italic q} = 0.3: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_hi_p0.5_q0.3'))   w l lw 2      lc rgb c2 t '{/:Italic q} = 0.3: PLD of the protocol (certified)', \
     f u 1:(column('thm4_eps_p0.5_q0.5')) w l lw 2 dt 2 lc rgb c3 t '{/:Italic q} = 0.5: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_hi_p0.5_q0.5'))   w l lw 2      lc rgb c3 t '{/:Italic q} = 0.5: PLD of the protocol (certified)'

# ---- Thm 3 against the PLD at delta = delta_l ----
set output out.'/pafl_fig4c.png'
set title "Thm 3 ({/:Italic c_0} of App. C) vs PLD at {/:Italic δ} = {/:Italic δ_l} = 10^{-4}, {/:Italic q} = 0.2, {/:Italic ε_l} = 1"
set yrange [0.005:20]
plot f u 1:(column('thm3_eps_p0.1_q0.2')) w l lw 2 dt 3 lc rgb c1 t '{/:Italic p} = 0.1: Thm 3 (paper; NOT a bound)', \
     f u 1:(column('pld_dl_hi_p0.1_q0.2')) w l lw 2     lc rgb c1 t '{/:Italic p} = 0.1: PLD of the protocol (certified)', \
     f u 1:(column('thm3_eps_p0.5_q0.2')) w l lw 2 dt 3 lc rgb c2 t '{/:Italic p} = 0.5: Thm 3 (paper; NOT a bound)', \
     f u 1:(column('pld_dl_hi_p0.5_q0.2')) w l lw 2     lc rgb c2 t '{/:Italic p} = 0.5: PLD of the protocol (certified)', \
     f u 1:(column('thm3_eps_p1_q0.2'))   w l lw 2 dt 3 lc rgb c3 t '{/:Italic p} = 1: Thm 3 (paper; NOT a bound)', \
     f u 1:(column('pld_dl_hi_p1_q0.2'))   w l lw 2     lc rgb c3 t '{/:Italic p} = 1: PLD of the protocol (certified)'

# ---- Fig. 5: the local client's total loss, WOR vs WR vs DP-FedAvg ----
f = data.'/pafl_fig5.csv'
set logscale xy
set xrange [1:1000]
set yrange [*:*]
set xlabel 'rounds {/:Italic T}'
set ylabel 'total {/:Italic ε}  (nats)'
set key top left box opaque width -4 samplen 3 font ',9'
fig5(e) = sprintf("plot f u 1:(column('thm3_wor_e%s')) w l lw 2 dt 3 lc rgb c1 t 'WOR: Thm 3, c_0 of (C.8) (paper; NOT a bound)', f u 1:(column('thm3_wr_e%s')) w l lw 2 dt 3 lc rgb c2 t 'WR: Thm 3 (paper; NOT a bound)', f u 1:(column('pld_wor_hi_e%s')) w l lw 2 lc rgb c1 t 'WOR: PLD of the protocol (certified; WR has no sound PLD)', f u 1:(column('fedavg_thm4_e%s')) w l lw 2 dt 2 lc rgb c3 t 'DP-FedAvg: Thm 4 of ({/:Italic ε_l}, {/:Italic δ_l}) rounds (certified)', f u 1:(column('fedavg_pld_hi_e%s')) w l lw 2 lc rgb c3 t 'DP-FedAvg: PLD of {/:Italic T} Gaussian rounds (certified)'", e, e, e, e, e)
set output out.'/pafl_fig5a.png'
set title "Fig. 5(a): local client, {/:Italic ε_l} = 0.1, {/:Italic p} = 0.5, {/:Italic Q} = 5, {/:Italic b} = 5, |{/:Italic D_i}| = 325, {/:Italic δ} = {/:Italic δ_l} = 10^{-4}"
eval fig5('0.1')
set output out.'/pafl_fig5b.png'
set title "Fig. 5(b): local client, {/:Italic ε_l} = 1, {/:Italic p} = 0.5, {/:Italic Q} = 5, {/:Italic b} = 5, |{/:Italic D_i}| = 325, {/:Italic δ} = {/:Italic δ_l} = 10^{-4}"
eval fig5('1')

# ---- Fig. 6: the global model's total loss for b in {1, 5, 13} ----
f = data.'/pafl_fig6.csv'
set output out.'/pafl_fig6a.png'
set title "Fig. 6(a): global model, WOR, {/:Italic ε_l} = 1, {/:Italic p} = 0.5, {/:Italic Q} = 5, |{/:Italic D_i}| = 325, {/:Italic N} = 100"
set ylabel "total {/:Italic ε}  (nats) at Thm 4's {/:Italic δ}"
plot f u 1:(column('thm4_wor_b1'))   w l lw 2 dt 2 lc rgb c1 t '{/:Italic b} = 1: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_wor_hi_b1'))  w l lw 2      lc rgb c1 t '{/:Italic b} = 1: PLD of the protocol (certified)', \
     f u 1:(column('thm4_wor_b5'))   w l lw 2 dt 2 lc rgb c2 t '{/:Italic b} = 5: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_wor_hi_b5'))  w l lw 2      lc rgb c2 t '{/:Italic b} = 5: PLD of the protocol (certified)', \
     f u 1:(column('thm4_wor_b13'))  w l lw 2 dt 2 lc rgb c3 t '{/:Italic b} = 13: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_wor_hi_b13')) w l lw 2      lc rgb c3 t '{/:Italic b} = 13: PLD of the protocol (certified)'
set output out.'/pafl_fig6b.png'
set title "Fig. 6(b): global model, WR, {/:Italic ε_l} = 1, {/:Italic p} = 0.5, {/:Italic Q} = 5, |{/:Italic D_i}| = 325, {/:Italic N} = 100"
plot f u 1:(column('thm4_wr_b1'))  w l lw 2 dt 2 lc rgb c1 t '{/:Italic b} = 1: Cor. 1 + Thm 4 (paper; not certified; no sound PLD for WR)', \
     f u 1:(column('thm4_wr_b5'))  w l lw 2 dt 2 lc rgb c2 t '{/:Italic b} = 5: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('thm4_wr_b13')) w l lw 2 dt 2 lc rgb c3 t '{/:Italic b} = 13: Cor. 1 + Thm 4 (paper; not certified)', \
     f u 1:(column('pld_wor_hi_b13')) w l lw 1.5 lc rgb '#7f7f7f' t '{/:Italic b} = 13, WOR: PLD of the protocol, for reference'
unset output

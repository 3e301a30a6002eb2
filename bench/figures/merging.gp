# DP model merging paper, Figures 1, 2, 7 and 8 (see fig_merging.c for the
# data; Figs 7-8 plot Fig. 1's mean-estimation data against the weight).
# usage: gnuplot -e "data='DIR'; out='DIR'" merging.gp
if (!exists("data")) data = 'data'
if (!exists("out")) out = '.'
set terminal pngcairo size 900,600 font ',11'
set datafile separator ','
set datafile columnheaders
set grid lc rgb '#dddddd'
crs = '#1f77b4'; cex = '#2ca02c'; clc = '#d62728'; cj = '#7f7f7f'

# ---- Fig. 1: mean estimation, MSE vs epsilon ----
f = data.'/merging_fig1.csv'
rs(c) = strcol('family') eq 'RS' ? column(c) : NaN
lc(c) = strcol('family') eq 'LC' ? column(c) : NaN
inp(c) = (strcol('family') eq 'RS' && (column('weight') == 0 || column('weight') == 1)) ? column(c) : NaN
set output out.'/merging_fig1.png'
set title "Fig. 1: mean estimation, {/:Italic n} = 100, {/:Italic Δ} = 0.02, {/:Italic σ} = (0.02, 0.08), {/:Italic δ} = 10^{-5}"
set xlabel '{/:Italic ε}  (nats) at {/:Italic δ} = 10^{-5}'
set ylabel 'MSE  (merged variance + Var(clip {/:Italic X})/{/:Italic n})'
set xrange [0.5:5]
set yrange [0.005:0.0165]
set format y '%.3f'
set key top right box opaque width -2 samplen 3 font ',10'
plot f u (rs('eps_rdp')):(rs('mse'))            w l lw 2 dt 2 lc rgb crs t 'RS, RDP (Thm 5.1)', \
     f u (rs('eps_pld_hi')):(rs('mse'))         w l lw 2      lc rgb crs t 'RS, PLD (Thm 5.2, choice treated as visible)', \
     f u (rs('eps_rdp_exact')):(rs('mse'))      w l lw 2 dt 2 lc rgb cex t 'RS, exact mixture RDP (choice hidden)', \
     f u (rs('eps_pld_exact_hi')):(rs('mse'))   w lp lw 2 pt 7 ps 0.5 lc rgb cex t 'RS, exact mixture PLD (choice hidden)', \
     f u (lc('eps_rdp')):(lc('mse'))            w l lw 2 dt 2 lc rgb clc t 'LC, RDP (Lemma 4.1)', \
     f u (lc('eps_pld_hi')):(lc('mse'))         w l lw 2      lc rgb clc t 'LC, PLD (exact Gaussian)', \
     f u (inp('eps_pld_exact_hi')):(inp('mse')) w p pt 5 ps 1.5 lc rgb 'black' t 'input estimates (PLD)'

# ---- Fig. 2: MNIST, epsilon along lines through the weight simplex ----
unset format y
set ylabel '{/:Italic ε}  (nats) at {/:Italic δ} = 10^{-5}'
set yrange [0:10]
set key box opaque width -2 samplen 3 font ',10'
runs = 'runs: 1 = (C 1, σ 0.5), 2 = (C 2, σ 0.5), 3 = (C 1, σ 2); q = 256/60000, T = 705'
fig2(file) = sprintf("plot '%s' u 1:(column('rs_pld_hi')) w l lw 2 lc rgb crs t 'RS, PLD (Thm 5.2)', '' u 1:(column('rs_rdp')) w l lw 2 dt 2 lc rgb crs t 'RS, RDP (Thm 5.1)', '' u 1:(column('lc_pld_hi')) w l lw 2 lc rgb clc t 'LC, PLD (Thm 6.4 surrogate)', '' u 1:(column('lc_rdp')) w l lw 2 dt 2 lc rgb clc t 'LC, RDP (Thm 6.2, both directions)', '' u 1:(column('joint_pld_hi')) w l lw 1.5 lc rgb cj t 'joint release of the runs, PLD (Thm 6.1)', '' u 1:(column('joint_rdp')) w l lw 1.5 dt 2 lc rgb cj t 'joint release, RDP'", file)

set output out.'/merging_fig2a.png'
set key at graph 0.62, graph 0.47
set title "Fig. 2(a): MNIST, weights (t, 0, 1-t): run 1 vs run 3\n{/*0.8 ".runs."}"
set xlabel 'weight {/:Italic t} on run 1'
set xrange [0:1]
eval fig2(data.'/merging_fig2a.csv')

set output out.'/merging_fig2b.png'
set title "Fig. 2(b): MNIST, weights (0, t, 1-t): run 2 vs run 3\n{/*0.8 ".runs."}"
set xlabel 'weight {/:Italic t} on run 2'
eval fig2(data.'/merging_fig2b.csv')

set output out.'/merging_fig2c.png'
set key at graph 0.75, graph 0.37
set title "Fig. 2(c): MNIST, weights (t, 1-t, 0): run 1 vs run 2\n{/*0.8 ".runs."}"
set xlabel 'weight {/:Italic t} on run 1'
eval fig2(data.'/merging_fig2c.csv')

set output out.'/merging_fig2d.png'
set key at graph 0.58, graph 0.47
set title "Fig. 2(d): MNIST, weights (t, (1-t)/2, (1-t)/2)\n{/*0.8 ".runs."}"
set xlabel 'weight {/:Italic t} on run 1'
eval fig2(data.'/merging_fig2d.csv')

# ---- Figs 7 and 8 (App. H.4): the mean estimation of Fig. 1 against the
# merge weight: RS (weight pi on estimate 1, sigma 0.02) and LC (lambda) ----
f = data.'/merging_fig1.csv'
unset format y
set xrange [0:1]
set xlabel 'weight {/:Italic π} on estimate 1 ({/:Italic σ} = 0.02)'
set output out.'/merging_fig7a.png'
set title "Fig. 7(a): random selection, {/:Italic ε} as {/:Italic π} changes, {/:Italic Δ} = 0.02, {/:Italic σ} = (0.02, 0.08), {/:Italic δ} = 10^{-5}"
set ylabel '{/:Italic ε}  (nats) at {/:Italic δ} = 10^{-5}'
set yrange [0:5]
set key default
set key at graph 0.95, graph 0.72 box opaque width -2 samplen 3 font ',10'
plot f u (rs('weight')):(rs('eps_rdp'))          w l lw 2 dt 2 lc rgb crs t 'RS, RDP (Thm 5.1)', \
     f u (rs('weight')):(rs('eps_pld_hi'))       w l lw 2      lc rgb crs t 'RS, PLD (Thm 5.2, choice treated as visible)', \
     f u (rs('weight')):(rs('eps_rdp_exact'))    w l lw 2 dt 2 lc rgb cex t 'RS, exact mixture RDP (choice hidden)', \
     f u (rs('weight')):(rs('eps_pld_exact_hi')) w lp lw 2 pt 7 ps 0.5 lc rgb cex t 'RS, exact mixture PLD (choice hidden)'
set output out.'/merging_fig7b.png'
set title "Fig. 7(b): random selection, MSE as {/:Italic π} changes ({/:Italic n} = 100)"
set ylabel 'MSE  (merged variance + Var(clip {/:Italic X})/{/:Italic n})'
set yrange [0.005:0.0165]
set format y '%.3f'
set key top right
plot f u (rs('weight')):(rs('mse')) w lp lw 2 pt 7 ps 0.5 lc rgb crs t 'RS (the same for every accounting)'
unset format y
set xlabel 'weight {/:Italic λ} on estimate 1 ({/:Italic σ} = 0.02)'
set output out.'/merging_fig8a.png'
set title "Fig. 8(a): linear combination, {/:Italic ε} as {/:Italic λ} changes, {/:Italic Δ} = 0.02, {/:Italic σ} = (0.02, 0.08), {/:Italic δ} = 10^{-5}"
set ylabel '{/:Italic ε}  (nats) at {/:Italic δ} = 10^{-5}'
set yrange [0:5]
plot f u (lc('weight')):(lc('eps_rdp'))    w l lw 2 dt 2 lc rgb clc t 'LC, RDP (Lemma 4.1)', \
     f u (lc('weight')):(lc('eps_pld_hi')) w l lw 2      lc rgb clc t 'LC, PLD (exact Gaussian)'
set output out.'/merging_fig8b.png'
set title "Fig. 8(b): linear combination, MSE as {/:Italic λ} changes ({/:Italic n} = 100)"
set ylabel 'MSE  (merged variance + Var(clip {/:Italic X})/{/:Italic n})'
set yrange [0:0.0165]
set format y '%.3f'
plot f u (lc('weight')):(lc('mse')) w lp lw 2 pt 7 ps 0.5 lc rgb clc t 'LC'
unset output

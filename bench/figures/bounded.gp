# Bounded-support Gaussian paper, Figure 1 (see fig_bounded.c for the data).
# usage: gnuplot -e "data='DIR'; out='DIR'" bounded.gp
if (!exists("data")) data = 'data'
if (!exists("out")) out = '.'
set terminal pngcairo size 900,600 font ',11'
set datafile separator ','
set key autotitle columnhead
set grid lc rgb '#dddddd'
set xlabel 'input {/:Italic θ}  (support [-1, 1])'
set xrange [-5:5]
set xtics 1

# colours: Gaussian black, rectified blue, truncated red, sign orange
cg = '#000000'; cr = '#1f77b4'; ct = '#d62728'; cs = '#ff7f0e'

# ---- (a) FIL, sigma = 1 ----
set output out.'/bounded_fig1a.png'
set title 'Fig. 1 (FIL): Fisher information loss vs {/:Italic θ}, {/:Italic σ} = 1'
set ylabel 'FIL {/:Italic η}  (per unit Jacobian)'
set yrange [0:1.5]
set key top center box opaque width -6 samplen 3
plot data.'/bounded_fig1a.csv' u 1:2 w l lw 2 lc rgb cg t 'Gaussian (1/{/:Italic σ})', \
     ''  u 1:3 w l lw 2 lc rgb cr t 'rectified (eq. 4, sign corrected)', \
     ''  u 1:4 w l lw 2 lc rgb ct t 'truncated (eq. 3)', \
     ''  u 1:5 w l lw 2 lc rgb cs t 'stochastic sign', \
     ''  u 1:7 every 10 w p pt 6 ps 0.8 lc rgb cr \
         t 'eq. (4) as printed: NOT valid (η² < 0 where absent)'

# ---- (b) per-instance RDP, sigma = 1 ----
set output out.'/bounded_fig1b.png'
set title "Fig. 1 (RDP): per-instance (2, ε)-RDP vs {/:Italic θ}, {/:Italic σ} = 1, sensitivity 1"
set ylabel 'per-instance RDP {/:Italic ε} at {/:Italic α} = 2  (nats)'
set yrange [0:1.6]
set key top center box opaque maxrows 4 width -8 samplen 3 font ',10'
plot data.'/bounded_fig1b.csv' u 1:2 w l lw 2 lc rgb cg t 'Gaussian ({/:Italic α c}^2/2{/:Italic σ}^2)', \
     ''  u 1:3 w l lw 2 lc rgb cr t 'rectified, sound (shifts ±1, both directions)', \
     ''  u 1:4 w l lw 2 lc rgb ct t 'truncated, sound (shifts ±1, both directions)', \
     ''  u 1:5 w l lw 2 lc rgb cs t 'stochastic sign, sound (PLD upper end)', \
     ''  u 1:7 w l lw 1.5 dt 2 lc rgb cr t 'rectified, shift +1 only (paper): NOT a bound', \
     ''  u 1:8 w l lw 1.5 dt 2 lc rgb ct t 'truncated, shift +1 only: NOT a bound', \
     ''  u 1:9 w l lw 1.5 dt 2 lc rgb cs t 'sign, shift +1 only: NOT a bound'

# ---- (c) RDP ratio to the Gaussian, sigma sweep ----
set output out.'/bounded_fig1c.png'
set title "Per-instance RDP ({/:Italic α} = 2, sound) relative to the Gaussian, {/:Italic σ} = 0.5, 1, 2"
set ylabel 'RDP {/:Italic ε} / ({/:Italic α c}^2/2{/:Italic σ}^2)'
set yrange [0:1.3]
set key top center box opaque maxrows 2 width 1 samplen 3 font ',10'
c1 = '#2ca02c'; c2 = '#9467bd'; c3 = '#8c564b'
plot data.'/bounded_fig1c.csv' u 1:2 w l lw 2 lc rgb c1 t 'rectified, {/:Italic σ} = 0.5', \
     ''  u 1:3 w l lw 2 dt 2 lc rgb c1 t 'truncated, {/:Italic σ} = 0.5', \
     ''  u 1:4 w l lw 2 lc rgb c2 t 'rectified, {/:Italic σ} = 1', \
     ''  u 1:5 w l lw 2 dt 2 lc rgb c2 t 'truncated, {/:Italic σ} = 1', \
     ''  u 1:6 w l lw 2 lc rgb c3 t 'rectified, {/:Italic σ} = 2', \
     ''  u 1:7 w l lw 2 dt 2 lc rgb c3 t 'truncated, {/:Italic σ} = 2'

# ---- (d) FIL ratio to the Gaussian, sigma sweep ----
set output out.'/bounded_fig1d.png'
set title "FIL relative to the Gaussian's 1/{/:Italic σ}, {/:Italic σ} = 0.5, 1, 2"
set ylabel 'FIL {/:Italic η} · {/:Italic σ}'
plot data.'/bounded_fig1d.csv' u 1:2 w l lw 2 lc rgb c1 t 'rectified, {/:Italic σ} = 0.5', \
     ''  u 1:3 w l lw 2 dt 2 lc rgb c1 t 'truncated, {/:Italic σ} = 0.5', \
     ''  u 1:4 w l lw 2 lc rgb c2 t 'rectified, {/:Italic σ} = 1', \
     ''  u 1:5 w l lw 2 dt 2 lc rgb c2 t 'truncated, {/:Italic σ} = 1', \
     ''  u 1:6 w l lw 2 lc rgb c3 t 'rectified, {/:Italic σ} = 2', \
     ''  u 1:7 w l lw 2 dt 2 lc rgb c3 t 'truncated, {/:Italic σ} = 2'

# ---- Fig. 2: biasedness vs privacy amplification and noise MSE ----
f = data.'/bounded_fig2.csv'
unset logscale
set xtics auto
set format x '%g'
set format y '%g'
set xrange [0:0.1]
set xlabel 'biasedness |{/:Italic μ}|  (location {/:Italic θ} = E clip N({/:Italic μ}, 1))'
set key bottom right box opaque width 1 samplen 3 font ',10' maxrows 3
c1 = '#2ca02c'; c2 = '#9467bd'; c3 = '#8c564b'
fig2(pre, yl) = sprintf("plot f u 1:(column('%s_s0.4_k0.25')) w l lw 2 dt 1 lc rgb c1 t '{/:Italic σ} = 0.4, {/:Italic k} = 0.25', f u 1:(column('%s_s0.4_k0.5')) w l lw 2 dt 2 lc rgb c1 t '{/:Italic σ} = 0.4, {/:Italic k} = 0.5', f u 1:(column('%s_s0.4_k1')) w l lw 2 dt 3 lc rgb c1 t '{/:Italic σ} = 0.4, {/:Italic k} = 1', f u 1:(column('%s_s0.7_k0.25')) w l lw 2 dt 1 lc rgb c2 t '{/:Italic σ} = 0.7, {/:Italic k} = 0.25', f u 1:(column('%s_s0.7_k0.5')) w l lw 2 dt 2 lc rgb c2 t '{/:Italic σ} = 0.7, {/:Italic k} = 0.5', f u 1:(column('%s_s0.7_k1')) w l lw 2 dt 3 lc rgb c2 t '{/:Italic σ} = 0.7, {/:Italic k} = 1', f u 1:(column('%s_s1_k0.25')) w l lw 2 dt 1 lc rgb c3 t '{/:Italic σ} = 1, {/:Italic k} = 0.25', f u 1:(column('%s_s1_k0.5')) w l lw 2 dt 2 lc rgb c3 t '{/:Italic σ} = 1, {/:Italic k} = 0.5', f u 1:(column('%s_s1_k1')) w l lw 2 dt 3 lc rgb c3 t '{/:Italic σ} = 1, {/:Italic k} = 1'", pre, pre, pre, pre, pre, pre, pre, pre, pre)
set output out.'/bounded_fig2a.png'
set title "Fig. 2(a): rectified mean estimation, {/:Italic n} = 900, {/:Italic d} = 100, support [-{/:Italic a}, {/:Italic a}], {/:Italic a} = |{/:Italic θ}| + {/:Italic k s}"
set ylabel '{/:Italic ε_{NR}} / {/:Italic ε_N}  ((2, {/:Italic ε})-RDP, sound sup over |shift| ≤ 2/{/:Italic n})'
set yrange [0.7:1.01]
eval fig2('ratio', '')
set output out.'/bounded_fig2b.png'
set title "Fig. 2(b): the same settings, change of the noise MSE E({/:Italic R} - {/:Italic θ})^2 against the Gaussian's {/:Italic s}^2"
set ylabel 'relative change of the noise MSE'
set yrange [-1:0.05]
set key top right
eval fig2('mse_change', '')
unset output

# Figures of the splitting paper (Dong, Chen, Ozgur; model splitting and
# Balanced Iteration Subsampling) from the CSVs of fig_splitting.
# usage: gnuplot -e "data='DIR'; out='DIR'" bench/figures/splitting.gp
# See bench/figures/splitting.md for what is plotted and how it compares.
if (!exists("data")) data = 'bench/figures/data'
if (!exists("out")) out = 'bench/figures'

set terminal pngcairo size 900,600 font ',11' enhanced
set datafile separator ','
set datafile columnheaders
set grid lc rgb '#d8d8d8'
set key box opaque samplen 3 spacing 1.15
set tmargin 4

# Colours: Poisson RDP (paper's baseline) black, Poisson PLD (pldkit extra)
# green, BIS paper's recipe red (dashed), BIS sound blue, BIS PLD (pldkit
# extra: certified bracket, upper end from the split into groups and blocks of two) teal.
set style line 1 lc rgb '#000000' lw 2 pt 7 ps 0.7
set style line 2 lc rgb '#1a9850' lw 2.5 dt 2 pt 5 ps 0.7
set style line 3 lc rgb '#d73027' lw 2 dt 4 pt 9 ps 0.8
set style line 4 lc rgb '#2166ac' lw 2 pt 13 ps 0.8
set style line 5 lc rgb '#7b3294' lw 2 pt 6 ps 1.0
set style line 6 lc rgb '#fdae61' lw 2 pt 7 ps 0.7
set style line 7 lc rgb '#01665e' lw 2.5 pt 11 ps 0.9
set style line 8 lc rgb '#35978f' lw 2 dt 2 pt 10 ps 0.9
set style line 11 lc rgb '#fdb863' lw 2 pt 7 ps 0.7
set style line 12 lc rgb '#e66101' lw 2 pt 7 ps 0.7
set style line 13 lc rgb '#b2abd2' lw 2 pt 7 ps 0.7
set style line 14 lc rgb '#5e3c99' lw 2 pt 7 ps 0.7

f1 = data.'/splitting_fig1.csv'
f2 = data.'/splitting_fig2.csv'
f3 = data.'/splitting_fig3.csv'
f4 = data.'/splitting_fig4.csv'
f8a = data.'/splitting_fig8a.csv'
f8b = data.'/splitting_fig8b.csv'

# PLD bracket plotted only where it is resolved (upper within 1.5x lower);
# below ~1e-11 the FFT's booked rounding error dominates the upper end.
resolved(lo, hi) = (lo > 0 && hi <= 1.5 * lo) ? hi : NaN

# ---------------------------------------------------------------- Fig. 1
set output out.'/splitting_fig1.png'
set title "Fig. 1: noise needed vs {/Symbol e}, model splitting into d submodels + Poisson rate 0.1\nT = 1200 steps, {/Symbol d} = 10^{-5}, clipping norm 1; RDP via Prop. 2.3 over integer {/Symbol a} = 2..64 (grid and ranges chosen here)"
set xlabel '{/Symbol e} (nats)'
set ylabel 'noise multiplier {/Symbol s} (noise std / clipping norm)'
set xrange [0:12]
set yrange [0:8]
set key top right
plot f1 using 'eps_nosplit_rdp':'sigma' with linespoints ls 1 \
       title 'no amplification, RDP (Thm 3.11; paper''s baseline)', \
     f1 using 'eps_nosplit_pld_hi':'sigma' with linespoints ls 2 \
       title 'no amplification, PLD (pldkit extra, tight)', \
     f1 using 'eps_split_d2':'sigma' with linespoints ls 11 \
       title 'amplification, d = 2 (pldkit sound pair, RDP)', \
     f1 using 'eps_split_d4':'sigma' with linespoints ls 12 \
       title 'amplification, d = 4', \
     f1 using 'eps_split_d6':'sigma' with linespoints ls 13 \
       title 'amplification, d = 6', \
     f1 using 'eps_split_d8':'sigma' with linespoints ls 14 \
       title 'amplification, d = 8'

# ---------------------------------------------------------------- Fig. 2
set output out.'/splitting_fig2.png'
set title "Fig. 2: RDP curve {/Symbol e}({/Symbol a}) of one run, BIS vs Poisson\nT = 1000, k = 100 (Poisson rate k/T = 0.1), {/Symbol s} = 2; integer orders ({/Symbol a} range chosen here)"
set xlabel 'Rényi order {/Symbol a}'
set ylabel 'RDP {/Symbol e}({/Symbol a}) of the whole run (nats)'
set xrange [2:40]
set yrange [1:*]
set logscale y
set key top left
plot f2 using 'alpha':'poisson' with linespoints ls 1 \
       title 'Poisson, Thm 3.11 x T (exact RDP)', \
     f2 using 'alpha':'bis_paper' with linespoints ls 3 \
       title 'BIS, paper''s recipe (eq. (3) max paper reverse term)', \
     f2 using 'alpha':'bis_sound' with linespoints ls 4 \
       title 'BIS, pldkit sound (eq. (3) / group bound, sound reverse)'
unset logscale y

# ---------------------------------------------------------------- Fig. 3
set output out.'/splitting_fig3.png'
set title "Fig. 3: RDP curve {/Symbol e}({/Symbol a}) of one run, BIS vs Poisson\nT = 10, k = 4 (Poisson rate 0.4), {/Symbol s} = 2; integer orders 2..128 ({/Symbol a} range chosen here)"
set xlabel 'Rényi order {/Symbol a}'
set ylabel 'RDP {/Symbol e}({/Symbol a}) of the whole run (nats)'
set xrange [2:128]
set yrange [0.3:1000]
set logscale xy
set xtics (2, 4, 8, 16, 32, 64, 128)
set key top left
plot f3 using 'alpha':'poisson' with lines ls 1 \
       title 'Poisson, Thm 3.11 x T (exact RDP)', \
     f3 using 'alpha':'bis_sound' with lines ls 4 \
       title 'BIS, pldkit sound', \
     f3 using 'alpha':'bis_paper' with lines ls 3 \
       title 'BIS, paper''s recipe (eq. (2) if computable, else eq. (3); max paper reverse)', \
     f3 using 'alpha':'bis_fwd_exact' with points ls 5 \
       title 'BIS, exact forward divergence = eq. (2) (computable for {/Symbol a} <= 13)'
unset logscale xy
set xtics autofreq

# ---------------------------------------------------------------- Fig. 4
set output out.'/splitting_fig4.png'
set title "Fig. 4: {/Symbol d} at {/Symbol e} = 10 vs number of iterations T\n{/Symbol g} = k/T = 0.4, {/Symbol s} = 2; epochs = (T = 10, k = 4) composed; RDP via Prop. 2.3, integer {/Symbol a} = 2..64"
set xlabel 'iterations T'
set ylabel '{/Symbol d} at {/Symbol e} = 10 nats'
set xrange [10:120]
set yrange [1e-16:1]
set logscale y
set format y '10^{%T}'
set key bottom right
plot f4 using 'T':'poisson_rdp' with linespoints ls 1 \
       title 'Poisson, RDP (Thm 3.11)', \
     f4 using 'T':(resolved(column('poisson_pld_lo'), column('poisson_pld_hi'))) \
       with linespoints ls 2 title 'Poisson, PLD (pldkit; paper used Google''s PLD)', \
     f4 using 'T':'bis_paper' with linespoints ls 3 \
       title 'BIS one run, paper''s recipe', \
     f4 using 'T':'bis_sound' with linespoints ls 4 \
       title 'BIS one run, pldkit sound', \
     f4 using 'T':'bis_epochs_paper' with linespoints ls 5 dt 4 \
       title 'BIS composed epochs, paper''s recipe', \
     f4 using 'T':'bis_epochs_sound' with linespoints ls 6 \
       title 'BIS composed epochs, pldkit sound', \
     f4 using 'T':'bis_pld_hi' with linespoints ls 7 \
       title 'BIS one run, PLD upper end (pldkit; groups, blocks of two)', \
     f4 using 'T':'bis_epochs_pld_hi' with linespoints ls 8 \
       title 'BIS composed epochs, PLD upper end (pldkit)', \
     1e-5 with lines lc rgb '#555555' lw 1.5 dt 3 title '{/Symbol d} = 10^{-5}'
unset logscale y
set format y '% h'

# ---------------------------------------------------------------- Fig. 8
set output out.'/splitting_fig8a.png'
set title "Fig. 8a: {/Symbol e} vs noise {/Symbol s}, BIS vs Poisson, T = 10, k = 5 (Poisson rate 0.5), {/Symbol d} = 10^{-6}\nRDP via Prop. 2.3 over integer {/Symbol a} = 2..64 ({/Symbol s} range chosen here)"
set xlabel 'noise multiplier {/Symbol s}'
set ylabel '{/Symbol e} (nats)'
set xrange [0.6:6]
set yrange [0.8:40]
set logscale xy
set xtics (0.6, 0.8, 1, 1.5, 2, 3, 4, 5, 6)
set ytics (0.8, 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 40)
set key top right
plot f8a using 'sigma':'bis_pld_lo':'bis_pld_hi' with filledcurves \
       fs transparent solid 0.15 noborder lc rgb '#01665e' \
       title 'BIS, PLD bracket (pldkit: lower end a projection of the run)', \
     f8a using 'sigma':'bis_pld_hi' with linespoints ls 7 \
       title 'BIS, PLD upper end (pldkit, certified; groups, blocks of two)', \
     f8a using 'sigma':'poisson_rdp' with linespoints ls 1 \
       title 'Poisson, RDP (Thm 3.11)', \
     f8a using 'sigma':'poisson_pld_hi' with linespoints ls 2 \
       title 'Poisson, PLD (pldkit extra, tight)', \
     f8a using 'sigma':'bis_paper' with linespoints ls 3 \
       title 'BIS, paper''s recipe', \
     f8a using 'sigma':'bis_sound' with linespoints ls 4 \
       title 'BIS, pldkit sound'

set output out.'/splitting_fig8b.png'
set title "Fig. 8b: {/Symbol e} vs noise {/Symbol s}, BIS vs Poisson, T = 1500, k = 120 (Poisson rate 0.08), {/Symbol d} = 10^{-4}\nRDP via Prop. 2.3 over integer {/Symbol a} = 2..64 ({/Symbol s} range chosen here)"
set xrange [0.8:4]
set yrange [2:60]
set xtics (0.8, 1, 1.2, 1.5, 2, 2.5, 3, 4)
set ytics (2, 3, 4, 5, 7, 10, 15, 20, 30, 40, 60)
plot f8b using 'sigma':'bis_pld_lo':'bis_pld_hi' with filledcurves \
       fs transparent solid 0.15 noborder lc rgb '#01665e' \
       title 'BIS, PLD bracket (pldkit: lower end a projection of the run)', \
     f8b using 'sigma':'bis_pld_hi' with linespoints ls 7 \
       title 'BIS, PLD upper end (pldkit, certified; groups, blocks of two)', \
     f8b using 'sigma':'poisson_rdp' with linespoints ls 1 \
       title 'Poisson, RDP (Thm 3.11)', \
     f8b using 'sigma':'poisson_pld_hi' with linespoints ls 2 \
       title 'Poisson, PLD (pldkit extra, tight)', \
     f8b using 'sigma':'bis_paper' with linespoints ls 3 \
       title 'BIS, paper''s recipe', \
     f8b using 'sigma':'bis_sound' with linespoints ls 4 \
       title 'BIS, pldkit sound'
unset logscale xy
set xtics autofreq
set ytics autofreq
unset output

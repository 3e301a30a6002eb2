# make bench: plots of the performance report and of the RDP-vs-PLD table.
# gnuplot -e "data='bench/results'; out='bench/results'" bench/perf.gp
set terminal pngcairo size 900,600 font ',11'
set datafile separator ','
set key top left box opaque
set grid

set output out.'/perf_time_vs_T.png'
set title 'Self-composition cost vs T (Poisson-subsampled Gaussian, q = 0.01, sigma = 1)'
set xlabel 'number of compositions T'
set ylabel 'wall time [s] (median)'
set y2label 'grid points of the composed PLD'
set logscale x
set logscale y
set logscale y2
set ytics nomirror
set y2tics
set format x '10^{%L}'
plot data.'/perf.csv' using (strcol(1) eq 'T-fixed' ? $3 : 1/0):5 with linespoints lw 2 pt 7 title 'time, fixed Delta = 2e-3', \
     data.'/perf.csv' using (strcol(1) eq 'T-auto' ? $3 : 1/0):5 with linespoints lw 2 pt 5 title 'time, automatic Delta (0.2% bracket)', \
     data.'/perf.csv' using (strcol(1) eq 'T-fixed' ? $3 : 1/0):11 axes x1y2 with linespoints dt 2 lw 1.5 pt 6 title 'grid points, fixed Delta (right axis)', \
     data.'/perf.csv' using (strcol(1) eq 'T-auto' ? $3 : 1/0):11 axes x1y2 with linespoints dt 2 lw 1.5 pt 4 title 'grid points, automatic (right axis)'

unset y2label
unset y2tics
unset logscale y2
set ytics mirror
set output out.'/perf_width_vs_time.png'
set title 'Accuracy vs cost: epsilon(1e-5) bracket width as Delta shrinks (q = 0.01, sigma = 1, T = 1000)'
set xlabel 'wall time [s] (median)'
set ylabel 'relative bracket width (upper - lower) / upper'
set format x '%g'
set format y '10^{%L}'
set key top right
plot data.'/perf.csv' using (strcol(1) eq 'accuracy' ? $5 : 1/0):9 with linespoints lw 2 pt 7 title 'Delta = 0.1 ... 1e-4 (labels)', \
     data.'/perf.csv' using (strcol(1) eq 'accuracy' ? $5 : 1/0):9:(sprintf('%g', $3)) with labels offset 1.5,0.7 notitle

set output out.'/rdp_vs_pld.png'
set title 'RDP over-reports epsilon: eps_{RDP} / eps_{PLD upper} (delta = 1e-5, Poisson-subsampled Gaussian)'
set xlabel 'number of steps T'
set ylabel 'eps_{RDP} / eps_{PLD, certified upper}'
set logscale x
unset logscale y
set format x '10^{%L}'
set format y '%g'
set key top right
Q = '0.001 0.01 0.1'
S = '0.6 1 2'
# colour: q; dash and point: sigma
plot for [i=1:3] for [k=1:3] \
     data.'/rdp_vs_pld.csv' using ((strcol(1) eq word(Q,i) && strcol(2) eq word(S,k)) ? $3 : 1/0):10 \
     with linespoints lw 2 lc i dt k pt k+4 title sprintf('q = %s, sigma = %s', word(Q,i), word(S,k))

set output out.'/rdp_vs_pld_sigma.png'
set title 'Noise each accountant needs for a target epsilon (delta = 1e-5): sigma_{RDP} / sigma_{PLD}'
set xlabel 'target epsilon (nats)'
set ylabel 'sigma_{RDP} / sigma_{PLD}'
unset logscale x
set logscale x 2
set format x '%g'
TT = '100 1000 10000'
# colour: q; dash and point: T
plot for [i=1:3] for [k=1:3] \
     data.'/rdp_vs_pld_sigma.csv' using ((strcol(1) eq word(Q,i) && strcol(2) eq word(TT,k)) ? $4 : 1/0):7 \
     with linespoints lw 2 lc i dt k pt k+4 title sprintf('q = %s, T = %s', word(Q,i), word(TT,k))

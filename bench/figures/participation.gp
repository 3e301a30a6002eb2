# Figures of the random-participation FL paper (Hasircioglu & Gunduz), Figs.
# 1, 2, 3 and 5, from the CSVs of fig_participation (see its top comment).
# usage: gnuplot -e "data='DIR'; out='DIR'" bench/figures/participation.gp
if (!exists("data")) data = 'bench/figures/data'
if (!exists("out")) out = 'bench/figures'

set terminal pngcairo size 900,600 font ',11'
set datafile separator ','
set datafile columnheaders
set grid lc rgb '#dddddd'
set key below vertical maxrows 5 font ',9' spacing 1.0 samplen 2.5 center Left reverse width -6
set format y '10^{%L}'
set mytics 10
set xlabel offset 0,0.3
set bmargin 8.5

# second title line
sub = "{/=9 Thm 4.1 is the paper's \"proposed\" analysis. For each d the true worst case lies between \"lower limit\" and \"MWCS PLD\".}"

ds = "1 10 100"
dc = "#0072B2 #D55E00 #009E73"   # d = 1, 10, 100
col(name, k) = column(sprintf("%s_d%s", name, word(ds, k)))
# Theorem 4.1 where pldkit refuted it (below CS, or below a dataset's delta)
refuted(k) = col("thm41_cert", k) == 0 ? col("thm41", k) : NaN

set style line 1 lc rgb '#000000' lw 2 dt 1            # WCS
set style line 2 lc rgb '#777777' lw 2 dt 4            # OLS
set style line 3 lc rgb '#000000' lw 3 dt (2, 3)       # CS

# The common plot, built as a string and run with eval.  F is the CSV, X the
# name of its x column.  The key below the plot has 3 columns of 5 rows,
# filled column by column: column k holds one d-independent analysis (OLS,
# WCS, CS) and then the curves of d = word(ds, k), so each row is one
# analysis and each column one d.
heads = "ols wcs cs"
headstyle(k) = sprintf("ls %d", k == 1 ? 2 : k == 2 ? 1 : 3)
headtitle(k) = k == 1 ? "OLS (Thm 5.1): bound" : \
               k == 2 ? "WCS (Thm 5.2): bound" : \
                        "CS (Cor. 5.3, rate pq): lower limit"
PLOT = 'plot'
do for [k=1:3] {
  d = word(ds, k)
  c = word(dc, k)
  PLOT = PLOT . (k > 1 ? ',' : '') . \
    sprintf(' F using (column(X)):"%s" with lines %s title "%s",', \
            word(heads, k), headstyle(k), headtitle(k)) . \
    sprintf(' F using (column(X)):"pld_hi_d%s" with lines lw 2.5 lc rgb "%s" title "MWCS mixture PLD, d=%s: bound",', d, c, d) . \
    sprintf(' F using (column(X)):"ll_d%s" with linespoints lw 1 pt 8 ps 0.7 pi 3 lc rgb "%s" title "lower limit of the truth, d=%s",', d, c, d) . \
    sprintf(' F using (column(X)):"thm41_d%s" with lines lw 2 dt 2 lc rgb "%s" title "Thm 4.1, d=%s: NOT a bound",', d, c, d) . \
    sprintf(' F using (column(X)):(refuted(%d)) with points pt 6 ps 1.3 lc rgb "%s" %s', k, c, \
            k == 1 ? 'title "o: Thm 4.1 refuted (true {/Symbol d} larger)"' : 'notitle')
  if (k == 2) { PLOT = PLOT . ', keyentry title " "' }
}
# WCS once more, thin, on top: MWCS at d = 100 hides it otherwise
PLOT = PLOT . ', F using (column(X)):"wcs" with lines lc rgb "#000000" lw 1 notitle'

# ---------------------------------------------------------------- Fig. 1
set output out.'/participation_fig1.png'
F = data.'/participation_fig1.csv'
X = "eps"
set title "Fig. 1: {/Symbol d} vs {/Symbol e}, one round, {/Symbol s} = 1, p = q = 0.1, C = 1\n".sub
set xlabel "{/Symbol e} (nats)"
set ylabel "{/Symbol d}"
set logscale y
unset logscale x
set format x '%g'
set xrange [0:3]
set yrange [1e-16:0.1]
set label 1 "Thm 4.1 at d = 100 drops below 10^{-16}\nfor {/Symbol e} > 0.3 (4e-99 at {/Symbol e} = 3)" \
    at first 0.45, first 3e-15 font ',9' tc rgb '#009E73'
eval PLOT
unset label 1

# ---------------------------------------------------------------- Fig. 2
set output out.'/participation_fig2.png'
F = data.'/participation_fig2.csv'
X = "sigma"
set title "Fig. 2: {/Symbol e} vs {/Symbol s}, one round, {/Symbol d} = 10^{-5} (our choice), p = q = 0.1, C = 1\n".sub
set xlabel "{/Symbol s} (noise std, C = 1)"
set ylabel "{/Symbol e} (nats)"
set logscale xy
set format x '%g'
set xrange [0.5:5]
set xtics (0.5, 0.7, 1, 1.5, 2, 3, 4, 5)
set yrange [0.004:10]
set format y '%g'
eval PLOT

# ---------------------------------------------------------------- Fig. 3
set output out.'/participation_fig3.png'
F = data.'/participation_fig3.csv'
X = "sigma"
set title "Fig. 3: {/Symbol d} vs {/Symbol s}, one round, {/Symbol e} = 0.5 (our choice), p = q = 0.1, C = 1\n".sub
set xlabel "{/Symbol s} (noise std, C = 1)"
set ylabel "{/Symbol d}"
unset logscale x
set logscale y
set xtics auto
set format x '%g'
set format y '10^{%L}'
set xrange [0.5:3]
set yrange [1e-40:1]
eval PLOT

# ---------------------------------------------------------------- Fig. 5
set output out.'/participation_fig5.png'
F = data.'/participation_fig5.csv'
X = "q"
set title "Fig. 5: {/Symbol e} vs q at pq = 10^{-4} (p = 10^{-4}/q), one round, {/Symbol s} = 1, C = 1, {/Symbol d} = 10^{-5} (our choice)\n".sub
set xlabel "q (record sampling rate; q = 10^{-4} is p = 1)"
set ylabel "{/Symbol e} (nats)"
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xtics auto
set xrange [1e-4:1]
set yrange [1e-4:10]
set label 1 "Thm 4.1, d = 100: {/Symbol e} = 0 for\n0.2 < q < 0.7 (off the log axis)" \
    at first 1.3e-4, first 3 font ',9' tc rgb '#009E73'
eval PLOT
unset label 1

unset output

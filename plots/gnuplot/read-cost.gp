# read-cost.gp - per variant, the cost of one get while all other PUs
# increment (ns), and the memory per counter (bytes): bars at the median of the
# runs, whiskers at min-max, log y.
# Usage: gnuplot -c plots/gnuplot/read-cost.gp RESULT_DIR  ->  RESULT_DIR/figures/read-cost.png
FIG = "read-cost"
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
NP = words(FILES)
set terminal @PNGTERM size 1100,(NP > 1 ? 900 : 520)
set output OUT
set multiplot layout NP,1 title TITLE_TEXT(FILE1) noenhanced
set style fill solid 0.75 border lc rgb "#333333"
set boxwidth 0.7
set logscale y 10
set grid ytics
set xtics rotate by 35 right
unset key
do for [j=1:NP] {
	F = FIGDATA.word(FILES, j)
	S = META(F, "series")
	set title META(F, "panel") noenhanced
	set ylabel META(F, "ylabel")
	set xlabel ""
	set xrange [0.3:words(S) + 0.7]
	set xtics () 
	do for [i=1:words(S)] { set xtics add (LABEL(word(S,i)) i) }
	plot for [i=1:words(S)] F index (i-1) using (i):4 with boxes lt 1 lc rgb COLOR(word(S,i)), \
	     for [i=1:words(S)] F index (i-1) using (i):4:5:6 with yerrorbars lt 1 lc rgb "#333333" pt 7 ps 0
}
unset multiplot

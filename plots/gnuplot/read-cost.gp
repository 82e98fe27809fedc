# SPDX-License-Identifier: MIT
# read-cost.gp - per variant, the cost of a get while the other threads
# increment (ns per get, linear y from 0; the note says the timer's resolution) and the memory per counter (bytes, log y):
# the median of the runs as a point, min-max as a whisker (no bars: a bar's
# length means nothing on a log axis).
# Usage: gnuplot -c plots/gnuplot/read-cost.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/read-cost.png
FIG = "read-cost"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
NP = words(FILES)
set terminal @PNGTERM size 1100,(NP > 1 ? 940 : 560)
set output OUT
set multiplot layout NP,1 title TITLE_TEXT(FILE1) noenhanced margins 0.07, 0.98, 0.12, (NP > 1 ? 0.83 : 0.72) spacing 0.14
set grid ytics
set xtics rotate by 35 right
unset key
MK = MARKS_L(MARKED_ANY, "S", "i", "$4")
do for [j=1:NP] {
	F = FIGDATA.word(FILES, j)
	S = META(F, "series")
	set title META(F, "panel") noenhanced
	set ylabel META(F, "ylabel")
	set xlabel META(F, "marked_caption")
	set xrange [0.3:words(S) + 0.7]
	set xtics ()
	do for [i=1:words(S)] { set xtics add (LABEL(word(S,i)) i) }
	if (strstrt(F, "bytes") > 0) {
		@LOG_Y
		set xrange [0.3:words(S) + 0.7]
	} else {
		unset logscale y
		set format y "%g"
		set ytics autofreq
		set yrange [0:*]
	}
	plot for [i=1:words(S)] F index (i-1) using (i):4:5:6 with yerrorbars lt LT(word(S,i)) ps 1.4 @MK
}
unset multiplot

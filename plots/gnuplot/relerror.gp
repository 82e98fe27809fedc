# SPDX-License-Identifier: MIT
# relerror.gp - body of Dice Fig. 6 (top and bottom), two panels: left, per
# probabilistic variant the worst |relative error| of the runs at each thread
# count (the max column) on the y scale both Fig. 6 figures share (y_max), one
# dashed line per distinct analytic RSTDV bound and a dotted line at the
# expected worst of n runs at that bound; right, Serial on its own scale.
S = META(FILE1, "series")
SP = ""
HAS_SERIAL = 0
do for [w in S] {
	if (w eq "Serial") { HAS_SERIAL = 1 } else { SP = SP.(SP eq "" ? "" : " ").w }
}
BV = META(FILE1, "bound_values")
BL = META(FILE1, "bound_labels")
WN = META(FILE1, "worst_of_n")
# Numbers made before the plot command: gnuplot evaluates both arms of a
# ternary there, so a missing bound ("" + 0) failed the figure whenever the
# set had no Morris or BFP-DUP runs (a restricted plan).
NB = words(BV)
array BVAL[NB > 0 ? NB : 1]
do for [i=1:NB] { BVAL[i] = real(word(BV, i)) }
WVAL = (WN eq "" ? NaN : real(WN))
YMAX = META(FILE1, "y_max")
set terminal @PNGTERM size 1450,720
set output OUT
set multiplot title TITLE_TEXT(FILE1) noenhanced
set tmargin at screen 0.8
set bmargin at screen 0.1
@THREADS_AXIS
if (DRAW eq "points") { @POINTS_X }
set xlabel XLABEL(FILE1)
F = FILE1
SER = "Serial"
# Left: the probabilistic counters.
set lmargin at screen 0.07
set rmargin at screen 0.5
set title "probabilistic counters (y scale shared by both Fig. 6 figures)" noenhanced
set ylabel "worst ".META(FILE1, "ylabel")
# y_max is 0 when no probabilistic run lost a count (a restricted plan whose
# only lossy variant is Serial, which lost none): 0..1% then, not an empty range.
YM = (YMAX eq "" ? 0 : YMAX + 0)
if (YM <= 0) { YM = 1 }
set yrange [-0.03 * YM : YM]
set key at screen 0.74, screen 0.8 top left vertical Left reverse samplen 3 spacing 1.1
N = words(SP)
MK = MARKS_L(MARKED_ANY, "SP", "$2 * (DRAW eq \"points\" ? DODGE(i, N) : 1)", "$6")
STYLE = DRAW eq "points" ? "points" : "linespoints"
plot for [i=1:N] FILE1 index IDX(S, word(SP,i)) using ($2 * (DRAW eq "points" ? DODGE(i, N) : 1)):6 with @STYLE lt LT(word(SP,i)) title LABEL(word(SP,i)), \
     for [i=1:NB] BVAL[i] with lines lc rgb "#444444" dt 2 lw 1.5 title sprintf("RSTDV bound %s%% (%s)", word(BV,i), word(BL,i)), \
     WVAL with lines lc rgb "#444444" dt 3 lw 1.5 title (WN eq "" ? "" : META(FILE1, "worst_of_n_label")) @MK
# Right: Serial on its own scale.
MKS = MARKS_L(MARKED_ANY, "SER", "$2", "$6")
if (HAS_SERIAL) {
	set lmargin at screen 0.57
	set rmargin at screen 0.72
	set title "Serial (own scale)" noenhanced
	set ylabel "worst |relative error| of Serial (%)"
	# Serial's own scale, from its own data (serial_y_max: 1.1 x its worst
	# error, or 1% where it lost no update), never from gnuplot's stats, which
	# skip the points outside the left panel's range.
	SYM = META(FILE1, "serial_y_max")
	SYM = (SYM eq "" ? 1 : SYM + 0)
	set yrange [-0.03 * SYM : SYM]
	unset key
	plot FILE1 index IDX(S, "Serial") using 2:6 with @STYLE lt LT("Serial") notitle @MKS
}
unset multiplot

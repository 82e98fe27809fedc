# SPDX-License-Identifier: MIT
# throughput.gp - body of the threads-vs-ops/ms figures (Dice Figs. 3-5):
# per variant the median of the runs as a line, their min-max range as a band;
# with fewer than 4 thread counts (DRAW "points") the median as a point with
# min-max whiskers, the series offset along x so that equal values stay apart.
# Set LOGY (1: log y as in Dice Fig. 3) before loading; common.gp is loaded.
S = META(FILE1, "series")
set terminal @PNGTERM size 1150,720
set output OUT
@TITLE
set xlabel XLABEL(FILE1)
set ylabel META(FILE1, "ylabel")
@THREADS_AXIS
F = FILE1
MK = MARKS(F, DRAW eq "points" ? "$2 * DODGE(i, words(S))" : "$2", "$4")
if (LOGY) { @LOG_Y } else { set yrange [0:*]; set format y "%.1s%c" }
set key outside right top vertical Left reverse samplen 2.5 spacing 1.1
if (DRAW eq "points") {
	@POINTS_X
	plot for [i=1:words(S)] FILE1 index (i-1) using ($2 * DODGE(i, words(S))):4:5:6 with yerrorbars lt LT(word(S,i)) title LABEL(word(S,i)) @MK
} else {
	plot for [i=1:words(S)] FILE1 index (i-1) using 2:5:6 with @BAND lc rgb COLOR(word(S,i)) notitle, \
	     for [i=1:words(S)] FILE1 index (i-1) using 2:4 with linespoints lt LT(word(S,i)) title LABEL(word(S,i)) @MK
}

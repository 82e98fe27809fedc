# SPDX-License-Identifier: MIT
# ayers-time.gp - body of Ayers's scaling figures: time to count to N (log-log),
# median of the runs as a line, min-max as a band.
S = META(FILE1, "series")
set terminal @PNGTERM size 1150,720
set output OUT
@TITLE
set xlabel XLABEL(FILE1)
set ylabel META(FILE1, "ylabel")
@N_AXIS
F = FILE1
MK = MARKS(F, "$2", "$4")
@LOG_Y
# The N up to which runs fall in two start-up modes (the note says so): dotted.
SU = META(FILE1, "startup_upto")
if (SU ne "") { set arrow from SU + 0, graph 0 to SU + 0, graph 1 nohead dt 3 lc rgb "#555555" }
set key outside right top vertical Left reverse samplen 2.5 spacing 1.1
plot for [i=1:words(S)] FILE1 index (i-1) using 2:5:6 with @BAND lc rgb COLOR(word(S,i)) notitle, \
     for [i=1:words(S)] FILE1 index (i-1) using 2:4 with linespoints lt LT(word(S,i)) title ALABEL(word(S,i)) @MK

# SPDX-License-Identifier: MIT
# ayers-accuracy-tunable.gp - Ayers's counter-accuracy-tunable figure: Scalable
# with switch-over 2^T for T = 10..15, the 5th and 95th percentiles of value/N
# (two lines per T) and the binomial model's (dashed).
# Usage: gnuplot -c plots/gnuplot/ayers-accuracy-tunable.gp RESULT_DIR VARS
FIG = "ayers-accuracy-tunable"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
S = META(FILE1, "series")
set terminal @PNGTERM size 1150,720
set output OUT
@TITLE
set xlabel XLABEL(FILE1)
F = FILE1
# the marks over both lines, the 95th and the 5th percentile
MK = MARKS(F, "$2", "$9").MARKS(F, "$2", "$8")
set ylabel META(FILE1, "ylabel")." (1 = exact): 5th and 95th percentiles"
@N_AXIS
set key outside right top vertical Left reverse samplen 3 spacing 1.1
plot for [i=1:words(S)] FILE1 index (i-1) using 2:9 with linespoints lt LT(word(S,i)) title ALABEL(word(S,i)), \
     for [i=1:words(S)] FILE1 index (i-1) using 2:8 with linespoints lt LT(word(S,i)) notitle, \
     for [i=1:words(S)] FILE1 index (i-1) using 2:10 with lines lc rgb COLOR(word(S,i)) dt 2 lw 1 notitle, \
     for [i=1:words(S)] FILE1 index (i-1) using 2:11 with lines lc rgb COLOR(word(S,i)) dt 2 lw 1 notitle, \
     NaN with lines lc rgb "#555555" dt 2 lw 1 title "binomial model 5th-95th" @MK

# SPDX-License-Identifier: MIT
# ayers-accuracy.gp - Ayers's counter-accuracy figure: counting to N with all
# PUs, value/N of racing (Serial), interlocked (FetchAdd) and Scalable: the
# mean as a line, min-max as a band; the switch-over 2^T marked.
# Usage: gnuplot -c plots/gnuplot/ayers-accuracy.gp RESULT_DIR VARS
FIG = "ayers-accuracy"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
S = META(FILE1, "series")
# Series whose every run is exact (interlocked): their line lies under Scalable's at 1.
FLAT = META(FILE1, "flat_series")
set terminal @PNGTERM size 1150,720
set output OUT
@TITLE
set xlabel XLABEL(FILE1)
F = FILE1
MK = MARKS(F, "$2", "$7")
set ylabel META(FILE1, "ylabel")." (1 = exact)"
@N_AXIS
set yrange [0:*]
set key outside right top vertical Left reverse samplen 2.5 spacing 1.1
SO = META(FILE1, "switch_over")
if (SO ne "") {
	set arrow 1 from SO + 0, graph 0 to SO + 0, graph 1 nohead dt 3 lc rgb "#777777"
	set label 1 sprintf("Scalable switch-over 2^{%s}", META(FILE1, "switch_over_exp")) at SO + 0, graph 0.04 offset 0.5,0 font ",9" tc rgb "#555555"
}
plot for [i=1:words(S)] FILE1 index (i-1) using 2:5:6 with @BAND lc rgb COLOR(word(S,i)) notitle, \
     for [i=1:words(S)] FILE1 index (i-1) using 2:7 with linespoints lt LT(word(S,i)) title ALABEL(word(S,i)).(strstrt(" ".FLAT." ", " ".word(S,i)." ") ? " (every run exact)" : "") @MK

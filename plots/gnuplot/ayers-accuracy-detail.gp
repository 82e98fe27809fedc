# SPDX-License-Identifier: MIT
# ayers-accuracy-detail.gp - Ayers's counter-accuracy-detail figure: racing
# left out, value/N of interlocked and Scalable: mean (line), 5th-95th
# percentile (band), min and max (dotted), and the binomial model's 5th-95th
# band (dashed, computed by plots/aggregate.py).
# Usage: gnuplot -c plots/gnuplot/ayers-accuracy-detail.gp RESULT_DIR VARS
FIG = "ayers-accuracy-detail"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
S = META(FILE1, "series")
# Series whose runs all agree (interlocked: exact) get one line, no band and no
# min/max lines that would hide under it.
FLAT = META(FILE1, "flat_series")
SV = ""
do for [w in S] { if (strstrt(" ".FLAT." ", " ".w." ") == 0) { SV = SV.(SV eq "" ? "" : " ").w } }
ENV = META(FILE1, "envelope_series")
set terminal @PNGTERM size 1150,720
set output OUT
@TITLE
set xlabel XLABEL(FILE1)
F = FILE1
MK = MARKS(F, "$2", "$7")
set ylabel META(FILE1, "ylabel")." (1 = exact)"
@N_AXIS
set key outside right top vertical Left reverse samplen 3 spacing 1.1
SO = META(FILE1, "switch_over")
if (SO ne "") {
	set arrow 1 from SO + 0, graph 0 to SO + 0, graph 1 nohead dt 3 lc rgb "#777777"
	set label 1 sprintf("switch-over 2^{%s}", META(FILE1, "switch_over_exp")) at SO + 0, graph 0.04 offset 0.5,0 font ",9" tc rgb "#555555"
}
plot for [i=1:words(SV)] FILE1 index IDX(S, word(SV,i)) using 2:8:9 with @BAND lc rgb COLOR(word(SV,i)) title ALABEL(word(SV,i))." 5th-95th pct", \
     for [i=1:words(S)] FILE1 index (i-1) using 2:7 with linespoints lt LT(word(S,i)) title ALABEL(word(S,i)).(strstrt(" ".FLAT." ", " ".word(S,i)." ") ? " (every run exact)" : " mean"), \
     for [i=1:words(SV)] FILE1 index IDX(S, word(SV,i)) using 2:5 with lines lc rgb COLOR(word(SV,i)) dt 3 lw 1 title ALABEL(word(SV,i))." min, max", \
     for [i=1:words(SV)] FILE1 index IDX(S, word(SV,i)) using 2:6 with lines lc rgb COLOR(word(SV,i)) dt 3 lw 1 notitle, \
     for [i=1:words(ENV)] FILE1 index IDX(S, word(ENV,i)) using 2:10 with lines lc rgb COLOR(word(ENV,i)) dt 2 lw 1.5 title ALABEL(word(ENV,i))." binomial model 5th-95th (N > 2^T)", \
     for [i=1:words(ENV)] FILE1 index IDX(S, word(ENV,i)) using 2:11 with lines lc rgb COLOR(word(ENV,i)) dt 2 lw 1.5 notitle @MK

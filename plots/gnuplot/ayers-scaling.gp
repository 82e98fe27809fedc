# SPDX-License-Identifier: MIT
# ayers-scaling.gp - Ayers's counter-scaling figure: racing, interlocked and Scalable, time to count to N.
# Usage: gnuplot -c plots/gnuplot/ayers-scaling.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/ayers-scaling.png
FIG = "ayers-scaling"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/ayers-time.gp"

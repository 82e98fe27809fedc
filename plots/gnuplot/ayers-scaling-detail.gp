# SPDX-License-Identifier: MIT
# ayers-scaling-detail.gp - Ayers's counter-scaling-detail figure: Scalable for T = 10..15, time to count to N.
# Usage: gnuplot -c plots/gnuplot/ayers-scaling-detail.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/ayers-scaling-detail.png
FIG = "ayers-scaling-detail"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/ayers-time.gp"

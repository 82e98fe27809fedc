# SPDX-License-Identifier: MIT
# ayers-scaling-detail.gp - Ayers's counter-scaling-detail figure: Scalable for T = 10..15, time to count to N.
# Usage: gnuplot -c plots/gnuplot/ayers-scaling-detail.gp RESULT_DIR  ->  RESULT_DIR/figures/ayers-scaling-detail.png
FIG = "ayers-scaling-detail"
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
load GPDIR."/ayers-time.gp"

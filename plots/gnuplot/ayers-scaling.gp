# SPDX-License-Identifier: MIT
# ayers-scaling.gp - Ayers's counter-scaling figure: racing, interlocked and Scalable, time to count to N.
# Usage: gnuplot -c plots/gnuplot/ayers-scaling.gp RESULT_DIR  ->  RESULT_DIR/figures/ayers-scaling.png
FIG = "ayers-scaling"
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
load GPDIR."/ayers-time.gp"

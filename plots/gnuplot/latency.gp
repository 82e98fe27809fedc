# SPDX-License-Identifier: MIT
# latency.gp - latency of one increment (p50, p99, p99.9; ns, log y) against
# threads, every variant, single counter, 0% external work.
# Usage: gnuplot -c plots/gnuplot/latency.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/latency.png
FIG = "latency"
LOGY = 1
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/panels.gp"

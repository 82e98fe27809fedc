# SPDX-License-Identifier: MIT
# dice-fig4-high.gp - Dice et al. Fig. 4 (bottom): log y (the paper's linear axis is set by
# Serial and squeezes the precise counters into its bottom 5%), all thread counts.
# Usage: gnuplot -c plots/gnuplot/dice-fig4-high.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/dice-fig4-high.png
FIG = "dice-fig4-high"
LOGY = 1
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/throughput.gp"

# SPDX-License-Identifier: MIT
# dice-fig4-low.gp - Dice et al. Fig. 4 (top): linear y, all thread counts.
# Usage: gnuplot -c plots/gnuplot/dice-fig4-low.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/dice-fig4-low.png
FIG = "dice-fig4-low"
LOGY = 0
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/throughput.gp"

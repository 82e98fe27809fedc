# SPDX-License-Identifier: MIT
# dice-fig5.gp - Dice et al. Fig. 5: 7500 counters, one hot.
# Usage: gnuplot -c plots/gnuplot/dice-fig5.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/dice-fig5.png
FIG = "dice-fig5"
LOGY = 0
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/throughput.gp"

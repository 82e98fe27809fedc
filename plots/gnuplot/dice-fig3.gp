# SPDX-License-Identifier: MIT
# dice-fig3.gp - Dice et al. Fig. 3: log y, as in the paper.
# Usage: gnuplot -c plots/gnuplot/dice-fig3.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/dice-fig3.png
FIG = "dice-fig3"
LOGY = 1
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/throughput.gp"

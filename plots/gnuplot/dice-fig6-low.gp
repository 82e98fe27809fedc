# SPDX-License-Identifier: MIT
# dice-fig6-low.gp - Dice et al. Fig. 6 (top): 99% external work, worst |relative error| of the runs.
# Usage: gnuplot -c plots/gnuplot/dice-fig6-low.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/dice-fig6-low.png
FIG = "dice-fig6-low"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/relerror.gp"

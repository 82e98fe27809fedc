# SPDX-License-Identifier: MIT
# dice-fig6-high.gp - Dice et al. Fig. 6 (bottom): 0% external work, worst |relative error| of the runs.
# Usage: gnuplot -c plots/gnuplot/dice-fig6-high.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/dice-fig6-high.png
FIG = "dice-fig6-high"
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/relerror.gp"

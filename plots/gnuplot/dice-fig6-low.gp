# SPDX-License-Identifier: MIT
# dice-fig6-low.gp - Dice et al. Fig. 6 (top): 99% external work, worst |relative error| of the runs.
# Usage: gnuplot -c plots/gnuplot/dice-fig6-low.gp RESULT_DIR  ->  RESULT_DIR/figures/dice-fig6-low.png
FIG = "dice-fig6-low"
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
load GPDIR."/relerror.gp"

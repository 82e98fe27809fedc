# SPDX-License-Identifier: MIT
# dice-fig5.gp - Dice et al. Fig. 5: 7500 counters, one hot.
# Usage: gnuplot -c plots/gnuplot/dice-fig5.gp RESULT_DIR  ->  RESULT_DIR/figures/dice-fig5.png
FIG = "dice-fig5"
LOGY = 0
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
load GPDIR."/throughput.gp"

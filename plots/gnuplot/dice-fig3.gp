# SPDX-License-Identifier: MIT
# dice-fig3.gp - Dice et al. Fig. 3: log y, as in the paper.
# Usage: gnuplot -c plots/gnuplot/dice-fig3.gp RESULT_DIR  ->  RESULT_DIR/figures/dice-fig3.png
FIG = "dice-fig3"
LOGY = 1
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
load GPDIR."/throughput.gp"

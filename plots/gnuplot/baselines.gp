# SPDX-License-Identifier: MIT
# baselines.gp - the papers' best counters against Sharded, Striped, Batched and
# PerCPU: threads vs ops/ms, one panel per external-work level (0% and 99%).
# Usage: gnuplot -c plots/gnuplot/baselines.gp RESULT_DIR  ->  RESULT_DIR/figures/baselines.png
FIG = "baselines"
LOGY = 1
RESULTS = ARG1
GPDIR = system("dirname '".ARG0."'")
load GPDIR."/common.gp"
load GPDIR."/panels.gp"

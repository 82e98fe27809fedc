# SPDX-License-Identifier: MIT
# baselines.gp - the papers' best counters against Sharded, Striped, Batched and
# PerCPU: threads vs ops/ms, one panel per external-work level (0% and 99%).
# Usage: gnuplot -c plots/gnuplot/baselines.gp RESULT_DIR VARS  ->  RESULT_DIR/figures/baselines.png
FIG = "baselines"
LOGY = 1
RESULTS = ARG1
VARS = ARG2
GPDIR = "."; do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { GPDIR = ARG0[1:i - 1] } }
load GPDIR."/common.gp"
load GPDIR."/panels.gp"

#!/bin/sh
# SPDX-License-Identifier: MIT
# test_restricted_report.sh - a result set restricted with --experiments
# (its run-all.plan plans only some experiments) has REPORT.md count its
# result files among what it planned: "1 of 1 present", never "1 of 13
# present; missing: ..." of files it never planned. A set without a plan is
# counted against every CSV of run-all's plan, as before. As TAP.
: "${TOP_SRCDIR:=.}"
. "$(dirname "$0")/tap.sh"
py=${PYTHON:-/usr/bin/python3}
fix=$TOP_SRCDIR/tests/fixtures/results-small
plots=$TOP_SRCDIR/plots

mkdir "$tmp/set" && cp "$fix/dice-fig3.csv" "$fix/dice-fig3.csv.meta.json" "$tmp/set/" || exit 1
chmod u+w "$tmp/set"/*
printf 'dice-fig3 t1-Serial-r0 --counter=Serial --work=99.02 --threads=1\ndice-fig3 t1-CAS-r0 --counter=CAS --work=99.02 --threads=1\n' \
	>"$tmp/set/run-all.plan"
"$py" "$plots/aggregate.py" "$tmp/set" >"$tmp/out" 2>&1 && "$py" "$plots/report.py" "$tmp/set" >>"$tmp/out" 2>&1
check "restricted_report_written ($(tail -1 "$tmp/out"))" test -s "$tmp/set/REPORT.md"
line=$(grep 'Result files' "$tmp/set/REPORT.md")
check "restricted_set_counts_what_it_planned ($line)" sh -c "echo '$line' | grep -q '1 of 1 present' && ! echo '$line' | grep -q missing"
rm "$tmp/set/run-all.plan" "$tmp/set/REPORT.md"
"$py" "$plots/aggregate.py" "$tmp/set" >"$tmp/out" 2>&1 && "$py" "$plots/report.py" "$tmp/set" >>"$tmp/out" 2>&1
line=$(grep 'Result files' "$tmp/set/REPORT.md")
# every CSV of the plan: one per experiment of harness/runall/experiments.json
all=$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["experiments"]))' \
	"$TOP_SRCDIR/harness/runall/experiments.json")
check "set_without_plan_counts_every_csv ($line)" sh -c "echo '$line' | grep -q '1 of $all present; missing: '"
tap_done

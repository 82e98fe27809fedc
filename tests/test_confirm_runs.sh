#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_confirm_runs.sh - run-all.sh --confirm, as TAP: after the
# planned rounds, a point undecided near its claim's line gets runs up to the
# sequential rule's next look (6 runs a side), recorded in run-all.plan (new run
# indices beside the point's planned runs) and run-all.order (under a comment
# naming the confirmation round) before they run; a failure during the round
# leaves a set that --resume finishes, each run once, the merged CSV then
# holding runs 0-5 of the point and the report saying how many runs decided each
# claim and how many runs --confirm added, counted from run-all.order's rounds; --quick and --confirm=0 add none, a bad
# --confirm is a usage error, a round whose estimate passes the budget is not
# run, and a merge of shards adds none but says how to.
# The fake scbench (tests/fake-scbench.sh: every run 1 ops/ms, so RBONuma/RBO is
# 1x, 10% from the 0.9x line of Dice §2.1's claim) stands in; run-all.sh and
# plots/ run from a copy in a mktemp -d directory, without figures.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh"
mkdir "$tmp/harness" && cp -r "$TOP_SRCDIR/harness/runall" "$TOP_SRCDIR/harness/version.sh" "$tmp/harness/" &&
	cp -r "$TOP_SRCDIR/plots" "$tmp/plots" || exit 1
"$SCBENCH" --list=json >"$tmp/list.json" || exit 1
export FAKE_LIST=$tmp/list.json FAKE_LOG=$tmp/log PYTHON_MPL=none GNUPLOT=/nonexistent
cp "$TOP_SRCDIR/tests/fake-scbench.sh" "$tmp/fake-scbench" && chmod +x "$tmp/fake-scbench" || exit 1
run_all() {
	SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" --max-threads 2 "$@" >"$tmp/out" 2>"$tmp/err"
}
# the point's run indices in the merged CSV: "0 1 2 ..."
runs_of() {
	awk -F, -v v="$2" -v t="$3" '$1 == v && $3 == t { print $4 }' "$1" | sort -n | tr '\n' ' '
}
set_args="--experiments dice-fig4-high --variants RBO,RBONuma"

# Default mode: 12 planned invocations (2 variants, 2 thread counts, 3 runs); the
# 15th invocation, in the confirmation round (invocations 13-18), fails.
rs=$tmp/rs
FAKE_FAIL_AT=15 run_all $set_args --order-seed 99 --out "$rs"
check failure_in_confirmation_exit_1 test $? -eq 1
check confirmation_round_said grep -q -- '--confirm: round 1: 6 run(s) at 2 point(s)' "$tmp/err"
check plan_records_confirmation_runs sh -c "
	grep -q '^dice-fig4-high t1-RBONuma-r5 .* --runs=1 --first-run=5 ' '$rs/run-all.plan' &&
	grep -q '^dice-fig4-high t1-RBO-r3 .* --first-run=3 ' '$rs/run-all.plan' &&
	! grep -q -- '-t2-\|t2-RBO-r3\|t2-RBONuma-r3' '$rs/run-all.plan'"
check order_marks_confirmation_round sh -c "grep -q '^# confirmation round 1 (--confirm)' '$rs/run-all.order' &&
	test \$(grep -vc '^#' '$rs/run-all.order') -eq 18"
# the confirmation runs sit beside their point's planned runs in the plan
check plan_keeps_points_together sh -c "grep -n 't1-RBONuma-r' '$rs/run-all.plan' | cut -d: -f1 |
	awk 'NR > 1 && \$1 != last + 1 { bad = 1 } { last = \$1 } END { exit bad }'"
sed '$d' "$FAKE_LOG" >"$tmp/log1"   # the failed invocation wrote nothing
run_all --resume "$rs"
check resume_finishes_confirmation_exit_0 test $? -eq 0
check resume_adds_no_second_round sh -c "test \$(grep -c '^# confirmation round' '$rs/run-all.order') -eq 1"
tail -n +16 "$FAKE_LOG" >"$tmp/log2"   # the resumed runs
check every_run_once sh -c "cat '$tmp/log1' '$tmp/log2' | sort | uniq -d | grep -q . && exit 1;
	test \$(cat '$tmp/log1' '$tmp/log2' | wc -l) -eq 18"
check merged_csv_has_six_runs test "$(runs_of "$rs/dice-fig4-high.csv" RBONuma 1)" = "0 1 2 3 4 5 "
check other_threads_keep_three test "$(runs_of "$rs/dice-fig4-high.csv" RBONuma 2)" = "0 1 2 "
check report_says_runs_and_confirm sh -c "grep -q '(6 runs)' '$rs/REPORT.md' &&
	grep -q '^Runs added by --confirm (counted from run-all.order.s confirmation rounds): 6 in 1 round, 6 to dice-fig4-high;' '$rs/REPORT.md' &&
	! grep -q 'of them added by --confirm' '$rs/REPORT.md'"
check needs_runs_empty_after "$PY" -c '
import json, subprocess, sys
out = subprocess.run([sys.executable, sys.argv[1], "--needs-runs", sys.argv[2]],
                     stdout=subprocess.PIPE, check=True).stdout
sys.exit(0 if json.loads(out)["needs"] == [] else 1)' "$tmp/plots/report.py" "$rs"

# --quick and --confirm=0: no confirmation round.
run_all $set_args --quick --out "$tmp/q"
check quick_adds_none sh -c "test $? -eq 0 && ! grep -q '^#.*confirmation' '$tmp/q/run-all.order' &&
	test \$(wc -l <'$tmp/q/run-all.plan') -eq 4"
run_all $set_args --confirm=0 --out "$tmp/z"
check confirm_0_adds_none sh -c "test $? -eq 0 && test \$(wc -l <'$tmp/z/run-all.plan') -eq 12"
run_all $set_args --confirm=soon --out "$tmp/bad"
check confirm_bad_value_usage sh -c "test $? -eq 2 && grep -q -- '--confirm=soon: expected minutes' '$tmp/err' &&
	test ! -e '$tmp/bad'"

# The budget: with --paper (5 runs planned, 10.15 s a run by the plan's estimate) the
# round to 6 runs a side of three experiments' 7 variants is 6 runs, at points near
# the lines of 2 claims, about 61 s: over --confirm=1 (60 s), so none is added.
run_all --experiments dice-fig4-high,dice-fig4-low,dice-fig3 --variants \
	RBO,RBONuma,CAS,FetchAdd,Serial,Scalable,Morris --paper --confirm=1 --out "$tmp/p"
check budget_stops_before_round sh -c "test $? -eq 0 && grep -q -- '--confirm: the next round (6 runs, about 1.0 min) would pass the budget (1 min' '$tmp/err' &&
	test \$(wc -l <'$tmp/p/run-all.plan') -eq 180"

# Shards: a merge adds no runs and says how to; --resume then adds them.
run_all $set_args --plan-only --out "$tmp/sh"
run_all --resume "$tmp/sh" --shard=0/1
run_all --resume "$tmp/sh" --merge-only
check merge_of_shards_says_how sh -c "test $? -eq 0 && grep -q -- '--confirm: no confirmation runs in a merge of shards; to add them here: .*--resume' '$tmp/err' &&
	test \$(wc -l <'$tmp/sh/run-all.plan') -eq 12"
run_all --resume "$tmp/sh"
check resume_after_merge_confirms sh -c "test $? -eq 0 && test \$(wc -l <'$tmp/sh/run-all.plan') -eq 18"

# The time left in a confirmation round comes from that round's runs, not from
# the minutes of the planned rounds before it: planned invocations that take
# 0.3 s each (12 of them) and instant confirmation runs (about 1.2 s each by the
# plan's estimate). From its second run on (the first has no measured run to scale
# by: the estimate, about 7 s) the round's "left" read about 27 s when scaled by the
# whole run's time; by its own, under 1.
cat >"$tmp/slow-scbench" <<EOF
#!/bin/sh
[ "\$(wc -l <"\$FAKE_LOG" 2>/dev/null || echo 0)" -lt 12 ] && sleep 0.3
exec "$tmp/fake-scbench" "\$@"
EOF
chmod +x "$tmp/slow-scbench"
: >"$FAKE_LOG"
SCBENCH=$tmp/slow-scbench "$tmp/run-all.sh" --max-threads 2 $set_args --order-seed 99 --out "$tmp/eta" >"$tmp/out" 2>"$tmp/err"
check "confirmation_eta_from_its_own_runs (exit $?)" awk '
	/--confirm: round 1:/ { on = 1; next }
	on && /\[[2-6]\/6\]/ { n++; s = $0; sub(/.*~/, "", s); sub(/s left.*/, "", s); if (s + 0 > 10) bad = 1 }
	END { exit (n < 5 || bad) }' "$tmp/err"

tap_done

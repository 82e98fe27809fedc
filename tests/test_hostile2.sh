#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_hostile2.sh - hostile inputs and conditions, round five (issue 37), as
# TAP: nothing written or removed outside a result set (a linked or looping
# figdata/, figures/ or part directory), one writer per set (run-all's lock),
# the printed commands work, paths that are not UTF-8, a stopped scbench
# marked busy, and the smaller leftovers. Everything in a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
PLOTPY=/usr/bin/python3
[ -x "$PLOTPY" ] || PLOTPY=$PY
fixture=$TOP_SRCDIR/tests/fixtures/results-small
one_line() { test "$(wc -l <"$tmp/err")" -eq 1 && ! grep -q Traceback "$tmp/err"; }

# --- 1. nothing outside the set -------------------------------------------------
# figdata/ and figures/ linked to a directory outside the set (a paper's
# draft): refused in one line, exit 1, the directory untouched; a link to
# itself too. aggregate.py removes only the .dat files an earlier aggregate
# made (its figures.tsv's), never a user's file beside them.
mkdir "$tmp/draft" && echo keep >"$tmp/draft/important.dat" && echo mine >"$tmp/draft/dice-fig5.png" || exit 1
for sub in figdata figures; do
	rm -rf "$tmp/ln" && cp -r "$fixture" "$tmp/ln" && ln -s "$tmp/draft" "$tmp/ln/$sub" || exit 1
	PYTHON_MPL=none "$TOP_SRCDIR/plots/regen" "$tmp/ln" >/dev/null 2>"$tmp/err"
	check "regen_linked_${sub}_refused" sh -c "test $? -eq 1 && grep -q 'symbolic link: refused' '$tmp/err'"
	check "regen_linked_${sub}_one_line" one_line
	check "regen_linked_${sub}_untouched" sh -c "test \"\$(ls '$tmp/draft')\" = 'dice-fig5.png
important.dat' && grep -q mine '$tmp/draft/dice-fig5.png'"
	rm "$tmp/ln/$sub" && ln -s "$sub" "$tmp/ln/$sub" || exit 1
	PYTHON_MPL=none "$TOP_SRCDIR/plots/regen" "$tmp/ln" >/dev/null 2>"$tmp/err"
	check "regen_looping_${sub}_refused" sh -c "test $? -eq 1 && grep -q 'symbolic link: refused' '$tmp/err'"
	check "regen_looping_${sub}_one_line" one_line
done
rm -rf "$tmp/ln" && cp -r "$fixture" "$tmp/ln" && ln -s "$tmp/draft" "$tmp/ln/figdata" || exit 1
"$PLOTPY" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/ln" >/dev/null 2>"$tmp/err"
check aggregate_linked_figdata_refused sh -c "test $? -eq 1 && test ! -e '$tmp/draft/figures.tsv'"
check aggregate_linked_figdata_one_line one_line
rm "$tmp/ln/figdata" && mkdir "$tmp/ln/figdata" && echo keep >"$tmp/ln/figdata/important.dat" &&
	echo "dice-fig9	ok	dice-fig9.dat" >"$tmp/ln/figdata/figures.tsv" && echo old >"$tmp/ln/figdata/dice-fig9.dat" || exit 1
"$PLOTPY" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/ln" >/dev/null 2>"$tmp/err"
check aggregate_keeps_users_dat sh -c "test $? -eq 0 && test -s '$tmp/ln/figdata/important.dat'"
check aggregate_removes_its_old_dat test ! -e "$tmp/ln/figdata/dice-fig9.dat"
# run-all's sweep of stale temporaries keeps to the set: a part directory
# linked elsewhere is not swept.
runall_tree || exit 1
fake() { FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/fake-scbench PYTHON_MPL=none "$tmp/run-all.sh" "$@"; }
small="--quick --max-threads=1 --experiments=dice-fig5 --variants=CAS,FetchAdd --order-seed=5"
fake $small --out="$tmp/rs" >/dev/null 2>"$tmp/err" || exit 1
mkdir "$tmp/elsewhere" && echo live >"$tmp/elsewhere/x.csv.tmp.AbCdEf" && ln -s "$tmp/elsewhere" "$tmp/rs/parts/zz" &&
	echo stale >"$tmp/rs/parts/dice-fig5/y.csv.tmp.AbCdEf" || exit 1
fake --resume="$tmp/rs" --merge-only >/dev/null 2>"$tmp/err"
check resume_sweep_not_through_link sh -c "test $? -eq 0 && test -s '$tmp/elsewhere/x.csv.tmp.AbCdEf'"
check resume_sweep_own_stale test ! -e "$tmp/rs/parts/dice-fig5/y.csv.tmp.AbCdEf"

# --- 5. a stopped scbench is busy -------------------------------------------------
# A SIGSTOP of 1 s inside a 4 s measured phase (started 1.5 s in: scbench's
# start-up and its 0.1 s warm-up are over by then on any machine this runs
# on) marks the run busy and says so; an unstopped run is not stopped.
"$SCBENCH" --counter=FetchAdd --threads=2 --runs=1 --warmup=0.1 --duration=4 --read-cost=off \
	--output="$tmp/stopped.csv" 2>"$tmp/err" &
pid=$!
sleep 1.5 && kill -STOP "$pid" && sleep 1 && kill -CONT "$pid"
wait "$pid"
check stopped_run_exit_0 test $? -eq 0
# (a quoted field may hold commas: csv, not awk)
busy_col() { "$PY" -c 'import csv, sys; print(" ".join(r["busy"] for r in csv.DictReader(open(sys.argv[1]))))' "$1"; }
check stopped_run_busy test "$(busy_col "$tmp/stopped.csv")" = 1
check stopped_run_said grep -q 'FetchAdd, 2 threads, run 0: stopped for 1\.[0-9]* s of its' "$tmp/err"
"$SCBENCH" --counter=FetchAdd --threads=2 --runs=2 --warmup=0.05 --duration=0.2 --read-cost=off \
	--output="$tmp/running.csv" 2>"$tmp/err"
check unstopped_run_not_stopped sh -c "test $? -eq 0 && ! grep -q stopped '$tmp/err'"
tap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_hostile2.sh - hostile inputs and conditions, round five, as
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

# --- 2. one writer per set ----------------------------------------------------------
# A gated stand-in (each invocation that writes a part waits until $tmp/go
# exists; --list=json and run-all's calibration of the work do not): a second
# writer of a set in use is refused in one line naming the holder; the shards
# of one plan run together, a second copy of one is refused, and a merge
# waits for them.
# (at most 3000 waits of 0.05 s: a check that goes wrong fails, never hangs
# make check, and no stand-in outlives the test)
printf '#!/bin/sh\ni=0\ncase "$*" in *--output=*/parts/*) while [ ! -e "%s" ]; do [ $i -lt 3000 ] || exit 1; i=$((i + 1)); sleep 0.05; done ;; esac\nexec "%s" "$@"\n' \
	"$tmp/go" "$tmp/fake-scbench" >"$tmp/gated" && chmod +x "$tmp/gated" || exit 1
gated() { FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/gated PYTHON_MPL=none "$tmp/run-all.sh" "$@"; }
# until FILE PATTERN: wait (at most 30 s) until FILE holds PATTERN.
until_in() { i=0; while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; grep -q "$2" "$1"; }
gated $small --plan-only --out="$tmp/w" >/dev/null 2>&1 || exit 1
gated --resume="$tmp/w" >/dev/null 2>"$tmp/err.a" &
a=$!
until_in "$tmp/w/run-all.lock" "^pid "
gated --resume="$tmp/w" >/dev/null 2>"$tmp/err"
check second_writer_refused sh -c "test $? -eq 1 && grep -q 'in use by another run-all.sh (pid [0-9]* on .*--resume=$tmp/w)' '$tmp/err'"
check second_writer_one_line one_line
gated --resume="$tmp/w" --merge-only >/dev/null 2>"$tmp/err"
check merge_during_run_refused sh -c "test $? -eq 1 && grep -q 'in use by another' '$tmp/err'"
touch "$tmp/go"
wait "$a"
check first_writer_unharmed test $? -eq 0 -a -s "$tmp/w/dice-fig5.csv"
rm "$tmp/go"
gated $small --plan-only --out="$tmp/s" >/dev/null 2>&1 || exit 1
gated --resume="$tmp/s" --shard=0/2 >/dev/null 2>"$tmp/err.0" &
s0=$!
gated --resume="$tmp/s" --shard=1/2 >/dev/null 2>"$tmp/err.1" &
s1=$!
until_in "$tmp/s/run-all.lock.0-of-2" "^pid " && until_in "$tmp/s/run-all.lock.1-of-2" "^pid "
gated --resume="$tmp/s" --shard=0/2 >/dev/null 2>"$tmp/err"
check second_shard_copy_refused sh -c "test $? -eq 1 && grep -q 'shard 0/2 of .* is already running (pid ' '$tmp/err'"
gated --resume="$tmp/s" >/dev/null 2>"$tmp/err"
check resume_during_shards_refused sh -c "test $? -eq 1 && grep -q 'in use by another run-all.sh (pid .*shard' '$tmp/err'"
gated --resume="$tmp/s" --merge-only >/dev/null 2>"$tmp/err.m" &
m=$!
until_in "$tmp/err.m" "waiting for the running shards"
check merge_waits_for_shards test ! -e "$tmp/s/dice-fig5.csv"
touch "$tmp/go"
wait "$s0"; st0=$?
wait "$s1"; st1=$?
wait "$m"; stm=$?
check shards_together test "$st0$st1" = 00
check merge_after_shards sh -c "test $stm -eq 0 && test -s '$tmp/s/dice-fig5.csv'"

# A SIGINT while the new set is made (after its first file) or just after
# (its lock taken, no run started): the set is whole and the line printed is
# its --resume, which runs to the end (a plain "interrupted" before, and a set
# without run-all.conf that --resume refused). The signal is sent by run-all's
# own program at that point (a wrapper of its functions), so it is exact.
at_signal() { FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/fake-scbench PYTHON_MPL=none RUNALL_TOP=$tmp \
	PYTHONPATH=$tmp/harness PYTHONDONTWRITEBYTECODE=1 "$PLOTPY" -c 'import os, signal, sys
import runall.__main__ as R
mod, name = (R.M, "write_file") if sys.argv[1] == "write" else (R.L, "whole")
orig, sent = getattr(mod, name), []
def wrapped(*args, **kw):
    out = orig(*args, **kw)
    if not sent:
        sent.append(1)
        os.kill(os.getpid(), signal.SIGINT)
    return out
setattr(mod, name, wrapped)
sys.argv[1:] = sys.argv[2:]
sys.exit(R.guarded(R.PROG, R.entry, escape=False))' "$@"; }
for at in write lock; do
	at_signal "$at" $small --out="$tmp/at-$at" >/dev/null 2>"$tmp/err"
	st=$?
	line=$(sed -n 's/.*Continue with: //p' "$tmp/err")
	(eval "FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/fake-scbench PYTHON_MPL=none $line") >/dev/null 2>&1
	check "interrupt_at_set_${at}_prints_resume" sh -c "test $st -eq 130 && test $? -eq 0 -a -n '$line' && test -s '$tmp/at-$at/dice-fig5.csv'"
done

# --- 3. every command the project prints works --------------------------------------
# A restricted set naming a variant none of its experiments runs, interrupted
# (SIGINT to run-all while an invocation waits): the printed --resume line
# runs to the end; so does the regen line printed when plots/regen failed.
rm -f "$tmp/go" && mkdir "$tmp/plots" || exit 1
printf '#!/bin/sh\n[ -e "%s" ] && exit 1\nexit 0\n' "$tmp/regen-fails" >"$tmp/plots/regen" && chmod +x "$tmp/plots/regen" || exit 1
gated --quick --max-threads=1 --experiments=dice-fig3 --variants=CAS,Sharded --out="$tmp/r" >/dev/null 2>"$tmp/err.r" &
r=$!
# (the progress line names the point after its counts and times; should the
# line never come, the gate opens so that the check fails instead of hanging)
until_in "$tmp/err.r" "\[1/1\] .*dice-fig3" && kill -INT "$(sed 's/^pid \([0-9]*\) .*/\1/' "$tmp/r/run-all.lock")" ||
	touch "$tmp/go"
wait "$r"
check interrupted_exit_130 test $? -eq 130
line=$(sed -n 's/.*Continue with: //p' "$tmp/err.r")
touch "$tmp/go" "$tmp/regen-fails"
(eval "FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/gated PYTHON_MPL=none $line") >/dev/null 2>"$tmp/err"
check printed_resume_line_runs sh -c "test $? -eq 1 && test -s '$tmp/r/dice-fig3.csv' && grep -q 'plots/regen failed' '$tmp/err'"
check restricted_conf_names_what_runs grep -q '^variants=CAS$' "$tmp/r/run-all.conf"
line=$(sed -n 's/.*after fixing the cause: //p' "$tmp/err")
rm "$tmp/regen-fails"
(eval "$line") >/dev/null 2>&1
check printed_regen_line_runs test $? -eq 0 -a -n "$line"
rm -rf "$tmp/plots"
# A plan checked into git (no empty logs/ and parts/) resumes, and shards.
fake $small --plan-only --out="$tmp/g" >/dev/null 2>&1 && rmdir "$tmp/g/logs" "$tmp/g/parts" || exit 1
cp -r "$tmp/g" "$tmp/g2"
fake --resume="$tmp/g" >/dev/null 2>"$tmp/err"
check plan_from_git_resumes test $? -eq 0 -a -s "$tmp/g/dice-fig5.csv"
fake --resume="$tmp/g2" --shard=0/1 >/dev/null 2>"$tmp/err"
check plan_from_git_shards test $? -eq 0
# Contradictions, one line and status 2: a duplicated option, a mode or a
# thread cap other than the set's, an edited conf.
fake $small --variants=Serial --out="$tmp/dup" >/dev/null 2>"$tmp/err"
check duplicated_option_refused sh -c "test $? -eq 2 && grep -q -- '--variants given twice' '$tmp/err' && test ! -e '$tmp/dup'"
check duplicated_option_one_line one_line
fake --resume="$tmp/g" --paper >/dev/null 2>"$tmp/err"
check resume_other_mode_refused sh -c "test $? -eq 2 && grep -q 'planned in mode quick' '$tmp/err'"
fake --resume="$tmp/g" --max-threads=2 >/dev/null 2>"$tmp/err"
check resume_other_cap_refused sh -c "test $? -eq 2 && grep -q 'planned for threads=\"1\"' '$tmp/err'"
fake --resume="$tmp/g" --quick --max-threads=1 --merge-only >/dev/null 2>"$tmp/err"
check resume_same_mode_and_cap test $? -eq 0
cp "$tmp/g/run-all.conf" "$tmp/conf.good"
sed -i 's/^order_seed=.*/order_seed=6/' "$tmp/g/run-all.conf"
fake --resume="$tmp/g" >/dev/null 2>"$tmp/err"
check edited_order_seed_refused sh -c "test $? -eq 2 && grep -q 'made from order seed 5' '$tmp/err'"
for key in experiments variants; do
	grep -v "^$key=" "$tmp/conf.good" >"$tmp/g/run-all.conf"
	fake --resume="$tmp/g" >/dev/null 2>"$tmp/err"
	check "conf_without_${key}_refused" sh -c "test $? -eq 2 && grep -q 'no $key line' '$tmp/err'"
done
cp "$tmp/conf.good" "$tmp/g/run-all.conf"
# A part whose meta.json is damaged, or whose rows say threads=nan, runs again.
part=$(ls "$tmp/g/parts/dice-fig5/"*CAS*.csv) && echo '{"command_line": [' >"$part.meta.json" || exit 1
: >"$tmp/fake.log"
fake --resume="$tmp/g" >/dev/null 2>"$tmp/err"
check damaged_meta_part_runs_again sh -c "test $? -eq 0 && grep -q CAS '$tmp/fake.log'"
"$PY" -c 'import sys; p = sys.argv[1]; t = open(p).read().split("\n"); t[1] = t[1].replace(",1,", ",nan,", 1); open(p, "w").write("\n".join(t))' "$part"
: >"$tmp/fake.log"
fake --resume="$tmp/g" >/dev/null 2>"$tmp/err"
check nan_threads_part_runs_again sh -c "test $? -eq 0 && grep -q CAS '$tmp/fake.log'"
# A 140 KB reason of a failed point: --merge-only merges (no csv field limit).
rm "$part" "$part.meta.json" && "$PY" -c 'print("x" * 140000)' >"$part.failed" || exit 1
fake --resume="$tmp/g" --merge-only >/dev/null 2>"$tmp/err"
check long_failed_reason_merges sh -c "test $? -eq 0 && test -s '$tmp/g/failed-points.csv' && ! grep -q 'internal error' '$tmp/err'"

# --- 6. Slurm leftovers ------------------------------------------------------------
mkdir "$tmp/bin" && printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/sbatch" && chmod +x "$tmp/bin/sbatch" || exit 1
PATH=$tmp/bin:$PATH fake $small --slurm --out="$tmp/per%cent" >/dev/null 2>"$tmp/err"
check slurm_path_refused_leaves_nothing sh -c "test $? -eq 2 && test ! -e '$tmp/per%cent' && grep -q 'without line breaks or %' '$tmp/err'"
PATH=$tmp/bin:$PATH fake $small --slurm="--partition=a
b" --out="$tmp/nl" >/dev/null 2>"$tmp/err"
check slurm_line_break_refused sh -c "test $? -eq 2 && test ! -e '$tmp/nl' && grep -q 'line break' '$tmp/err'"

# --- 4. paths that are not UTF-8 ---------------------------------------------------
# The whole pipeline (the real scbench through run-all.sh, the merge,
# plots/regen, aggregate.py, report.py), then compare, in a directory named
# with the byte 0xff: every file written, the byte shown as \xff in messages,
# the meta.json UTF-8 JSON.
ln -s "$TOP_SRCDIR/plots" "$tmp/plots" || exit 1
ff=$(printf '%s/set\377' "$tmp")
SCBENCH=$SCBENCH PYTHON_MPL=none "$tmp/run-all.sh" $small --out="$ff" >/dev/null 2>"$tmp/err"
check ff_pipeline_exit_0 sh -c "test $? -eq 0 && test -s \"\$0/REPORT.md\" && test -s \"\$0/figdata/claims.json\"" "$ff"
check ff_pipeline_said_escaped grep -q 'result set .*/set\\xff' "$tmp/err"
check ff_meta_utf8_json "$PY" -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$ff/dice-fig5.csv.meta.json"
"$TOP_SRCDIR/plots/compare" --no-figures --out="$ff.cmp" "$ff" "$ff" >"$tmp/out" 2>"$tmp/err"
check ff_compare_exit_0 sh -c "test $? -eq 0 && test -s \"\$0/COMPARE.md\" && grep -q 'set.xff' '$tmp/out'" "$ff.cmp"
rm "$tmp/plots"
# A Ctrl-C during a tool's imports (here in a matplotlib that signals its
# importer): status 130, no traceback. SIGINT's disposition is reset first,
# as a terminal's is: a test started in the background by a shell inherits it
# ignored, and then nothing interrupts the import (status 1, a false failure).
mkdir -p "$tmp/slowmod/matplotlib" && printf 'import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n' \
	>"$tmp/slowmod/matplotlib/__init__.py" || exit 1
PYTHONPATH=$tmp/slowmod "$PLOTPY" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$PLOTPY" "$TOP_SRCDIR/plots/mpl_figures.py" "$fixture" >/dev/null 2>"$tmp/err"
rc=$?
check "ctrl_c_during_imports_130 (exit $rc)" sh -c "test $rc -eq 130 && ! grep -q Traceback '$tmp/err'"

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

# --- 6. the rest ---------------------------------------------------------------------
# SIGUSR1 or SIGALRM during a run end it as SIGTERM does: 128 + signal, no
# temporary file left.
for sig in USR1 ALRM; do
	mkdir "$tmp/sig$sig" || exit 1
	"$SCBENCH" --counter=FetchAdd --runs=3 --warmup=0 --duration=2 --read-cost=off \
		--output="$tmp/sig$sig/o.csv" >/dev/null 2>"$tmp/err" &
	pid=$!
	sleep 1.5 && kill -"$sig" "$pid"
	wait "$pid"
	st=$?
	check "sig${sig}_ends_run" test "$st" -eq $((128 + $(kill -l "$sig")))
	check "sig${sig}_no_temporaries" test -z "$(ls -A "$tmp/sig$sig")"
done
# Control bytes and line breaks in what a message echoes: \xNN, one line.
"$SCBENCH" --counter="$(printf 'X\033[31m')" --threads="$(printf '1\n2')" >/dev/null 2>"$tmp/err"
check scbench_message_escaped sh -c "test $? -eq 2 && grep -q 'X.x1b\[31m' '$tmp/err' && ! grep -q \"$(printf '\033')\" '$tmp/err'"
check scbench_message_one_line one_line
fake --max-threads="$(printf '1\n\033[31m')" --out="$tmp/cb" >/dev/null 2>"$tmp/err"
check run_all_message_escaped sh -c "test $? -eq 2 && grep -q 'max-threads=1.x0a.x1b' '$tmp/err'"
check run_all_message_one_line one_line
"$TOP_SRCDIR/plots/compare" "$(printf 'a\033[31m')" "$fixture" >/dev/null 2>"$tmp/err"
check compare_message_escaped sh -c "test $? -eq 2 && grep -q 'a.x1b\[31m' '$tmp/err' && ! grep -q \"$(printf '\033')\" '$tmp/err'"
# --out='' (an unset variable) is a usage error for compare and atlas, as for run-all.
for tool in compare atlas; do
	(cd "$tmp" && "$TOP_SRCDIR/plots/$tool" --out= "$fixture" "$fixture" >/dev/null 2>"$tmp/err")
	check "${tool}_empty_out_usage" sh -c "test $? -eq 2 && grep -q 'out is empty' '$tmp/err'"
done
# compare of a linked CSV reads the meta.json beside the link's target.
mkdir "$tmp/lnk" && ln -s "$fixture/dice-fig5.csv" "$tmp/lnk/a.csv" || exit 1
"$TOP_SRCDIR/plots/compare" --no-figures --out="$tmp/lnk/c" "$tmp/lnk/a.csv" "$fixture/dice-fig5.csv" >/dev/null 2>"$tmp/err"
check compare_linked_csv_meta sh -c "test $? -eq 0 && ! grep -q 'No metadata' '$tmp/err' '$tmp/lnk/c/COMPARE.md'"
# compare's memory grows by less than 1 KB a CSV row (the bootstrap drew all
# its 10,000 resamples at once: 16 bytes x 10,000 a row of a point, 1.9 GB
# for two 40,000-row CSVs; then each row a dict of 3.1 KB): the peak RSS of
# compare on two generated CSVs of 1,000 and of 5,000 rows each, its growth
# per row read.
"$SCBENCH" --counter=FetchAdd,CAS --threads=1,2 --runs=2 --warmup=0 --duration=0.01 --read-cost=off \
	--output="$tmp/seed.csv" 2>/dev/null || exit 1
for k in 125 625; do
	"$PY" -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(open(sys.argv[2], "w", newline=""))
w.writerow(rows[0])
for k in range(int(sys.argv[3])):
    for r in rows[1:]:
        w.writerow([str(k) if c == "run" else v for c, v in zip(rows[0], r)])' "$tmp/seed.csv" "$tmp/gen$k.csv" "$k" &&
		cp "$tmp/seed.csv.meta.json" "$tmp/gen$k.csv.meta.json" || exit 1
done
rss() { "$PY" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$TOP_SRCDIR/plots/compare" --no-figures \
	--out="$tmp/mem$1" "$tmp/gen$1.csv" "$tmp/gen$1.csv"; }
if small_kb=$(rss 125) && large_kb=$(rss 625); then
	check compare_memory_per_row test $(((large_kb - small_kb) * 1024 / (2 * (5000 - 1000)))) -lt 1024
else
	skip compare_memory_per_row "plots/compare cannot run here (no numpy and scipy)"
fi
# scbench's messages quoting an error escape its control bytes as its usage
# errors do: hwloc's rejected description, given with an ESC and a line break,
# is one line (it was printed raw, two lines and a colour).
HWLOC_SYNTHETIC=$(printf 'bad\033[31m\nx') "$SCBENCH" --counter=CAS --threads=1 --runs=1 --warmup=0 \
	--duration=0.01 --read-cost=off --output="$tmp/esc.csv" >/dev/null 2>"$tmp/err"
if grep -q HWLOC_SYNTHETIC "$tmp/err"; then
	check scbench_error_message_one_line sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'bad.x1b.31m.x0ax' '$tmp/err' && ! grep -q \"\$(printf '\033')\" '$tmp/err'"
else
	skip scbench_error_message_one_line "scbench built without hwloc"
fi
SCOUNTERS_NODE=$(printf 'x\033[31m\ny') "$SCBENCH" --counter=CAS --threads=1 --runs=1 --warmup=0 \
	--duration=0.01 --read-cost=off --output="$tmp/esc.csv" >/dev/null 2>"$tmp/err"
check scbench_env_warning_one_line sh -c "test \$(grep -c SCOUNTERS_NODE '$tmp/err') -eq 1 && grep -q 'x.x1b.31m.x0ay is not rseq' '$tmp/err'"
# A path's line break, ESC and 0xff in the plots' messages are \xNN (they were
# printed raw: the line split, the terminal driven, a byte that is no text).
odd=$tmp/odd$(printf '\012\033\377')dir
mkdir "$odd" || exit 1
"$PY" "$TOP_SRCDIR/plots/aggregate.py" "$odd" >/dev/null 2>"$tmp/err"
check aggregate_path_message_one_line sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'odd.x0a.x1b.xffdir: not a result set' '$tmp/err'"
"$TOP_SRCDIR/plots/regen" "$odd/none" >/dev/null 2>"$tmp/err"
check regen_path_message_escaped sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'odd.x0a.x1b.xffdir/none: not a directory' '$tmp/err' && ! LC_ALL=C grep -q \"\$(printf '[\033\377]')\" '$tmp/err'"
# busy is 0 or 1: any other value (-1, 2, 1e308) is refused in one line naming
# the file, line and column, as a negative ops_per_ms is.
for bad in -1 2 1e308; do
	rm -rf "$tmp/busy" && cp -r "$fixture" "$tmp/busy" || exit 1
	f=$tmp/busy/dice-fig3.csv
	awk -F, -v OFS=, -v bad="$bad" 'NR == 1 { print $0, "busy"; next } { print $0, (NR == 3 ? bad : 0) }' "$f" >"$f.new" &&
		mv "$f.new" "$f" || exit 1
	"$PLOTPY" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/busy" >/dev/null 2>"$tmp/err"
	check "aggregate_busy_${bad}_refused" sh -c "test $? -eq 1 && grep -q 'dice-fig3.csv line 3 column busy' '$tmp/err'"
	check "aggregate_busy_${bad}_one_line" one_line
done
tap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_run_all_slurm.sh - run-all.sh --slurm without a cluster, as TAP: fake
# sbatch and squeue (shell scripts that log their arguments and answer as
# Slurm does) and the fake scbench of tests/fake-scbench.sh stand in. Without
# sbatch on PATH --slurm says so in one line and exits 2, creating nothing;
# a new set is planned as --plan-only plans it and nothing runs; the array
# (--array=0-(K-1), one whole node per task, the user's options first) and
# the merge job (afterany on the array) are submitted with scripts written
# into DIR/slurm/ that run the submission's scbench; the shard script runs its shard and refuses a node with
# another PU count; the merge script names the shards with missing parts and
# merges nothing, or merges what a local run merges; --slurm --resume submits
# only the shards with parts to run (the merge alone when none has), and
# refuses while a job of the set is queued or running; bad options, a damaged
# record and a failing sbatch are refused with their status. The real Slurm
# is tests/slurm-check.sh's. Everything is in a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh"
mkdir "$tmp/harness" && cp -r "$TOP_SRCDIR/harness/runall" "$tmp/harness/" || exit 1
cp "$TOP_SRCDIR/tests/fake-scbench.sh" "$tmp/fake-scbench" && chmod +x "$tmp/fake-scbench" || exit 1
"$SCBENCH" --list=json >"$tmp/list.json" || exit 1
export FAKE_LIST=$tmp/list.json FAKE_LOG=$tmp/log SCBENCH=$tmp/fake-scbench SCOUNTERS_NO_INSTALL=1
: >"$FAKE_LOG"

# Fake Slurm commands, first on PATH: sbatch logs its arguments (one line per
# call) and prints the next job id as --parsable does ("ID;cluster");
# FAKE_SBATCH_FAIL makes it fail. squeue prints the file FAKE_SQUEUE.
mkdir "$tmp/bin"
cat >"$tmp/bin/sbatch" <<'EOF'
#!/bin/sh
echo "$*" >>"$SB_LOG"
if [ -n "${FAKE_SBATCH_FAIL:-}" ]; then
	echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2
	[ -n "${FAKE_SBATCH_BYTES:-}" ] && printf 'bytes \377\376 not UTF-8\n' >&2
	exit 1
fi
n=$(($(wc -l <"$SB_LOG") + 100))
echo "$n;fakecluster"
EOF
cat >"$tmp/bin/squeue" <<'EOF'
#!/bin/sh
cat "$FAKE_SQUEUE"
EOF
chmod +x "$tmp/bin/sbatch" "$tmp/bin/squeue"
export SB_LOG=$tmp/sbatch.log FAKE_SQUEUE=$tmp/squeue.out PATH="$tmp/bin:$PATH"
: >"$SB_LOG"
: >"$FAKE_SQUEUE"
run_all() { "$tmp/run-all.sh" "$@" >"$tmp/out" 2>"$tmp/err"; }
plan="--quick --max-threads 2 --experiments=dice-fig4-high,latency --variants=FetchAdd,Serial"
body() { grep -v '^#' "$1"; }

# Without sbatch on PATH: every command but Slurm's.
mkdir "$tmp/nobin"
for d in /usr/local/bin /usr/bin /bin; do
	[ -d "$d" ] && ln -s "$d"/* "$tmp/nobin/" 2>/dev/null
done
rm -f "$tmp/nobin/sbatch" "$tmp/nobin/squeue" "$tmp/nobin/scancel" "$tmp/nobin/srun"
PATH=$tmp/nobin run_all --slurm $plan --out "$tmp/never"
check no_sbatch_exit_2 test $? -eq 2
check no_sbatch_one_line sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'sbatch is not on PATH' '$tmp/err'"
check no_sbatch_creates_nothing test ! -e "$tmp/never"

# A local run, the reference; then the same plan with --slurm.
run_all $plan --order-seed 7 --out "$tmp/local"
check local_run_exit_0 test $? -eq 0
: >"$FAKE_LOG"
run_all --slurm='-p debug --time=10:00' --slurm-tasks=3 $plan --order-seed 7 --out "$tmp/set"
check slurm_exit_0 test $? -eq 0
check slurm_runs_nothing test ! -s "$FAKE_LOG"
check slurm_same_plan sh -c "cmp -s '$tmp/local/run-all.plan' '$tmp/set/run-all.plan' &&
	cmp -s '$tmp/local/run-all.order' '$tmp/set/run-all.order'"
check slurm_two_submissions test "$(wc -l <"$SB_LOG")" -eq 2
s1=$(sed -n 1p "$SB_LOG")
s2=$(sed -n 2p "$SB_LOG")
check array_submitted sh -c "case '$s1' in '--parsable -p debug --time=10:00 '*'--array=0-2 --nodes=1 --exclusive '*' $tmp/set/slurm/shard.sh') exit 0 ;; esac; exit 1"
check merge_after_array sh -c "case '$s2' in '--parsable -p debug --time=10:00 '*'--dependency=afterany:101 '*' $tmp/set/slurm/merge.sh') exit 0 ;; esac; exit 1"
check slurm_prints_ids_and_commands sh -c "grep -q 'as array job 101 ' '$tmp/out' && grep -q 'merge as job 102 ' '$tmp/out' &&
	grep -q 'squeue -j 101,102' '$tmp/out' && grep -q -- \"'--slurm=-p debug --time=10:00' --resume $tmp/set\" '$tmp/out'"
check record_written grep -qx 'tasks=3' "$tmp/set/slurm/run-all.slurm"
# Tasks and merge run the scbench of the submission: no install, no build.
check job_scripts_use_its_scbench sh -c "grep -qx 'export SCOUNTERS_NO_INSTALL=1 SCBENCH=$tmp/fake-scbench' '$tmp/set/slurm/shard.sh' &&
	grep -qx 'export SCOUNTERS_NO_INSTALL=1 SCBENCH=$tmp/fake-scbench' '$tmp/set/slurm/merge.sh'"

# The shard script (as a task runs it): its shard, in order, and nothing more.
SLURM_ARRAY_TASK_ID=1 "$tmp/set/slurm/shard.sh" >"$tmp/out" 2>"$tmp/err"
check shard_script_exit_0 test $? -eq 0
body "$tmp/set/run-all.order" | awk -v d="$tmp/set" 'NR % 3 == 2 { print d "/parts/" $1 "/" $2 ".csv" }' >"$tmp/want1"
check shard_script_runs_shard_1 cmp -s "$tmp/want1" "$FAKE_LOG"
# A node with another PU count: refused before anything runs.
mkdir "$tmp/otherbin" && printf '#!/bin/sh\necho 96\n' >"$tmp/otherbin/hwloc-calc" && chmod +x "$tmp/otherbin/hwloc-calc"
: >"$FAKE_LOG"
PATH=$tmp/otherbin:$PATH SLURM_ARRAY_TASK_ID=0 "$tmp/set/slurm/shard.sh" >"$tmp/out" 2>"$tmp/err"
check shard_script_other_node_refused sh -c "test $? -eq 1 && grep -q 'has 96 PUs' '$tmp/err' && test ! -s '$FAKE_LOG'"

# The merge script with shards 0 and 2 not run: they are named, nothing merged.
"$tmp/set/slurm/merge.sh" >"$tmp/out" 2>"$tmp/err"
check merge_script_missing_exit_1 test $? -eq 1
check merge_script_names_shards sh -c "grep -q 'not merged: shards 0, 2 of 3 ' '$tmp/err' && grep -q -- '--resume $tmp/set' '$tmp/err'"
check merge_script_merges_nothing test -z "$(find "$tmp/set" -maxdepth 1 -name '*.csv')"

# squeue's output not UTF-8: read all the same, not a traceback.
printf '\377\376 x y\n101 101_2 RUNNING\n' >"$FAKE_SQUEUE"
run_all --slurm --resume "$tmp/set"
check squeue_not_utf8_read sh -c "test $? -eq 1 && grep -q '101_2 (RUNNING' '$tmp/err' && ! grep -q Traceback '$tmp/err' && test \$(wc -l <'$SB_LOG') -eq 2"
# Resume while a task of the set is still running: refused, nothing submitted.
echo "101 101_2 RUNNING" >"$FAKE_SQUEUE"
run_all --slurm --resume "$tmp/set"
check resume_busy_exit_1 sh -c "test $? -eq 1 && grep -q '101_2 (RUNNING)' '$tmp/err' && test \$(wc -l <'$SB_LOG') -eq 2"
# The jobs ended: shards 0 and 2 submitted again, then the merge.
printf '101 101_0 COMPLETED\n102 102 FAILED\n999 999 RUNNING\n' >"$FAKE_SQUEUE"
run_all --slurm --resume "$tmp/set"
check resume_exit_0 test $? -eq 0
s3=$(sed -n 3p "$SB_LOG")
s4=$(sed -n 4p "$SB_LOG")
check resume_submits_missing_shards sh -c "case '$s3' in *'--array=0,2 '*) exit 0 ;; esac; exit 1"
check resume_merge_after_array sh -c "case '$s4' in *'--dependency=afterany:103 '*merge.sh) exit 0 ;; esac; exit 1"
check resume_records_jobs grep -qx 'jobs=101 102 103 104' "$tmp/set/slurm/run-all.slurm"
for i in 0 2; do
	SLURM_ARRAY_TASK_ID=$i "$tmp/set/slurm/shard.sh" >/dev/null 2>&1 || echo "shard $i failed" >>"$tmp/shard-fail"
done
check resumed_shards_exit_0 test ! -e "$tmp/shard-fail"
"$tmp/set/slurm/merge.sh" >"$tmp/out" 2>"$tmp/err"
check merge_script_exit_0 test $? -eq 0
check merged_like_local sh -c "cd '$tmp/local' && for f in *.csv; do cmp -s \"\$f\" '$tmp/set/'\"\$f\" || exit 1; done &&
	test \"\$(ls '$tmp/local' | grep -c csv)\" = \"\$(ls '$tmp/set' | grep -c csv)\""
# Nothing left to run: the merge alone.
: >"$FAKE_SQUEUE"
run_all --slurm --resume "$tmp/set"
check resume_complete_merge_alone sh -c "test $? -eq 0 && grep -q 'parts are done: submitted the merge as job 105' '$tmp/out' &&
	sed -n 5p '$SB_LOG' | grep -q merge.sh && ! sed -n 5p '$SB_LOG' | grep -q -- --array"

# A set whose path holds quotes and commands (--slurm refuses a line
# break): the job scripts quote it; nothing of it runs (the scripts run in $tmp).
odd="$tmp/odd \$(touch pwned-subst) \`touch pwned-bq\` 'x\" ;touch pwned-semi"
run_all --slurm $plan --out "$odd"
check odd_path_submitted test $? -eq 0
(cd "$tmp" && unset SLURM_ARRAY_TASK_ID && "$odd/slurm/shard.sh" >/dev/null 2>&1)
check odd_path_shard_script_nothing_ran sh -c "test $? -eq 2 && test -z \"\$(find '$tmp' -maxdepth 1 -name 'pwned-*')\""
check odd_path_scripts_parse sh -c "bash -n \"\$0/slurm/shard.sh\" && bash -n \"\$0/slurm/merge.sh\"" "$odd"

# Bad options and data.
run_all --slurm='--array=1-3' $plan --out "$tmp/bad1"
check own_option_refused sh -c "test $? -eq 2 && test ! -e '$tmp/bad1'"
run_all --slurm="-p 'debug" $plan --out "$tmp/bad2"
check unbalanced_quote_refused test $? -eq 2
# A word that is no option's value would reach sbatch as its script.
for opts in '--hold batch' '-p debug extra' '--time=10:00 job.sh' '-p'; do
	run_all --slurm="$opts" $plan --out "$tmp/bad5"
	rc=$?
	check "stray_word_refused ($opts: $(head -1 "$tmp/err"))" sh -c "test $rc -eq 2 && test ! -e '$tmp/bad5'"
done
run_all --slurm --slurm-tasks=0 $plan --out "$tmp/bad3"
check tasks_zero_refused test $? -eq 2
run_all --slurm-tasks=3 $plan --out "$tmp/bad4"
check tasks_without_slurm_refused test $? -eq 2
run_all --slurm --resume "$tmp/set" --shard=0/3
check slurm_with_shard_refused test $? -eq 2
run_all --slurm --resume "$tmp/set" --slurm-tasks=2
check resume_new_tasks_refused test $? -eq 2
cp -r "$tmp/set" "$tmp/damaged"
printf 'tasks=3; rm -rf /\njobs=\n' >"$tmp/damaged/slurm/run-all.slurm"
run_all --slurm --resume "$tmp/damaged"
check damaged_record_refused sh -c "test $? -eq 2 && grep -q 'run-all.slurm line 1' '$tmp/err'"
# sbatch fails: exit 1, sbatch's message and how to submit the plan later.
nsb=$(wc -l <"$SB_LOG")
FAKE_SBATCH_FAIL=1 run_all --slurm $plan --out "$tmp/fail"
check sbatch_failure_exit_1 sh -c "test $? -eq 1 && grep -q 'Invalid partition' '$tmp/err' &&
	grep -q -- '--slurm --resume $tmp/fail' '$tmp/err' && test -f '$tmp/fail/run-all.plan'"
check sbatch_called_once_on_failure test "$(wc -l <"$SB_LOG")" -eq $((nsb + 1))
# sbatch's output not UTF-8: read, not a traceback.
FAKE_SBATCH_FAIL=1 FAKE_SBATCH_BYTES=1 run_all --slurm $plan --out "$tmp/fail8"
check sbatch_not_utf8_no_traceback sh -c "test $? -eq 1 && grep -q 'Invalid partition' '$tmp/err' && ! grep -q Traceback '$tmp/err'"
tap_done

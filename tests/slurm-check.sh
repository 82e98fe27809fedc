#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/slurm-check.sh - run-all.sh --slurm against a real Slurm: a one-host
# cluster (tests/slurm-cluster.sh: munged, slurmctld, slurmd from Debian,
# all in a temporary directory, 2 CPUs, one partition) started here and
# stopped at the end, whatever happens.
#
#   tests/slurm-check.sh                 # all the checks
#   tests/slurm-check.sh --build DIR     # use a configured and built tree
#
# Steps: install what is missing (slurmctld, slurmd, slurm-client, munge and
# the build's and figures' packages; needs root, as CI has); copy the source
# tree as it is in the working directory and build it (as
# tests/cross-check.sh does), unless --build; start the cluster; then
#   1. run-all.sh --slurm without sbatch on PATH: one line, exit 2;
#   2. the plan (PLAN_ARGS, default a --quick plan of two experiments and
#      three variants: 12 invocations here) run locally, timed;
#   3. the same plan with --slurm --slurm-tasks=3: an array of 3 tasks and
#      a merge job; task 2 is cancelled (scancel JOB_2) before it starts
#      (the tasks take the one node in turn); the other two must complete,
#      the merge job must fail naming shard 2 as missing and leave no
#      merged set;
#   4. --slurm --resume DIR: only shard 2 is submitted again, then the
#      merge, which must complete;
#   5. the merged set equals the plan: every planned invocation's rows
#      (variant, thread count, run, work, counters) present exactly once in
#      its experiment's CSV, no other row, and the same keys as the local
#      set; figures and REPORT.md regenerated; the merged meta records the
#      host the parts ran on and REPORT.md names it (with more than one it
#      says "from N machines").
# Wall times of the local run and of the array run (submission to merged set,
# both phases) are printed: on one 2-CPU node the tasks run one after another
# (each takes the whole node), so the array cannot be faster here; on k
# identical nodes its measuring part approaches 1/k.
# Every check prints a TAP-like line; the end is a summary in automake's
# format ("# PASS: n" ...) that .ci/run adds to its tally.
#
# Options:
#   --build DIR   a configured and built tree to use instead of a copy
#   --timeout S   give up waiting for the jobs after S seconds in all
#                 (default 600): a failure, never a hang
#   -h, --help    this text
# Environment: SLURM_CHECK_DIR (work directory to use and keep; default a
# temporary one, removed on success), PLAN_ARGS (see step 2), JOBS (make -j).
# Time: 6.5 minutes on the loaded 2-core development host (build 4, cluster
# 0.1, the runs 2.5); 1.5 minutes with --build.
# Exit status: 0 when every check passed, 1 otherwise, 2 on bad usage.
set -euo pipefail
me=slurm-check
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

build=""
timeout_s=600
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--build) [ $# -ge 2 ] || { echo "$me: --build needs a directory" >&2; exit 2; }
		build=$2; shift ;;
	--build=*) build=${1#--build=} ;;
	--timeout) [ $# -ge 2 ] || { echo "$me: --timeout needs seconds" >&2; exit 2; }
		timeout_s=$2; shift ;;
	--timeout=*) timeout_s=${1#--timeout=} ;;
	*) usage >&2; echo "$me: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || { echo "$me: --timeout $timeout_s: expected seconds" >&2; exit 2; }

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
t_start=$(date +%s)
deadline=$((t_start + timeout_s))
elapsed() { echo $(($(date +%s) - t_start)); }
say() { echo "$me: $*"; }

# shellcheck source=tests/emu-common.sh
. "$(dirname "$0")/emu-common.sh"
emu_workdir SLURM_CHECK_DIR scounters-slurm
cluster=$work/cluster
log=$work/checks.log
: >"$log"

emu_checks "$log"
summary() { emu_summary "$me: run-all.sh --slurm on a one-host Slurm cluster"; }
check() { emu_check "$@"; }
# An error before or between the checks: counted, the summary printed.
error_exit() {
	echo "ERROR: $*"
	sum[TOTAL]=$((sum[TOTAL] + 1))
	sum[ERROR]=$((sum[ERROR] + 1))
	summary
	exit 1
}

# 1. Packages: Slurm and munge (their service scripts are never used), and
# what the build and run-all.sh's figures need.
emu_install slurmctld slurmd slurm-client munge iproute2 build-essential autoconf automake \
	libtool pkg-config libhwloc-dev hwloc gnuplot-nox python3-matplotlib python3-numpy python3-scipy

# 2. The build.
if [ -n "$build" ]; then
	build=$(cd "$build" && pwd)
	[ -x "$build/harness/scbench" ] && [ -x "$build/run-all.sh" ] ||
		{ echo "$me: --build $build: not a built tree" >&2; exit 1; }
else
	emu_copy_source "$top" "$work/src"
	build=$src
	say "building in $build"
	(cd "$build" && ./configure --enable-werror && make -j"$jobs") >"$work/build.log" 2>&1 ||
		{ tail -40 "$work/build.log" >&2; exit 1; }
	say "built after $(elapsed) s"
fi
runall=$build/run-all.sh
export SCOUNTERS_NO_INSTALL=1 MPLCONFIGDIR=$work/mpl
plan_args=${PLAN_ARGS:---quick --experiments=dice-fig4-high,dice-fig5 --variants=FetchAdd,RBONuma,Multiline}
seed=4242

# 3. The cluster, stopped at exit whatever happens (before the work
# directory is removed).
cluster_stop() {
	"$top/tests/slurm-cluster.sh" stop "$cluster" >>"$log" 2>&1 || true
}
trap 'cluster_stop; emu_cleanup' EXIT
# A TERM (timeout) or Ctrl-C ends the script through its EXIT trap.
trap 'exit 143' TERM
trap 'exit 130' INT
"$top/tests/slurm-cluster.sh" start "$cluster" || error_exit "the Slurm cluster did not start"
export SLURM_CONF=$cluster/slurm.conf
say "cluster up after $(elapsed) s: $(sinfo -h -N -o '%N %c CPUs %t' | head -1)"

# Job states (scontrol: finished jobs stay visible for MinJobAge).
job_state() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
# wait_job ID: until the job (every task of an array) has ended; 1 on timeout.
wait_job() {
	local id=$1 states
	while [ "$(date +%s)" -lt "$deadline" ]; do
		states=$(scontrol -o show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		[ -n "$states" ] || return 1
		if ! grep -qE '^(PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|SUSPENDED)$' <<<"$states"; then
			return 0
		fi
		sleep 1
	done
	echo "$me: job $id still not finished at the deadline ($timeout_s s): $(squeue -h -o '%i %T %r' | paste -sd';' -)"
	return 1
}
# job_seconds ID: seconds from the earliest start to the latest end of a
# job's tasks (scontrol's StartTime and EndTime).
job_seconds() {
	scontrol -o show job "$1" 2>/dev/null | /usr/bin/python3 -c '
import sys, datetime
s, e = [], []
for line in sys.stdin:
    f = dict(w.split("=", 1) for w in line.split() if "=" in w)
    if f.get("JobState") != "COMPLETED":
        continue
    p = lambda t: datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S")
    s.append(p(f["StartTime"])); e.append(p(f["EndTime"]))
print(int((max(e) - min(s)).total_seconds()) if s else "?")'
}

# Check 1: no sbatch on PATH.
no_sbatch() {
	local bin=$work/bin-without-sbatch out rc=0
	mkdir -p "$bin"
	# Every command of /usr/bin and /usr/local/bin but Slurm's (/bin is /usr/bin on Debian).
	ln -s /usr/local/bin/* "$bin/" 2>/dev/null || true
	ln -s /usr/bin/* "$bin/" 2>/dev/null || true
	rm -f "$bin/sbatch" "$bin/squeue" "$bin/scancel" "$bin/sacct" "$bin/srun" "$bin/salloc"
	# shellcheck disable=SC2086 # plan_args is a list of options
	out=$(PATH=$bin "$runall" --slurm $plan_args --out "$work/never" 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -eq 2 ] || { echo "exit $rc, not 2"; return 1; }
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "not one line"; return 1; }
	grep -q sbatch <<<"$out" || { echo "does not name sbatch"; return 1; }
	[ ! -e "$work/never" ] || { echo "$work/never was created"; return 1; }
}
check "run-all.sh --slurm without sbatch on PATH: one line, exit 2" no_sbatch

# Check 2: the plan run locally.
local_s=""
run_local() {
	local t0
	t0=$(date +%s)
	# shellcheck disable=SC2086
	"$runall" $plan_args --order-seed=$seed --out "$work/local" || return 1
	local_s=$(($(date +%s) - t0))
	[ -s "$work/local/REPORT.md" ] || { echo "no REPORT.md"; return 1; }
}
check "run-all.sh $plan_args (locally)" run_local

# Check 3: the array, task 2 cancelled.
set_dir=$work/array
array1="" merge1="" submit1_s=0 phase1_s=""
submit_array() {
	local out t0
	t0=$(date +%s)
	# shellcheck disable=SC2086
	out=$("$runall" --slurm --slurm-tasks=3 $plan_args --order-seed=$seed --out "$set_dir") || return 1
	echo "$out"
	array1=$(sed -n 's/.* as array job \([0-9]*\) .*/\1/p' <<<"$out" | head -1)
	merge1=$(sed -n 's/.* the merge as job \([0-9]*\) .*/\1/p' <<<"$out" | head -1)
	[ -n "$array1" ] && [ -n "$merge1" ] || { echo "no job ids in the output"; return 1; }
	# Task 2 waits for the node (tasks 0 and 1 take it first): cancel it now.
	scancel "${array1}_2" || return 1
	submit1_s=$t0
	grep -q 'squeue -j' <<<"$out" && grep -q -- '--resume' <<<"$out" ||
		{ echo "no squeue or resume command printed"; return 1; }
	[ -f "$set_dir/run-all.plan" ] && [ -f "$set_dir/run-all.order" ] || { echo "no plan"; return 1; }
	cmp -s "$set_dir/run-all.plan" "$work/local/run-all.plan" || { echo "plan differs from the local one"; return 1; }
}
check "run-all.sh --slurm --slurm-tasks=3: array of 3 tasks and a merge job submitted, task 2 cancelled" submit_array
[ -n "$array1" ] || error_exit "nothing was submitted"

first_phase() {
	local s0 s1 s2 m out
	wait_job "$array1" || return 1
	wait_job "$merge1" || return 1
	phase1_s=$(($(date +%s) - submit1_s))
	s0=$(job_state "${array1}_0")
	s1=$(job_state "${array1}_1")
	s2=$(job_state "${array1}_2")
	m=$(job_state "$merge1")
	# A pending task cancelled before it started leaves no record (scontrol
	# does not find it): CANCELLED or nothing, and it never ran.
	echo "task 0 $s0, task 1 $s1, task 2 ${s2:-gone (cancelled while pending)}, merge $m"
	[ "$s0" = COMPLETED ] && [ "$s1" = COMPLETED ] || return 1
	[ "$s2" = CANCELLED ] || [ -z "$s2" ] || return 1
	! ls "$set_dir/slurm/shard-${array1}_2.out" 2>/dev/null || { echo "task 2 ran"; return 1; }
	[ "$m" = FAILED ] || { echo "the merge job did not fail"; return 1; }
	out=$(cat "$set_dir/slurm/merge-$merge1.out")
	echo "$out"
	grep -q 'shard 2' <<<"$out" || { echo "the merge job does not name shard 2"; return 1; }
	! grep -qE 'shards? [01][ ,]' <<<"$out" || { echo "the merge job names a complete shard"; return 1; }
	[ ! -e "$set_dir/REPORT.md" ] && ! ls "$set_dir"/*.csv >/dev/null 2>&1 ||
		{ echo "a merged set was written"; return 1; }
}
check "tasks 0 and 1 complete, task 2 cancelled, the merge job fails naming shard 2" first_phase

# Check 4: resume.
array2="" merge2="" phase2_s=""
resume_array() {
	local out t0
	t0=$(date +%s)
	out=$("$runall" --slurm --resume "$set_dir") || return 1
	echo "$out"
	array2=$(sed -n 's/.* as array job \([0-9]*\) .*/\1/p' <<<"$out" | head -1)
	merge2=$(sed -n 's/.* the merge as job \([0-9]*\) .*/\1/p' <<<"$out" | head -1)
	[ -n "$array2" ] && [ -n "$merge2" ] || { echo "no job ids in the output"; return 1; }
	grep -q 'submitted shard 2 of 3 ' <<<"$out" || { echo "not shard 2 alone"; return 1; }
	wait_job "$array2" && wait_job "$merge2" || return 1
	phase2_s=$(($(date +%s) - t0))
	echo "task 2 $(job_state "${array2}_2"), merge $(job_state "$merge2")"
	[ "$(job_state "${array2}_2")" = COMPLETED ] && [ "$(job_state "$merge2")" = COMPLETED ] || {
		cat "$set_dir/slurm/merge-$merge2.out" 2>/dev/null
		return 1
	}
}
check "run-all.sh --slurm --resume: shard 2 alone submitted again, merge completes" resume_array

# Check 5: the merged set against the plan and the local set.
keys_of_set() { # keys_of_set DIR: "experiment counter threads run work counters" per row, sorted
	/usr/bin/python3 - "$1" <<'EOF'
import csv, os, sys
d = sys.argv[1]
exps = []
with open(os.path.join(d, "run-all.plan")) as f:
    for line in f:
        e = line.split()[0]
        if e not in exps:
            exps.append(e)
for e in exps:
    with open(os.path.join(d, e + ".csv"), newline="") as f:
        for r in csv.DictReader(f):
            print(e, r["counter"], int(r["threads"]), int(r["run"]),
                  "%g" % float(r["work_pct"] or 0), int(r["counters"] or 1))
EOF
}
keys_of_plan() { # the keys run-all.plan asks for, one line per row
	/usr/bin/python3 - "$1" <<'EOF'
import os, sys
with open(os.path.join(sys.argv[1], "run-all.plan")) as f:
    for line in f:
        w = line.split()
        o = dict(a[2:].split("=", 1) for a in w[2:] if a.startswith("--") and "=" in a)
        first = int(o.get("first-run", 0))
        for v in o["counter"].split(","):
            for r in range(first, first + int(o["runs"])):
                print(w[0], v, int(o["threads"]), r, "%g" % float(o.get("work", 0)),
                      int(o.get("counters", 1)))
EOF
}
merged_equals_plan() {
	local plan rows dup
	keys_of_plan "$set_dir" | sort >"$work/plan.keys"
	keys_of_set "$set_dir" | sort >"$work/array.keys"
	keys_of_set "$work/local" | sort >"$work/local.keys"
	plan=$(wc -l <"$work/plan.keys")
	rows=$(wc -l <"$work/array.keys")
	dup=$(uniq -d "$work/array.keys" | wc -l)
	echo "plan: $plan rows; merged set: $rows rows, $dup keys twice"
	[ "$plan" -gt 0 ] && [ "$dup" -eq 0 ] || return 1
	diff "$work/plan.keys" "$work/array.keys" || return 1
	diff "$work/local.keys" "$work/array.keys" || return 1
}
check "the merged set has every planned row exactly once, the same keys as the local set" merged_equals_plan

regenerated() {
	local f
	[ -s "$set_dir/REPORT.md" ] || { echo "no REPORT.md"; return 1; }
	for f in "$work"/local/figures/*; do
		[ -s "$set_dir/figures/${f##*/}" ] || { echo "figure ${f##*/} missing"; return 1; }
	done
	# The hosts the parts ran on, in the merged meta, and the report's
	# Machine row: "HOST: ..." for one, "from N machines (...)" for more.
	hosts=$(/usr/bin/python3 -c '
import glob, json, sys
h = set()
for m in glob.glob(sys.argv[1] + "/*.csv.meta.json"):
    h |= set(json.load(open(m))["run_all"]["hosts"])
print(" ".join(sorted(h)))' "$set_dir") || return 1
	echo "hosts in the merged meta: $hosts"
	[ "$hosts" = "$(hostname -s)" ] || { echo "not this host alone"; return 1; }
	grep -m1 '^| Machine |' "$set_dir/REPORT.md"
	grep -q "^| Machine | $hosts: " "$set_dir/REPORT.md" || { echo "REPORT.md does not name the one machine"; return 1; }
}
check "figures and REPORT.md regenerated; the merged meta and REPORT.md name the one machine" regenerated

# The measured times (not judged: one 2-CPU node, a loaded host).
if [ -n "$local_s" ] && [ -n "$phase1_s" ] && [ -n "$phase2_s" ]; then
	say "time: local run ${local_s} s; array run $((phase1_s + phase2_s)) s from submission to merged set" \
		"(first submission ${phase1_s} s: tasks 0-1 $(job_seconds "$array1") s, then the merge check;" \
		"resume ${phase2_s} s: task 2 $(job_seconds "$array2") s and the merge)"
	say "time: the tasks take the one node in turn (--exclusive), so the array cannot beat the local" \
		"run here; on k identical nodes the measuring part approaches 1/k of the local run"
fi
cluster_stop
trap emu_cleanup EXIT
left=$("$top/tests/slurm-cluster.sh" status "$cluster" || true)
check "nothing of the cluster left running" test -z "$left"

summary
say "$(elapsed) s in all"
if emu_passed; then
	ok=yes
	exit 0
fi
exit 1

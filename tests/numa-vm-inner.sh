# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# tests/numa-vm-inner.sh - the script tests/numa-vm-check.sh runs inside its
# VM (as root, in the chroot of the host's root): copied into the work
# directory as vm/inner.sh after the lines that set its variables (build,
# out, nodes, ncpu, vm_tests, progs, runall_args, run_cmd, have_run,
# bundle_tgz). Its steps are listed in tests/numa-vm-check.sh's header.
# shellcheck disable=SC2154 # the variables are set above it in vm/inner.sh
set -u
cd "$build" || exit 1
export PATH="$build/harness:$PATH" MPLCONFIGDIR=/tmp/mpl XDG_CACHE_HOME=/tmp/cache
if [ "$have_run" = yes ]; then
	bash -c "$run_cmd"
	exit $?
fi
# The checks' helpers (tests/emu-common.sh, copied beside this script).
. "$(dirname "$0")/emu-common.sh"
emu_checks "$out/checks.log"
check() { emu_check "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. The tests.
t0=$(date +%s)
SC_TEST_EXPECT_NODES=$nodes SC_TEST_SCALE=0.25 SC_TEST_EMULATOR=qemu-system-x86_64 \
	make check TESTS="$vm_tests" check_PROGRAMS="$progs" >"$out/make-check.log" 2>&1
grep -E '^(FAIL|XPASS|ERROR):' "$out/make-check.log"
for t in $vm_tests; do
	echo "$(sed -n 's/^:global-test-result: //p' "$t.trs" 2>/dev/null | head -1): $t" \
		"($(grep -c '^:test-result: PASS' "$t.trs" 2>/dev/null) passed," \
		"$(grep -c '^:test-result: SKIP' "$t.trs" 2>/dev/null) skipped)"
done
for k in TOTAL PASS SKIP XFAIL FAIL XPASS ERROR; do
	v=$(sed -n "s/^# $k: *//p" test-suite.log 2>/dev/null | head -1)
	sum[$k]=$((sum[$k] + ${v:-0}))
done
echo "make check TESTS=\"$vm_tests\": $(($(date +%s) - t0)) s"
cp test-suite.log tests/*.log "$out/" 2>/dev/null

# 2. scbench on all vCPUs with each placement.
meta_ok() { # META PLACEMENT: NODES nodes seen; pinned: all bound, all nodes used
	local m=$1 p=$2 used
	grep -q "\"topology\": {\"nodes\": $nodes," "$m" || { echo "$m: not $nodes nodes"; return 1; }
	[ "$p" = none ] && return 0
	grep -q '"binding": "ok' "$m" || { grep '"binding"' "$m"; return 1; }
	used=$(grep -o '"node": [0-9]*' "$m" | sort -u | wc -l)
	[ "$used" -eq "$nodes" ] || { echo "$m: placement map uses $used nodes, not $nodes"; return 1; }
	grep -q "\"nodes_used\": $nodes," "$m" || { grep '"nodes_used"' "$m"; return 1; }
}
placement_run() {
	local p=$1 f=$out/placement-$1.csv
	scbench --counter=FetchAdd,RBONuma,Multiline --threads="$ncpu" --placement="$p" \
		--warmup=0.05 --duration=0.2 --runs=1 --output="$f" || return 1
	[ "$(tail -n +2 "$f" | wc -l)" -eq 3 ] || { echo "$f: not 3 rows"; return 1; }
	meta_ok "$f.meta.json" "$p"
}
for p in spread compact none; do
	check "scbench --placement=$p --threads=$ncpu" placement_run "$p"
done

# 3. Start-up cost of one invocation (measured, not judged).
startup() {
	local what=$1 t0 t1 rc=0
	shift
	t0=$(ms)
	"$@" >/dev/null 2>>"$out/startup.log" || rc=$?
	t1=$(ms)
	echo "start-up: $what: $((t1 - t0)) ms (exit $rc)"
}
startup "scbench --list" scbench --list
startup "scbench --list (again)" scbench --list
startup "a 0.1 s run, 1 thread" scbench --counter=FetchAdd --threads=1 --warmup=0 --duration=0.1 \
	--runs=1 --read-cost=off --output="$out/startup-run.csv"
startup "a 0.1 s run, 1 thread, --work=99 (calibration)" scbench --counter=FetchAdd --threads=1 \
	--work=99 --warmup=0 --duration=0.1 --runs=1 --read-cost=off --output="$out/startup-work.csv"
startup "a 0.1 s run, $ncpu threads, --work=99" scbench --counter=FetchAdd --threads="$ncpu" \
	--work=99 --warmup=0 --duration=0.1 --runs=1 --read-cost=off --output="$out/startup-work-all.csv"

# 4. run-all.sh on a reduced plan.
runall() {
	local d=$out/results want t
	# shellcheck disable=SC2086 # runall_args is a list of options
	# The PDF/SVG figures are drawn afterwards on the host (matplotlib under
	# TCG takes minutes per figure): PYTHON_MPL=none skips them here, so
	# plots/regen draws the gnuplot figures and the report only.
	PYTHON_MPL=none SCBENCH="$build/harness/scbench" ./run-all.sh $runall_args \
		--order-seed=12345 --out "$d" || return 1
	want=""
	for ((t = 1; t < ncpu; t *= 2)); do want="$want $t"; done
	want="${want# } $ncpu"
	want=${want# }
	grep -qx "threads=\"$want\"" "$d/run-all.conf" || { cat "$d/run-all.conf"; return 1; }
	[ -s "$d/REPORT.md" ] || { echo "no REPORT.md"; return 1; }
	ls "$d"/figures/*.png >/dev/null || { echo "no figures"; return 1; }
	echo "run-all: thread counts $want; $(ls "$d"/figures | wc -l) figure files"
}
check "run-all.sh $runall_args" runall
if [ -d "$out/results" ]; then
	echo "run-all: $(grep -c . "$out/results/run-all.plan" 2>/dev/null) invocations; figures: $(ls "$out/results/figures" 2>/dev/null | sed 's/\.[a-z]*$//' | sort -u | paste -sd' ' -)"
	grep -E '^(Claims|\*\*|[0-9]+ claims|.*hold)' "$out/results/REPORT.md" 2>/dev/null | head -8
fi

# 5. The bundle, as on a NUMA box where nothing can be installed (tests/emu-bundle.sh).
. "$(dirname "$0")/emu-bundle.sh"
if [ -n "$bundle_tgz" ]; then
	emu_bundle_checks "$bundle_tgz" "$out" "$nodes" "$ncpu" "$runall_args"
else
	check "bundle: made on the host (make bundle; see build.log)" false
fi

emu_summary "numa-vm-check: the checks above in the emulated machine"
emu_passed

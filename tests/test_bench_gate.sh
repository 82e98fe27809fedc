#!/bin/sh
# SPDX-License-Identifier: MIT
# test_bench_gate.sh - the regression gate of make bench BASELINE=FILE
# (harness/bench.sh --metrics and --compare) on synthetic scbench CSVs made
# here, and the loop-alignment table of the handle's ratio (--aligned) on a
# fixture, as TAP. Deterministic: the per-run throughputs come from a Park-Miller
# generator (seed below) through Box-Muller, so every run of this test sees the
# same numbers.
#
# The model of a quiet box: each interleaved round has its own speed factor
# (sd 3%: drift that the paired per-run ratios cancel; only the absolute
# harness floor feels it) and each run its own
# noise (sd 2% of its throughput). K unchanged benches against K others
# must all pass; the same K with one target 25% slower must all fail, each
# naming that target and nothing else (Morris is in two metrics: its 1-thread
# cost and its 2-thread speedup). False-failure probability under this model,
# for another seed: a paired metric's per-run ratio has sd 2.8%, the standard
# error of a difference of medians of 7 runs 1.9%, and the gate's 10% floor is
# 5 standard errors (one-sided tail 3e-7); the absolute harness floor (sd 3.6%,
# standard error 2.4%) is 3.9 standard errors away (5e-5). For 23 metrics x K
# benches that is about 5.8e-5 x K (2.3e-3 for CI's 40, 5.8e-4 for make
# check's 10); a missed 25% slowdown (6.7 standard errors or more) below
# 1e-10. K is 10 in make check and 40 with SC_TEST_FULL=1 (CI's whole tier).
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
bench="$TOP_SRCDIR/harness/bench.sh"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
need_python "bench.sh's statistics are harness/bench_stats.py"
SEED=18

# fake SEED THREADS SLOW_COUNTER SLOW_FACTOR RUN_SD [OUTLIER]: a scbench CSV of
# 7 runs of the bench's variants at THREADS, columns 1 counter, 4 run,
# 16 ops_per_ms, and busy (1 in run 0 when OUTLIER is "busy"). With OUTLIER
# "slow", run 3 of every variant but FetchAdd and CAS is 3x slower (one
# disturbed run).
fake() {
	awk -v seed="$1" -v threads="$2" -v slow="$3" -v factor="$4" -v sd="$5" -v outlier="${6:-}" '
		function u() { state = (16807 * state) % 2147483647; return state / 2147483647 }
		function gauss() { return sqrt(-2 * log(u())) * cos(6.283185307179586 * u()) }
		BEGIN {
			state = seed * 7919 + threads
			if (threads == 1) n = split("Sharded FetchAdd CAS Morris MorrisAdapt BFP-DUP BFP-CSUP Scalable ScalableCAS ScalableCapped RBONumaAdapt MultilineAdapt PerCPU PerCPUGroup PerCPUTree", v, " ")
			else n = split("FetchAdd BFP-CSUP Morris Scalable Sharded PerCPU PerCPUTree", v, " ")
			base["Sharded"] = 1.6e6; base["FetchAdd"] = 2e5; base["CAS"] = 1.8e5
			printf "counter,kind,threads,run,mode,work_pct,work_iters,counters,placement,nodes,nodes_virtual,seconds,ops,value,rel_error,ops_per_ms,busy\n"
			for (r = 0; r < 7; r++) {
				round = exp(0.03 * gauss())
				for (i = 1; i <= n; i++) {
					b = (v[i] in base) ? base[v[i]] : 1.9e5
					if (threads == 2 && v[i] != "FetchAdd") b = 8e5
					t = b * round * exp(sd * gauss())
					if (v[i] == slow) t /= factor
					if (outlier == "slow" && r == 3 && v[i] != "FetchAdd" && v[i] != "CAS") t /= 3
					printf "%s,x,%d,%d,timed,0,0,1,compact,1,0,1,1,1,0,%.3f,%d\n", v[i], threads, r, t,
						(outlier == "busy" && r == 0)
				}
			}
		}'
}
# metrics DIR SEED [SLOW_COUNTER FACTOR SD OUTLIER]: DIR/m, the metric file.
metrics() {
	mkdir -p "$1"
	fake "$2" 1 "${3:-none}" "${4:-1}" "${5:-0.02}" "${6:-}" >"$1/t1.csv"
	fake "$(($2 + 1000))" 2 "${3:-none}" "${4:-1}" "${5:-0.02}" "${6:-}" >"$1/t2.csv"
	sh "$bench" --metrics "$1/t1.csv" "$1/t2.csv" >"$1/m"
}

metrics "$tmp/base" $SEED
check metric_file_columns sh -c "head -1 '$tmp/base/m' | grep -qx 'metric,value,noise,better,runs,values'"
check twenty_three_metrics test "$(($(wc -l <"$tmp/base/m") - 1))" -eq 23
check seven_runs_per_metric sh -c "awk -F, 'NR > 1 && (\$5 != 7 || split(\$6, a, \" \") != 7) { bad = 1 } END { exit bad }' '$tmp/base/m'"
# The metric's value is the median of its per-run values; noise is 1.4826 MAD of their logs.
check median_and_mad sh -c "awk -F, 'NR == 2 { n = split(\$6, a, \" \"); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	exit (a[4] != \$2 || \$3 <= 0 || \$3 > 0.1) }' '$tmp/base/m'"

sh "$bench" --compare "$tmp/base/m" "$tmp/base/m" >"$tmp/out" 2>&1
check same_set_exit_0 test $? -eq 0
check same_set_flags_nothing sh -c "! grep -q REGRESSED '$tmp/out' && grep -q '^bench: 0 metrics regressed, 0 too noisy' '$tmp/out' && test \$(grep -c ' ok$' '$tmp/out') -eq 23"

# K unchanged benches against K others (different seeds), and the same with
# Morris 25% slower at 1 thread (its cost relative to FetchAdd 25% higher).
K=10
[ "${SC_TEST_FULL:-0}" = 1 ] && K=40
pass=0 caught=0 only=0 k=0
while [ $k -lt $K ]; do
	metrics "$tmp/a$k" $((SEED + 2 * k + 1))
	metrics "$tmp/b$k" $((SEED + 2 * k + 2))
	metrics "$tmp/s$k" $((SEED + 2 * k + 2)) Morris 1.25
	sh "$bench" --compare "$tmp/b$k/m" "$tmp/a$k/m" >"$tmp/out" 2>&1 && pass=$((pass + 1))
	sh "$bench" --compare "$tmp/s$k/m" "$tmp/a$k/m" >"$tmp/out" 2>&1
	[ $? -eq 1 ] && caught=$((caught + 1))
	[ "$(grep -c REGRESSED "$tmp/out")" -eq 2 ] && grep REGRESSED "$tmp/out" | grep -q 'cost_vs_FetchAdd_1t/Morris ' &&
		grep REGRESSED "$tmp/out" | grep -q 'speedup_vs_FetchAdd_2t/Morris ' && only=$((only + 1))
	k=$((k + 1))
done
check "unchanged_passes_${K}_of_$K ($pass)" test $pass -eq $K
check "slowdown_25pct_fails_${K}_of_$K ($caught)" test $caught -eq $K
check "slowdown_names_only_morris ($only of $K)" test $only -eq $K

# The harness floor 25% higher (Sharded slower): lower-is-better direction.
metrics "$tmp/floor" $((SEED + 2)) Sharded 1.25
sh "$bench" --compare "$tmp/floor/m" "$tmp/a0/m" >"$tmp/out" 2>&1
check floor_regression_exit_1 test $? -eq 1
check floor_regression_named sh -c "test \$(grep -c REGRESSED '$tmp/out') -eq 1 && grep REGRESSED '$tmp/out' | grep -q 'floor_ns/Sharded'"
# Faster is never a regression.
sed 's/^floor_ns\/Sharded,\([0-9.e+-]*\),/floor_ns\/Sharded,0.3,/' "$tmp/a0/m" >"$tmp/faster"
sh "$bench" --compare "$tmp/faster" "$tmp/a0/m" >"$tmp/out" 2>&1
check faster_passes test $? -eq 0

# One disturbed run in 7 (3x slower) moves neither median nor MAD much: no regression.
metrics "$tmp/outlier" $((SEED + 2)) none 1 0.02 slow
sh "$bench" --compare "$tmp/outlier/m" "$tmp/a0/m" >"$tmp/out" 2>&1
check "one_outlier_run_passes (exit $?)" sh -c "! grep -q REGRESSED '$tmp/out'"

# Benches with 30% run-to-run noise cannot see a 25% change: NOISY, exit 3.
metrics "$tmp/n1" $((SEED + 5)) none 1 0.30
metrics "$tmp/n2" $((SEED + 6)) none 1 0.30
sh "$bench" --compare "$tmp/n2/m" "$tmp/n1/m" >"$tmp/out" 2>&1
rc=$?
check "too_noisy_exit_3 (exit $rc)" test $rc -eq 3
check too_noisy_said grep -q 'NOISY (cannot see a 25% change)' "$tmp/out"

# A target measured in the baseline but not now is listed, not dropped.
grep -v 'Morris,' "$tmp/base/m" >"$tmp/fewer"
sh "$bench" --compare "$tmp/fewer" "$tmp/base/m" >"$tmp/out" 2>&1
check missing_metric_listed grep -q "cost_vs_FetchAdd_1t/Morris.*not measured now" "$tmp/out"

# A baseline of the old format (no per-run values) is refused, exit 2.
printf 'metric,value,noise,better\nfloor_ns/Sharded,0.6,0.05,lower\n' >"$tmp/old"
sh "$bench" --compare "$tmp/base/m" "$tmp/old" >"$tmp/out" 2>&1
rc=$?
check "old_format_exit_2 (exit $rc)" sh -c "test $rc -eq 2 && grep -q 'save it again' '$tmp/out'"
sh "$bench" --compare "$tmp/base/m" "$tmp/no-such-file" >"$tmp/out" 2>&1
check unreadable_baseline_exit_2 test $? -eq 2

# The loop-alignment table: per build, the median over the processes and the
# largest; a variant meets the 1.3x target only when every build's median does.
cat >"$tmp/paired" <<'EOF2'
0 handle_vs_inline_1t/FetchAdd 8.0 8.0 1.0
0 floor_indexed_1t/floor-indexed 1 1 9.9
1 handle_vs_inline_1t/FetchAdd 8.0 9.6 1.2
2 handle_vs_inline_1t/FetchAdd 8.0 8.8 1.1
0 handle_vs_inline_1t/Morris 2.0 2.0 1.0
1 handle_vs_inline_1t/Morris 2.0 3.0 1.5
2 handle_vs_inline_1t/Morris 2.0 2.2 1.1
EOF2
printf '%s\n' 'hb_a1 FetchAdd 1.25' 'hb_a1 Morris 1.2' 'hb_a1 FetchAdd 1.35' 'hb_a1 Morris 1.1' \
	'hb_a1 FetchAdd 1.31' 'hb_a1 Morris 1.6' >"$tmp/aligned"
sh "$bench" --aligned "$tmp/paired" "$tmp/aligned" 3 >"$tmp/out" 2>&1
check "aligned_table_exit_0 (exit $?)" test $? -eq 0
check aligned_fetchadd_median_largest_missed \
	grep -Eq '^  FetchAdd +1\.100x \[1\.20\] +1\.310x \[1\.35\] +1\.19 \(target <= 1\.3x in every build: MISSED\)$' "$tmp/out"
check aligned_morris_median_largest_met \
	grep -Eq '^  Morris +1\.100x \[1\.50\] +1\.200x \[1\.60\] +1\.09 \(target <= 1\.3x in every build: met\)$' "$tmp/out"
check aligned_header_names_builds grep -Eq 'plain -O2 +hb_a1' "$tmp/out"
sh "$bench" --aligned "$tmp/paired" >"$tmp/out" 2>&1
check "aligned_usage_exit_2 (exit $?)" test $? -eq 2

tap_done

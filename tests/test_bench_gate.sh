#!/bin/sh
# SPDX-License-Identifier: MIT
# test_bench_gate.sh - the regression gate of make bench BASELINE=FILE
# (harness/bench.sh --compare), on metric files made here: a bench compared
# with itself passes, a 2x loss in one target beyond its noise fails and names
# only that target, a change within the measured noise passes. As TAP.
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
bench="$TOP_SRCDIR/harness/bench.sh"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

cat >"$tmp/base" <<'CSV'
metric,value,noise,better
floor_ns/Sharded,0.6,0.05,lower
cost_vs_FetchAdd_1t/Morris,0.93,0.04,lower
cost_vs_CAS_1t/RBONumaAdapt,1.15,0.06,lower
speedup_vs_FetchAdd_2t/Scalable,4.2,0.10,higher
speedup_vs_FetchAdd_2t/Morris,5.4,0.08,higher
CSV

sh "$bench" --compare "$tmp/base" "$tmp/base" >"$tmp/out" 2>&1
check same_set_exit_0 test $? -eq 0
check same_set_flags_nothing sh -c "! grep -q REGRESSED '$tmp/out' && grep -q '^bench: 0 metrics regressed' '$tmp/out'"

# Scalable's 2-thread speedup halved (a 50% loss against 10% + 10% noise).
sed 's|^speedup_vs_FetchAdd_2t/Scalable,4.2,0.10|speedup_vs_FetchAdd_2t/Scalable,2.1,0.10|' \
	"$tmp/base" >"$tmp/halved"
sh "$bench" --compare "$tmp/halved" "$tmp/base" >"$tmp/out" 2>&1
check halved_exit_1 test $? -eq 1
check halved_names_only_scalable sh -c "test \$(grep -c REGRESSED '$tmp/out') -eq 1 &&
	grep REGRESSED '$tmp/out' | grep -q 'speedup_vs_FetchAdd_2t/Scalable'"

# A cost ratio that got worse (higher) by 20% with 4% + 4% noise regresses;
# one that got better by 20% does not.
sed -e 's|^cost_vs_FetchAdd_1t/Morris,0.93|cost_vs_FetchAdd_1t/Morris,1.116|' \
    -e 's|^floor_ns/Sharded,0.6,|floor_ns/Sharded,0.48,|' "$tmp/base" >"$tmp/worse"
sh "$bench" --compare "$tmp/worse" "$tmp/base" >"$tmp/out" 2>&1
check lower_is_better_direction sh -c "test \$(grep -c REGRESSED '$tmp/out') -eq 1 &&
	grep REGRESSED '$tmp/out' | grep -q 'cost_vs_FetchAdd_1t/Morris'"

# Within the noise: a 12% loss against 10% + 10% passes.
sed 's|^speedup_vs_FetchAdd_2t/Scalable,4.2,|speedup_vs_FetchAdd_2t/Scalable,3.7,|' \
	"$tmp/base" >"$tmp/noisy"
sh "$bench" --compare "$tmp/noisy" "$tmp/base" >"$tmp/out" 2>&1
check within_noise_passes test $? -eq 0

# A target measured in the baseline but not now is listed, not dropped.
grep -v Morris "$tmp/base" >"$tmp/fewer"
sh "$bench" --compare "$tmp/fewer" "$tmp/base" >"$tmp/out" 2>&1
check missing_metric_listed grep -q "cost_vs_FetchAdd_1t/Morris.*not measured now" "$tmp/out"

sh "$bench" --compare "$tmp/base" "$tmp/no-such-file" >"$tmp/out" 2>&1
check unreadable_baseline_exit_2 test $? -eq 2

tap_done

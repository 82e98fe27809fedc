#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # awk and python programs in single quotes
# test_scale.sh - runs at 256 threads (doc/design.md §3: precise variants are
# exact under any number of threads, oversubscribed too), as TAP. Here, on a
# small machine, 256 threads are heavily oversubscribed: every precise variant
# must still count exactly, in count-to-N mode (with 64 virtual nodes, so the
# node-aware variants run their many-node paths, and with the real nodes) and
# in a short timed run; the oversubscribed and ctx_switches columns must be
# filled, and meta.json must place all 256 threads and say where the helper
# threads ran. Sizes are small: this checks correctness, not speed.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

T=256
# The precise variants, from scbench's own list (a new one is tested at once).
precise=$("$SCBENCH" --list | awk '$0 !~ /^#/ && / precise / { printf "%s%s", sep, $1; sep = "," }')
count=$(echo "$precise" | tr ',' '\n' | wc -l)
check precise_list_found test "$count" -ge 11

# exact FILE ROWS: every row precise, value == ops (== T * OPS in count mode), 256 threads,
# oversubscribed on a machine with fewer PUs, ctx_switches a number.
exact() {
	csvawk -v rows="$2" -v t="$T" -v per="${3:-0}" '
		NR == 1 { next }
		{ seen++ }
		$col("kind") != "precise" || $col("threads") != t || $col("value") != $col("ops") || $col("ops") == 0 { bad = 1 }
		per && $col("ops") != t * per { bad = 1 }
		$col("ctx_switches") !~ /^[0-9]+$/ || $col("oversubscribed") !~ /^[01]$/ { bad = 1 }
		END { exit bad || seen != rows }' "$1"
}

for nodes in 64 real; do
	arg=""
	[ "$nodes" = real ] || arg="--nodes=$nodes"
	# shellcheck disable=SC2086
	"$SCBENCH" --counter="$precise" --threads=$T --ops=400 --runs=1 --events=none $arg \
		--output="$tmp/count-$nodes.csv" 2>"$tmp/err"
	check "count_${T}_threads_nodes_${nodes}_exit_0" test $? -eq 0
	check "count_${T}_threads_nodes_${nodes}_every_precise_variant_exact" \
		exact "$tmp/count-$nodes.csv" "$count" 400
done

pus=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["topology"]["pus"])' \
	"$tmp/count-64.csv.meta.json")
if [ "$pus" -lt $T ]; then
	check count_oversubscribed_column_set csvawk 'NR > 1 && $col("oversubscribed") != 1 { bad = 1 } END { exit bad }' \
		"$tmp/count-64.csv"
else
	check count_oversubscribed_column_clear csvawk 'NR > 1 && $col("oversubscribed") != 0 { bad = 1 } END { exit bad }' \
		"$tmp/count-64.csv"
fi

# Under an emulator (SC_TEST_EMULATOR: tests/cross-check.sh) 0.3 s: there
# CAS at 256 threads completed no increment in 0.03 s in 5 of 8 runs (qemu-user
# serialises the threads' atomics), and "ops > 0" is part of the check; in 0.3 s
# it made 2.5-4.1 M in 6 of 6.
dur=0.03
[ -n "${SC_TEST_EMULATOR:-}" ] && dur=0.3
"$SCBENCH" --counter="$precise" --threads=$T --duration=$dur --warmup=0.01 --runs=1 --events=none \
	--output="$tmp/timed.csv" 2>"$tmp/err"
check "timed_${T}_threads_exit_0" test $? -eq 0
check "timed_${T}_threads_every_precise_variant_exact_after_reset" exact "$tmp/timed.csv" "$count"

check "meta_places_${T}_threads_and_reports_helpers" "$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))
p = m["placement"]
h = m["helper_threads"]
ok = (len(p) == int(sys.argv[2]) and [x["thread"] for x in p] == list(range(len(p)))
      and h["main_thread"]["cpus_seen"] != "" and h["reader"]["cpus_seen"] != ""
      and h["reader"]["wakeups_per_s"] > 0 and "scheduling" in h)
sys.exit(0 if ok else 1)' "$tmp/timed.csv.meta.json" $T

tap_done

#!/bin/sh
# bench.sh - the performance targets of SPEC §9, measured as ratios in one
# run on this machine (make bench). A benchmark, not a test: it reports each
# target as met or missed and always exits 0 unless scbench itself fails.
#   bench.sh SCBENCH [DURATION] [RUNS]
set -eu
scbench=${1:?usage: bench.sh SCBENCH [DURATION] [RUNS]}
dur=${2:-1}
runs=${3:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scbench-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

prob="Morris,MorrisAdapt,BFP-DUP,BFP-CSUP,Scalable,ScalableCAS,ScalableCapped"
adapt="RBONumaAdapt,MultilineAdapt,MorrisAdapt"
echo "bench: timed runs of ${dur} s (warm-up 0.2 s), median of $runs; 0% external work"
"$scbench" --counter="Sharded,FetchAdd,CAS,$prob,RBONumaAdapt,MultilineAdapt" --threads=1 \
	--duration="$dur" --warmup=0.2 --runs="$runs" --events=none --output="$tmp/t1.csv"
"$scbench" --counter="FetchAdd,BFP-CSUP,Morris,Scalable" --threads=2 \
	--duration="$dur" --warmup=0.2 --runs="$runs" --events=none --output="$tmp/t2.csv"

# median ops_per_ms per counter of a CSV (column 16), one "name value" per line
medians() {
	tail -n +2 "$1" | cut -d, -f1,16 | sort -t, -k1,1 -k2,2g | awk -F, '
		{ v[$1, ++n[$1]] = $2 }
		END { for (c in n) { k = n[c]; m = (k % 2) ? v[c, (k + 1) / 2] : (v[c, k / 2] + v[c, k / 2 + 1]) / 2; print c, m } }'
}
medians "$tmp/t1.csv" >"$tmp/m1"
medians "$tmp/t2.csv" >"$tmp/m2"

awk -v prob="$prob" -v adapt="$adapt" '
	FILENAME == ARGV[1] { one[$1] = $2; next }
	{ two[$1] = $2 }
	function verdict(ok) { return ok ? "met" : "MISSED" }
	END {
		ns = 1e6 / one["Sharded"]
		printf "\nharness floor: Sharded, 1 thread: %.2f ns per increment (target <= 1.5): %s\n", ns, verdict(ns <= 1.5)
		printf "\n1 thread, cost relative to FetchAdd (%.2f ns/inc), target <= 1.5x:\n", 1e6 / one["FetchAdd"]
		n = split(prob, p, ",")
		for (i = 1; i <= n; i++) {
			r = one["FetchAdd"] / one[p[i]]
			printf "  %-15s %6.2f ns  %5.2fx  %s\n", p[i], 1e6 / one[p[i]], r, verdict(r <= 1.5)
		}
		printf "\n1 thread, cost relative to CAS (%.2f ns/inc), target <= 1.2x:\n", 1e6 / one["CAS"]
		n = split(adapt, a, ",")
		for (i = 1; i <= n; i++) {
			r = one["CAS"] / one[a[i]]
			printf "  %-15s %6.2f ns  %5.2fx  %s\n", a[i], 1e6 / one[a[i]], r, verdict(r <= 1.2)
		}
		printf "\n2 threads, one counter, throughput relative to FetchAdd (%.0f ops/ms), target >= 3x:\n", two["FetchAdd"]
		split("BFP-CSUP,Morris,Scalable", q, ",")
		for (i = 1; i <= 3; i++) {
			r = two[q[i]] / two["FetchAdd"]
			printf "  %-15s %10.0f ops/ms  %5.2fx  %s\n", q[i], two[q[i]], r, verdict(r >= 3)
		}
	}' "$tmp/m1" "$tmp/m2"

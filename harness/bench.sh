#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh - the performance targets of doc/design.md §9, measured as ratios in one
# run on this machine (make bench). A benchmark, not a test: it reports each
# target as met or missed. It exits non-zero only when scbench fails or, with
# a baseline, when a target regressed beyond the noise of the two runs.
#
#   bench.sh SCBENCH [DURATION] [RUNS]     measure; environment:
#       BENCH_SAVE=FILE   also write the metrics to FILE (a baseline for later)
#       BASELINE=FILE     compare with a saved FILE; exit 1 on a regression
#   bench.sh --compare CURRENT BASELINE    compare two saved metric files only
#
# A metric file is CSV: metric,value,noise,better. value is the median over the
# runs of the per-run figure (run i of one variant against run i of its
# reference); noise is (max - min) / median of those per-run figures, the
# run-to-run spread measured in that bench; better is "lower" or "higher".
# A metric regressed when it is worse than the baseline by a larger fraction
# than noise(baseline) + noise(current): with a range of 3 runs on each side
# this tolerates everything the two benches themselves showed as noise.
set -eu

# compare CURRENT BASELINE: one line per metric; 1 when any regressed.
compare() {
	awk -F, '
		FNR == 1 { next }
		FILENAME == ARGV[1] { cur[$1] = $2; cn[$1] = $3; next }
		{
			base = $2; m = $1
			if (!(m in cur)) { printf "  %-34s baseline %.4g, not measured now\n", m, base; next }
			worse = ($4 == "lower") ? (cur[m] - base) / base : (base - cur[m]) / base
			allowed = $3 + cn[m]
			bad = worse > allowed
			regressed += bad
			printf "  %-34s baseline %10.4g  now %10.4g  %+6.1f%% (%s is better; noise %.1f%%)  %s\n",
				m, base, cur[m], 100 * (cur[m] - base) / base, $4, 100 * allowed,
				bad ? "REGRESSED" : "ok"
		}
		END {
			printf "bench: %d metric%s regressed beyond the measured noise\n", regressed,
				regressed == 1 ? "" : "s"
			exit regressed > 0
		}' "$1" "$2"
}

if [ "${1:-}" = "--compare" ]; then
	[ $# -eq 3 ] && [ -r "$2" ] && [ -r "$3" ] || {
		echo "usage: bench.sh --compare CURRENT BASELINE (two readable metric files)" >&2
		exit 2
	}
	echo "bench: $2 against the baseline $3"
	compare "$2" "$3"
	exit $?
fi

scbench=${1:?usage: bench.sh SCBENCH [DURATION] [RUNS]}
dur=${2:-1}
runs=${3:-3}
if [ -n "${BASELINE:-}" ] && [ ! -r "$BASELINE" ]; then
	echo "bench: BASELINE=$BASELINE: no such readable file" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scbench-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

prob="Morris,MorrisAdapt,BFP-DUP,BFP-CSUP,Scalable,ScalableCAS,ScalableCapped"
adapt="RBONumaAdapt,MultilineAdapt,MorrisAdapt"
echo "bench: timed runs of ${dur} s (warm-up 0.2 s), median of $runs; 0% external work"
"$scbench" --counter="Sharded,FetchAdd,CAS,$prob,RBONumaAdapt,MultilineAdapt" --threads=1 \
	--duration="$dur" --warmup=0.2 --runs="$runs" --events=none --output="$tmp/t1.csv"
"$scbench" --counter="FetchAdd,BFP-CSUP,Morris,Scalable" --threads=2 \
	--duration="$dur" --warmup=0.2 --runs="$runs" --events=none --output="$tmp/t2.csv"

# The metrics: per-run figures (columns: 1 counter, 4 run, 16 ops_per_ms).
awk -F, -v prob="$prob" -v adapt="$adapt" '
	FNR == 1 { f++; next }
	{ tp[f, $1, $4] = $16; if ($4 + 1 > nr) nr = $4 + 1 }
	# median and relative range of the per-run values x[0..nr-1]
	function summarize(name, better,   i, j, t, k, med) {
		for (i = 0; i < nr; i++)
			for (j = i + 1; j < nr; j++)
				if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		k = nr
		med = (k % 2) ? x[(k - 1) / 2] : (x[k / 2 - 1] + x[k / 2]) / 2
		printf "%s,%.6g,%.4f,%s\n", name, med, (med > 0 ? (x[k - 1] - x[0]) / med : 0), better
	}
	END {
		print "metric,value,noise,better"
		for (i = 0; i < nr; i++) x[i] = 1e6 / tp[1, "Sharded", i]
		summarize("floor_ns/Sharded", "lower")
		n = split(prob, p, ",")
		for (j = 1; j <= n; j++) {
			for (i = 0; i < nr; i++) x[i] = tp[1, "FetchAdd", i] / tp[1, p[j], i]
			summarize("cost_vs_FetchAdd_1t/" p[j], "lower")
		}
		n = split(adapt, a, ",")
		for (j = 1; j <= n; j++) {
			for (i = 0; i < nr; i++) x[i] = tp[1, "CAS", i] / tp[1, a[j], i]
			summarize("cost_vs_CAS_1t/" a[j], "lower")
		}
		n = split("BFP-CSUP,Morris,Scalable", q, ",")
		for (j = 1; j <= n; j++) {
			for (i = 0; i < nr; i++) x[i] = tp[2, q[j], i] / tp[2, "FetchAdd", i]
			summarize("speedup_vs_FetchAdd_2t/" q[j], "higher")
		}
	}' "$tmp/t1.csv" "$tmp/t2.csv" >"$tmp/metrics"

# The report: each target met or missed.
awk -F, '
	FNR == 1 { next }
	{ ord[++no] = $1; v[$1] = $2; nz[$1] = $3 }
	function verdict(ok) { return ok ? "met" : "MISSED" }
	function line(m, unit, target, ok) {
		split(m, k, "/")
		printf "  %-15s %7.2f%s  (run-to-run spread %4.1f%%)  %s %s\n", k[2], v[m], unit,
			100 * nz[m], target, verdict(ok)
	}
	END {
		print "\nharness floor, 1 thread, ns per increment:"
		line("floor_ns/Sharded", " ns", "target <= 1.5 ns:", v["floor_ns/Sharded"] <= 1.5)
		print "\n1 thread, cost relative to FetchAdd:"
		for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^cost_vs_FetchAdd_1t/) line(m, "x", "target <= 1.5x:", v[m] <= 1.5)
		print "\n1 thread, cost relative to CAS:"
		for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^cost_vs_CAS_1t/) line(m, "x", "target <= 1.2x:", v[m] <= 1.2)
		print "\n2 threads, one counter, throughput relative to FetchAdd:"
		for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^speedup_vs_FetchAdd_2t/) line(m, "x", "target >= 3x:", v[m] >= 3)
	}' "$tmp/metrics"

if [ -n "${BENCH_SAVE:-}" ]; then
	cp "$tmp/metrics" "$BENCH_SAVE"
	echo "bench: metrics saved to $BENCH_SAVE (use it later as BASELINE=$BENCH_SAVE)"
fi
if [ -n "${BASELINE:-}" ]; then
	echo
	echo "bench: against the baseline $BASELINE"
	compare "$tmp/metrics" "$BASELINE"
fi

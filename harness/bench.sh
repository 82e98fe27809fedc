#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh - the performance targets of doc/design.md §9, measured as ratios in one
# run on this machine (make bench). A benchmark, not a test: it reports each
# target as met or missed. It exits non-zero only when scbench fails or, with
# a baseline, when a target regressed beyond the noise of the two benches
# (or the two were too noisy to tell: exit 3).
#
#   bench.sh SCBENCH [DURATION] [RUNS]     measure; environment:
#       BENCH_SAVE=FILE   also write the metrics to FILE (a baseline for later)
#       BASELINE=FILE     compare with a saved FILE; exit 1 on a regression
#       HANDLE_BENCH=PROG the handle_bench program (make bench sets it): also
#                         measure the handle API's increment with node ids
#                         from the kernel against SCOUNTERS_NODE=fixed, and
#                         against the inlined increment (--paired); and the
#                         adaptive counters' inlined increment against CAS's
#                         in one process (--versus CAS); and the per-CPU add
#                         (PerCPU's increment, and the add through the
#                         thread's cursor, the target's) against the floor, a relaxed load
#                         and store of the thread's own word (--floor; the
#                         target's floor, at a base+displacement address),
#                         and against the indexed floor (the same word at an
#                         index loaded each increment, as a per-CPU add's is;
#                         floor_indexed_1t/, no target)
#       HANDLE_BENCH_ALIGNED="PROG..."  handle_bench built with other loop
#                         alignments (make bench: -falign-loops=1, 32, 64):
#                         every round also pairs handle and inline with each,
#                         and the report gives each variant's median ratio
#                         per build (and the largest)
#       MCA=SCRIPT        harness/mca.sh: llvm-mca's model of the loops (make
#                         bench sets it; skipped without clang and llvm-mca)
#       MCA_INCLUDE=DIR   for mca.sh: the build tree's counters/, holding
#                         scounters/sc_config.h (make bench sets it)
#   bench.sh --compare CURRENT BASELINE    compare two saved metric files only
#   bench.sh --aligned PAIRED ALIGNED RUNS the loop-alignment table of the handle's
#                                          ratio from the bench's raw files
#   bench.sh --metrics T1.CSV T2.CSV       the metric file of scbench CSVs (1 and
#                                          2 threads, every run of every variant)
#
# A metric file is CSV: metric,value,noise,better,runs,values. The bench runs
# scbench RUNS times (default 7), each time every variant once (--runs=1,
# --first-run=i), so the runs of the variants interleave and run i of a variant
# is paired with run i of its reference, taken seconds apart. values are the
# per-run paired figures (space-separated); value is their median; noise is
# their robust spread, 1.4826 x the median absolute deviation of their logs (a
# relative standard deviation that one disturbed run does not move); better
# is "lower" or "higher".
#
# The gate (--compare, and BASELINE=): with d = log(median now / median
# baseline), signed so that d > 0 is worse, and se = 1.2533 x sqrt(noise_now^2
# / runs_now + noise_base^2 / runs_base) (the standard error of a difference of
# medians; each noise at least 1%), a metric REGRESSED when d > max(log 1.10,
# 3.5 se): worse by more than 10% and by more than 3.5 standard errors (one-
# sided normal tail 2.3e-4 per metric, about 8e-3 for the 36 metrics of make
# bench). When
# 3.5 se exceeds log 1.25 the two benches are too noisy to see a 25% slowdown:
# the metric is NOISY (not judged). Exit 0 when nothing regressed and nothing
# was too noisy, 1 on a regression, 3 when only too-noisy metrics remain
# (re-run on a quiet machine, or with more runs: RUNS=N). Each run records
# whether the machine was busy (scbench's busy column, results/README.md);
# the bench says how many runs were, since a busy machine is the usual cause.
#
# node_refresh_ns/* metrics are the ns that reading node ids from the kernel
# adds to one handle-API increment (run i with the ids against run i without):
# near 0, of either sign, so their noise is 1.4826 x the MAD of the values in
# ns, and the gate compares them as differences: REGRESSED when now - baseline
# exceeds max(0.25 ns, 3.5 se), NOISY when 3.5 se exceeds 1 ns.
set -eu

prob="Morris,MorrisAdapt,BFP-DUP,BFP-CSUP,Scalable,ScalableCAS,ScalableCapped"
# The handle API's increment against the inlined one (make bench, HANDLE_BENCH).
handle_variants="FetchAdd Sharded PerCPU Morris Scalable"
# The adaptive counters, in their precise mode at 1 thread (one CAS on one word):
# their cost relative to CAS (at most 1.1x).
adapt="RBONumaAdapt,MultilineAdapt,MorrisAdapt,BFP-CSUP"

# The awk functions shared by the metrics and the gate: sort x[1..n] in place,
# the median of x[1..n], 1.4826 x the MAD of the logs of x[1..n].
AWK_LIB='
	function isort(n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
	}
	function med(n) { isort(n); return (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
	function logmad(n,   i, m, y) {
		for (i = 1; i <= n; i++) y[i] = log(x[i])
		for (i = 1; i <= n; i++) x[i] = y[i]
		m = med(n)
		for (i = 1; i <= n; i++) x[i] = (y[i] > m) ? y[i] - m : m - y[i]
		return 1.4826 * med(n)
	}
'

# compare CURRENT BASELINE: one line per metric; 1 when any regressed, 3 when
# none did but some were too noisy to judge, 2 on a file of the old format.
compare() {
	awk -F, "$AWK_LIB"'
		FNR == 1 {
			if (NF < 6 || $6 != "values") { printf "bench: %s: not a metric file of this bench.sh (no per-run values: save it again)\n", FILENAME; bad_format = 1; exit 2 }
			next
		}
		NR == FNR { cur[$1] = $2; cn[$1] = $3; cr[$1] = $5; next }
		{
			base = $2; m = $1
			if (!(m in cur)) { printf "  %-34s baseline %.4g, not measured now\n", m, base; next }
			if (m ~ /^node_refresh_ns/) {
				se = 1.2533 * sqrt($3 * $3 / $5 + cn[m] * cn[m] / cr[m])
				d = cur[m] - base
				limit = (3.5 * se > 0.25) ? 3.5 * se : 0.25
				noisy = 3.5 * se > 1
				bad = !noisy && d > limit
				regressed += bad; unjudged += noisy
				printf "  %-34s baseline %+8.3f ns  now %+8.3f ns (lower is better; allowed +%.2f ns)  %s\n",
					m, base, cur[m], limit, bad ? "REGRESSED" : noisy ? "NOISY (cannot see 1 ns)" : "ok"
				next
			}
			sb = ($3 > 0.01) ? $3 : 0.01; sc = (cn[m] > 0.01) ? cn[m] : 0.01
			se = 1.2533 * sqrt(sb * sb / $5 + sc * sc / cr[m])
			d = log(cur[m] / base); if ($4 == "higher") d = -d
			limit = (3.5 * se > log(1.10)) ? 3.5 * se : log(1.10)
			noisy = 3.5 * se > log(1.25)
			bad = !noisy && d > limit
			regressed += bad; unjudged += noisy
			printf "  %-34s baseline %10.4g  now %10.4g  %+6.1f%% (%s is better; allowed %.1f%%)  %s\n",
				m, base, cur[m], 100 * (cur[m] - base) / base, $4, 100 * (exp(limit) - 1),
				bad ? "REGRESSED" : noisy ? "NOISY (cannot see a 25% change)" : "ok"
		}
		END {
			if (bad_format) exit 2
			printf "bench: %d metric%s regressed, %d too noisy to judge\n", regressed,
				regressed == 1 ? "" : "s", unjudged
			exit (regressed > 0) ? 1 : ((unjudged > 0) ? 3 : 0)
		}' "$1" "$2"
}

# metrics T1.CSV T2.CSV [HANDLE [PAIRED]]: the metric file, on standard output.
# HANDLE has lines "run variant kernel|fixed source ns" from handle_bench,
# PAIRED lines "run metric ns ns_ref ratio" from handle_bench --paired (metric
# handle_vs_inline_1t/V) and --versus CAS (paired_vs_CAS_1t/V).
metrics() {
	awk -F, -v prob="$prob" -v adapt="$adapt" -v handle="${3:-}" -v paired="${4:-}" "$AWK_LIB"'
	# columns by name (the schema is harness/csv.h): counter, run, ops_per_ms
	FNR == 1 { f++; for (i = 1; i <= NF; i++) col[f, $i] = i; next }
	{
		r = $col[f, "run"]
		tp[f, $col[f, "counter"], r] = $col[f, "ops_per_ms"]
		if (r + 1 > nr) nr = r + 1
	}
	# the line of one metric from the per-run values x[1..nr]
	function summarize(name, better,   i, vals, m) {
		vals = ""
		for (i = 1; i <= nr; i++) vals = vals (i > 1 ? " " : "") sprintf("%.6g", x[i])
		m = med(nr)
		printf "%s,%.6g,%.4f,%s,%d,%s\n", name, m, logmad(nr), better, nr, vals
	}
	END {
		print "metric,value,noise,better,runs,values"
		for (i = 0; i < nr; i++) x[i + 1] = 1e6 / tp[1, "Sharded", i]
		summarize("floor_ns/Sharded", "lower")
		n = split(prob, p, ",")
		for (j = 1; j <= n; j++) {
			for (i = 0; i < nr; i++) x[i + 1] = tp[1, "FetchAdd", i] / tp[1, p[j], i]
			summarize("cost_vs_FetchAdd_1t/" p[j], "lower")
		}
		# CAS itself, no target: the precise mode of MorrisAdapt, BFP-CSUP and
		# ScalableCAS at 1 thread is a CAS loop on one word, so this is their floor
		for (i = 0; i < nr; i++) x[i + 1] = tp[1, "FetchAdd", i] / tp[1, "CAS", i]
		summarize("reference_vs_FetchAdd_1t/CAS", "lower")
		n = split(adapt, a, ",")
		for (j = 1; j <= n; j++) {
			for (i = 0; i < nr; i++) x[i + 1] = tp[1, "CAS", i] / tp[1, a[j], i]
			summarize("cost_vs_CAS_1t/" a[j], "lower")
		}
		# Scalable and Morris do the same kind of work at 1 thread (a
		# probabilistic step taken with a random draw): Scalable paired with Morris.
		for (i = 0; i < nr; i++) x[i + 1] = tp[1, "Morris", i] / tp[1, "Scalable", i]
		summarize("cost_vs_Morris_1t/Scalable", "lower")
		n = split("BFP-CSUP,Morris,Scalable", q, ",")
		for (j = 1; j <= n; j++) {
			for (i = 0; i < nr; i++) x[i + 1] = tp[2, q[j], i] / tp[2, "FetchAdd", i]
			summarize("speedup_vs_FetchAdd_2t/" q[j], "higher")
		}
		# PerCPU (a restartable sequence where rseq exists) against a locked
		# add and against Sharded (no atomic at all), and the packed group
		# against PerCPU: cost ratios, paired by run.
		for (i = 0; i < nr; i++) x[i + 1] = tp[1, "FetchAdd", i] / tp[1, "PerCPU", i]
		summarize("percpu_cost/vs_FetchAdd_1t", "lower")
		for (i = 0; i < nr; i++) x[i + 1] = tp[1, "Sharded", i] / tp[1, "PerCPU", i]
		summarize("percpu_cost/vs_Sharded_1t", "lower")
		for (i = 0; i < nr; i++) x[i + 1] = tp[2, "Sharded", i] / tp[2, "PerCPU", i]
		summarize("percpu_cost/vs_Sharded_2t", "lower")
		for (i = 0; i < nr; i++) x[i + 1] = tp[1, "PerCPU", i] / tp[1, "PerCPUGroup", i]
		summarize("group_cost/vs_PerCPU_1t", "lower")
		# the tree counter (PerCPU plus a carry at each batch) against PerCPU
		for (t = 1; t <= 2; t++) if (tp[t, "PerCPUTree", 0] > 0) {
			for (i = 0; i < nr; i++) x[i + 1] = tp[t, "PerCPU", i] / tp[t, "PerCPUTree", i]
			summarize("tree_cost/vs_PerCPU_" t "t", "lower")
		}
		# handle API: ns added per increment by the node refresh (kernel - fixed)
		while (handle != "" && (getline line < handle) > 0) {
			split(line, h, " ")
			hns[h[1], h[2], h[3]] = h[5]
			if (!(h[2] in hv)) { hv[h[2]] = 1; hord[++nh] = h[2] }
			if (h[1] + 1 > hr) hr = h[1] + 1
		}
		for (j = 1; j <= nh; j++) {
			vals = ""
			for (i = 0; i < hr; i++) {
				x[i + 1] = hns[i, hord[j], "kernel"] - hns[i, hord[j], "fixed"]
				vals = vals (i ? " " : "") sprintf("%.4f", x[i + 1])
			}
			m = med(hr)
			for (i = 1; i <= hr; i++) { y[i] = x[i] - m; if (y[i] < 0) y[i] = -y[i] }
			for (i = 1; i <= hr; i++) x[i] = y[i]
			printf "node_refresh_ns/%s,%.4f,%.4f,lower,%d,%s\n", hord[j], m, 1.4826 * med(hr), hr, vals
		}
		# handle API against the inlined increment, paired within each round
		while (paired != "" && (getline line < paired) > 0) {
			split(line, h, " ")
			pr[h[1], h[2]] = h[5]
			if (!(h[2] in pv)) { pv[h[2]] = 1; pord[++np] = h[2] }
			if (h[1] + 1 > prn) prn = h[1] + 1
		}
		nr = prn
		for (j = 1; j <= np; j++) {
			for (i = 0; i < prn; i++) x[i + 1] = pr[i, pord[j]]
			summarize(pord[j], "lower")
		}
	}' "$1" "$2"
}

# aligned_table PAIRED ALIGNED RUNS: the handle's ratio to the inlined increment
# per loop alignment. PAIRED holds the plain build's lines "ROUND
# handle_vs_inline_1t/VARIANT INLINE_NS HANDLE_NS RATIO" (among others),
# ALIGNED the other builds' "BUILD VARIANT RATIO", one line per process; per
# build and variant, the median over the processes and [the largest], and per
# variant whether every build's median is within 1.3x.
aligned_table() {
	echo "handle API / inline, 1 thread, by the loop alignment of the program (median of $3 processes per build, [largest]; handle_bench is plain -O2):"
	awk -v base="$1" "$AWK_LIB"'
		function add(bb, vv, x) { k = bb SUBSEP vv; n[k]++; val[k, n[k]] = x; if (!(k in top) || x > top[k]) top[k] = x }
		BEGIN { while ((getline l < base) > 0) { split(l, h, " "); if (h[2] ~ /^handle_vs_inline_1t\//) { sub(/.*\//, "", h[2]); add("plain -O2", h[2], h[5]); if (!(h[2] in seen)) { seen[h[2]] = 1; vs[++nv] = h[2] } } }; b[++nb] = "plain -O2" }
		{ if (!(($1) in bs)) { bs[$1] = 1; b[++nb] = $1 } add($1, $2, $3) }
		END {
			for (k in n) { for (q = 1; q <= n[k]; q++) x[q] = val[k, q]; r[k] = med(n[k]) }
			printf "  %-12s", ""; for (j = 1; j <= nb; j++) printf " %18s", b[j]; printf "  %s\n", "spread (max/min)"
			for (i = 1; i <= nv; i++) {
				lo = hi = ""; printf "  %-12s", vs[i]
				for (j = 1; j <= nb; j++) { y = r[b[j], vs[i]]; printf " %18s", y == "" ? "-" : sprintf("%.3fx [%.2f]", y, top[b[j], vs[i]])
					if (y != "") { if (lo == "" || y < lo) lo = y; if (hi == "" || y > hi) hi = y } }
				printf "  %.2f (target <= 1.3x in every build: %s)\n", hi / lo, hi <= 1.3 ? "met" : "MISSED"
			}
		}' "$2"
}

if [ "${1:-}" = "--aligned" ]; then
	[ $# -eq 4 ] && [ -r "$2" ] && [ -r "$3" ] || {
		echo "usage: bench.sh --aligned PAIRED ALIGNED RUNS (the bench's paired and aligned files)" >&2
		exit 2
	}
	aligned_table "$2" "$3" "$4"
	exit $?
fi
if [ "${1:-}" = "--metrics" ]; then
	[ $# -eq 3 ] && [ -r "$2" ] && [ -r "$3" ] || {
		echo "usage: bench.sh --metrics T1.CSV T2.CSV (two readable scbench CSVs)" >&2
		exit 2
	}
	metrics "$2" "$3"
	exit $?
fi
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
runs=${3:-${RUNS:-7}}
if [ -n "${BASELINE:-}" ] && [ ! -r "$BASELINE" ]; then
	echo "bench: BASELINE=$BASELINE: no such readable file" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scbench-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "bench: $runs interleaved rounds of timed runs of ${dur} s (warm-up 0.2 s); 0% external work"
i=0
while [ "$i" -lt "$runs" ]; do
	"$scbench" --counter="Sharded,FetchAdd,CAS,$prob,RBONumaAdapt,MultilineAdapt,PerCPU,PerCPUGroup,PerCPUTree" --threads=1 \
		--duration="$dur" --warmup=0.2 --runs=1 --first-run="$i" --events=none \
		--output="$tmp/t1.$i.csv"
	"$scbench" --counter="FetchAdd,BFP-CSUP,Morris,Scalable,Sharded,PerCPU,PerCPUTree" --threads=2 \
		--duration="$dur" --warmup=0.2 --runs=1 --first-run="$i" --events=none \
		--output="$tmp/t2.$i.csv"
	# The handle API's increment (sc_counter_inc, one thread): node ids from
	# the kernel against SCOUNTERS_NODE=fixed (no refresh), in the same round.
	if [ -n "${HANDLE_BENCH:-}" ]; then
		for v in FetchAdd RBONuma Multiline; do
			"$HANDLE_BENCH" "$v" "$dur" | awk -v r="$i" '{ print r, $1, "kernel", $2, $3 }' >>"$tmp/handle"
			SCOUNTERS_NODE=fixed "$HANDLE_BENCH" "$v" "$dur" |
				awk -v r="$i" '{ print r, $1, "fixed", $2, $3 }' >>"$tmp/handle"
		done
		# sc_counter_inc against the inlined sc_P_inc, alternating within one process
		for v in $handle_variants; do
			"$HANDLE_BENCH" --paired "$v" "$dur" |
				awk -v r="$i" '{ print r, "handle_vs_inline_1t/" $1, $2, $3, $4 }' >>"$tmp/paired"
		done
		# the per-CPU add against the floor (a thread's own word), alternating in one process
		"$HANDLE_BENCH" --floor "$dur" 2>/dev/null |
			awk -v r="$i" '{ print r, ($1 ~ /indexed/ ? "floor_indexed_1t/" : "percpu_vs_floor_1t/") $1, $2, $3, $4 }' >>"$tmp/paired"
		# librseq's per-CPU add against the floor and PerCPU's against it, alternating in
		# one process (a handle_bench built with librseq; else it says why, exit 77)
		"$HANDLE_BENCH" --librseq "$dur" 2>"$tmp/librseq.err" |
			awk -v r="$i" '{ print r, "librseq_1t/" $1, $2, $3, $4 }' >>"$tmp/paired"
		# the tree counter's inlined increment against PerCPU's, alternating in one process
		"$HANDLE_BENCH" --versus PerCPU PerCPUTree "$dur" |
			awk -v r="$i" '{ print r, "paired_vs_PerCPU_1t/" $1, $3, $4, $5 }' >>"$tmp/paired"
		# the handle against the inlined increment under other loop alignments, every
		# round: a process's ratio can sit in one of two modes (a core's store-to-load
		# forwarding, predicted per process), so one process per build says little
		for prog in ${HANDLE_BENCH_ALIGNED:-}; do
			for v in $handle_variants; do
				"$prog" --paired "$v" "$dur" |
					awk -v b="${prog##*/}" '{ print b, $1, $4 }' >>"$tmp/aligned"
			done
		done
		# the adaptive counters' inlined increment against CAS's, alternating in one process
		for v in $(echo "$adapt" | tr , ' '); do
			"$HANDLE_BENCH" --versus CAS "$v" "$dur" |
				awk -v r="$i" '{ print r, "paired_vs_CAS_1t/" $1, $3, $4, $5 }' >>"$tmp/paired"
		done
	fi
	i=$((i + 1))
done
src=""
[ -s "$tmp/handle" ] && src=$(awk '$3 == "kernel" { print $4; exit }' "$tmp/handle")
for t in t1 t2; do
	awk 'FNR > 1 || NR == 1' "$tmp/$t".*.csv >"$tmp/$t.csv"
done
# Busy runs (the busy column, by name: scbench decides, load.h states the rule).
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "busy") c = i; next }
	{ n++; b += (c && $c == 1) }
	END { if (b) printf "bench: warning: the machine was busy (other processes or steal) during %d of %d runs: the figures and the gate are unreliable\n", b, n
	      else printf "bench: the machine was quiet during all %d runs\n", n }' "$tmp/t1.csv" "$tmp/t2.csv"

# The per-CPU path the runs took (PerCPU's describe: path=...).
path=$(grep -o 'path=[a-z_-]*' "$tmp/t1.csv" | head -1 | cut -d= -f2)
metrics "$tmp/t1.csv" "$tmp/t2.csv" "$([ -s "$tmp/handle" ] && echo "$tmp/handle")" \
	"$([ -s "$tmp/paired" ] && echo "$tmp/paired")" >"$tmp/metrics"

# The report: each target met or missed.
awk -F, '
	FNR == 1 { next }
	{ ord[++no] = $1; v[$1] = $2; nz[$1] = $3 }
	function verdict(ok) { return ok ? "met" : "MISSED" }
	function line(m, unit, target, ok) {
		split(m, k, "/")
		printf "  %-15s %7.2f%s  (robust run-to-run sd %4.1f%%)  %s %s\n", k[2], v[m], unit,
			100 * nz[m], target, target == "" ? "" : verdict(ok)
	}
	END {
		print "\nharness floor, 1 thread, ns per increment:"
		line("floor_ns/Sharded", " ns", "target <= 1.5 ns:", v["floor_ns/Sharded"] <= 1.5)
		print "\n1 thread, cost relative to FetchAdd:"
		for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^cost_vs_FetchAdd_1t/) line(m, "x", "target <= 1.5x:", v[m] <= 1.5)
		if ("reference_vs_FetchAdd_1t/CAS" in v) {
			line("reference_vs_FetchAdd_1t/CAS", "x", "", 1)
			print "  (CAS, no target: MorrisAdapt, BFP-CSUP and ScalableCAS count by a CAS loop at 1 thread,"
			printf "  so their cost relative to CAS, below, is what they add; where CAS itself is over 1.5x, %s)\n",
				(v["reference_vs_FetchAdd_1t/CAS"] > 1.5) ? "as here, they cannot meet 1.5x" : "they can"
		}
		print "\n1 thread, cost relative to CAS:"
		for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^cost_vs_CAS_1t/) line(m, "x", "target <= 1.1x:", v[m] <= 1.1)
		print "\n1 thread, cost relative to Morris (the same kind of work):"
		line("cost_vs_Morris_1t/Scalable", "x", "target <= 1.05x:", v["cost_vs_Morris_1t/Scalable"] <= 1.05)
		printf "\nPerCPU (path: %s) and PerCPUGroup, cost ratios:\n", path
		line("percpu_cost/vs_FetchAdd_1t", "x", "target <= 0.6x:", v["percpu_cost/vs_FetchAdd_1t"] <= 0.6)
		line("percpu_cost/vs_Sharded_1t", "x", "", 1)
		line("percpu_cost/vs_Sharded_2t", "x", "", 1)
		line("group_cost/vs_PerCPU_1t", "x", "target <= 1.2x:", v["group_cost/vs_PerCPU_1t"] <= 1.2)
		print "\nPerCPUTree (per-CPU words and a carry tree), cost relative to PerCPU:"
		line("tree_cost/vs_PerCPU_1t", "x", "target <= 1.2x:", v["tree_cost/vs_PerCPU_1t"] <= 1.2)
		line("tree_cost/vs_PerCPU_2t", "x", "target <= 1.2x:", v["tree_cost/vs_PerCPU_2t"] <= 1.2)
		if ("paired_vs_PerCPU_1t/PerCPUTree" in v)
			line("paired_vs_PerCPU_1t/PerCPUTree", "x", "target <= 1.2x (inlined, paired chunks):", v["paired_vs_PerCPU_1t/PerCPUTree"] <= 1.2)
		print "\n2 threads, one counter, throughput relative to FetchAdd:"
		for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^speedup_vs_FetchAdd_2t/) line(m, "x", "target >= 3x:", v[m] >= 3)
		nh = 0
		for (i = 1; i <= no; i++) if (ord[i] ~ /^paired_vs_CAS_1t/) nh++
		if (nh) {
			print "\n1 thread, cost relative to CAS, the inlined increments alternating in one process:"
			for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^paired_vs_CAS_1t/) line(m, "x", "target <= 1.1x:", v[m] <= 1.1)
		}
		nh = 0
		for (i = 1; i <= no; i++) if (ord[i] ~ /^handle_vs_inline_1t/) nh++
		if (nh) {
			print "\nhandle API, 1 thread, sc_counter_inc relative to the inlined increment (paired chunks, one process):"
			for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^handle_vs_inline_1t/) line(m, "x", "target <= 1.3x:", v[m] <= 1.3)
		}
		nh = 0
		for (i = 1; i <= no; i++) if (ord[i] ~ /^percpu_vs_floor_1t/) nh++
		if (nh) {
			print "\nper-CPU add, 1 thread, relative to a relaxed load and store of the thread\047s own word at a base+displacement address, the target\047s floor (paired chunks, one process):"
			print "  the target is the add through the thread\047s cursor (PerCPU-cursor: the word\047s address kept in a register);"
			print "  PerCPU\047s increment finds its word by the id it loads in the sequence (no target; see the indexed floor below)"
			for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^percpu_vs_floor_1t/) {
				if (m ~ /cursor$/) line(m, "x", "target <= 2.0x:", v[m] <= 2.0)
				else line(m, "x", "", 0)
			}
		}
		nh = 0
		for (i = 1; i <= no; i++) if (ord[i] ~ /^floor_indexed_1t/) nh++
		if (nh) {
			print "\nthe same, against an indexed floor (no target; the target above uses the base+displacement floor):"
			print "  the indexed floor is a load and store of a thread-private word at an index loaded each increment,"
			print "  as every per-CPU add addresses its word; floor-indexed is its cost over the floor above"
			for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^floor_indexed_1t/) line(m, "x", "", 0)
		}
		nh = 0
		for (i = 1; i <= no; i++) if (ord[i] ~ /^librseq_1t/) nh++
		if (nh) {
			print "\nlibrseq\047s per-CPU add against the floor above, and PerCPU\047s increment over librseq\047s (paired chunks, one process):"
			print "  the per-CPU target read against this host\047s reference rseq add (1.00x: parity; no verdict)"
			for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^librseq_1t/) line(m, "x", "", 0)
		} else if (lrskip != "")
			printf "\nlibrseq: skipped: %s\n", lrskip
		nh = 0
		for (i = 1; i <= no; i++) if (ord[i] ~ /^node_refresh_ns/) nh++
		if (nh) {
			printf "\nhandle API, ns per sc_counter_inc added by node ids from the kernel (%s), against SCOUNTERS_NODE=fixed:\n", src
			for (i = 1; i <= no; i++) if ((m = ord[i]) ~ /^node_refresh_ns/) {
				split(m, k, "/")
				printf "  %-15s %+7.2f ns  (robust run-to-run sd %.2f ns)  target <= 1 ns: %s\n", k[2],
					v[m], nz[m], verdict(v[m] <= 1)
			}
		}
	}' src="$src" path="$path" lrskip="$(sed -n 's/^handle_bench: //p' "$tmp/librseq.err" 2>/dev/null | head -1)" "$tmp/metrics"

# The handle's ratio under each loop alignment: per build, the median over the
# rounds (one process each) and the largest.
if [ -s "$tmp/aligned" ]; then
	echo
	aligned_table "$tmp/paired" "$tmp/aligned" "$runs"
fi
# llvm-mca's model of the loops, per core.
if [ -n "${MCA:-}" ]; then
	echo
	echo "llvm-mca, per increment (harness/mca.sh: loops of harness/mca_loops.c, clang -O2):"
	sh "$MCA" || echo "bench: mca.sh could not run (clang and llvm-mca are needed)"
fi

if [ -n "${BENCH_SAVE:-}" ]; then
	cp "$tmp/metrics" "$BENCH_SAVE"
	echo "bench: metrics saved to $BENCH_SAVE (use it later as BASELINE=$BENCH_SAVE)"
fi
if [ -n "${BASELINE:-}" ]; then
	echo
	echo "bench: against the baseline $BASELINE"
	compare "$tmp/metrics" "$BASELINE"
fi

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
#   (PYTHON=PROG: the Python that runs bench_stats.py; else /usr/bin/python3,
#   else python3)
#
# The statistics (the metric file, its medians and robust noise, the gate's
# rule and exit status, the aligned table and the report) are
# harness/bench_stats.py's, which states them in its docstring; this script
# runs scbench and handle_bench RUNS interleaved rounds and hands it their files.
set -eu

# The handle API's increment against the inlined one (make bench, HANDLE_BENCH).
handle_variants="FetchAdd Sharded PerCPU Morris Scalable"

# stats SUBCOMMAND ARG...: harness/bench_stats.py (metrics, compare, aligned,
# report) under $PYTHON, else /usr/bin/python3, else python3.
here=$(cd -- "$(dirname -- "$0")" && pwd)
stats() {
	for py in "${PYTHON:-}" /usr/bin/python3 python3 ""; do
		[ -n "$py" ] && command -v "$py" >/dev/null 2>&1 && break
	done
	if [ -z "$py" ]; then
		echo "bench: no python3 for harness/bench_stats.py (apt-get install python3, or set PYTHON)" >&2
		return 2
	fi
	"$py" "$here/bench_stats.py" "$@"
}
# The probabilistic counters, and the adaptive ones in their precise mode at 1
# thread (one CAS on one word: their cost relative to CAS, at most 1.1x), as
# bench_stats.py's metrics name them.
prob=$(stats counters prob)
adapt=$(stats counters adapt)

if [ "${1:-}" = "--aligned" ]; then
	[ $# -eq 4 ] && [ -r "$2" ] && [ -r "$3" ] || {
		echo "usage: bench.sh --aligned PAIRED ALIGNED RUNS (the bench's paired and aligned files)" >&2
		exit 2
	}
	stats aligned "$2" "$3" "$4"
	exit $?
fi
if [ "${1:-}" = "--metrics" ]; then
	[ $# -eq 3 ] && [ -r "$2" ] && [ -r "$3" ] || {
		echo "usage: bench.sh --metrics T1.CSV T2.CSV (two readable scbench CSVs)" >&2
		exit 2
	}
	stats metrics "$2" "$3"
	exit $?
fi
if [ "${1:-}" = "--compare" ]; then
	[ $# -eq 3 ] && [ -r "$2" ] && [ -r "$3" ] || {
		echo "usage: bench.sh --compare CURRENT BASELINE (two readable metric files)" >&2
		exit 2
	}
	echo "bench: $2 against the baseline $3"
	stats compare "$2" "$3"
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
stats metrics "$tmp/t1.csv" "$tmp/t2.csv" "$([ -s "$tmp/handle" ] && echo "$tmp/handle")" \
	"$([ -s "$tmp/paired" ] && echo "$tmp/paired")" >"$tmp/metrics"

# The report: each target met or missed.
stats report "$tmp/metrics" "$src" "$path" "$(sed -n 's/^handle_bench: //p' "$tmp/librseq.err" 2>/dev/null | head -1)"

# The handle's ratio under each loop alignment: per build, the median over the
# rounds (one process each) and the largest.
if [ -s "$tmp/aligned" ]; then
	echo
	stats aligned "$tmp/paired" "$tmp/aligned" "$runs"
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
	stats compare "$tmp/metrics" "$BASELINE"
fi

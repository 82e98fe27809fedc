#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-all.sh - run every experiment of doc/design.md §6 into one result set, then make
# the figures and the report. See --help.
set -euo pipefail

top=$(cd "$(dirname "$0")" && pwd)
mode=default
out=""
resume=""
max_threads=""
order_seed=""
experiments=""
variants=""
EXPERIMENTS="dice-fig3 dice-fig4-low dice-fig4-high dice-fig5 baselines latency read-cost ayers ayers-tunable"

usage() {
	cat <<EOF
Usage: ./run-all.sh [--quick | --paper | --paper-errors] [--out DIR] [--max-threads N]
                    [--resume DIR] [--order-seed S]
                    [--experiments=LIST] [--variants=LIST]

Runs every experiment (Dice Figs. 3-6, Ayers's accuracy and scaling figures,
baselines, latency, read cost) with scbench into results/<host>-<date>/ (or
--out DIR), one CSV per experiment plus its .meta.json, then regenerates the
figures (figures/*.png with gnuplot, *.pdf and *.svg with matplotlib) and
REPORT.md, which says which claims of the papers hold on this machine.

Modes (timed points: warm-up + measured seconds x runs):
  --quick     0.05 + 0.2 s x 1 run, small Ayers grid: a smoke run
  (default)   0.2 + 0.8 s x 3 runs
  --paper     2 + 8 s x 5 runs, the papers' protocol (Dice §5: median of 5);
              at 0% work RBONuma(Adapt) (range 2^31 - 1) and Morris (about 4.29e9)
              may count past their range in 8 s: such runs are flagged
              (overflowed=1) and left out of the error figures and claims
  --paper-errors
              only the error experiments of Dice Fig. 6 (the runs of Fig. 4 at
              99% and 0% work, for $ERRORS),
              with the papers' protocol: their errors depend on how high a run
              counts, so the error claims are judged at the paper's counts.
              About $(errors_minutes) min here; figures and claims that need
              other experiments are skipped or not measurable

Every run of a timed point (variant, thread count) is its own scbench
invocation (--runs=1 --first-run=r), so a point's min-max band includes the
variance between invocations (calibration of --work, memory layout, what
else the machine did). Repetition r of every timed point of every experiment
runs before repetition r+1 of any, each round in a shuffled order drawn from
the order seed (recorded in run-all.conf; the order in run-all.order). Only
read-cost runs the reader thread (scbench --read-cost=off elsewhere: read_ns
empty), so throughput runs have no reader wake-ups. Ayers's count-to-N runs
(all runs of one N in one invocation) come last, in their plan order.

A point whose external work cannot be calibrated (scbench exit status 3: it
says what it measured and why that is not usable) fails alone: the sweep
goes on, failed-points.csv in the result set gives each failed point with
its reason, REPORT.md lists them, and --resume DIR tries them again. Any
other scbench failure stops the sweep (continue with --resume DIR).

Thread counts are 1, 2, 4, ... and the PU count (hwloc), capped by
--max-threads. Time per thread count (the Dice figures, baselines, latency
and read cost run once per thread count; Ayers's count-to-N runs use all PUs),
with about $INVOKE_S s to start each scbench and $CALIB_S s more to calibrate --work:
  --quick    about $(estimate quick 0) s per thread count, plus $(fixed quick) s
  default    about $(estimate default 0) s per thread count, plus $(fixed default) s
  --paper    about $(estimate paper 0) s per thread count, plus $(fixed paper) s
This machine has $(pu_count) PUs, so thread counts $(thread_list "") : about
$(total_minutes quick) min (--quick), $(total_minutes default) min (default),
$(total_minutes paper) min (--paper). A 256-PU box has 10 thread counts.

Options:
  --out DIR        write the result set to DIR (must not exist)
  --resume DIR     continue an interrupted run in DIR: finished points are kept
                   and never run again; the mode and thread counts come from DIR
  --max-threads N  largest thread count to run
  --order-seed S   seed of the shuffled order, 1..2147483646 (default: drawn
                   from the clock; a new result set only)
  --experiments=LIST
                   run only these experiments (comma-separated) of the mode's
                   plan: $EXPERIMENTS
  --variants=LIST  run only these variants (comma-separated names of scbench
                   --list) in every experiment; an experiment left with none
                   is dropped. Both restrict a new result set (recorded in
                   run-all.conf and each .meta.json); the figures and claims
                   that need what was left out are skipped or not measurable.
                   E.g. a NUMA smoke run: --quick --experiments=dice-fig4-high
                   --variants=FetchAdd,RBONuma,Multiline
  --help           this text

Environment: SCBENCH (scbench binary, default: build this tree if needed),
PYTHON_MPL (a Python with matplotlib, default: found by plots/regen).
A result set is never overwritten. Progress goes to standard error. --resume
reads run-all.conf, run-all.plan and run-all.order as data (never runs them)
and runs again any part that does not match its plan line. Exit status: 0,
1 when a run or plots/regen failed, 2 on bad usage or a damaged result set,
130/143 when interrupted.
EOF
}

die() {
	echo "run-all.sh: $*" >&2
	exit 2
}

pu_count() {
	local n=""
	if command -v hwloc-calc >/dev/null 2>&1; then
		n=$(hwloc-calc --number-of pu all 2>/dev/null || true)
	fi
	[ -n "$n" ] && [ "$n" -gt 0 ] 2>/dev/null || n=$(nproc 2>/dev/null || echo 1)
	echo "$n"
}

# thread_list CAP: 1 2 4 ... below the PU count, then the PU count; all <= CAP.
thread_list() {
	local cap=${1:-} pus t list=""
	pus=$(pu_count)
	[ -n "$cap" ] && [ "$cap" -lt "$pus" ] && pus=$cap
	for ((t = 1; t < pus; t *= 2)); do list="$list $t"; done
	echo "${list# } $pus" | sed 's/^ //'
}

# Protocol of each mode: warmup duration runs ayers_runs ayers_steps.
protocol() {
	case $1 in
	quick) echo "0.05 0.2 1 10 7" ;;
	default) echo "0.2 0.8 3 30 9" ;;
	paper | paper-errors) echo "2 8 5 100 11" ;;
	esac
}

DICE="Serial,CAS,RBO,RBONuma,RBONumaAdapt,Multiline,MultilineAdapt,Morris,MorrisAdapt,BFP-DUP,BFP-CSUP,FetchAdd"
BASELINES="FetchAdd,Multiline,MultilineAdapt,Morris,BFP-CSUP,Scalable,Sharded,Striped,Batched,PerCPU"
ERRORS="Serial,Morris,MorrisAdapt,BFP-DUP,BFP-CSUP"
N_DICE=12
N_ERR=5
N_BASE=10
N_ALL=19
# Seconds to start one scbench (process, hwloc topology, threads), and to
# calibrate --work once (wl_calibrate), measured on the 2-PU development box.
INVOKE_S=0.1
CALIB_S=0.75

# Seconds of timed runs per thread count (the fixed part: all variants' read
# cost, once): one invocation per run, each with its start-up cost, and a
# calibration in those with external work (fig3, fig4-low, baselines at 99%).
estimate() {
	local w d r ar as
	read -r w d r ar as <<<"$(protocol "$1")"
	# fig3, fig4-low, fig4-high, fig5: Dice set; baselines at 2 work levels; latency.
	awk -v w="$w" -v d="$d" -v r="$r" -v nd=$N_DICE -v nb=$N_BASE -v na=$N_ALL -v f="$2" \
		-v inv=$INVOKE_S -v cal=$CALIB_S 'BEGIN {
		per = (w + d + 0.05 + inv) * r
		printf "%.0f", f ? per * na : per * (4 * nd + 2 * nb + na) + (2 * nd + nb) * r * cal }'
}

estimate_ayers() {
	local w d r ar as
	read -r w d r ar as <<<"$(protocol "$1")"
	# 3 variants + 6 thresholds, as steps of a x4 grid up to 12*4^steps increments
	awk -v ar="$ar" -v as="$as" -v inv=$INVOKE_S 'BEGIN {
		n = 12 * 4 ^ as; printf "%.0f", 9 * ar * (0.002 * (as + 1) + n * 1.33 * 5e-9) + 9 * (as + 1) * inv }'
}

# Seconds that do not grow with the thread counts: read cost and Ayers's runs.
fixed() {
	awk -v a="$(estimate "$1" 1)" -v b="$(estimate_ayers "$1")" 'BEGIN { printf "%.0f", a + b }'
}

# --paper-errors: 2 figures x N_ERR variants x 5 runs of 2 + 8 s per thread count.
errors_minutes() {
	local k
	k=$(thread_list "${max_threads:-}" | wc -w)
	# One invocation per run; the 99% ones calibrate --work.
	awk -v k="$k" -v n=$N_ERR -v inv=$INVOKE_S -v cal=$CALIB_S \
		'BEGIN { printf "%.0f", k * (2 * n * 5 * (10.05 + inv) + n * 5 * cal) / 60 + 0.5 }'
}

total_minutes() {
	local k
	k=$(thread_list "${max_threads:-}" | wc -w)
	awk -v a="$(estimate "$1" 0)" -v b="$(fixed "$1")" -v k="$k" \
		'BEGIN { printf "%.1f", (a * k + b) / 60 + 0.3 }'
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick ;;
	--paper) mode=paper ;;
	--paper-errors) mode=paper-errors ;;
	--out) [ -n "${2:-}" ] || die "--out needs a directory"; out=$2; shift ;;
	--out=*) out=${1#--out=}; [ -n "$out" ] || die "--out needs a directory" ;;
	--resume) [ -n "${2:-}" ] || die "--resume needs a directory"; resume=$2; shift ;;
	--resume=*) resume=${1#--resume=}; [ -n "$resume" ] || die "--resume needs a directory" ;;
	--max-threads) [ $# -ge 2 ] || die "--max-threads needs a number"; max_threads=$2; shift ;;
	--max-threads=*) max_threads=${1#--max-threads=} ;;
	--order-seed) [ $# -ge 2 ] || die "--order-seed needs a number"; order_seed=$2; shift ;;
	--order-seed=*) order_seed=${1#--order-seed=} ;;
	--experiments) [ $# -ge 2 ] || die "--experiments needs a list"; experiments=$2; shift ;;
	--experiments=*) experiments=${1#--experiments=} ;;
	--variants) [ $# -ge 2 ] || die "--variants needs a list"; variants=$2; shift ;;
	--variants=*) variants=${1#--variants=} ;;
	--help | -h) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
# 16384: scbench's largest thread count (harness/cli.h CLI_MAX_THREADS).
if [ -n "$max_threads" ] && { ! [[ $max_threads =~ ^[1-9][0-9]{0,4}$ ]] ||
	[ "$max_threads" -gt 16384 ]; }; then
	die "--max-threads=$max_threads: expected an integer in [1, 16384]"
fi
if [ -n "$order_seed" ] && { ! [[ $order_seed =~ ^[1-9][0-9]{0,9}$ ]] ||
	[ "$order_seed" -gt 2147483646 ]; }; then
	die "--order-seed=$order_seed: expected an integer in [1, 2147483646]"
fi
[ -z "$order_seed" ] || [ -z "$resume" ] ||
	die "--order-seed is for a new result set; --resume follows the recorded order"
if [ -n "$experiments" ]; then
	[[ $experiments =~ ^[a-z0-9-]+(,[a-z0-9-]+)*$ ]] ||
		die "--experiments=$experiments: expected a comma-separated list of: $EXPERIMENTS"
	for e in ${experiments//,/ }; do
		[[ " $EXPERIMENTS " == *" $e "* ]] || die "--experiments: unknown experiment '$e' (one of: $EXPERIMENTS)"
	done
fi
if [ -n "$variants" ]; then
	[[ $variants =~ ^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$ ]] ||
		die "--variants=$variants: expected a comma-separated list of variant names (scbench --list)"
fi
{ [ -z "$experiments" ] && [ -z "$variants" ]; } || [ -z "$resume" ] ||
	die "--experiments and --variants are for a new result set; --resume follows the recorded plan"

# read_conf FILE: set mode, threads and order_seed from a result set's
# run-all.conf. A result set is data (it may come from anyone): the file is
# parsed as KEY=VALUE lines, each key once from a fixed list, each value
# checked, never sourced or evaluated; anything else is an error naming the
# file and line.
read_conf() {
	local file=$1 line key value n=0 seen=" " t prev=0
	[ -f "$file" ] && [ -r "$file" ] || die "$file: cannot read it"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in '' | '#'*) continue ;; esac
		[[ $line =~ ^([a-z_]+)=(.*)$ ]] || die "$file line $n: expected KEY=VALUE"
		key=${BASH_REMATCH[1]}
		value=${BASH_REMATCH[2]}
		[[ $value =~ ^\"(.*)\"$ ]] && value=${BASH_REMATCH[1]}
		[[ $seen == *" $key "* ]] && die "$file line $n: $key given twice"
		seen="$seen$key "
		case $key in
		mode)
			[[ $value =~ ^(quick|default|paper|paper-errors)$ ]] ||
				die "$file line $n: mode: expected quick, default, paper or paper-errors"
			mode=$value ;;
		threads)
			[[ $value =~ ^[1-9][0-9]{0,4}( [1-9][0-9]{0,4})*$ ]] ||
				die "$file line $n: threads: expected thread counts in [1, 16384], increasing"
			for t in $value; do
				[ "$t" -le 16384 ] && [ "$t" -gt "$prev" ] ||
					die "$file line $n: threads: expected thread counts in [1, 16384], increasing"
				prev=$t
			done
			threads=$value ;;
		order_seed)
			[[ $value =~ ^[1-9][0-9]{0,9}$ ]] && [ "$value" -le 2147483646 ] ||
				die "$file line $n: order_seed: expected an integer in [1, 2147483646]"
			order_seed=$value ;;
		experiments | variants)
			[[ $value =~ ^(all|[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*)$ ]] ||
				die "$file line $n: $key: expected all or a comma-separated list of names"
			[ "$value" = all ] && value=""
			printf -v "$key" '%s' "$value" ;;
		*) die "$file line $n: unknown key '$key' (expected mode, threads, order_seed, experiments, variants)" ;;
		esac
	done <"$file"
	for key in mode threads; do
		[[ $seen == *" $key "* ]] || die "$file: no $key line"
	done
}

# --- dependencies and build ---------------------------------------------------
# deps.sh installs the Debian packages that are missing (SCOUNTERS_NO_INSTALL=1:
# only names them, and run-all.sh stops); not with a given SCBENCH.
if [ -z "${SCBENCH:-}" ]; then
	"$top/deps.sh" || exit 1
	need_pkgs=""
	for tool in gcc make autoreconf libtoolize pkg-config; do
		command -v "$tool" >/dev/null 2>&1 || need_pkgs="$need_pkgs $tool"
	done
	pkg-config --exists 'hwloc >= 2.0' 2>/dev/null || need_pkgs="$need_pkgs libhwloc-dev"
	if [ -n "$need_pkgs" ]; then
		echo "run-all.sh: missing build dependencies:$need_pkgs (Debian packages: $("$top/deps.sh" --list))" >&2
		exit 1
	fi
fi
command -v gnuplot >/dev/null 2>&1 ||
	echo "run-all.sh: gnuplot not found: no PNG figures (apt-get install gnuplot-nox)" >&2
if ! { [ -n "${PYTHON_MPL:-}" ] || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
	python3 -c 'import matplotlib' 2>/dev/null; }; then
	echo "run-all.sh: no Python with matplotlib: no PDF/SVG figures (apt-get install python3-matplotlib)" >&2
fi

scbench=${SCBENCH:-$top/harness/scbench}
if [ -z "${SCBENCH:-}" ] && [ ! -x "$scbench" ]; then
	echo "run-all.sh: building scbench (./autogen.sh && ./configure && make; log: build.log)" >&2
	(cd "$top" && { [ -x configure ] || ./autogen.sh; } &&
		{ [ -f Makefile ] || ./configure; } && make -j"$(nproc)") >"$top/build.log" 2>&1 ||
		{ tail -20 "$top/build.log" >&2; echo "run-all.sh: build failed; see build.log" >&2; exit 1; }
fi
[ -x "$scbench" ] || { echo "run-all.sh: $scbench is not executable" >&2; exit 1; }

# --- the result set -------------------------------------------------------------
if [ -n "$resume" ]; then
	[ -d "$resume" ] || die "--resume $resume: no such result set"
	[ -f "$resume/run-all.conf" ] || die "--resume $resume: not a run-all result set (no run-all.conf)"
	[ -z "$out" ] || die "give --out or --resume, not both"
	dir=$resume
	read_conf "$dir/run-all.conf" # data: parsed, never sourced
	if [ -z "${order_seed:-}" ] || [ ! -f "$dir/run-all.plan" ] || [ ! -f "$dir/run-all.order" ]; then
		die "--resume $resume: no run-all.plan/run-all.order (made by an older run-all.sh, which ran all runs of a point in one invocation): finish it with that version"
	fi
else
	if [ -z "$out" ]; then
		out="$top/results/$(hostname -s 2>/dev/null || hostname)-$(date +%Y%m%d-%H%M%S)"
	fi
	[ -e "$out" ] && die "$out exists: a result set is never overwritten (use --resume $out to continue it)"
	dir=$out
	threads=$(thread_list "$max_threads")
	[ -n "$order_seed" ] || order_seed=$((($(date +%s) * 1000003 + $$) % 2147483646 + 1))
fi
read -r warmup duration runs ayers_runs ayers_steps <<<"$(protocol "$mode")"
pus=$(pu_count)
maxt=${threads##* }

# --- the plan: one line per scbench invocation ("id chunk args...") --------------
# The experiments' lines below name every variant of a point group at once;
# split_runs makes them one invocation per run, shuffle_rounds sets the order.
plan=$(mktemp)
order=$(mktemp)
trap 'rm -f "$plan" "$plan.points" "$plan.points.kept" "$plan.keys" "$order"' EXIT

# variant_keys: "name,key1,key2," per variant from scbench --list (the
# parameter keys it accepts, in the [...] that ends its line), in the order
# scbench runs them for --counter=all.
variant_keys() {
	"$scbench" --list | awk '!/^#/ && NF { k = ""
		if (match($0, /\[[a-z0-9,-]*\]$/)) k = substr($0, RSTART + 1, RLENGTH - 2)
		print $1 "," k (k == "" ? "" : ",") }'
}

# params_for KEYS ARGS: ARGS without the --param=KEY=VALUE whose key the
# variant does not accept (KEYS: its variant_keys line), as scbench applies a
# parameter to every chosen variant that accepts it; same-seed applies to all.
params_for() {
	local keys=$1 a key out=""
	for a in $2; do
		case $a in
		--param=*)
			key=${a#--param=}
			key=${key%%=*}
			[ "$key" = same-seed ] || [[ $keys == *",$key,"* ]] || continue ;;
		esac
		out="$out $a"
	done
	echo "${out# }"
}

# split_runs ALL < points > plan: every timed line "id chunk --counter=A,B ...
# --runs=R" becomes one line per variant and repetition, "id chunk-V-rK
# --counter=V ... --runs=1 --first-run=K", variants in list order and
# repetitions inner, so that the parts merged in plan order give the rows one
# invocation would, each with the --param keys its variant accepts.
# Count-to-N lines (--ops) stay whole. Every experiment but read-cost gets
# --read-cost=off: no reader thread wakes during its runs. KEYS: a file of
# variant_keys lines (its names are the list for --counter=all).
split_runs() {
	local keys=$1 all id chunk args given list r v k reader one
	all=$(cut -d, -f1 "$keys" | paste -sd, -)
	while read -r id chunk args; do
		reader=" --read-cost=off"
		[ "$id" = read-cost ] && reader=""
		case $args in *--ops=*) echo "$id $chunk $args$reader"; continue ;; esac
		given=${args#*--counter=}
		given=${given%% *}
		list=$given
		[ "$list" = all ] && list=$all
		r=${args##*--runs=}
		r=${r%% *}
		for v in ${list//,/ }; do
			for ((k = 0; k < r; k++)); do
				one=$(params_for "$(grep -m1 "^$v," "$keys")" "${args/"--counter=$given"/"--counter=$v"}")
				echo "$id $chunk-$v-r$k ${one/"--runs=$r"/"--runs=1 --first-run=$k"}$reader"
			done
		done
	done
}

# shuffle_rounds SEED < plan > order: "id chunk" of every plan line in the
# order to run them. Round K holds repetition K (--first-run=K) of every timed
# point of every experiment, in a Fisher-Yates shuffle driven by the
# Park-Miller generator (x <- 16807 x mod 2^31-1, exact in awk's doubles, so
# the order is the same function of SEED on every awk); the rounds run in
# order, then the count-to-N lines in plan order.
shuffle_rounds() {
	awk -v seed="$1" '
	function next_rand() { state = (state * 16807) % 2147483647; return state }
	{
		if ($0 ~ / --first-run=/) {
			k = $0; sub(/.* --first-run=/, "", k); sub(/ .*/, "", k); k += 0
			line[k, ++n[k]] = $1 " " $2
			if (k > maxk) maxk = k
		} else
			rest[++nrest] = $1 " " $2
	}
	END {
		state = seed
		for (k = 0; k <= maxk; k++) {
			for (i = n[k]; i > 1; i--) {
				j = next_rand() % i + 1
				t = line[k, i]; line[k, i] = line[k, j]; line[k, j] = t
			}
			for (i = 1; i <= n[k]; i++) print line[k, i]
		}
		for (i = 1; i <= nrest; i++) print rest[i]
	}'
}

timed="--warmup=$warmup --duration=$duration --runs=$runs"
# Range safety (issue 13): Scalable, ScalableCAS and ScalableCapped count in 64 bits in
# every timed experiment (2^32 is reached in under 8 s at 2 threads, 0% work). Every
# other precise variant but RBONuma(Adapt) holds 2^63 or more; their 32-bit word (2^31 - 1
# on one node, less on more) has no parameter that widens it, and Morris tops out near
# 4.29e9 whatever its accuracy: scbench flags any such run (overflowed=1) and the plots
# leave its error out.
wide="--param=width=64"
[ -n "$resume" ] || {
	for t in $threads; do
		if [ "$mode" = paper-errors ]; then
			echo "dice-fig4-low t$t --counter=$ERRORS --work=99 --threads=$t $timed"
			echo "dice-fig4-high t$t --counter=$ERRORS --work=0 --threads=$t $timed"
			continue
		fi
		[ "$t" -le 64 ] && echo "dice-fig3 t$t --counter=$DICE --work=99.02 --threads=$t $timed"
		echo "dice-fig4-low t$t --counter=$DICE --work=99 --threads=$t $timed"
		echo "dice-fig4-high t$t --counter=$DICE --work=0 --threads=$t $timed"
		echo "dice-fig5 t$t --counter=$DICE --counters=7500 --work=0 --threads=$t $timed"
		echo "baselines w0-t$t --counter=$BASELINES --work=0 --threads=$t $wide $timed"
		echo "baselines w99-t$t --counter=$BASELINES --work=99 --threads=$t $wide $timed"
		echo "latency t$t --counter=all --latency --work=0 --threads=$t $wide $timed"
	done
	[ "$mode" = paper-errors ] || echo "read-cost t$maxt --counter=all --work=0 --threads=$maxt $wide $timed"
	per=$(((12 + maxt - 1) / maxt))
	[ "$mode" = paper-errors ] && ayers_steps=-1 # no count-to-N runs
	for ((k = 0; k <= ayers_steps; k++)); do
		ops=$((per * (1 << (2 * k))))
		echo "ayers n$k --counter=Serial,FetchAdd,Scalable --threads=$maxt --ops=$ops --runs=$ayers_runs"
		for T in 10 11 12 13 14 15; do
			echo "ayers-tunable n$k-T$T --counter=Scalable --param=threshold=$T --threads=$maxt --ops=$ops --runs=$ayers_runs"
		done
	done
} >"$plan.points"

# restrict_points KEYS < points > points: only the lines of --experiments,
# each --counter list cut to --variants (in its own order; "all" becomes the
# chosen variants in --list order); a line left with no variant is dropped.
restrict_points() {
	local keys=$1 all id chunk args given list v kept
	all=$(cut -d, -f1 "$keys" | paste -sd, -)
	while read -r id chunk args; do
		[ -z "$experiments" ] || [[ ",$experiments," == *",$id,"* ]] || continue
		if [ -n "$variants" ]; then
			given=${args#*--counter=}
			given=${given%% *}
			list=$given
			[ "$list" = all ] && list=$all
			kept=""
			for v in ${list//,/ }; do
				[[ ",$variants," == *",$v,"* ]] && kept="$kept,$v"
			done
			[ -n "$kept" ] || continue
			args=${args/"--counter=$given"/"--counter=${kept#,}"}
		fi
		echo "$id $chunk $args"
	done
}

# A new result set: the plan, its order and run-all.conf, written before any run.
new_result_set() {
	local v
	variant_keys >"$plan.keys" && [ -s "$plan.keys" ] ||
		{ echo "run-all.sh: $scbench --list failed" >&2; exit 1; }
	for v in ${variants//,/ }; do
		grep -q "^$v," "$plan.keys" ||
			die "--variants: unknown variant '$v' (one of: $(cut -d, -f1 "$plan.keys" | paste -sd' ' -))"
	done
	restrict_points "$plan.keys" <"$plan.points" >"$plan.points.kept"
	[ -s "$plan.points.kept" ] ||
		die "--experiments=${experiments:-all} --variants=${variants:-all}: nothing of the $mode plan is left to run"
	split_runs "$plan.keys" <"$plan.points.kept" >"$plan"
	shuffle_rounds "$order_seed" <"$plan" >"$order"
	mkdir -p "$dir/parts" "$dir/logs" || die "cannot create $dir"
	cp "$plan" "$dir/run-all.plan"
	{
		echo "# run-all.sh: the order in which the invocations of run-all.plan run (id chunk),"
		echo "# from order seed $order_seed: round K (repetition K of every timed point)"
		echo "# shuffled, the rounds in order, then the count-to-N invocations"
		cat "$order"
	} >"$dir/run-all.order"
	cat >"$dir/run-all.conf" <<EOF
mode=$mode
threads="$threads"
order_seed=$order_seed
experiments=${experiments:-all}
variants=${variants:-all}
EOF
}
# check_plan PLAN ORDER (of a result set to resume): data, checked before any
# use: each plan line "ID CHUNK ARGS" with ID and CHUNK plain names (no
# path), ARGS scbench options of a plain form with --counter, --threads and
# --runs, and no --output; each order line an "ID CHUNK" of the plan, once.
check_plan() {
	local plan_f=$1 order_f=$2 n=0 id chunk args a
	declare -A in_plan=()
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		read -r id chunk args <<<"$line"
		[[ $id =~ ^[a-z0-9][a-z0-9-]*$ && $chunk =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] ||
			die "$plan_f line $n: expected ID CHUNK ARGS with plain names"
		for a in $args; do
			[[ $a =~ ^--[a-z-]+(=[A-Za-z0-9.,=_+-]+)?$ ]] && [[ $a != --output* ]] ||
				die "$plan_f line $n: '$a' is not an option run-all.sh plans"
		done
		[[ " $args" =~ \ --runs=[1-9][0-9]{0,5}( |$) && " $args" =~ \ --counter=[A-Za-z0-9,-]+( |$) &&
			" $args" =~ \ --threads=[1-9][0-9]{0,4}( |$) ]] ||
			die "$plan_f line $n: expected --counter, --threads and --runs"
		[ -z "${in_plan["$id $chunk"]:-}" ] || die "$plan_f line $n: $id $chunk twice"
		in_plan["$id $chunk"]=1
	done <"$plan_f"
	[ "$n" -gt 0 ] || die "$plan_f: empty"
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in '#'*) continue ;; esac
		[ "${in_plan["$line"]:-}" = 1 ] || die "$order_f line $n: not an invocation of run-all.plan"
		in_plan["$line"]=2
	done <"$order_f"
	for line in "${!in_plan[@]}"; do
		[ "${in_plan["$line"]}" = 2 ] || die "$order_f: $line of run-all.plan is missing"
	done
}
if [ -n "$resume" ]; then
	check_plan "$dir/run-all.plan" "$dir/run-all.order"
	cp "$dir/run-all.plan" "$plan"
	grep -v '^#' "$dir/run-all.order" >"$order"
else
	new_result_set
fi
dir=$(cd "$dir" && pwd)

# plan_estimates < plan: "id chunk seconds" per plan line (for the time-left
# estimate): the runs (variants x runs of its --counter and --runs), the start
# of scbench, and the calibration of --work when there is external work.
plan_estimates() {
	awk -v all=$N_ALL -v w="$warmup" -v d="$duration" -v m="$maxt" -v inv=$INVOKE_S \
		-v cal=$CALIB_S '
	function opt(name,   v) {
		v = $0; if (!sub(".* --" name "=", "", v)) return ""
		sub(/ .*/, "", v); return v
	}
	{
		list = opt("counter"); nv = list == "all" ? all : split(list, parts, ",")
		r = opt("runs"); ops = opt("ops"); work = opt("work")
		if (ops != "")
			t = nv * r * (0.002 + ops * m * 1.33 * 5e-9) + inv
		else
			t = nv * r * (w + d + 0.05) + inv + (work + 0 > 0 ? cal : 0)
		printf "%s %s %.3f\n", $1, $2, t
	}'
}

# part_complete PART ARGS: is PART (with its sidecars) the whole output of
# the plan line ARGS? A CSV header, one row per variant of --counter and run
# of --runs, each with the header's field count, and a meta.json (scbench
# writes them last). An empty or cut part is not finished: it runs again.
part_complete() {
	local part=$1 args=$2 list runs
	list=${args#*--counter=}
	list=${list%% *}
	runs=${args##*--runs=}
	runs=${runs%% *}
	[ -f "$part" ] && [ -s "$part.meta.json" ] || return 1
	case $args in *--latency*) [ -s "$part.latency.csv" ] || return 1 ;; esac
	# A quoted field (pmu_status, end_state, params) may hold commas: each is
	# counted as one field (scbench writes no newline inside a field).
	awk -F, -v want=$(( $(tr ',' '\n' <<<"$list" | wc -l) * runs )) '
		{ gsub(/"[^"]*"/, "Q") }
		NR == 1 { if ($1 != "counter") exit 1; nf = NF; next }
		NF != nf { exit 1 }
		{ rows++ }
		END { exit !(NR > 0 && rows == want) }' "$part"
}

# Temporary files a SIGKILL left behind (the names scbench and this script
# give them: FILE.tmp.XXXXXX and FILE.tmp): never complete, so removed.
remove_stale_temps() {
	find "$dir" -maxdepth 3 -type f \( -name '*.tmp' -o -name '*.tmp.??????' \) \
		-exec rm -f {} + 2>/dev/null || true
}
[ -z "$resume" ] || remove_stale_temps

declare -A args_of est_of
while read -r id chunk args; do args_of["$id $chunk"]=$args; done <"$plan"
while read -r id chunk est; do
	est_of["$id $chunk"]=$est
done < <(plan_estimates <"$plan")
est_total=$(plan_estimates <"$plan" | awk '{ s += $3 } END { printf "%.3f", s }')
total=$(wc -l <"$order")

# Interrupts: SIGINT/SIGTERM/SIGHUP stop the current scbench (it removes its
# temporary files and exits 128+signal), then say how to continue; exit
# 128+signal. A part file exists only once complete, so nothing is lost.
child=""
resume_cmd=$(printf '%q --resume %q' "$top/run-all.sh" "$dir")
interrupted() {
	local sig=$1 code
	case $sig in INT) code=130 ;; TERM) code=143 ;; *) code=129 ;; esac
	trap - INT TERM HUP
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true # under set -e: its status is no failure here
	fi
	rm -f "$dir"/*.csv.tmp "$dir"/*.csv.meta.json.tmp "$dir"/*.csv.meta.json.tmp2
	echo "run-all.sh: interrupted (SIG$sig); nothing finished is lost. Continue with: $resume_cmd" >&2
	exit "$code"
}
trap 'interrupted INT' INT
trap 'interrupted TERM' TERM
trap 'interrupted HUP' HUP

echo "run-all.sh: $mode mode, $total scbench invocations (one per run, order seed $order_seed: run-all.order), thread counts: $threads ($pus PUs)" >&2
echo "run-all.sh: result set $dir (about $(awk -v s="$est_total" 'BEGIN { printf "%.1f", s / 60 }') min)" >&2
started=$(date +%s)
est_done=0
spent_est=0
i=0
while read -r id chunk; do
	i=$((i + 1))
	part="$dir/parts/$id/$chunk.csv"
	args=${args_of["$id $chunk"]}
	est=${est_of["$id $chunk"]}
	if [ -e "$part" ] && part_complete "$part" "$args"; then
		est_done=$(awk -v a="$est_done" -v b="$est" 'BEGIN { print a + b }')
		continue # finished before an interruption: never run twice
	fi
	rm -f "$part.failed" # a point that failed before is tried again on --resume
	if [ -e "$part" ]; then
		echo "run-all.sh: $id $chunk: part file incomplete (not what the plan asks for): run again" >&2
		rm -f "$part" "$part.meta.json" "$part.latency.csv"
	fi
	mkdir -p "$dir/parts/$id"
	now=$(date +%s)
	el=$((now - started))
	# Time left: the estimate of what remains, scaled by how the estimates fared so far.
	read -r est_done spent_est left < <(awk -v tot="$est_total" -v d="$est_done" -v el="$el" \
		-v se="$spent_est" -v e="$est" 'BEGIN { d += e; se += e
		f = (se - e > 1 && el > 0) ? el / (se - e) : 1; printf "%s %s %.0f\n", d, se, (tot - d + e) * f }')
	printf 'run-all.sh: [%d/%d] %s %s (%ds elapsed, ~%ds left)\n' "$i" "$total" "$id" "$chunk" \
		"$el" "$left" >&2
	# In the background, so that a signal reaches the trap at once.
	# shellcheck disable=SC2086
	"$scbench" $args --output="$part" 2>"$dir/logs/$id-$chunk.log" &
	child=$!
	status=0
	wait "$child" || status=$?
	child=""
	# scbench stopped by a signal that reached it first (Ctrl-C goes to the
	# whole process group): an interrupt, not a failure.
	case $status in
	130) interrupted INT ;;
	143) interrupted TERM ;;
	129) interrupted HUP ;;
	esac
	if [ "$status" -eq 3 ]; then
		# The external work could not be calibrated (scbench says why): this
		# point fails, the sweep goes on; failed-points.csv and the report list it.
		why=$(grep -m1 'calibration of the external work' "$dir/logs/$id-$chunk.log" |
			sed 's/^scbench: //' | tr -d '\r' || true)
		printf '%s\n' "${why:-scbench exited with status 3 (calibration failed)}" >"$part.failed"
		echo "run-all.sh: $id $chunk failed, going on: ${why:-calibration failed} (log: $dir/logs/$id-$chunk.log)" >&2
		continue
	fi
	if [ "$status" -ne 0 ]; then
		echo "run-all.sh: scbench failed for $id $chunk; see $dir/logs/$id-$chunk.log" >&2
		echo "run-all.sh: fix the cause, then continue with: $resume_cmd" >&2
		exit 1
	fi
done <"$order"

# --- merge the parts of each experiment into DIR/<id>.csv (+ meta) ------------
# With --latency the parts' histogram sidecars (PART.csv.latency.csv) are
# merged the same way into DIR/<id>.csv.latency.csv.

# merge_meta ID PART_META PARTS > meta.json: the meta.json of the part with the
# most threads (its placement map; calibration and command line are that
# invocation's: each row's work_iters is its own), plus "run_all", how the
# parts were made (results/README.md).
merge_meta() {
	local id=$1 meta=$2 parts=$3 how reader=off per=$runs
	how="one scbench invocation per run (--runs=1 --first-run=r: run r seeded --seed + r)"
	if grep -q '"--ops=' "$meta"; then
		how="one scbench invocation per N with all its runs (count-to-N)"
		per=$ayers_runs
	fi
	grep -q '"--read-cost=off"' "$meta" || reader=on
	awk -v id="$id" -v how="$how" -v per="$per" -v parts="$parts" -v seed="$order_seed" \
		-v mode="$mode" -v reader="$reader" -v exps="${experiments:-all}" -v vars="${variants:-all}" '
	{ line[++n] = $0 }
	END {
		while (n > 0 && line[n] !~ /^}/) n--
		for (i = 1; i < n - 1; i++) print line[i]
		print line[n - 1] ","
		printf "  \"run_all\": {\"experiment\": \"%s\", \"mode\": \"%s\", \"invocations\": \"%s\", ", id, mode, how
		printf "\"runs_per_point\": %d, \"parts\": %d, \"order_seed\": %d, ", per, parts, seed
		printf "\"experiments\": \"%s\", \"variants\": \"%s\", ", exps, vars
		printf "\"order\": \"run-all.order: repetition r of every timed point of every experiment "
		printf "before repetition r+1, each round shuffled by the order seed; count-to-N last\", "
		printf "\"reader\": \"%s\"}\n}\n", reader == "on" ? "on: read_ns measured" : \
			"off: --read-cost=off, no reader thread, read_ns empty"
	}' "$meta"
}

# merge_load CSV META > meta.json: META with its "load" line (one part's runs)
# replaced by the whole experiment's, from the CSV's load columns (by name):
# runs, busy runs, the largest load average, runnable count, other processes'
# PUs and steal; the busy rule is scbench's (harness/load.h). A CSV without
# the columns (an older scbench) leaves META as it is.
merge_load() {
	awk -F, -v meta="$2" '
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	!("busy" in c) { next }
	{
		n++; b += ($c["busy"] == 1)
		if ($c["load1"] != "" && $c["load1"] + 0 > l1) l1 = $c["load1"] + 0
		if ($c["runnable"] != "" && $c["runnable"] + 0 > rn) rn = $c["runnable"] + 0
		if ($c["other_pus"] != "" && $c["other_pus"] + 0 > op) op = $c["other_pus"] + 0
		if ($c["steal_pct"] != "" && $c["steal_pct"] + 0 > st) st = $c["steal_pct"] + 0
	}
	END {
		while ((getline line < meta) > 0) {
			if (n && line ~ /^  "load": \{/) {
				rule = line; sub(/.*"busy_rule": /, "", rule); sub(/\},?$/, "", rule)
				printf "  \"load\": {\"runs\": %d, \"busy_runs\": %d, \"busy\": %s, ", n, b, b ? "true" : "false"
				printf "\"load1_max\": %.2f, \"runnable_max\": %d, \"other_pus_max\": %.3f, ", l1, rn, op
				printf "\"steal_pct_max\": %.2f, \"busy_rule\": %s},\n", st, rule
			} else print line
		}
	}' "$1"
}

for id in $(awk '!seen[$1]++ { print $1 }' "$plan"); do
	nparts=0
	first=""
	tmp="$dir/$id.csv.tmp"
	htmp="$dir/$id.csv.latency.csv.tmp"
	: >"$tmp"
	rm -f "$htmp"
	while read -r pid chunk _; do
		[ "$pid" = "$id" ] || continue
		part="$dir/parts/$id/$chunk.csv"
		[ -f "$part.failed" ] && continue # a failed point (failed-points.csv)
		part_complete "$part" "${args_of["$id $chunk"]}" ||
			{ echo "run-all.sh: $part is incomplete: not merged" >&2; exit 1; }
		if [ -z "$first" ]; then
			head -1 "$part" >"$tmp"
			first=$part
		fi
		tail -n +2 "$part" >>"$tmp"
		nparts=$((nparts + 1))
		if [ -f "$part.latency.csv" ]; then
			[ -f "$htmp" ] || head -1 "$part.latency.csv" >"$htmp"
			tail -n +2 "$part.latency.csv" >>"$htmp"
		fi
		meta="$part.meta.json" # the last part has the most threads: its placement map
	done <"$plan"
	if [ -z "$first" ]; then # every point of the experiment failed: no CSV
		rm -f "$tmp" "$htmp"
		continue
	fi
	mv "$tmp" "$dir/$id.csv"
	[ -f "$htmp" ] && mv "$htmp" "$dir/$id.csv.latency.csv"
	merge_meta "$id" "$meta" "$nparts" >"$dir/$id.csv.meta.json.tmp"
	merge_load "$dir/$id.csv" "$dir/$id.csv.meta.json.tmp" >"$dir/$id.csv.meta.json.tmp2"
	mv "$dir/$id.csv.meta.json.tmp2" "$dir/$id.csv.meta.json"
	rm -f "$dir/$id.csv.meta.json.tmp"
done
# failed-points.csv: experiment,part,args,reason of every point that failed
# (results/README.md); none: no file.
rm -f "$dir/failed-points.csv"
nfailed=0
while read -r id chunk args; do
	f="$dir/parts/$id/$chunk.csv.failed"
	[ -f "$f" ] || continue
	[ "$nfailed" -gt 0 ] || echo "experiment,part,args,reason" >"$dir/failed-points.csv"
	nfailed=$((nfailed + 1))
	# CSV fields, quoted: doubled quotes inside
	printf '%s,%s,"%s","%s"\n' "$id" "$chunk" "${args//\"/\"\"}" \
		"$(head -1 "$f" | sed 's/"/""/g')" >>"$dir/failed-points.csv"
done <"$plan"
[ "$nfailed" -eq 0 ] ||
	echo "run-all.sh: $nfailed points failed (listed in $dir/failed-points.csv and the report)" >&2
echo "run-all.sh: measurements done in $(($(date +%s) - started)) s" >&2
awk -F, 'FNR == 1 { c = 0; for (i = 1; i <= NF; i++) if ($i == "busy") c = i; next }
	c { n++; b += ($c == 1) }
	END { if (b) printf "run-all.sh: warning: the machine was busy (other processes or steal) during %d of %d runs: see the busy column and REPORT.md\n", b, n }' \
	"$dir"/*.csv >&2

# --- figures and report ----------------------------------------------------------
regen_status=0
if [ -x "$top/plots/regen" ]; then
	"$top/plots/regen" "$dir" || regen_status=$?
fi
echo "run-all.sh: result set: $dir" >&2
[ -f "$dir/REPORT.md" ] && echo "run-all.sh: report: $dir/REPORT.md" >&2
if [ "$regen_status" -ne 0 ]; then
	echo "run-all.sh: the measurements are complete, but plots/regen failed (status $regen_status, see above); after fixing the cause: $(printf '%q' "$top/plots/regen") $(printf '%q' "$dir")" >&2
	exit 1
fi
exit 0

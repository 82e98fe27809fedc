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

usage() {
	cat <<EOF
Usage: ./run-all.sh [--quick | --paper | --paper-errors] [--out DIR] [--max-threads N]
                    [--resume DIR] [--order-seed S]

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
  --help           this text

Environment: SCBENCH (scbench binary, default: build this tree if needed),
PYTHON_MPL (a Python with matplotlib, default: found by plots/regen).
A result set is never overwritten. Progress goes to standard error.
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
	--out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift ;;
	--out=*) out=${1#--out=} ;;
	--resume) [ $# -ge 2 ] || die "--resume needs a directory"; resume=$2; shift ;;
	--resume=*) resume=${1#--resume=} ;;
	--max-threads) [ $# -ge 2 ] || die "--max-threads needs a number"; max_threads=$2; shift ;;
	--max-threads=*) max_threads=${1#--max-threads=} ;;
	--order-seed) [ $# -ge 2 ] || die "--order-seed needs a number"; order_seed=$2; shift ;;
	--order-seed=*) order_seed=${1#--order-seed=} ;;
	--help | -h) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
if [ -n "$max_threads" ] && ! [[ $max_threads =~ ^[1-9][0-9]*$ ]]; then
	die "--max-threads=$max_threads: expected a positive integer"
fi
if [ -n "$order_seed" ] && { ! [[ $order_seed =~ ^[1-9][0-9]{0,9}$ ]] ||
	[ "$order_seed" -gt 2147483646 ]; }; then
	die "--order-seed=$order_seed: expected an integer in [1, 2147483646]"
fi
[ -z "$order_seed" ] || [ -z "$resume" ] ||
	die "--order-seed is for a new result set; --resume follows the recorded order"

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
	# shellcheck disable=SC1091
	. "$dir/run-all.conf"
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
trap 'rm -f "$plan" "$plan.points" "$plan.keys" "$order"' EXIT

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

# A new result set: the plan, its order and run-all.conf, written before any run.
new_result_set() {
	variant_keys >"$plan.keys" && [ -s "$plan.keys" ] ||
		{ echo "run-all.sh: $scbench --list failed" >&2; exit 1; }
	split_runs "$plan.keys" <"$plan.points" >"$plan"
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
EOF
}
if [ -n "$resume" ]; then
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
resume_cmd=$(printf '%q --resume %q' "$0" "$dir")
interrupted() {
	local sig=$1 code
	case $sig in INT) code=130 ;; TERM) code=143 ;; *) code=129 ;; esac
	trap - INT TERM HUP
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true # under set -e: its status is no failure here
	fi
	rm -f "$dir"/*.csv.tmp "$dir"/*.csv.meta.json.tmp
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
	if [ -f "$part" ]; then
		est_done=$(awk -v a="$est_done" -v b="$est" 'BEGIN { print a + b }')
		continue # finished before an interruption: never run twice
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
	if [ "$status" -ne 0 ]; then
		echo "run-all.sh: scbench failed for $id $chunk; see $dir/logs/$id-$chunk.log" >&2
		echo "run-all.sh: fix the cause, then continue with: ./run-all.sh --resume $dir" >&2
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
		-v mode="$mode" -v reader="$reader" '
	{ line[++n] = $0 }
	END {
		while (n > 0 && line[n] !~ /^}/) n--
		for (i = 1; i < n - 1; i++) print line[i]
		print line[n - 1] ","
		printf "  \"run_all\": {\"experiment\": \"%s\", \"mode\": \"%s\", \"invocations\": \"%s\", ", id, mode, how
		printf "\"runs_per_point\": %d, \"parts\": %d, \"order_seed\": %d, ", per, parts, seed
		printf "\"order\": \"run-all.order: repetition r of every timed point of every experiment "
		printf "before repetition r+1, each round shuffled by the order seed; count-to-N last\", "
		printf "\"reader\": \"%s\"}\n}\n", reader == "on" ? "on: read_ns measured" : \
			"off: --read-cost=off, no reader thread, read_ns empty"
	}' "$meta"
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
	mv "$tmp" "$dir/$id.csv"
	[ -f "$htmp" ] && mv "$htmp" "$dir/$id.csv.latency.csv"
	merge_meta "$id" "$meta" "$nparts" >"$dir/$id.csv.meta.json.tmp"
	mv "$dir/$id.csv.meta.json.tmp" "$dir/$id.csv.meta.json"
done
echo "run-all.sh: measurements done in $(($(date +%s) - started)) s" >&2

# --- figures and report ----------------------------------------------------------
if [ -x "$top/plots/regen" ]; then
	"$top/plots/regen" "$dir" || echo "run-all.sh: plots/regen reported a problem (see above)" >&2
fi
echo "run-all.sh: result set: $dir" >&2
[ -f "$dir/REPORT.md" ] && echo "run-all.sh: report: $dir/REPORT.md" >&2
exit 0

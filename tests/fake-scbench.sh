#!/bin/sh
# SPDX-License-Identifier: MIT
# fake-scbench.sh - a stand-in for scbench in the run-all tests: it answers
# --list=json with the file FAKE_LIST (the real scbench's listing) and
# otherwise writes at once a plausible part: one row per variant and run,
# read_ns empty with --read-cost=off, a quoted field with a comma, a latency
# sidecar with --latency, and a meta.json with the command line and the
# machine (FAKE_HOST, FAKE_CPU: host and CPU model; defaults "fakehost",
# "Fake CPU"). Each invocation that writes a part (an --output in a parts/
# directory) is logged to FAKE_LOG; the FAKE_FAIL_AT-th of them (counted in
# the log) and later ones fail (exit 1); an invocation whose output path
# matches FAKE_CAL_FAIL fails as an uncalibratable --work does (exit 3,
# scbench's message). work_iters: --work-iters, else FAKE_WORK_ITERS
# (default 100) with --work above 0; ops_per_ms: 1 - PCT/100, as an exact
# calibration would give.
[ "$1" = --list=json ] && exec cat "$FAKE_LIST"
counters=; threads=; runs=5; first=0; reader=on; lat=; out=; seed=20130623; mode=timed
work=0; ops=; params=; iters=
for a in "$@"; do
	case $a in
	--counter=*) counters=${a#*=} ;;
	--threads=*) threads=${a#*=} ;;
	--runs=*) runs=${a#*=} ;;
	--first-run=*) first=${a#*=} ;;
	--read-cost=*) reader=${a#*=} ;;
	--latency) lat=1 ;;
	--ops=*) mode=count; ops=${a#*=} ;;
	--work=*) work=${a#*=} ;;
	--work-iters=*) iters=${a#*=} ;;
	--param=*) params=${params:+$params;}${a#*=} ;; # all of them, joined as scbench joins them
	--output=*) out=${a#*=} ;;
	esac
done
case $out in */parts/*)
	echo "$out" >>"$FAKE_LOG"
	[ -n "${FAKE_FAIL_AT:-}" ] && [ "$(wc -l <"$FAKE_LOG")" -ge "$FAKE_FAIL_AT" ] && exit 1 ;;
esac
[ -z "$iters" ] && iters=$(awk -v w="$work" -v m="${FAKE_WORK_ITERS:-100}" 'BEGIN { print (w > 0 ? m : 0) }')
rate=$(awk -v w="$work" 'BEGIN { print (100 - w) / 100 }')
case $out in *${FAKE_CAL_FAIL:-@none@}*)
	echo "scbench: calibration of the external work for --work failed: a pause costs nothing measurable: 256 pauses added 0.01 ns to a 2.4 ns increment" >&2
	exit 3 ;;
esac
read_ns=12.5
[ "$reader" = off ] && read_ns=
{
	echo "counter,kind,threads,run,mode,work_pct,work_iters,counters,placement,nodes,nodes_virtual,seconds,ops,value,rel_error,ops_per_ms,bytes_per_counter,seed,params,oversubscribed,ctx_switches,migrated,read_ns,pmu_status"
	IFS=,   # the variants, split without a pipe
	for v in $counters; do
		unset IFS
		r=$first
		while [ "$r" -lt $((first + runs)) ]; do
			echo "$v,precise,$threads,$r,$mode,$work,$iters,1,spread,1,0,0.1,${ops:-100},${ops:-100},0,$rate,64,$((seed + r)),$params,0,0,0,$read_ns,\"fake, a quoted field with a comma\""
			r=$((r + 1))
		done
	done
} >"$out"
if [ -n "$lat" ]; then
	echo "counter,threads,run,bucket_low_ns,bucket_high_ns,count" >"$out.latency.csv"
	tail -n +2 "$out" | cut -d, -f1,3,4 | sed 's/$/,10,11,100/' >>"$out.latency.csv"
fi
{
	printf '{\n  "host": "%s",\n  "kernel": "6.1.0-fake",\n' "${FAKE_HOST:-fakehost}"
	printf '  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf '  "topology": {"nodes": 1, "cores": 2, "pus": 2},\n'
	printf '  "cpu": {"model": "%s", "pus": 2},\n' "${FAKE_CPU:-Fake CPU}"
	# JSON strings: \ and " escaped, a tab or newline as \t or \n (paths may
	# hold them; one final newline of an argument is dropped). One awk for
	# all the arguments, byte by byte (LC_ALL=C): run-all's tests make
	# hundreds of these invocations each.
	LC_ALL=C awk 'BEGIN {
		printf "  \"command_line\": [\"fake\""
		for (i = 1; i < ARGC; i++) {
			s = ARGV[i]; sub(/\n$/, "", s); t = ""
			while (match(s, /[\\"\t\n]/)) {
				c = substr(s, RSTART, 1)
				t = t substr(s, 1, RSTART - 1) (c == "\t" ? "\\t" : c == "\n" ? "\\n" : "\\" c)
				s = substr(s, RSTART + 1)
			}
			printf ", \"%s\"", t s
		}
		printf "],\n  \"placement\": []\n}\n"
		exit
	}' "$@"
} >"$out.meta.json"

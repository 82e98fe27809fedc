#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_interrupts.sh - SIGINT and SIGTERM (doc/design.md §8), as TAP.
# scbench stops the current run and exits 130/143 with one line, leaving no
# half-written output (a regular file: nothing at all; a stream: whole rows
# only, and the message says so). run-all.sh, interrupted like a Ctrl-C (the
# signal goes to its whole process group), says "interrupted" and the exact
# --resume command and exits 130 (143 for SIGTERM); a real scbench failure
# keeps its own message. Everything is in a mktemp -d directory.
set -u
set -m # background jobs get their own process group, with SIGINT not ignored
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && grep -q "$2" "$1"; }

# wait_for PATTERN FILE...: until a file matching the glob exists (the run is
# under way), at most about 30 s; a hang guard, not a performance bound.
wait_for() {
	local i
	for ((i = 0; i < 300; i++)); do
		compgen -G "$1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# scbench, timed mode, into a regular file that already exists: interrupted,
# the file stays as it was and no temporary remains (with SIGTERM also no
# latency histogram sidecar).
for sig in INT TERM; do
	[ "$sig" = INT ] && code=130 || code=143
	[ "$sig" = INT ] && lat= || lat=--latency
	echo precious >"$tmp/keep-$sig.csv"
	"$SCBENCH" --counter=CAS --threads=2 --duration=15 --warmup=0.05 --runs=3 --events=none \
		$lat --output="$tmp/keep-$sig.csv" 2>"$tmp/err" &
	pid=$!
	wait_for "$tmp/keep-$sig.csv.tmp.*"
	sleep 0.2
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	check "scbench_timed_SIG${sig}_exit_$code" test "$rc" -eq "$code"
	check "scbench_timed_SIG${sig}_one_line" one_line "$tmp/err" "interrupted by SIG$sig"
	check "scbench_timed_SIG${sig}_file_untouched" grep -qx precious "$tmp/keep-$sig.csv"
	check "scbench_timed_SIG${sig}_no_temporary" test -z "$(compgen -G "$tmp/keep-$sig.csv*tmp*")"
	check "scbench_timed_SIG${sig}_no_sidecar" test -z "$(compgen -G "$tmp/keep-$sig.csv.*")"
done

# A plan over a minute is announced (runs and time) before it starts.
"$SCBENCH" --counter=CAS --threads=1 --duration=70 --warmup=0 --runs=1 --events=none \
	--output="$tmp/long.csv" 2>"$tmp/err" &
pid=$!
wait_for "$tmp/long.csv.tmp.*"
kill -INT "$pid"
wait "$pid"
check scbench_long_plan_announced grep -q "^scbench: 1 runs planned.*about 70 s" "$tmp/err"

# Count mode: the workers leave their loop at the next check of the flag.
"$SCBENCH" --counter=FetchAdd --threads=2 --ops=100000000000 --runs=1 --events=none \
	--output="$tmp/count.csv" 2>"$tmp/err" &
pid=$!
wait_for "$tmp/count.csv.tmp.*"
sleep 0.2
kill -INT "$pid"
wait "$pid"
check scbench_count_SIGINT_exit_130 test $? -eq 130
check scbench_count_SIGINT_nothing_written test ! -e "$tmp/count.csv"

# SIGKILL leaves the temporary; the next run on the same output removes it
# once it is 10 s old and unlocked, and keeps what is not a dead writer's: a
# temporary another process holds locked, a young one, and other names.
"$SCBENCH" --counter=FetchAdd --threads=1 --ops=100000000000 --runs=1 --events=none \
	--output="$tmp/killed.csv" 2>"$tmp/err" &
pid=$!
wait_for "$tmp/killed.csv.tmp.*"
kill -KILL "$pid"
wait "$pid"
left=$(compgen -G "$tmp/killed.csv.tmp.*")
check "scbench_SIGKILL_leaves_its_temporary (${left##*/})" test -n "$left" -a -f "$left"
touch -d '1 minute ago' "$left"
echo live >"$tmp/killed.csv.tmp.Locked" && touch -d '1 minute ago' "$tmp/killed.csv.tmp.Locked"
echo young >"$tmp/killed.csv.tmp.Young1"
echo other >"$tmp/killed.csv.tmp.toolong" && touch -d '1 minute ago' "$tmp/killed.csv.tmp.toolong"
echo other >"$tmp/other.csv.tmp.AbC123" && touch -d '1 minute ago' "$tmp/other.csv.tmp.AbC123"
flock "$tmp/killed.csv.tmp.Locked" sleep 60 &
holder=$!
for ((i = 0; i < 50; i++)); do # until the holder has its lock (a hang guard)
	flock -n "$tmp/killed.csv.tmp.Locked" true || break
	sleep 0.1
done
"$SCBENCH" --counter=FetchAdd --threads=1 --ops=1000 --runs=1 --events=none \
	--output="$tmp/killed.csv" 2>"$tmp/err"
check "scbench_next_run_removes_the_dead_writers_temporary (exit $?)" test ! -e "$left" -a -s "$tmp/killed.csv"
check scbench_next_run_keeps_a_locked_a_young_and_other_names sh -c "test -e '$tmp/killed.csv.tmp.Locked' &&
	test -e '$tmp/killed.csv.tmp.Young1' && test -e '$tmp/killed.csv.tmp.toolong' && test -e '$tmp/other.csv.tmp.AbC123'"
kill -- -"$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# Standard output: the rows of finished runs stand, whole, and the line says so.
: >"$tmp/stream.csv"
"$SCBENCH" --counter=CAS --threads=1 --duration=0.05 --warmup=0.01 --runs=400 --events=none \
	>"$tmp/stream.csv" 2>"$tmp/err" &
pid=$!
for ((i = 0; i < 300; i++)); do [ "$(wc -l <"$tmp/stream.csv")" -ge 3 ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
check scbench_stream_SIGINT_exit_130 test $? -eq 130
check scbench_stream_says_rows_stand one_line "$tmp/err" "complete rows already sent to standard output stand"
check scbench_stream_rows_whole awk -F, 'NR == 1 { w = NF } NF != w || !/[^,]$|,$/ { bad = 1 } END { exit bad || NR < 3 }' "$tmp/stream.csv"

# run-all.sh: a short quick-mode run, interrupted as by Ctrl-C (the whole group)
# while a part is being written. One experiment without external work, so
# that no calibration of the set's work comes first (on a busy machine that
# outlasts wait_for's guard, and the interrupt then lands before any part).
for sig in INT TERM; do
	[ "$sig" = INT ] && code=130 || code=143
	rs="$tmp/rs-$sig"
	SCBENCH=$SCBENCH "$TOP_SRCDIR/run-all.sh" --quick --max-threads 1 --out "$rs" \
		--experiments=dice-fig4-high >/dev/null 2>"$tmp/ra-err" &
	pid=$!
	wait_for "$rs/parts/*/*.csv.tmp.*"
	sleep 0.2
	kill -"$sig" -- -"$pid"
	wait "$pid"
	rc=$?
	check "run_all_SIG${sig}_exit_$code" test "$rc" -eq "$code"
	check "run_all_SIG${sig}_says_interrupted" grep -q "interrupted" "$tmp/ra-err"
	check "run_all_SIG${sig}_gives_resume_command" \
		grep -qF "Continue with: $(cd "$TOP_SRCDIR" && pwd)/run-all.sh --resume $rs" "$tmp/ra-err"
	check "run_all_SIG${sig}_no_failure_message" test -z "$(grep 'scbench failed' "$tmp/ra-err")"
	check "run_all_SIG${sig}_no_half_written_part" \
		test -z "$(find "$rs" -name '*.tmp*')"
done

# One interrupt ends run-all: when scbench's exit says a Ctrl-C first, the same
# Ctrl-C reaching run-all after it raises nothing more, so the message with
# the --resume line is said whole (a second interrupt cut it short before).
check run_all_one_interrupt_ends_it "$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
from runall import parts
from runall.__main__ import on_signal
parts.Interrupted("INT")   # as parts.run raises it on an exit status of 130
on_signal(2, None)         # SIGINT reaching run-all after it: nothing raised
' "$TOP_SRCDIR/harness"

# A real scbench failure keeps its message and exit status 1 (the fake
# answers --list=json, which run-all.sh asks before it plans): in a run
# (dice-fig5 has no external work, so nothing is calibrated first), and in
# the set's calibration of its work, before any run.
printf '#!/bin/sh\n[ "$1" = --list=json ] && exec "%s" --list=json\necho "fake scbench: broken" >&2\nexit 1\n' \
	"$SCBENCH" >"$tmp/fake-scbench"
chmod +x "$tmp/fake-scbench"
SCBENCH=$tmp/fake-scbench "$TOP_SRCDIR/run-all.sh" --quick --max-threads 1 --experiments=dice-fig5 \
	--out "$tmp/rs-fail" >/dev/null 2>"$tmp/ra-err"
check run_all_failure_exit_1 test $? -eq 1
check run_all_failure_message grep -q "scbench failed for [a-z0-9-]* [a-z0-9-]*t1-[A-Za-z0-9-]*-r0;" "$tmp/ra-err"
SCBENCH=$tmp/fake-scbench "$TOP_SRCDIR/run-all.sh" --quick --max-threads 1 --experiments=dice-fig3 \
	--out "$tmp/rs-fail-cal" >/dev/null 2>"$tmp/ra-err"
check run_all_calibration_failure_exit_1 test $? -eq 1
check run_all_calibration_failure_message \
	grep -q "calibration of the external work (scbench --work=99.02) failed: fake scbench: broken" "$tmp/ra-err"
check run_all_failure_not_interrupted test -z "$(grep interrupted "$tmp/ra-err")"

tap_done

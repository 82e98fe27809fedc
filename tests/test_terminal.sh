#!/bin/sh
# SPDX-License-Identifier: MIT
# test_terminal.sh - what a user sees on a terminal and in a pipe, as TAP:
# run-all's last lines are the scenario lines (REPORT.md's answer) whether its
# output is a terminal (script(1) gives it one) or a file; --dry-run on a
# terminal writes nothing; a reader that goes away mid-stream (| head -c) ends
# scbench, run-all and the report quietly. run-all runs a fake scbench
# (tests/fake-scbench.sh) from a copy of the tree, plots/ included, without
# gnuplot or matplotlib (the figures are not what is checked here).
# The terminal checks are skipped, saying why, where script(1) is missing.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

runall_tree || exit 1
cp -R "$TOP_SRCDIR/plots" "$tmp/plots" && chmod -R u+w "$tmp/plots" || exit 1
export FAKE_LOG=$tmp/log
# No renderer: regen writes the figure data and REPORT.md, and says it skipped the figures.
export GNUPLOT=$tmp/no-gnuplot PYTHON_MPL=none
args="--quick --max-threads 2 --experiments=dice-fig4-high,read-cost --variants=FetchAdd,RBO,CAS --order-seed 7"
mkdir "$tmp/w"

# ends_with_answer OUTPUT SET: the output's last lines (carriage returns and
# erase-line escapes of the progress line taken out) are, exactly, what
# plots/report.py --answer prints for the set: nothing follows them.
ends_with_answer() {
	"$PY" "$tmp/plots/report.py" --answer "$2" >"$tmp/answer" 2>/dev/null || return 1
	lines=$(wc -l <"$tmp/answer")
	[ "$lines" -ge 3 ] && head -1 "$tmp/answer" | grep -q '^Which counter to use here (the table that opens .*REPORT.md):$' &&
		tr -d '\r' <"$1" | sed 's/\x1b\[K//g' | tail -n "$lines" | cmp -s - "$tmp/answer"
}

# Standard output and error a file: the answer comes last.
# shellcheck disable=SC2086
(cd "$tmp/w" && SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" $args --out "$tmp/a" >"$tmp/file.out" 2>&1)
check "a file: run-all exits 0 with a report" sh -c 'test "$1" -eq 0 && test -s "$2/REPORT.md"' _ $? "$tmp/a"
check "a file: run-all's last lines are the scenario lines" ends_with_answer "$tmp/file.out" "$tmp/a"
check "a file: the answer names a counter per scenario of REPORT.md's table" sh -c '
	rows=$(sed -n "/^## Which counter/,/^## /p" "$1/REPORT.md" | grep "^| [A-Z]" | grep -vc "^| Scenario |")
	best=$(grep -c "^    [A-Za-z-]*: .* at [0-9]* threads\{0,1\} \[[a-z0-9-]*\]" "$2")
	none=$(grep -c "^    none: " "$2")
	[ "$rows" -gt 0 ] && [ "$((best + none))" -eq "$rows" ] && [ "$best" -ge 1 ]' _ "$tmp/a" "$tmp/answer"

if command -v script >/dev/null 2>&1; then
	script -qec "cd $tmp/w && SCBENCH=$tmp/fake-scbench $tmp/run-all.sh $args --out $tmp/b" /dev/null \
		>"$tmp/tty" 2>&1 </dev/null
	check "a terminal: run-all exits 0 with a report" sh -c 'test "$1" -eq 0 && test -s "$2/REPORT.md"' _ $? "$tmp/b"
	check "a terminal: the last lines are the scenario lines" ends_with_answer "$tmp/tty" "$tmp/b"
	check "a terminal: the caveat line under the heading, once" sh -c \
		'[ "$(tr -d "\r" <"$1" | grep -c "^  Caveat: provisional")" -eq 1 ]' _ "$tmp/tty"
	# --dry-run on a terminal: the plan on the screen, nothing written.
	mkdir "$tmp/d"
	script -qec "cd $tmp/d && SCBENCH=$tmp/fake-scbench $tmp/run-all.sh $args --dry-run" /dev/null \
		>"$tmp/dry" 2>&1 </dev/null
	check "a terminal: --dry-run lists the experiments and writes nothing" sh -c '
		test "$1" -eq 0 && [ -z "$(ls -A "$2")" ] &&
		tr -d "\r" <"$3" | grep -Eq "^  dice-fig4-high +[0-9]+ invocations, about " &&
		tr -d "\r" <"$3" | grep -Eq "^total: [0-9]+ invocations, about "' _ $? "$tmp/d" "$tmp/dry"
else
	skip "a terminal: run-all exits 0 with a report" "no script(1) (util-linux)"
	skip "a terminal: the last lines are the scenario lines" "no script(1) (util-linux)"
	skip "a terminal: the caveat line under the heading, once" "no script(1) (util-linux)"
	skip "a terminal: --dry-run lists the experiments and writes nothing" "no script(1) (util-linux)"
fi

# A reader that leaves after a few bytes (| head -c): each writer ends quietly,
# with 0 (its output fitted in the pipe before the reader left) or 141 (SIGPIPE's
# status, as a tool killed by the signal gives). The writers' output is made
# longer than a pipe's buffer (64 KiB on Linux) by repeating it, so the reader
# leaves mid-stream.
quiet_head() { # quiet_head NAME CMD...: CMD's output through head -c 100
	name=$1
	shift
	{ "$@" 2>"$tmp/pipe.err"; echo $? >"$tmp/pipe.st"; } | head -c 100 >/dev/null
	st=$(cat "$tmp/pipe.st")
	check "$name | head -c 100: quiet end (status $st)" sh -c \
		'{ test "$1" -eq 0 || test "$1" -eq 141; } && test ! -s "$2"' _ "$st" "$tmp/pipe.err"
}
many() { # many N CMD...: CMD N times, one output
	k=$1
	shift
	while [ "$k" -gt 0 ]; do "$@" || return $?; k=$((k - 1)); done
}
quiet_head "scbench --list=json" many 40 "$SCBENCH" --list=json
quiet_head "scbench --help" many 40 "$SCBENCH" --help
# (every experiment and variant, one thread: nothing dropped to say on standard error)
mkdir "$tmp/e"
quiet_head "run-all.sh --dry-run" many 40 sh -c \
	"cd '$tmp/e' && SCBENCH='$tmp/fake-scbench' exec '$tmp/run-all.sh' --quick --max-threads 1 --dry-run"
# The same for a pipe whose reader is gone before the tool starts: the first
# write fails, every time (run-all said "[Errno 32] Broken pipe" and exited 1).
closed_pipe() { # closed_pipe NAME CMD...: CMD's standard output a pipe without reader
	name=$1
	shift
	"$PY" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w))' "$@" 2>"$tmp/closed.err"
	check "$name, reader gone: quiet end" sh -c 'test "$1" -eq 141 && test ! -s "$2"' _ $? "$tmp/closed.err"
}
closed_pipe "run-all.sh --dry-run" sh -c \
	"cd '$tmp/e' && SCBENCH='$tmp/fake-scbench' exec '$tmp/run-all.sh' --quick --max-threads 1 --dry-run"
closed_pipe "run-all.sh --help" "$tmp/run-all.sh" --help
closed_pipe "plots/report.py --answer" "$PY" "$tmp/plots/report.py" --answer "$tmp/a"
quiet_head "plots/report.py --answer" many 40 "$PY" "$tmp/plots/report.py" --answer "$tmp/a"
tap_done

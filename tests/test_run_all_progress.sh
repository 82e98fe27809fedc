#!/bin/sh
# SPDX-License-Identifier: MIT
# test_run_all_progress.sh - run-all's progress: on a
# terminal (script(1) gives it one) one line redrawn in place, with the
# invocations done of all, the point, the time elapsed and left; in a log
# (standard error not a terminal) one plain line per invocation. A fake
# scbench (tests/fake-scbench.sh) writes each part at once.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

runall_tree || exit 1
export FAKE_LOG=$tmp/log
args="--quick --max-threads 2 --experiments=dice-fig3 --variants=FetchAdd,Serial --order-seed 7"

# In a log: one line per invocation, each ending in a newline, no escapes.
# shellcheck disable=SC2086
SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" $args --out "$tmp/a" >/dev/null 2>"$tmp/log.err"
check "not a terminal: exit 0" test $? -eq 0
nv=$(grep -vc '^#' "$tmp/a/run-all.order")
check "not a terminal: one line per invocation ($nv)" \
	sh -c '[ "$(grep -c "^run-all.sh: \[[0-9]*/$2\] " "$1")" -eq "$2" ]' _ "$tmp/log.err" "$nv"
check "not a terminal: no carriage return or escape" sh -c '! grep -q "$(printf "\r\033")" "$1"' _ "$tmp/log.err"

if ! command -v script >/dev/null 2>&1; then
	skip "on a terminal: one line redrawn in place" "no script(1)"
	tap_done
	exit
fi
# On a terminal: every progress line is redrawn over the last (\r, erase to
# the end), so the screen holds one; the last one stays, and ends the line.
script -qec "SCBENCH=$tmp/fake-scbench $tmp/run-all.sh $args --out $tmp/b" /dev/null \
	>"$tmp/tty" 2>&1 </dev/null
check "on a terminal: exit 0, result set complete" test -s "$tmp/b/dice-fig3.csv"
check "on a terminal: $nv lines drawn, each over the last" \
	sh -c '[ "$(grep -o "$(printf "\r\033")\[Krun-all.sh: \[[0-9]*/$2\]" "$1" | wc -l)" -eq "$2" ]' _ "$tmp/tty" "$nv"
check "on a terminal: the progress takes one line of the screen" \
	sh -c '[ "$(tr -d "\r" <"$1" | grep -c "\[[0-9]*/$2\]")" -eq 1 ]' _ "$tmp/tty" "$nv"
check "on a terminal: the line says elapsed and left" \
	grep -q "\[$nv/$nv\] [0-9]*s elapsed, ~[0-9]*s left: " "$tmp/tty"
# A terminal narrower than the line cuts the point's name, never the times
# (the estimate was cut at 80 columns).
script -qec "stty cols 44; SCBENCH=$tmp/fake-scbench $tmp/run-all.sh $args --out $tmp/c" /dev/null \
	>"$tmp/tty44" 2>&1 </dev/null
check "a narrow terminal: the times are whole, the name cut" \
	sh -c 'tr "\r" "\n" <"$1" | grep -q "^.\[Krun-all.sh: \[$2/$2\] [0-9]*s elapsed, ~[0-9]*s left: [a-z0-9-]*\.\.\.\$"' _ "$tmp/tty44" "$nv"
tap_done

# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# .ci/tally.sh - sourced by bash in .ci/run (and tests/test_hostile.sh): reading a
# stage's test summary, the "# PASS: n" and "# FAIL: n" lines that automake's
# test-suite.log and the emulation scripts print.
#
# ci_counts LOG: prints "PASSED FAILED" from the first such lines of LOG;
# status 1, printing nothing, when LOG cannot be read or either line is
# missing or its count is not a plain number (at most 9 digits). Carriage
# returns are dropped first: a summary read from a VM's serial console ends
# its lines with one.
ci_counts() {
	local text p f
	text=$(tr -d '\r' <"$1" 2>/dev/null) || return 1
	p=$(printf '%s\n' "$text" | sed -n 's/^# PASS: *//p' | head -n 1)
	f=$(printf '%s\n' "$text" | sed -n 's/^# FAIL: *//p' | head -n 1)
	case $p in '' | *[!0-9]* | ??????????*) return 1 ;; esac
	case $f in '' | *[!0-9]* | ??????????*) return 1 ;; esac
	echo "$((10#$p)) $((10#$f))"
}

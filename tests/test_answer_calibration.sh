#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_answer_calibration.sh - what the answer says of a set's one calibration
# of its external work (run-all.calibration), as TAP, on copies of a reference
# set: REPORT.md's answer shows each level's pause count, spread and achieved
# share; a level whose share is off its target says so in the caveats (of
# REPORT.md and of the terminal answer); the low-contention scenario ties
# every counter whose median is within the calibration's spread of the best's;
# the figures' captions give each level a figure ran at; a set without the
# file says none of it; a level that is no numbers is left out.
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
top=$TOP_SRCDIR
py=${PYTHON_MPL:-/usr/bin/python3}
need_reference answer_calibration

# set NAME [SPREAD_99]: a copy of the reference, with a calibration whose 99%
# level is 24% off its target and whose calibrations were SPREAD_99 apart.
set_of() {
	cp -r "$ref" "$tmp/$1" || return 1
	if [ -n "${2:-}" ]; then
		cat >"$tmp/$1/run-all.calibration" <<JSON
{"agree": 3, "tolerance": 0.05, "share_tolerance": 0.1, "machine": {"cpu model": "x"},
 "levels": [{"work_pct": "99", "work_iters": 88.5, "spread": $2, "stable": true, "quiet": 3,
             "tries": [], "target": 0.01, "share": 0.0076, "share_rounds": [0.0076],
             "off_target": true},
            {"work_pct": "99.02", "work_iters": 90.25, "spread": 0.01, "stable": true,
             "quiet": 3, "tries": [], "target": 0.0098, "share": 0.0098,
             "share_rounds": [0.0098], "off_target": false},
            {"work_pct": "98.89", "work_iters": "many", "spread": 0.01, "share": 0.0111,
             "target": 0.0111}]}
JSON
	fi
	"$py" "$top/plots/aggregate.py" "$tmp/$1" >/dev/null && "$py" "$top/plots/report.py" "$tmp/$1" >/dev/null
}
answer() { COLUMNS=1000 "$py" "$top/plots/report.py" --answer "$tmp/$1"; }
ties() { sed -n '/low contention/{n;s/.*tied within noise with \([0-9]*\) more.*/\1/p;}' "$1"; }

if ! { set_of plain && set_of cal 0.5; }; then not_ok copies; tap_done; exit; fi
answer plain >"$tmp/plain.txt"
answer cal >"$tmp/cal.txt"
check report_shows_calibration grep -q "^External work, calibrated once for every counter of the set: 99% as 88.5 pauses (calibrations 50.0% apart), single-thread CAS at 0.0076 of its 0% throughput for 0.01; 99.02% as 90.25 pauses" \
	"$tmp/cal/REPORT.md"
check report_off_target_caveat grep -q "99% work off its target.*0.0076 of its 0% throughput, not 0.01 (24% off" "$tmp/cal/REPORT.md"
check answer_off_target_caveat grep -q "Caveat: 99% work off its target" "$tmp/cal.txt"
check on_target_level_no_caveat sh -c "! grep -q '99.02% work off' '$tmp/cal/REPORT.md'"
check malformed_level_left_out sh -c "! grep -q '98.89% as' '$tmp/cal/REPORT.md'"
check "spread_widens_low_contention_tie ($(ties "$tmp/plain.txt") -> $(ties "$tmp/cal.txt"))" \
	test "$(ties "$tmp/cal.txt")" -gt "$(ties "$tmp/plain.txt")"
check tie_names_spread grep -q "or whose median is within the 50.0% spread of the work's calibration" "$tmp/cal/REPORT.md"
# The figures' captions (their .dat headers, drawn by both renderers) say it
# for the levels each figure ran at, and no figure's for a level it did not.
check figure_caption_shows_level grep -q "^# caption: .*; 99% work: 88.5 pauses for every counter, single-thread CAS at 0.0076 of its 0% throughput (target 0.01, off target)" \
	"$tmp/cal/figdata/"*.dat
check figure_caption_only_its_levels sh -c "! grep -h '^# caption: .*% work: ' '$tmp/cal/figdata/'*.dat | grep -q '98.89% work'"
check plain_figures_say_none sh -c "! grep -q '^# caption: .*pauses for every counter' '$tmp/plain/figdata/'*.dat"
check plain_set_says_none sh -c "! grep -q 'calibrated once\|off its target\|spread of the work' '$tmp/plain/REPORT.md' '$tmp/plain.txt'"
tap_done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_answer_text.sh - the answer run-all prints last (plots/report.py --answer),
# as TAP, on copies of a reference set made busy: the busy share counts the
# timed runs (which the answers read) apart from the count-to-N ones; a busy
# flag every answer shares is said once, not per answer; a point's flag
# counts the runs of the figure its number was read from only; the caveats
# are short sentences; every line fits the terminal's width, wrapped, with no
# word lost.
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
top=$TOP_SRCDIR
py=${PYTHON_MPL:-/usr/bin/python3}
need_reference answer_text

# busy SET SOURCES...: SET, a copy of the reference whose timed runs in the
# CSVs SOURCES (all when none is given) are busy, aggregated.
busy() {
	d=$tmp/$1
	shift
	cp -r "$ref" "$d" && "$py" - "$d" "$@" <<'PY' && "$py" "$top/plots/aggregate.py" "$d" >/dev/null
import csv, glob, os, sys
d, only = sys.argv[1], sys.argv[2:]
for f in glob.glob(os.path.join(d, "*.csv")):
    if only and os.path.basename(f)[:-4] not in only:
        continue
    rows = list(csv.reader(open(f)))
    if not rows or "busy" not in rows[0]:
        continue
    b, m = rows[0].index("busy"), rows[0].index("mode")
    for r in rows[1:]:
        r[b] = "1" if r[m] == "timed" else r[b]
    csv.writer(open(f, "w", newline="")).writerows(rows)
PY
}
answer() { COLUMNS=$2 "$py" "$top/plots/report.py" --answer "$tmp/$1"; }

busy all || { not_ok busy_copy; tap_done; exit; }
answer all 80 >"$tmp/a80"
answer all 1000 >"$tmp/wide"
sed 's/^/# /' "$tmp/a80" | head -12
check busy_share_timed_apart grep -q 'busy during \([0-9][0-9]*\) of \1 timed runs (the answers read these) and 0 of [0-9]* count-to-N runs' "$tmp/wide"
check one_busy_note sh -c "[ \$(grep -c 'Every answer.s point ran on a busy machine' '$tmp/a80') -eq 1 ] &&
	! grep -q 'busy point' '$tmp/a80'"
check "lines_fit_80 (longest $(awk '{ if (length > m) m = length } END { print m }' "$tmp/a80"))" \
	awk 'length > 80 { bad = 1 } END { exit bad }' "$tmp/a80"
check lines_wrapped_not_cut sh -c "[ \"\$(tr -s ' \n' '  ' <'$tmp/a80')\" = \"\$(tr -s ' \n' '  ' <'$tmp/wide')\" ]"
check caveat_short_sentences sh -c "grep '^  Caveat:' '$tmp/wide' | grep -q '; ' && exit 1 || exit 0"

# Busy runs in dice-fig4-low only: FetchAdd's answer read from baselines (its
# low-contention panel, beside dice-fig4-low in that scenario) has no flag.
busy fig4 dice-fig4-low || { not_ok busy_copy; tap_done; exit; }
answer fig4 1000 >"$tmp/fig4.txt"
check "baselines_answers_unflagged ($(grep -c '\[baselines\].*busy point' "$tmp/fig4.txt") flagged)" \
	sh -c "grep -q '\[baselines\]' '$tmp/fig4.txt' && ! grep -q '\[baselines\].*busy point' '$tmp/fig4.txt'"
tap_done

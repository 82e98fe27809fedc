#!/bin/sh
# SPDX-License-Identifier: MIT
# test_answer_caveat.sh - the caveat line above REPORT.md's answer table, as
# TAP, on a copy of the reference set whose runs are all busy: each caveat is
# its bold headline followed by its detail in short sentences (no clause
# joined by "; ", no sentence over 200 characters, no headline running into
# another's detail), and a busy flag every answer shares is said once, above
# the table, not in every answer.
: "${TOP_SRCDIR:=.}"
. "$(dirname "$0")/tap.sh"
ref=$TOP_SRCDIR/results/reference/kvm-epyc-2pu
if [ ! -d "$ref" ]; then
	skip answer_caveat "no results/reference in this tree"
	tap_done
	exit 0
fi
cp -r "$ref" "$tmp/set" && chmod -R u+w "$tmp/set" || exit 1
"$PY" - "$tmp/set" <<'PY' || exit 1
import csv, glob, os, sys
for p in glob.glob(os.path.join(sys.argv[1], "*.csv")):
    with open(p, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "busy" not in rows[0]:
        continue
    for r in rows:
        r["busy"] = "1"
    with open(p, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
PY
"$PY" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/set" >"$tmp/log" 2>&1 &&
	"$PY" "$TOP_SRCDIR/plots/report.py" "$tmp/set" >>"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
sed -n '/^## Which counter/,/^| Scenario/p' "$tmp/set/REPORT.md" | grep '^\*\*' >"$tmp/caveat"
check "one caveat line above the table ($(wc -l <"$tmp/caveat") lines)" test "$(wc -l <"$tmp/caveat")" -eq 1
"$PY" - "$tmp/caveat" >"$tmp/why" 2>&1 <<'PY'
import re, sys
line = open(sys.argv[1]).read().strip()
parts = re.split(r"\*\*(Caveat|Flag):\*?\*? ?", line)
heads = re.findall(r"\*\*Caveat: ([^*]*)\.\*\*", line)
assert heads and "busy" in " ".join(heads), heads
for h in heads:
    assert ";" not in h and ":" not in h, "headline with clauses: %r" % h
body = re.sub(r"\*\*[^*]*\*\*", "|", line)
for s in re.split(r"(?<=\.) |\|", body):
    s = s.strip()
    assert "; " not in s, "clauses joined by '; ': %r" % s
    assert len(s) <= 200, "a sentence of %d characters: %r" % (len(s), s)
PY
check "each caveat in short sentences ($(tail -1 "$tmp/why"))" test ! -s "$tmp/why"
check "the busy flag every answer shares said once, above the table" \
	grep -q "^\*\*Caveat.*\*\*Flag:\*\* Every answer's point ran on a busy machine" "$tmp/caveat"
flags=$(grep -c '^| .*\. Flag: busy point' "$tmp/set/REPORT.md")
check "no answer repeats the busy flag ($flags do)" test "$flags" -eq 0
tap_done

#!/bin/sh
# SPDX-License-Identifier: MIT
# test_read_pick.sh - the read-heavy advice (plots/advice.py break_read_tie) picks
# by the data: Dice §5.5's advice (BFP-based counters over Morris's for frequent
# reads) breaks a tie only between the Morris-family counters it speaks of; a tie
# with any other counter (Ayers's ScalableCapped: a lower median whose band one slow
# run of BFP-DUP reaches) goes to the lowest median. As TAP; exact values, no false
# failure.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
need_python "the advice cannot run"

SIM='
import sys
sys.path.insert(0, sys.argv[1])
from advice import READ_FAMILY, READ_TIE_RULE, break_read_tie
def p(vals):
    vals = sorted(vals)
    return {"median": vals[len(vals) // 2], "min": vals[0], "max": vals[-1]}
def pick(ranked):
    ranked = sorted(ranked, key=lambda kv: (kv[1]["median"], kv[0]))
    return [s for s, _ in break_read_tie([(s, (None, q)) for s, q in ranked])]
'

# ScalableCapped 2.5 ns against BFP-DUP 4.2 ns, tied only by one 2.6 ns run of
# BFP-DUP: the lower median stands (the advice would have named BFP-DUP).
check other_counter_tie_goes_to_lowest_median "$py" -B -c "$SIM"'
got = pick([("BFP-DUP", p([2.6, 4.2, 4.3])), ("ScalableCapped", p([2.4, 2.5, 2.7])),
            ("CAS", p([9, 9, 10]))])
assert got == ["ScalableCapped", "BFP-DUP", "CAS"], got
assert "ScalableCapped" not in READ_FAMILY and "Morris-family" in READ_TIE_RULE
' "$top/plots"

# Between Morris and BFP-DUP the advice applies: BFP-DUP, though Morris is lower.
check family_tie_goes_to_the_advice "$py" -B -c "$SIM"'
got = pick([("Morris", p([3.9, 4.0, 4.4])), ("BFP-DUP", p([4.1, 4.2, 4.3]))])
assert got == ["BFP-DUP", "Morris"], got
' "$top/plots"

# A three-way tie with one counter outside the family: the data decide.
check mixed_tie_goes_to_lowest_median "$py" -B -c "$SIM"'
got = pick([("Morris", p([3.9, 4.0, 4.4])), ("BFP-DUP", p([4.1, 4.2, 4.3])),
            ("Scalable", p([4.0, 4.1, 4.2]))])
assert got[0] == "Morris", got
' "$top/plots"

tap_done

#!/bin/sh
# SPDX-License-Identifier: MIT
# test_confirm_rule.sh - the sequential rule (plots/stats.py SEQ_*,
# plots/claims/rules.py ratio_point), as TAP, on synthetic runs: lognormal with a
# spread (sd of the log) of 3%, as the reference set's points have, drawn from
# random.Random with fixed seeds, so every check is deterministic. Each check's
# comment states its false-failure probability: how often it would fail with
# fresh seeds, for a rule that does what the report's rules say.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
py=""
for c in /usr/bin/python3 python3; do
	if command -v "$c" >/dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3: the claims' rules cannot run"
	exit 0
fi
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

SIM='
import math, random, sys
sys.path.insert(0, sys.argv[1])
from stats import SEQ_LOOKS, SEQ_TOTAL, median, seq_first_look, seq_look_rate, seq_total_rate
from claims.rules import ratio_point
def point(v):
    return {"median": median(v), "values": sorted(v), "n": len(v)}
def runs(rng, n, med):
    return [med * math.exp(rng.gauss(0.0, 0.03)) for _ in range(n)]
def sequential(seed, ratio, ok=lambda x: x > 1.0):
    """(runs a side at the look that decided, its answer), or (None, None): the
    looks of run-all (3 planned runs, then the schedule) on one draw."""
    rng = random.Random(seed)
    a, b = runs(rng, SEQ_LOOKS[-1], ratio), runs(rng, SEQ_LOOKS[-1], 1.0)
    for n in (3,) + SEQ_LOOKS:
        _, good, frag = ratio_point(point(a[:n]), point(b[:n]), ok)
        if not frag:
            return n, good
    return None, None
def binom_sf(n, p, k):
    """P(Bin(n, p) >= k)."""
    return sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                        + i * math.log(p) + (n - i) * math.log(1 - p)) for i in range(k, n + 1))
'

# The schedule: the per-look rate sums to at most SEQ_TOTAL over the looks; the
# first look that can decide near the line has at least 5 runs a side.
check schedule_rate_within_total "$py" -B -c "$SIM"'
assert seq_total_rate() <= SEQ_TOTAL + 1e-12, seq_total_rate()
assert seq_look_rate() * len(SEQ_LOOKS) <= SEQ_TOTAL + 1e-12
assert seq_first_look() >= 5 and seq_first_look() <= SEQ_LOOKS[-1], seq_first_look()
' "$top/plots"

# Never before the first look that can decide (6 runs a side) within 25% of the
# line: 3 runs against 3, fully separated, 10% apart, are not decided (the reason
# says why), nor 4 against 4; 2x apart they are (the noise rule alone). Exact
# values: no false failure.
check under_five_runs_near_line_undecided "$py" -B -c "$SIM"'
a, b = point([1.10, 1.101, 1.102]), point([1.0, 1.001, 1.002])
_, good, frag = ratio_point(a, b, lambda x: x > 1.0)
assert frag and "first that can decide at %d" % seq_first_look() in frag and frag.near, frag
a4, b4 = point([1.10, 1.101, 1.102, 1.103]), point([1.0, 1.001, 1.002, 1.003])
assert ratio_point(a4, b4, lambda x: x > 1.0)[2]
_, good, frag = ratio_point(point([2.0, 2.001, 2.002]), b, lambda x: x > 1.0)
assert good and not frag, frag
# 30% from the line: the noise rule alone, decided on 3 runs
_, good, frag = ratio_point(point([1.30, 1.301, 1.302]), b, lambda x: x > 1.0)
assert good and not frag, frag
' "$top/plots"

# A true 10% effect is decided, the right way, within the schedule (12 runs a
# side) in at least 85% of 400 seeded draws (seeds 0..399; 100% here). If the
# rule decided with power 0.9 (below what it reaches), fresh seeds would fail
# this with probability P(Bin(400, 0.9) < 340), computed and printed (about 6e-4).
check ten_percent_decided_within_schedule "$py" -B -c "$SIM"'
res = [sequential(s, 1.10) for s in range(400)]
right = sum(1 for n, good in res if n is not None and good)
wrong = sum(1 for n, good in res if n is not None and not good)
at = sorted(set(n for n, _ in res if n))
ff = 1.0 - binom_sf(400, 0.9, 340)
print("# 10%% effect: %d of 400 decided right (looks %s), %d wrong; false-failure "
      "probability at power 0.9: %.2g" % (right, at, wrong, ff))
assert right >= 340 and wrong == 0, (right, wrong)
assert min(at) >= 5
' "$top/plots"

# A ratio exactly on the line stays inconclusive: over 2000 seeded draws (seeds
# 10000..11999) through every look, the fraction decided is held to the rule'"'"'s
# stated total rate SEQ_TOTAL (5%), with the binomial tolerance k: the least with
# P(Bin(2000, 0.05) >= k) <= 1e-6 (computed; the false-failure probability of a
# rule that meets its statement is at most 1e-6).
check on_line_stays_inconclusive "$py" -B -c "$SIM"'
res = [sequential(10000 + s, 1.0) for s in range(2000)]
decided = sum(1 for n, _ in res if n is not None)
k = next(k for k in range(2001) if binom_sf(2000, SEQ_TOTAL, k) <= 1e-6)
print("# on the line: %d of 2000 decided (stated rate %.3g%%, bound %.3g%%; tolerance %d)"
      % (decided, 100 * SEQ_TOTAL, 100 * seq_total_rate(), k))
assert decided <= k, (decided, k)
' "$top/plots"

# The judge names what an undecided claim needs (claims.json "needs_runs", and
# plots/report.py --needs-runs through plots/needs.py): Dice §2.1's RBONuma/RBO at 1
# thread, 1x against a 0.9x line on 3 runs a side, needs runs up to 6; on 6 it is
# decided and needs none; 2x from the line on 3 runs needs none; malformed entries of
# claims.json (a path, a shell word, a number as text) are dropped. Exact values: no
# false failure.
check judge_names_points_needing_runs "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from claims import CLAIMS
from claims.context import Context
from claims.judge import evaluate
from needs import needs_runs
def pt(vals):
    vals = sorted(vals)
    return {"median": vals[len(vals) // 2], "values": vals, "n": len(vals), "oversub": False,
            "max": vals[-1], "min": vals[0], "total": len(vals),
            "rows": [{"rel_error": 0.0, "nodes_used": "0"}] * len(vals)}
class Fig:
    id, source, mode, panels = "dice-fig4-high", "dice-fig4-high.csv", "timed", []
class Figs:
    def __init__(self, stats):
        self.stats, self.table = stats, [Fig()]
    def entry(self, fid):
        return Fig()
class RS:
    def csv(self, name):
        return None
    def rows(self, name, mode):
        return []
    def meta(self, name):
        return None
by = {c.id: c for c in CLAIMS}
def ev(rbonuma, rbo, n):
    st = {("dice-fig4-high", ""): {"RBONuma": {1: pt([rbonuma * (1 + 0.001 * i) for i in range(n)])},
                                   "RBO": {1: pt([rbo * (1 + 0.001 * i) for i in range(n)])}}}
    return evaluate(Context(RS(), Figs(st), {"pus": 2, "cache_line": 64}),
                    [by["dice-rbonuma-low-contention-overhead"]])[0]
e = ev(1.0, 1.0, 3)
assert e["verdict"] == "inconclusive" and e["needs_runs"] == [
    {"experiment": "dice-fig4-high", "counters": ["RBONuma", "RBO"], "threads": 1, "runs": 3}], e
got = needs_runs({"claims": [e]})["needs"]
assert [(n["claim"], n["next"]) for n in got] == [("dice-rbonuma-low-contention-overhead", 6)], got
e = ev(1.0, 1.0, 6)
assert e["verdict"] == "does not hold" and "needs_runs" not in e, e
# at the last look no runs are asked for, whatever the verdict
e = ev(1.0, 1.0, 3)
e["needs_runs"][0]["runs"] = 12
assert needs_runs({"claims": [e]})["needs"] == []
e = ev(0.5, 1.0, 3)   # 2x from the line: decided on 3 runs by the noise rule alone
assert e["verdict"] == "holds" and "needs_runs" not in e, e
# malformed entries are dropped, never passed on
bad = {"claims": [{"id": "x", "verdict": "inconclusive", "needs_runs": [
    {"experiment": "../etc", "counters": ["A"], "threads": 1, "runs": 3},
    {"experiment": "e", "counters": ["A;rm"], "threads": 1, "runs": 3},
    {"experiment": "e", "counters": ["A"], "threads": "1", "runs": 3}]}]}
assert needs_runs(bad)["needs"] == [], needs_runs(bad)
' "$top/plots"

tap_done

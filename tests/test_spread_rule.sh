#!/bin/sh
# SPDX-License-Identifier: MIT
# test_spread_rule.sh - Ayers's "doubling N leaves Scalable's relative spread about
# the same" (claim ayers-spread-flat, plots/claims/ayers_notes.py) is judged at the
# report's word scale (1.1x) by seeded bootstrap intervals on each doubling's ratio of
# 5th-95th half-spreads, not by the largest over the smallest half-spread against
# 1.5x: four N whose 30 runs each come from one distribution (relative error with sd
# 1%, seed 20130623), their half-spreads over 1.5x apart by sampling alone, are
# inconclusive (the old rule: does not hold); spreads doubling at every doubling of
# N, 400 runs each, do not hold; one distribution with 4000 runs per N holds. As
# TAP; the draws and the bootstrap are seeded, so the checks are exact for them.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
need_python "the claims cannot run"

SIM='
import random, sys
sys.path.insert(0, sys.argv[1])
from claims import CLAIMS
from stats import summarize
claim = next(c for c in CLAIMS if c.id == "ayers-spread-flat")
class Ctx:
    def __init__(self, st):
        self.stats = st
    def st(self, fid, panel=""):
        return self.stats
    def count_rows(self, name):
        return []
    def missing(self, fid):
        return "missing"
def judge(sd_of, runs, seed=20130623):
    rng = random.Random(seed)
    pts = {}
    for k in range(4):
        n = 2 ** (15 + k)
        p = summarize([1 + rng.gauss(0, sd_of(k)) for _ in range(runs)])
        p["oversub"] = False
        pts[n] = p
    return claim.rule(Ctx({"Scalable": pts}), claim)
def ratio(meas):
    hs = [float(x.rstrip("%")) for x in meas.split(": ")[1].split(";")[0].split(", ")]
    return max(hs) / min(hs)
'

check sampling_alone_not_a_failure "$py" -B -c "$SIM"'
seed = next(s for s in range(20130623, 20130723)
            if ratio(judge(lambda k: 0.01, 30, s)[0]) > 1.5)
out = judge(lambda k: 0.01, 30, seed)
assert out[1] == "inconclusive", out
print("# seed %d: %s -> %s" % (seed, out[0], out[1]))
' "$top/plots"

check doubling_spread_fails "$py" -B -c "$SIM"'
out = judge(lambda k: 0.01 * 2 ** k, 400)
assert out[1] == "does not hold", out
' "$top/plots"

check flat_spread_holds "$py" -B -c "$SIM"'
out = judge(lambda k: 0.01, 4000)
assert out[1] == "holds", out
' "$top/plots"

tap_done

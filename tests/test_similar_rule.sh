#!/bin/sh
# SPDX-License-Identifier: MIT
# test_similar_rule.sh - Dice §5.1's "all counters perform similarly" (claim
# dice-fig3-similar-to-8, plots/claims/dice_scaling.py) is decided by intervals,
# not by the fastest of the medians over the slowest: twelve counters drawn from
# one distribution (6 runs each, log sd 10%, seed 20130623) whose medians span 1.2x
# by noise alone, which the old rule called "does not hold", are inconclusive; twelve
# runs each of counters 1.5x apart do not hold; twelve identical runs hold. As TAP; the
# draws are seeded and the checks exact for them (no false failure).
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
need_python "the claims cannot run"

SIM='
import math, os, random, sys
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], "..", "tests")]
from claim_sim import OneFigure, claim as claim_of, pt
claim = claim_of("dice-fig3-similar-to-8")
def judge(make, n, seed=20130623):
    rng = random.Random(seed)
    st = {"V%d" % i: {1: pt(make(rng, i, n))} for i in range(12)}
    return claim.rule(OneFigure(st), claim)
def same(rng, i, n, sd=0.05):
    return [1000 * math.exp(rng.gauss(0, sd)) for _ in range(n)]
'

check noise_alone_not_a_failure "$py" -B -c "$SIM"'
out = judge(lambda rng, i, n: same(rng, i, n, 0.1), 6)
spread = float(out[0].split("= ")[1].rstrip("x"))
assert spread > 1.1, out
assert out[1] == "inconclusive", out
print("# %s -> %s" % (out[0], out[1]))
' "$top/plots"

check far_apart_fails "$py" -B -c "$SIM"'
out = judge(lambda rng, i, n: [x * (1.5 if i == 0 else 1.0) for x in same(rng, i, n)], 12)
assert out[1] == "does not hold", out
' "$top/plots"

check identical_hold "$py" -B -c "$SIM"'
out = judge(lambda rng, i, n: [1000.0 + 0.001 * k for k in range(n)], 12)
assert out[1] == "holds", out
' "$top/plots"

tap_done

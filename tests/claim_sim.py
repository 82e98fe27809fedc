# SPDX-License-Identifier: MIT
"""What the tests of one claim's rule on simulated runs share
(test_similar_rule.sh, test_peak_rule.sh): the claim by its id, a point of a
figure's statistics made from its runs, and a claims context that answers
with one figure's statistics. The tests put plots/ and tests/ on sys.path."""

from claims import CLAIMS
from stats import median


def claim(cid):
    """The claim of plots/claims with id cid."""
    return next(c for c in CLAIMS if c.id == cid)


def pt(vals):
    """A point of a figure's statistics (plots/stats.py's fields the rules read)."""
    return {"median": median(vals), "values": sorted(vals), "n": len(vals), "oversub": False}


class OneFigure:
    """A claims context (plots/claims/context.py) whose every figure has stats."""

    def __init__(self, stats):
        self.stats = stats

    def st(self, fid, panel=""):
        return self.stats

    @staticmethod
    def xs(stats, series):
        return sorted(x for s in series if s in stats for x in stats[s])

    def need_runs(self, *args):
        """A point near its line asks for runs: nothing to run here."""

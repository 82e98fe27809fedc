# SPDX-License-Identifier: MIT
"""Test doubles for the claim tests: a point of runs (pt; tri: three runs 0.1%
apart), the figures' statistics (Figs), a result set of CSV rows (RS), and
run(): one claim's rule on them."""
from claims import CLAIMS
from claims.context import Context


def pt(vals, rows=None, copies=3):
    # each run given copies times: 3 runs become 9, past the first deciding look of the
    # sequential rule (8), with the same min-max band and median, so that a rule is tested
    # on its values near its line as well (copies=1: the runs as given)
    vals = sorted(vals * copies if len(vals) <= 4 else vals)
    if rows and len(rows) < len(vals):
        rows = rows * copies
    return {"median": vals[len(vals) // 2], "values": vals, "n": len(vals), "oversub": False,
            "max": vals[-1], "min": vals[0], "total": len(vals),
            "rows": rows or [{"rel_error": 0.01, "bytes_per_counter": 64.0}] * len(vals)}


def tri(m, rows=None, **row):
    return pt([m, m * 1.001, m * 1.002], rows or ([dict(row)] * 3 if row else None))


class Figs:
    def __init__(self, stats):
        self.stats, self.table = stats, []

    def entry(self, fid):
        return type("Fig", (), {"mode": "timed", "id": fid})


class RS:
    def __init__(self, files):
        self.files = files

    def csv(self, name):
        return self.files.get(name)

    def rows(self, name, mode):
        return [r for r in self.files.get(name) or [] if r.get("mode") == mode]

    def meta(self, name):
        return {}


by = {c.id: c for c in CLAIMS}


def run(cid, stats, files=None, m=None, timed=None, count_rows=None):
    c = by[cid]
    ctx = Context(RS(files or {}), Figs(stats), m or {"pus": 256, "cache_line": 64})
    if timed is not None:
        ctx.timed_rows = lambda names, variants: [r for r in timed if r["counter"] in variants]
    if count_rows is not None:
        ctx.count_rows = lambda name: list(count_rows)
    return c.rule(ctx, c)

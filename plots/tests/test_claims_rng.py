# SPDX-License-Identifier: MIT
"""Ayers's generator trade-off (claims/ayers_rng.py) on synthetic rows, one result set
per outcome: holds, does not hold (decided not costlier; decided less accurate),
inconclusive, and not measurable for a set without rng=mix runs."""
from fakes import by
from fakes import Context, Figs, RS

CID = "ayers-rng-quality-tradeoff"
T = 13


def cost_rows(mix, xorshift=100.0, runs=9, spread=0.00025):
    """Timed rows of ayers-rng-cost.csv: each generator's ops/ms at 1 and 2 threads."""
    return [{"mode": "timed", "counter": "Scalable", "threads": t, "run": k,
             "params_map": {"rng": g, "width": "64"},
             "ops_per_ms": y * t * (1 + spread * k)}
            for g, y in (("xorshift", xorshift), ("mix", mix)) for t in (1, 2)
            for k in range(runs)]


def count_rows(rng, err, runs=30, params=True):
    """Count-to-N rows of Scalable at 2 threads, N = 2^16 and 2^18, whose |value/N - 1|
    are err times 1..runs/10 (the same shape for both generators; err scales it)."""
    out = []
    for n in (2 ** 16, 2 ** 18):
        for k in range(runs):
            e = err * (1 + k / 10.0) * (1 if k % 2 else -1)
            pm = {"rng": rng} if params else {}
            out.append({"mode": "count", "counter": "Scalable", "threads": 2, "run": k,
                        "ops": n, "value": n * (1 + e), "params_map": pm})
    return out


def judge(files):
    c = by[CID]
    return c.rule(Context(RS(files), Figs({}), {"pus": 2, "cache_line": 64}), c)


def files(mix_cost, mix_err, xor_err=0.01, spread=0.00025):
    return {"ayers-rng-cost.csv": cost_rows(mix_cost, spread=spread),
            "ayers-rng.csv": count_rows("mix", mix_err),
            "ayers.csv": count_rows("xorshift", xor_err, params=False)}


def test_holds_when_mix_costs_more_and_is_not_less_accurate():
    from claims.core import HOLDS
    r = judge(files(70.0, 0.01))
    assert r[1] == HOLDS, r
    assert "0.7x at 1 thr" in r[0] and "RSTDV at N = " in r[0], r
    # more accurate is fine too: "might improve accuracy" is measured, not judged
    assert judge(files(70.0, 0.005))[1] == HOLDS


def test_fails_when_not_costlier_or_less_accurate():
    from claims.core import FAILS
    r = judge(files(100.0 * 1.3, 0.01))
    assert r[1] == FAILS and "not to cost more" in r[2], r
    r = judge(files(70.0, 0.03))
    assert r[1] == FAILS and "less accurate" in r[2], r


def test_inconclusive_when_the_cost_is_within_the_noise():
    from claims.core import INCONCLUSIVE
    # 1% slower with runs 8% apart: on the line's side, not beyond the noise
    r = judge(files(99.0, 0.01, spread=0.01))
    assert r[1] == INCONCLUSIVE and "not decided beyond the noise" in r[2], r


def test_not_measurable_without_mix_rows():
    from claims.core import DATA, NM
    r = judge({})
    assert r[1] == NM and r[2].cause == DATA and "new to run-all's plan" in r[2], r
    old = {"ayers-rng-cost.csv": [x for x in cost_rows(70.0) if x["params_map"]["rng"] != "mix"],
           "ayers-rng.csv": [], "ayers.csv": count_rows("xorshift", 0.01, params=False)}
    r = judge(old)
    assert r[1] == NM and "no timed run of Scalable rng=mix" in r[2], r
    f = files(70.0, 0.01)
    f["ayers-rng.csv"] = []
    r = judge(f)
    assert r[1] == NM and "no count-to-N run of Scalable rng=mix" in r[2], r

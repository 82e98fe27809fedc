# SPDX-License-Identifier: MIT
"""Dice §3.2's decode claim (dice-morris-decode-from-probability, claims/dice_design.py)
on synthetic read-cost rows: decode_v_ns over decode_p_ns of Morris and MorrisAdapt,
"about 5x" within a factor 2 either side. No randomness: the runs are fixed spreads."""
from claims.core import FAILS, HOLDS, INCONCLUSIVE, NM, PLAN
from fakes import run

CID = "dice-morris-decode-from-probability"


def rows(ratio, runs=9, spread=0.01, variants=("Morris", "MorrisAdapt"), decode=True):
    """read-cost rows: per variant, runs runs with decode_p_ns 6 ns and decode_v_ns
    6 x ratio ns, each run's two values spread by up to +-spread (relative), one
    apart from the other; FetchAdd beside them with the columns empty, as scbench
    writes them. decode=False: a set of schema 6 (no such columns)."""
    out = []
    for s in variants:
        for i in range(runs):
            f = 1 + spread * (2.0 * i / max(runs - 1, 1) - 1)
            r = {"mode": "timed", "counter": s, "threads": 2, "run": i, "read_ns": 12.0}
            if decode:
                r.update(decode_p_ns=6.0 * f, decode_v_ns=6.0 * ratio / f)
            out.append(r)
    out.append({"mode": "timed", "counter": "FetchAdd", "threads": 2, "run": 0,
                "read_ns": 3.0, "decode_p_ns": None, "decode_v_ns": None})
    return {"read-cost.csv": out}


def verdict(files):
    return run(CID, {}, files)


def test_holds_inside_the_band():
    meas, v, reason, n = verdict(rows(5.0))
    assert v == HOLDS and n == 9, (v, reason)
    assert "Morris: from v 30 ns, from p(v) 6 ns" in meas and "MorrisAdapt" in meas
    # near either end of the band but clear of it
    assert verdict(rows(2.7))[1] == HOLDS
    assert verdict(rows(9.5))[1] == HOLDS


def test_does_not_hold_outside_the_band():
    for ratio in (2.0, 1.0, 12.0):
        v, reason = verdict(rows(ratio))[1:3]
        assert v == FAILS and "outside 2.5-10x" in reason, (ratio, v, reason)
    # one variant outside is enough
    files = rows(5.0, variants=("Morris",))
    files["read-cost.csv"] += rows(1.5, variants=("MorrisAdapt",))["read-cost.csv"]
    assert verdict(files)[1] == FAILS


def test_inconclusive_when_the_runs_straddle_the_line():
    # a median ratio of 2.6 whose runs spread 40% each way: the line 2.5 in the noise
    v, reason = verdict(rows(2.6, spread=0.4))[1:3]
    assert v == INCONCLUSIVE and "noise" in reason, (v, reason)
    # so do three runs that one run decides
    assert verdict(rows(2.45, runs=3, spread=0.2))[1] == INCONCLUSIVE


def test_not_measurable_without_the_columns():
    meas, v, reason = verdict(rows(5.0, decode=False))[:3]
    assert v == NM and reason.cause == PLAN and "decode_v_ns" in reason, reason
    # no read-cost rows of the two at all
    v, reason = verdict({"read-cost.csv": rows(5.0, variants=())["read-cost.csv"]})[1:3]
    assert v == NM, reason
    assert verdict({})[1] == NM


def test_not_in_the_unmeasured_list():
    from claims import unmeasured
    assert CID not in [c.id for c in unmeasured.CLAIMS]

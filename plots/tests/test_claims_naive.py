# SPDX-License-Identifier: MIT
"""Dice §1's variations of the naive counters (plots/claims/dice_naive.py) on rows
of the "naive" experiment made for it: it holds where no variation gains from
added threads at 0% work, does not hold where one does, is inconclusive where the
runs do not decide, and is not measurable, for the machine, on a small one."""
from fakes import Context, Figs, RS, by

from claims.core import FAILS, HOLDS, INCONCLUSIVE, MACHINE, NM
from claims.judge import evaluate

CID = "dice-naive-variations-insufficient"
BIG = {"pus": 256, "nodes": 2, "nodes_text": "2 nodes", "cache_line": 64}
SMALL = {"pus": 2, "nodes": 1, "nodes_text": "1 node", "cache_line": 64}
# 0% work: every counter slower at 256 threads than on 1 (a shared line); 99% work:
# every one faster, so that a rule reading the wrong panel would decide otherwise
SHAPE = {0: {1: 100.0, 2: 60.0, 256: 20.0}, 99: {1: 1.0, 2: 2.0, 256: 8.0}}
NAIVE = ("CAS", "FetchAdd", "CASPrefetch", "CASOnce")


def rows(shape=SHAPE, over=None, spread=0.00025, runs=9):
    """naive.csv's timed rows: each variant at each work and thread count, runs
    runs spread by spread apart; over: {(variant, work): {threads: ops/ms}}."""
    out = []
    for s in NAIVE:
        for w, pts in shape.items():
            for t, y in (over or {}).get((s, w), pts).items():
                out += [{"mode": "timed", "counter": s, "threads": t, "work_pct": w,
                         "ops_per_ms": y * (1 + spread * (k - runs // 2)), "run": k}
                        for k in range(runs)]
    return {"naive.csv": out}


def judge(files, m=BIG):
    return evaluate(Context(RS(files), Figs({}), m), [by[CID]])[0]


def test_holds_where_no_variation_scales():
    g = judge(rows())
    assert g["verdict"] == HOLDS, g
    assert "256 threads" in g["measured"] and "CASOnce" in g["measured"], g
    assert g["runs"] == 9, g


def test_does_not_hold_where_a_variation_scales():
    """CASOnce faster at 256 threads than on 1, at 0% work: it scales."""
    g = judge(rows(over={("CASOnce", 0): {1: 100.0, 2: 150.0, 256: 400.0}}))
    assert g["verdict"] == FAILS and "CASOnce" in g["reason"], g
    # CAS, the counter the variations vary, is shown and never judged
    g = judge(rows(over={("CAS", 0): {1: 100.0, 2: 150.0, 256: 400.0}}))
    assert g["verdict"] == HOLDS, g


def test_inconclusive_where_the_runs_do_not_decide():
    """FetchAdd's 256-thread median just below its 1-thread one, runs 20% apart."""
    g = judge(rows(over={("FetchAdd", 0): {1: 100.0, 2: 99.0, 256: 99.0}}, spread=0.05))
    assert g["verdict"] == INCONCLUSIVE, g


def test_not_measurable_on_a_small_machine():
    """2 PUs on 1 node: not measurable for the machine, with or without the rows."""
    for files in (rows(shape={0: {1: 100.0, 2: 60.0}, 99: {1: 1.0, 2: 2.0}}), {}):
        g = judge(files, SMALL)
        assert g["verdict"] == NM and g["cause"] == MACHINE, g
        assert "NUMA nodes" in g["reason"] and "not a prefetching" not in g["reason"], g
    # 2 real nodes but 64 PUs: too few threads, still the machine
    g = judge(rows(shape={0: {1: 100.0, 64: 20.0}, 99: {1: 1.0, 64: 8.0}}),
              dict(BIG, pus=64))
    assert g["verdict"] == NM and g["cause"] == MACHINE and "256" in g["reason"], g
    # virtual nodes are no NUMA system
    g = judge(rows(), dict(BIG, nodes_virtual=True))
    assert g["verdict"] == NM and g["cause"] == MACHINE, g


def test_not_measurable_without_the_experiment():
    g = judge({})
    assert g["verdict"] == NM and "naive.csv" in g["reason"], g

# SPDX-License-Identifier: MIT
"""Claim rules by the papers' own conditions and words: each rule on points made
for it (plots/tests/fakes.py), one that holds and one that does not."""
import fakes
from fakes import CLAIMS, Context, Figs, RS, by, pt, run, tri


def ev(cid, stats, files=None, m=None):
    """One claim's result on made-up figure statistics (and files, machine)."""
    from claims.judge import evaluate
    ctx = Context(RS(files or {}), Figs(stats), m or {"pus": 2, "cache_line": 64})
    return evaluate(ctx, [by[cid]])[0]


def v(res):
    """The verdict of a run() result."""
    return res[1]


def test_verdicts_by_papers_conditions():
    """Five verdicts by the papers' own conditions: "slightly" reduces latency has an
    upper side (21x is not slight); BFP-CSUP's speed is judged where it stayed exact
    (the paper names no contention condition); BFP-DUP's RSTDV bound is judged only on
    runs whose exponent did not saturate at SC_BFP_EXP_MAX; Interlocked's exactness and
    Sharded's size hold by construction."""
    from claims.core import CONDITION, FAILS, HOLDS, NM
    from claims.dice_error import bfp_exp_max, exponent_saturated
    fast = {("dice-fig4-high", ""): {"Serial": {2: pt([21, 21.5, 22])},
                                     "CAS": {2: pt([1, 1.01, 1.02])}}}
    slight = {("dice-fig4-high", ""): {"Serial": {2: pt([1.05, 1.051, 1.052])},
                                       "CAS": {2: pt([1, 1.001, 1.002])}}}
    assert run("dice-serial-latency-vs-cas", fast)[1] == FAILS
    assert run("dice-serial-latency-vs-cas", slight)[1] == HOLDS
    exact = [{"rel_error": 0.0}] * 3
    st = {("dice-fig4-low", ""): {"BFP-CSUP": {2: pt([1, 1.01, 1.02])},
                                  "BFP-DUP": {2: pt([1, 1.01, 1.02])}},
          ("dice-fig4-high", ""): {"BFP-CSUP": {1: pt([0.3, 0.31, 0.32], exact)},
                                   "BFP-DUP": {1: pt([1, 1.01, 1.02])}}}
    r = run("dice-csup-speed-like-dup", st)
    assert r[1] == FAILS and "1 thr" in r[2] and "left out" not in r[0], r
    top = bfp_exp_max()
    assert top == 15, top
    assert exponent_saturated({"end_state": "exp=%d;mant=27948" % top})
    assert exponent_saturated({"end_state": "exp=%d;mant=5000" % (top - 1)}) is None
    rows = [{"counter": "BFP-DUP", "rel_error": 0.005, "params_map": {"mantissa-threshold": "7500"},
             "ops": 10 ** 6, "end_state": "exp=%d;mant=9" % (top if i % 2 else 9)}
             for i in range(12)]
    r = run("dice-bfpdup-rstdv", {}, timed=rows)
    assert r[1] == HOLDS and r[3] == 6 and "left out (outside the claim" in r[0] and \
        "6 runs" in r[0], r
    for r_ in rows:
        r_["end_state"] = "exp=%d;mant=9" % top
    r = run("dice-bfpdup-rstdv", {}, timed=rows)
    assert r[1] == NM and r[2].cause == CONDITION, r
    bc = {c.id: c.by_construction for c in CLAIMS}
    assert bc["ayers-interlocked-exact"] and bc["ayers-sharded-size"]


def test_paraphrases_faithful():
    """Paraphrases made faithful, each rule on a point made for it: "consistently more
    than 99%" on every run; "significantly" and "similarly" on the paper's scale of a
    few percent (rules.FEW_PERCENT); "about 20x" with both sides (rules.ABOUT);
    MultilineAdapt's space half; "at high counts" above 2^(T+1); BFP-CSUP's accuracy
    with its exact runs kept over 1-256 threads; the inflated read needs two real
    nodes."""
    from claims.core import FAILS, HOLDS
    from claims.rules import ABOUT, FEW_PERCENT
    # every run: a median above 99% with one run at 98% does not hold
    st = {("dice-fig6-high", ""): {"Serial": {256: pt([98.0, 99.5, 99.6])}}}
    assert run("dice-serial-99pct-256", st)[1] == FAILS
    st = {("dice-fig6-high", ""): {"Serial": {256: pt([99.2, 99.5, 99.6])}}}
    assert run("dice-serial-99pct-256", st)[1] == HOLDS
    # significantly: 1.05x is slight, not significant; 1.3x is
    for r, want in ((1.05, FAILS), (1.3, HOLDS)):
        st = {("dice-fig5", ""): {"MorrisAdapt": {2: tri(r)}, "Morris": {2: tri(1)},
                                  "BFP-CSUP": {2: tri(r)}, "BFP-DUP": {2: tri(1)}}}
        assert run("dice-fig5-adaptive-wins", st)[1] == want, (r,
                                                               run("dice-fig5-adaptive-wins", st))
    # similarly: a 1.5x spread (within the old 2x) is not similar
    st = {("dice-fig3", ""): {"A": {1: tri(1.5)}, "B": {1: tri(1)}}}
    assert run("dice-fig3-similar-to-8", st)[1] == FAILS
    st = {("dice-fig3", ""): {"A": {1: tri(1.05)}, "B": {1: tri(1)}}}
    assert run("dice-fig3-similar-to-8", st)[1] == HOLDS
    # about 20x: 60x is not about 20x (it held at >= 10x before); 20x is
    for r, want in ((60, FAILS), (20, HOLDS), (20 / ABOUT / 1.2, FAILS)):
        st = {("dice-fig4-low", ""): {"RBONuma": {256: tri(r)}, "RBONumaAdapt": {256: tri(r)},
                                      "RBO": {256: tri(1)}}}
        assert run("dice-rbonuma-20x-rbo", st)[1] == want, (r, run("dice-rbonuma-20x-rbo", st))
    # the space half: a MultilineAdapt of two lines against RBO of one fails at equal speed
    for b, want in ((128.0, FAILS), (8.0, HOLDS)):
        st = {(f, ""): {"MultilineAdapt": {1: tri(1, [{"bytes_per_counter": b}] * 3)},
                        "RBO": {1: tri(1, [{"bytes_per_counter": 64.0}] * 3)}}
              for f in ("dice-fig3", "dice-fig4-low")}
        r = run("dice-multilineadapt-like-rbo-low", st)
        assert r[1] == want and "bytes per counter" in r[0], r
    # at high counts: N = 1.5 x 2^T (T = 13) is left out, 4 x 2^T is judged
    sc = [{"counter": "Scalable", "params_map": {"threshold": "13"}}]

    def times(n):
        return {"FetchAdd": {12: tri(1e-6), n: tri(2e-3)},
                "Scalable": {12: tri(1e-6), n: tri(1e-3)}}
    assert "12,288" not in run("ayers-interlocked-costlier", {("ayers-scaling", ""): times(12288)},
                               count_rows=sc)[0]
    r = run("ayers-interlocked-costlier", {("ayers-scaling", ""): times(32768)}, count_rows=sc)
    assert r[1] == HOLDS and "32,768" in r[0], r
    # BFP-CSUP accuracy: its exact 1-thread runs are kept, and the claim spans 1-256 threads
    ex = [{"rel_error": 0.0}] * 3
    st = {(f, ""): {"BFP-CSUP": {1: pt([0.0, 0.0, 0.0], ex), 2: tri(0.001)},
                    "BFP-DUP": {1: tri(0.005), 2: tri(0.005)}}
                    for f in ("dice-fig6-low", "dice-fig6-high")}
    r = run("dice-csup-more-accurate", st)
    assert "left out" not in r[0] and "(36 runs)" in r[0], r
    csup = by["dice-csup-more-accurate"]
    assert csup.threads == 256 and csup.threads_upto
    assert by["dice-getval-multilineadapt-serial-misses"].nodes == 2
    assert FEW_PERCENT == 1.1


def test_new_claims_rules():
    """The claims the papers make that the report lacked, each rule on points made for
    it: one that holds and one that does not (or why it is not measurable)."""
    from claims.core import FAILS, HOLDS, NM

    H, L = ("dice-fig4-high", ""), ("dice-fig4-low", "")
    # per-thread parts: Sharded 3 lines at 2 threads against FetchAdd 1 line (by construction)
    w0 = ("baselines", "-w0")

    def space(sharded):
        return {w0: {"Sharded": {2: tri(1, bytes_per_counter=sharded)},
                     "FetchAdd": {2: tri(1, bytes_per_counter=64.0)}}}
    assert v(run("dice-perthread-space", space(192.0))) == HOLDS
    assert v(run("dice-perthread-space", space(64.0))) == FAILS
    assert by["dice-perthread-space"].by_construction
    # RBO family alone: at least 0.8x CAS at one thread, no work

    def st(r):
        return {H: {"RBO": {1: tri(r)}, "RBONuma": {1: tri(r)}, "RBONumaAdapt": {1: tri(r)},
                    "CAS": {1: tri(1)}}}
    assert v(run("dice-rbo-family-single-thread", st(0.95))) == HOLDS
    assert v(run("dice-rbo-family-single-thread", st(0.5))) == FAILS
    # MultilineAdapt uninflated: one word
    assert v(run("dice-multilineadapt-space-low",
                 {L: {"MultilineAdapt": {1: tri(1, end_state="mode=word",
                                                bytes_per_counter=8.0)}}})) == HOLDS
    assert v(run("dice-multilineadapt-space-low",
                 {L: {"MultilineAdapt": {1: tri(1, end_state="mode=word",
                                                bytes_per_counter=64.0)}}})) == FAILS
    assert run("dice-multilineadapt-space-low",
               {L: {"MultilineAdapt": {1: tri(1, end_state="mode=inflated",
                                              bytes_per_counter=64.0)}}})[2].cause == "condition"
    # contention within one node: 2 threads below linear / 1.1; on two nodes not judged

    def one(r, nodes="0"):
        return {H: {s: {1: tri(10, nodes_used="0"), 64: tri(r, nodes_used=nodes)}
                    for s in ("Multiline", "MultilineAdapt")}}
    assert v(run("dice-multiline-node-contention", one(5 * 32))) == HOLDS
    assert v(run("dice-multiline-node-contention", one(10 * 64))) == FAILS
    assert v(run("dice-multiline-node-contention", one(5, "0,1"))) == NM


def test_new_claims_rules_contention_and_scaling():
    """The claims the papers make that the report lacked, continued: backoff, a line
    per node, Multiline in the array, one miss per read, atomic add, the naive and
    the probabilistic counters' scaling."""
    from claims.core import FAILS, HOLDS, MACHINE, NM, PLAN

    H, L = ("dice-fig4-high", ""), ("dice-fig4-low", "")
    w0 = ("baselines", "-w0")
    # RBO over CAS beyond 8 threads; on a 2-PU set not measurable (machine)

    def f3(r):
        return {("dice-fig3", ""): {"RBO": {8: tri(1), 16: tri(r)}, "CAS": {8: tri(1), 16: tri(1)}}}
    assert v(run("dice-rbo-backoff-helps", f3(2))) == HOLDS and v(run("dice-rbo-backoff-helps",
                                                                      f3(1.02))) == FAILS
    g = ev("dice-rbo-backoff-helps", {("dice-fig3", ""): {"RBO": {2: tri(1)}, "CAS": {2: tri(1)}}})
    assert g["verdict"] == NM and g["cause"] == MACHINE, g
    # a line per node: 256 bytes on 4 nodes holds, 64 does not (by construction)

    def ml(b):
        return {H: {"Multiline": {4: tri(1, bytes_per_counter=b, nodes=4)}}}
    assert v(run("dice-multiline-line-per-node", ml(256.0))) == HOLDS
    assert v(run("dice-multiline-line-per-node", ml(64.0))) == FAILS
    # Multiline above MultilineAdapt in the array at low counts

    def f5(r):
        return {("dice-fig5", ""): {"Multiline": {2: tri(r), 64: tri(0.5)},
                                    "MultilineAdapt": {2: tri(1), 64: tri(1)}}}
    assert v(run("dice-fig5-multiline-above-adapt-low", f5(2))) == HOLDS
    assert v(run("dice-fig5-multiline-above-adapt-low", f5(1.05))) == FAILS
    # one miss: below 2x the read cost of CAS

    def rc(r):
        return {("read-cost", "-ns"): {s: {2: tri(r)}
                                       for s in ("RBONuma", "RBONumaAdapt", "BFP-DUP",
                                                 "BFP-CSUP")} | {"CAS": {2: tri(100)}}}
    assert v(run("dice-getval-one-miss", rc(120))) == HOLDS and v(run("dice-getval-one-miss",
                                                                      rc(300))) == FAILS
    # atomic add does not scale: from 2 threads, 4 threads below 0.1 of linear

    def fa(r):
        return {w0: {"FetchAdd": {2: tri(100), 4: tri(r)}}}
    assert v(run("dice-atomic-add-no-fix", fa(15))) == HOLDS and v(run("dice-atomic-add-no-fix",
                                                                       fa(150))) == FAILS
    assert run("dice-atomic-add-no-fix",
               {w0: {"FetchAdd": {1: tri(1), 2: tri(1)}}})[2].cause == MACHINE
    # an order of magnitude under heavy contention

    def rn(r):
        return {H: {"RBONuma": {256: tri(r)}, "RBO": {256: tri(1)}}}
    assert v(run("dice-rbonuma-10x-rbo-high",
                 rn(12))) == HOLDS and v(run("dice-rbonuma-10x-rbo-high", rn(5))) == FAILS
    # the naive counters do not scale; the probabilistic ones in the array do

    def nv(r):
        return {L: {s: {2: tri(10), 256: tri(r)}
                    for s in ("Serial", "CAS", "RBO", "RBONuma", "RBONumaAdapt")}}
    assert v(run("dice-naive-not-scalable", nv(20))) == HOLDS and v(run("dice-naive-not-scalable",
                                                                        nv(500))) == FAILS

    def ps(r):
        return {("dice-fig5", ""): {s: {2: tri(10), 4: tri(r)}
                                    for s in ("Morris", "MorrisAdapt", "BFP-DUP", "BFP-CSUP")}}
    assert v(run("dice-fig5-prob-scale", ps(18))) == HOLDS and v(run("dice-fig5-prob-scale",
                                                                     ps(6))) == FAILS
    # retries are not recorded: not measurable (plan)
    assert run("dice-prob-retries-fall", {})[2].cause == PLAN


def test_new_claims_from_new_experiments():
    """The two experiments new to run-all's plan (dice-fig5-low.csv, hot-line.csv) are
    read from their CSVs, and a set without them says so (no data: the experiment is
    new); Ayers's one location, cheap capping and costly racing on points made for them."""
    from claims.core import DATA, FAILS, HOLDS, NM
    H = ("dice-fig4-high", "")

    def v(res):
        return res[1]
    # the new experiments: read from their CSVs; a set without them: no data, the experiment is new

    def rows(name, pairs):
        return {name: [{"mode": "timed", "counter": s, "threads": t,
                        "ops_per_ms": y * (1 + 0.00025 * k), "run": k}
                       for s, t, y in pairs for k in range(9)]}
    for cid, name in (("dice-fig5-low-serial-better", "dice-fig5-low.csv"),
                      ("dice-hotline-multilineadapt", "hot-line.csv")):
        a = "Serial" if "serial" in cid else "MultilineAdapt"
        assert v(run(cid, {}, rows(name, [(a, 2, 3.0), ("CAS", 2, 1.0)]))) == HOLDS, cid
        assert v(run(cid, {}, rows(name, [(a, 2, 1.0), ("CAS", 2, 1.0)]))) == FAILS, cid
        r = run(cid, {})
        assert r[1] == NM and r[2].cause == DATA and "no data" in r[2] and "new" in r[2], r
    assert v(run("ayers-scalable-false-sharing", {},
                 rows("hot-line.csv", [("Scalable", 1, 10.0), ("Scalable", 2, 8.0)]))) == HOLDS
    assert v(run("ayers-scalable-false-sharing", {},
                 rows("hot-line.csv", [("Scalable", 1, 10.0), ("Scalable", 2, 20.0)]))) == FAILS
    # Ayers: one location (by construction), capping costs little, racing is costly under contention

    def rb(b):
        return {("read-cost", "-bytes"): {"Scalable": {2: tri(b)}, "FetchAdd": {2: tri(8.0)}}}
    assert v(run("ayers-one-location", rb(8.0))) == HOLDS and v(run("ayers-one-location",
                                                                    rb(64.0))) == FAILS
    assert by["ayers-one-location"].by_construction

    def cap(r):
        return rows("latency.csv", [("ScalableCapped", 2, r), ("Scalable", 2, 1.0)])
    assert v(run("ayers-capped-little-scalability", {}, cap(0.97))) == HOLDS
    assert v(run("ayers-capped-little-scalability", {}, cap(0.7))) == FAILS

    def rc2(r):
        return {H: {"Serial": {1: tri(10), 2: tri(19), 12: tri(r)}}}
    assert v(run("ayers-racing-contention-costly",
                 rc2(30))) == HOLDS and v(run("ayers-racing-contention-costly", rc2(90))) == FAILS

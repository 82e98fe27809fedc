# SPDX-License-Identifier: MIT
""""Which counter to use": the advice's rules pick known winners on copies of the
fixture made decisive (conftest.adv), state their caveats, break ties by their
stated rule, and open REPORT.md as a table and run-all's last lines."""
import json
import os
import re

import pytest

from plotsets import PLOTS, aggregate, claims_doc, copy_set, read, report, run_py, scale


def advice(d):
    return claims_doc(d)["advice"]


def test_advice_picks_known_winners(adv):
    got = {a["id"]: a["best"] for a in advice(adv)}
    want = {"precise-high": "RBO", "approx-high": "RBO", "single-thread": "BFP-DUP",
            "many-counters": "Morris", "many-exact": "CAS", "read-heavy": "CAS",
            "read-heavy-stale": "CAS"}
    assert all(got[k] == v for k, v in want.items()), got
    assert got["precise-low"] not in (None, "Serial"), got


def test_advice_caveats(adv):
    """A probabilistic winner is said to be approximate, a precise one is not,
    Batched's lagging get is said wherever it wins."""
    from advice import caveat
    got = {a["id"]: a["caveat"] or "" for a in advice(adv)}
    assert got["single-thread"].startswith("approximate by contract") and \
        got["many-counters"].startswith("approximate by contract"), got
    assert got["precise-high"] == "" and got["read-heavy"] == "", got
    assert "lags" in caveat("Batched", "precise") and caveat("Sharded", "precise") is None


def _p(vals):
    return {"median": sorted(vals)[1], "min": min(vals), "max": max(vals)}


def test_advice_read_tie_broken_by_stated_rule():
    """A read-heavy pick within the noise: a tie (bands overlapping the lowest
    median's) goes to the variant Dice §5.5 recommends for frequent reads, then to
    the smaller spread, then by name; never to the first in file order."""
    from advice import READ_PREFERRED, READ_TIE_RULE, SCENARIOS, break_read_tie
    p = _p

    def pick(ranked):
        return [s for s, _ in break_read_tie([(s, (None, q)) for s, q in ranked])]
    # Morris 10, 10, 20 first in file order; BFP-DUP 10, 10, 10: one timer step apart
    assert pick([("Morris", p([10, 10, 20])), ("BFP-DUP", p([10, 10, 10])),
                 ("CAS", p([40, 40, 50]))]) == ["BFP-DUP", "Morris", "CAS"]
    # none recommended: the smaller spread, then the name
    assert pick([("Morris", p([10, 10, 20])), ("ScalableCAS", p([10, 10, 10])),
                 ("Scalable", p([10, 10, 10]))]) == ["Scalable", "Morris", "ScalableCAS"]
    # outside the noise the lowest median stands
    assert pick([("Morris", p([5, 5, 6])), ("BFP-DUP", p([10, 10, 10]))]) == ["Morris", "BFP-DUP"]
    assert "BFP-DUP" in READ_PREFERRED
    assert all(READ_TIE_RULE in sc.rule() for sc in SCENARIOS if sc.lower)


def test_advice_caveat_in_report(adv):
    assert "Caveat: approximate" in read(os.path.join(adv, "REPORT.md"))


def test_advice_flags_busy_point(adv):
    a = {x["id"]: x for x in advice(adv)}
    assert re.match(r"busy point: [1-9][0-9]* of its [1-9][0-9]* runs",
                    a["precise-high"]["busy"] or ""), a["precise-high"]
    assert all("busy" not in x for x in a.values() if x["best"] != "RBO"), a
    assert "Flag: busy point" in read(os.path.join(adv, "REPORT.md"))


def test_advice_bounded_read_takes_get_fast(tmp_path):
    """Read-heavy within a stated bound: PerCPUTree's O(1) get_fast (read_fast_ns)
    is its reading there, its get (read_ns) elsewhere. A PerCPUTree copy of CAS's
    read-cost rows whose get costs 1000 ns and get_fast 0.1 ns wins the bounded
    scenario, with the interval's caveat, and not the fresh-get one."""
    import csv
    d = copy_set(tmp_path, "tree")
    path = os.path.join(d, "read-cost.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0].keys()) + ["read_fast_ns", "fast_width", "fast_error"]
    extra = []
    for r in rows:
        r.update(read_fast_ns="", fast_width="", fast_error="")
        if r["counter"] == "CAS":
            extra.append(dict(r, counter="PerCPUTree", read_ns="1000", read_fast_ns="0.1",
                              fast_width="1533", fast_error="3"))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows + extra)
    aggregate(d)
    got = {a["id"]: a for a in advice(d)}
    b, f = got["read-heavy-bounded"], got["read-heavy"]
    assert b["best"] == "PerCPUTree" and b["value"].startswith("0.1 ns per reading"), b
    assert b["caveat"].startswith("its get_fast is the root"), b
    assert f["best"] != "PerCPUTree", f


def test_answer_opens_report(adv):
    """The answer opens REPORT.md: its first section is the scenario table, one
    caveat line above it (the fixture's 2 runs per point), no caveat repeated per
    cell; then what was measured, then the claims."""
    md = read(os.path.join(adv, "REPORT.md"))
    rows = advice(adv)
    heads = re.findall(r"^## .*", md, re.M)
    assert heads[:3] == ["## Which counter to use on this machine", "## What was measured",
                         "## Claims"], heads
    sec = md.split("\n## ", 2)[1]
    assert sec.count("**Caveat: provisional, 2 runs per point") == 1 and \
        "provisional:" not in sec, sec
    cells = [ln for ln in sec.splitlines()
             if re.match(r"^\| [A-Z].* \| \*\*[A-Za-z-]*\*\*: .* \| .* \| .* \| .* \|$", ln)]
    assert len(cells) == len([r for r in rows if r["best"]]) > 0, cells
    first = [ln for ln in sec.splitlines() if ln.strip()]
    assert first[1].startswith("**Caveat:") and first[2].startswith("| Scenario |"), first[:3]


def test_answer_lines(adv):
    """The same answer as plain lines (what run-all prints last): a caveat line,
    each scenario and its counter, figure and runner-up."""
    r = run_py([os.path.join(PLOTS, "report.py"), "--answer", adv])
    assert r.returncode == 0, r.stdout
    out = r.stdout.splitlines()
    assert out[0].startswith("Which counter to use here") and \
        out[1].startswith("  Caveat: provisional, 2 runs per point"), out[:2]
    for a in advice(adv):
        i = out.index("  " + a["scenario"])
        if a["best"]:
            assert out[i + 1].startswith("    %s: %s at " % (a["best"], a["value"])) and \
                "[%s]" % a["figure"] in out[i + 1], out[i + 1]
            assert not a["runner_up"] or "runner-up %s, " % a["runner_up"] in out[i + 1], \
                out[i + 1]


def test_advice_rule_stated(adv):
    assert r"whose worst \|relative error\| over every run of dice-fig4-high.csv at 0% work" \
        in read(os.path.join(adv, "REPORT.md"))


def test_advice_provisional_with_two_runs(adv):
    """The fixture has 2 runs per point: every answer is provisional, and says why."""
    rows = [a for a in advice(adv) if a["best"]]
    assert rows and all((a["provisional"] or "").startswith("provisional: 2 runs per point")
                        for a in rows), rows


def test_advice_ties_fresh_stale(tmp_path):
    """Ties, fresh and stale reads: FetchAdd and RBO at exactly 5e7 ops/ms in every
    run of dice-fig4-high (their bands touch: a tie), CAS at 4e7 (not tied);
    Batched the cheapest get: it wins only where a stale get is acceptable."""
    d = copy_set(tmp_path, "ties")
    high = os.path.join(d, "dice-fig4-high.csv")
    scale(high, "FetchAdd", "ops_per_ms", 0, "ops_per_ms", "50000000")
    scale(high, "RBO", "ops_per_ms", 0, "ops_per_ms", "50000000")
    scale(high, "CAS", "ops_per_ms", 0, "ops_per_ms", "40000000")
    scale(os.path.join(d, "read-cost.csv"), "Batched", "read_ns", 0, "read_ns", "0.1")
    assert aggregate(d) == 0 and report(d) == 0
    got = {a["id"]: a for a in advice(d)}
    ph = got["precise-high"]
    assert set([ph["best"]] + ph["ties"]) == {"FetchAdd", "RBO"}, ph
    assert "a 2-way tie" in ph["margin"], ph
    assert got["read-heavy-stale"]["best"] == "Batched", got["read-heavy-stale"]
    assert got["read-heavy"]["best"] != "Batched" and \
        "Batched" not in got["read-heavy"]["ties"], got["read-heavy"]

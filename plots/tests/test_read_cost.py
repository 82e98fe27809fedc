# SPDX-License-Identifier: MIT
"""Read cost: batched read samples (schema 6) in read-cost's note and the claims'
timer note, stats.batched_reads, and a read-heavy pick independent of the order
of the result file's rows."""
import csv
import os
import random

import pytest

from plotsets import aggregate, claims_doc, copy_set, lines


def read_cost_set(parent, name, edit):
    """A copy of the fixture, aggregated, whose read-cost rows are edited:
    "resolved" adds read_k 1024, timer_step_ns 10 and read_sample_steps 150 to
    every row ("mixed": the 4th row 50); "file", "reversed", "shuffled" (fixed
    seed 39) put BFP-DUP at 10 and 12 ns, Morris and ScalableCAS at 10 and 10,
    every other variant 100 ns above its own, in that row order."""
    d = copy_set(parent, name)
    path = os.path.join(d, "read-cost.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0].keys())
    if edit in ("resolved", "mixed"):
        fields += ["read_k", "read_sample_steps", "timer_step_ns"]
        for i, r in enumerate(rows):
            st = "50.0" if edit == "mixed" and i == 3 else "150.0"
            r.update(read_k="1024", read_sample_steps=st, timer_step_ns="10.00")
    else:
        low = {"BFP-DUP": ["10.0", "12.0"], "Morris": ["10.0", "10.0"],
               "ScalableCAS": ["10.0", "10.0"]}
        for r in rows:
            r["read_ns"] = low[r["counter"]][int(r["run"])] if r["counter"] in low else \
                "%.1f" % (100.0 + float(r["read_ns"]))
        if edit == "reversed":
            rows.reverse()
        elif edit == "shuffled":
            random.Random(39).shuffle(rows)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    aggregate(d)
    return d


def note(d):
    return [ln for ln in lines(os.path.join(d, "figdata", "read-cost-ns.dat"))
            if ln.startswith("# note:")][0]


def timer(d):
    """The timer notes beside the claims (before any bimodal note)."""
    out = set()
    for c in claims_doc(d)["claims"]:
        m = c.get("measured") or ""
        i = max(m.find("timer step here"), m.find("timer: "))
        if i >= 0:
            out.add(m[i:].split("; bimodal")[0])
    return sorted(out)


def test_read_cost_note_says_step_under_1pct(rs, tmp_path):
    """read-cost's note and the claims' timer note say the timer's step is at most
    1% of a sample where every run's sample spans 100 steps or more
    (read_sample_steps), else that a difference below the step per get
    (timer_step_ns / read_k) is not resolved; a set without the columns (one get
    per sample) keeps the one-step note."""
    ok = read_cost_set(tmp_path, "batch", "resolved")
    mixed = read_cost_set(tmp_path, "batchmixed", "mixed")
    assert "one get timed" in note(rs) and "10 ns steps" in note(rs), note(rs)
    assert [t.startswith("timer step here 10 ns (measured") for t in timer(rs)] == [True], \
        timer(rs)
    n = note(ok)
    assert "each sample times 1024 consecutive gets" in n and \
        "(10 ns) is 0.67% of the shortest sample (150 steps)" in n, n
    assert "not resolved" not in n and "one get timed" not in n, n
    assert timer(ok) and all(t.startswith("timer: each sample times 1024 consecutive gets; "
                                          "the timer") for t in timer(ok)), timer(ok)
    n = note(mixed)
    assert "is 2% of the shortest sample (50 steps)" in n and \
        n.rstrip().endswith("a difference below that step is not resolved"), n
    assert [t.startswith("timer step here 0.00977 ns per get") for t in timer(mixed)] == [True], \
        timer(mixed)


def test_batched_reads_needs_every_column():
    from stats import batched_reads
    row = {"read_ns": 5.0, "read_k": 512, "read_sample_steps": 120.0, "timer_step_ns": 20.0}
    b = batched_reads([row])
    assert b["resolved"] and b["k_min"] == b["k_max"] == 512 and \
        abs(b["per_get_ns"] - 20.0 / 512) < 1e-12, b
    assert batched_reads([dict(row, read_k=None)]) is None      # one get per sample: the old note
    assert batched_reads([{"read_ns": None}]) is None and batched_reads([]) is None
    # PerCPUTree: its get_fast samples count too (99 steps: over 1%)
    tree = dict(row, read_fast_ns=0.5, read_fast_k=8192, read_fast_sample_steps=99.0)
    b = batched_reads([row, tree])
    assert not b["resolved"] and b["k_max"] == 8192 and b["steps_min"] == 99.0, b
    assert batched_reads([dict(tree, read_fast_k=None)]) is None


def test_advice_read_pick_independent_of_row_order(tmp_path):
    """The fixture's read-cost rows with BFP-DUP (10, 12 ns) in a tie with Morris and
    ScalableCAS (10, 10 ns each), everything else at 100 ns and over; in file order,
    reversed and shuffled the advice is the same: Morris first (the lowest median;
    Dice §5.5's preference for BFP-DUP speaks only of the Morris family, and
    ScalableCAS is in the tie), before ScalableCAS (equal medians and spreads: by
    name)."""
    def adv(d):
        return [(a["id"], a["best"], a["runner_up"], a["ties"], a["margin"])
                for a in claims_doc(d)["advice"]]
    got = [adv(read_cost_set(tmp_path, "perm_" + o, o)) for o in ("file", "reversed", "shuffled")]
    assert got[0] == got[1] == got[2], got
    rh = {a[0]: a for a in got[0]}["read-heavy"]
    assert rh[1:3] == ("Morris", "ScalableCAS") and sorted(rh[3]) == ["BFP-DUP", "ScalableCAS"], rh

# SPDX-License-Identifier: MIT
"""A confirmation round of run-all's --confirm (harness/runall/confirm.py added
and record) adds runs to both sides of a comparison in the same round,
interleaved in a seeded shuffled order, so that a drift of the machine between
rounds falls on both sides alike: for a point pair at 3 runs a side whose next
look is 6, run-all.order's new round lists run K of both sides before run K+1
of either (each run index a block holding one run of each side, in the order of
the Park-Miller shuffle from the round's seed), and the same round and seed give
the same order; a side that already has more runs gets only the runs up to the
look, in the same round. On a plan written in tmp_path; exact, no false
failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from runall import confirm as C  # noqa: E402  (needs harness/ on sys.path)
from runall import plan as PL  # noqa: E402


class Ctx:
    order_seed = 1274820969

    def __init__(self, d):
        self.dir = d


SEED = (Ctx.order_seed + 7919) % 2147483646 + 1


def plan(runs_a, runs_b):
    out = []
    for v, n in (("RBONuma", runs_a), ("RBO", runs_b)):
        for r in range(n):
            out.append(("dice-fig4-high", "t1-%s-r%d" % (v, r),
                        "--counter=%s --work=0 --threads=1 --runs=1 --first-run=%d" % (v, r)))
    return out


def round_of(d, runs_a, runs_b, rnd=1):
    p = plan(runs_a, runs_b)
    with open(os.path.join(d, "run-all.order"), "w", encoding="utf-8") as f:
        f.write("# planned rounds\n" + "".join("%s %s\n" % (i, c) for i, c, _ in p))
    want = [{"experiment": "dice-fig4-high", "counters": ["RBONuma", "RBO"], "threads": 1,
             "next": 6}]
    p2, new = C.added(p, want)
    mine = C.record(Ctx(d), p2, new, rnd)
    with open(os.path.join(d, "run-all.order"), encoding="utf-8") as f:
        text = f.read()
    sect = text.split("# confirmation round %d " % rnd)[1].splitlines()[1:]
    return new, mine, sect


def test_both_sides_same_round_interleaved(tmp_path):
    new, mine, sect = round_of(str(tmp_path), 3, 3)
    chunks = [line.split()[1] for line in sect]
    assert [" ".join(x[:2]) for x in mine] == sect, (mine, sect)
    assert sorted(chunks) == sorted(["t1-%s-r%d" % (v, r) for v in ("RBONuma", "RBO")
                                     for r in (3, 4, 5)]), chunks
    # each run index a block of one run of each side, the blocks in order
    for k, r in enumerate((3, 4, 5)):
        block = chunks[2 * k:2 * k + 2]
        assert sorted(block) == ["t1-RBO-r%d" % r, "t1-RBONuma-r%d" % r], chunks
    assert sect == PL.shuffle(["%s %s %s" % x for x in new], SEED), sect
    print("round 1 order: %s" % " ".join(chunks))


def test_same_round_same_seed_same_order(tmp_path):
    a = round_of(str(tmp_path), 3, 3)[2]
    b = round_of(str(tmp_path), 3, 3)[2]
    assert a == b, (a, b)
    with open(os.path.join(str(tmp_path), "run-all.order"), encoding="utf-8") as f:
        head = [line for line in f if line.startswith("# confirmation round 1 ")]
    assert head and "shuffled from seed %d" % SEED in head[0]


def test_uneven_sides_brought_to_the_look_together(tmp_path):
    new, mine, sect = round_of(str(tmp_path), 5, 3)
    chunks = [line.split()[1] for line in sect]
    assert sorted(chunks) == sorted(["t1-RBONuma-r5", "t1-RBO-r3", "t1-RBO-r4", "t1-RBO-r5"]), \
        chunks
    assert sorted(chunks[-2:]) == ["t1-RBO-r5", "t1-RBONuma-r5"], chunks

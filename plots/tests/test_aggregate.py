# SPDX-License-Identifier: MIT
"""plots/aggregate.py on the fixture result set: figures.tsv and the .dat
files, the envelopes, the statistics (against statistics.quantiles), the
consistency note between figures, a partial set, and one-run points."""
import os
import random
import re
import statistics

import pytest

from figures import FIGURE_IDS
from plotsets import FIXTURE, aggregate, copy_set, edit_rows, lines, read

NUMBER = re.compile(r"^-?[0-9.]+([eE][-+]?[0-9]+)?$")


def figures_tsv(d):
    """figures.tsv of D: figure id -> its fields."""
    return {f[0]: f
            for f in (ln.split("\t") for ln in lines(os.path.join(d, "figdata", "figures.tsv")))
            if not f[0].startswith("#")}


def test_aggregate_exits_0(rs):
    assert os.path.isfile(os.path.join(rs, "figdata", "figures.tsv"))


@pytest.mark.parametrize("fid", FIGURE_IDS)
def test_figdata(rs, fid):
    line = figures_tsv(rs).get(fid)
    assert line and line[1] == "ok", line


def dat_ok(path):
    """A .dat: the column header, rows of 12 fields, numbers or NaN after the series name."""
    text = read(path)
    head = "# columns: series x n median min max mean p5 p95 env_lo env_hi marked"
    assert head in text.splitlines()
    assert any(ln.startswith("# series: ") for ln in text.splitlines())
    rows = [ln.split() for ln in text.splitlines() if not ln.startswith("#") and ln.split()]
    assert rows
    for r in rows:
        assert len(r) == 12, r
        assert all(x == "NaN" or NUMBER.match(x) for x in r[1:]), r


@pytest.mark.parametrize("fid", FIGURE_IDS)
def test_dat_columns(rs, fid):
    for name in figures_tsv(rs)[fid][2].split():
        dat_ok(os.path.join(rs, "figdata", name))


def dat_rows(d, name):
    return [ln.split() for ln in lines(os.path.join(d, "figdata", name))
            if not ln.startswith("#") and ln.split()]


def test_envelope_in_fig6(rs):
    assert any(r[0] == "Morris" and r[10] != "NaN" for r in dat_rows(rs, "dice-fig6-high.dat"))


def test_binomial_envelope_in_ayers_detail(rs):
    assert any(r[0] == "Scalable" and float(r[1]) > 8192 and float(r[9]) < 1 and float(r[10]) > 1
               for r in dat_rows(rs, "ayers-accuracy-detail.dat"))


def test_aggregate_statistics_known_values(tmp_path):
    """Five runs with ops_per_ms 1, 2, 3, 4, 10 give median 3, mean 4, p5 1.2 and
    p95 8.8 (linear interpolation between order statistics), and are not marked
    (10 is within 3 x 1.4826 MAD of the lns: plots/marks.py)."""
    d = tmp_path / "known"
    d.mkdir()
    src = os.path.join(FIXTURE, "dice-fig3.csv")
    out = str(d / "dice-fig3.csv")

    def edit(head, rows):
        first = [r for r in rows if r[head.index("counter")] == "CAS"][0]
        made = []
        for v in (1, 2, 3, 4, 10):
            r = list(first)
            r[head.index("threads")], r[head.index("ops_per_ms")] = "1", str(v)
            made.append(r)
        return head, made
    with open(src) as f, open(out, "w") as g:
        g.write(f.read())
    edit_rows(out, edit)
    aggregate(str(d))
    got = [ln for ln in lines(str(d / "figdata" / "dice-fig3.dat")) if ln.startswith("CAS ")]
    assert got == ["CAS 1 5 3 1 10 4 1.2 8.8 NaN NaN 0"], got


def test_percentile_matches_statistics_quantiles():
    """plots/stats.py's percentile is the type-7 definition of statistics.quantiles
    (method="inclusive"): equal to 1e-12 relative on 2,000 fixed-seed random
    samples of 2-40 values at p = 0.05, 0.5, 0.95 (deterministic)."""
    from stats import percentile
    rng = random.Random(7)
    for _ in range(2000):
        xs = sorted(rng.uniform(-1e3, 1e6) for _ in range(rng.randint(2, 40)))
        q = statistics.quantiles(xs, n=20, method="inclusive")
        for p, want in ((0.05, q[0]), (0.5, q[9]), (0.95, q[18])):
            got = percentile(xs, p)
            assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (xs, p, got, want)
    assert percentile([4.0], 0.95) == 4.0 and percentile([], 0.5) is None


def _band(lo, hi, n=3):
    return {"min": lo, "max": hi, "median": (lo + hi) / 2, "n": n}


def test_fig3_fig4low_band_note():
    """plots/consistency.py: dice-fig3 against dice-fig4-low, point by point: an
    overlap of the min-max bands counts, a gap is counted in one line and listed
    with both bands in figdata/bands-apart.tsv; a point of one run (min is max)
    is no band and is not compared; the reason given names the set's calibration
    where it has one."""
    from consistency import band_notes, band_table
    p = _band
    stats = {("dice-fig3", ""): {"CAS": {1: p(10, 20), 2: p(30, 40), 4: p(9, 9, 1)},
                                 "RBO": {1: p(5, 6)}},
             ("dice-fig4-low", ""): {"CAS": {1: p(15, 25), 2: p(41, 50), 4: p(1, 1, 1)},
                                     "RBO": {1: p(6, 7)}}}
    notes = band_notes(stats)
    assert len(notes) == 1 and ("overlap at 2 of 3 common points with 2 or more runs each; the 1 "
                                "apart are listed in figdata/bands-apart.tsv") in notes[0], notes
    assert "\n" not in notes[0] and len(notes[0]) < 400, notes
    rows = band_table(stats).splitlines()
    assert rows[0].startswith("# figure a") and \
        rows[1:] == ["dice-fig3\tdice-fig4-low\tCAS\t2\t30\t40\t41\t50"], rows
    one = {k: {s: {x: dict(v, n=1) for x, v in pts.items()} for s, pts in d.items()}
           for k, d in stats.items()}
    assert band_notes(one) == [] and band_table(one) is None and band_notes({}) == []
    assert "their own --work calibration" in notes[0], notes
    # a set calibrated once: the two levels pause counts, never "their own calibration"
    lv = [{"work_pct": 99.02, "work_iters": 30.85}, {"work_pct": 99.0, "work_iters": 30.15}]
    cal = band_notes(stats, lv)[0]
    assert "99.02% as 30.85 pauses, 99% as 30.15" in cal and "their own" not in cal, cal
    assert band_notes(stats, lv[:1])[0] == notes[0]


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    """A partial result set (one file), aggregated: its exit status and path."""
    d = tmp_path_factory.mktemp("partial")
    for f in ("dice-fig3.csv", "dice-fig3.csv.meta.json"):
        with open(os.path.join(FIXTURE, f)) as a, open(str(d / f), "w") as b:
            b.write(a.read())
    return aggregate(str(d)), str(d)


def test_partial_set_aggregates(partial):
    assert partial[0] == 0


def test_partial_set_skips_missing_with_reason(partial):
    assert any(ln.startswith("ayers-accuracy\tskipped\tayers.csv is not in this result set")
               for ln in lines(os.path.join(partial[1], "figdata", "figures.tsv")))


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    """The fixture's baselines cut to run 0, aggregated; then with a PerCPUTree copy
    of PerCPU's rows, aggregated again: the two baselines-w0.dat texts."""
    d = copy_set(tmp_path_factory.mktemp("one"), "one")
    path = os.path.join(d, "baselines.csv")
    edit_rows(path, lambda h, rows: (h, [r for r in rows if r[h.index("run")] == "0"]))
    aggregate(d)
    dat = os.path.join(d, "figdata", "baselines-w0.dat")
    first = read(dat)
    singular = "# runs: 1 run per point" in first.splitlines() and not any(
        "1 runs" in read(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(d, "figdata"))
        for f in fs)
    edit_rows(path, lambda h, rows: (h, [x for r in rows for x in (
        [r, ["PerCPUTree"] + r[1:]] if r[0] == "PerCPU" else [r])]))
    aggregate(d)
    return singular, first, read(dat)


def test_one_run_is_singular(one):
    """One run per point is "1 run" (it read "1 runs")."""
    assert one[0]


def test_baselines_title_names_the_set(one):
    """The baselines figure's title names the baseline variants the set ran, in the
    registry's order: the fixture's four, and PerCPUTree once its rows are in."""
    assert "# title: The papers' best counters against Sharded, Striped, Batched and PerCPU" \
        in one[1].splitlines()


def test_baselines_title_names_the_tree(one):
    assert "# title: The papers' best counters against Sharded, Striped, Batched, PerCPU and " \
        "PerCPUTree" in one[2].splitlines()

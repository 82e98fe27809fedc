# SPDX-License-Identifier: MIT
"""Verdicts on a synthetic 256-PU, 4-node result set (tests/fixtures/synth_bigbox.py),
error claims judged at the count they need, and the runs' end states."""
import csv
import importlib.util
import os

import pytest

from plotsets import TOP, aggregate, claim_field, claims_doc, copy_set, read, report


def _synth():
    spec = importlib.util.spec_from_file_location(
        "synth_bigbox", os.path.join(TOP, "tests", "fixtures", "synth_bigbox.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


SYNTH = _synth()
EXPECTED = ([(c, "holds") for c in SYNTH.EXPECT_HOLDS] +
            [(c, "does not hold") for c in SYNTH.EXPECT_FAILS] +
            [(c, "by construction") for c in SYNTH.EXPECT_BY_CONSTRUCTION])


def test_synthetic_bigbox_aggregates(big):
    assert os.path.isfile(os.path.join(big, "figdata", "claims.json"))


def test_expected_verdicts_file_lists_the_same(big):
    """The expected-verdicts.txt the set carries is the list these tests parametrize."""
    words = {"holds": "holds", "fails": "does not hold", "by-construction": "by construction"}
    with open(os.path.join(big, "expected-verdicts.txt")) as f:
        got = [(c, words[w]) for c, w in (ln.split() for ln in f if ln.strip())]
    assert got == EXPECTED


@pytest.mark.parametrize("cid,want", EXPECTED)
def test_bigbox_verdict(big, cid, want):
    got = [c["verdict"] for c in claims_doc(big)["claims"] if c["id"] == cid]
    assert got == [want]


def field_matches(got, *parts, start=None):
    """GOT holds PARTS in that order (the shell's case pattern "*a*b*"), starting
    with START if given."""
    i = 0
    if start is not None:
        if not got.startswith(start):
            return False
        i = len(start)
    for p in parts:
        j = got.find(p, i)
        if j < 0:
            return False
        i = j + len(p)
    return True


def test_error_claim_short_runs_not_measurable_at_this_count(rs):
    """The fixture's runs last 0.05 s; 8 s at their throughput would count 160x higher."""
    got = claim_field(rs, "dice-bfpcsup-under-0.25pct")
    assert field_matches(got, "would count about", "true counts of these",
                         start="not measurable|at this count: "), got


def test_array_error_claim_short_runs_not_measurable(rs):
    got = claim_field(rs, "dice-array-error-low")
    assert got.startswith("not measurable|at this count: "), got


def test_condition_exact_point_kept_in_speed(rs):
    """BFP-CSUP's speed against BFP-DUP's has no contention condition in the paper: its
    exact 1-thread points are judged, nothing left out."""
    got = claim_field(rs, "dice-csup-speed-like-dup")
    assert "left out" not in got and "1 thr high" in got, got


def test_condition_exact_point_kept_in_accuracy(rs):
    """BFP-CSUP's accuracy claim spans the paper's 1-256 threads: its exact runs count."""
    got = claim_field(rs, "dice-csup-more-accurate")
    assert "left out" not in got and "median |relative error|: BFP-CSUP" in got, got


def test_condition_low_count_not_measurable(rs):
    """Morris, counting 200 k-26 M, is not compared with CAS on a claim about low
    projected values."""
    got = claim_field(rs, "dice-morris-slower-than-cas-low")
    assert got.startswith("not measurable|every run counted far above a low projected value"), got


def test_error_claim_rstdv_states_counts(rs):
    got = claim_field(rs, "dice-bfpdup-rstdv")
    assert field_matches(got, "|", "true counts "), got


def test_end_states_not_recorded_said(rs):
    reading = " ".join(*[f.get("end_states") or [] for f in claims_doc(rs)["figures"]
                         if f["id"] == "dice-fig4-high"])
    assert field_matches(reading, "not recorded", "MorrisAdapt"), reading


@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    """The fixture's runs made paper-length (8 s), with end states: MorrisAdapt's two
    runs of each point end in different modes, the other variants in one state each."""
    d = copy_set(tmp_path_factory.mktemp("paper"), "paper")
    for name in ("dice-fig4-low.csv", "dice-fig4-high.csv"):
        path = os.path.join(d, name)
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        cols = list(rows[0].keys()) + ["end_state"]
        for r in rows:
            r["seconds"] = "8.000000"
            if r["counter"] == "MorrisAdapt":
                r["end_state"] = ("mode=exact;exact=%s" % r["ops"] if r["run"] == "0" else
                                  "mode=morris;switched_at=1234;threshold=5e+06;updates=40000")
            else:
                r["end_state"] = "exp=3;mant=9000" if r["counter"].startswith("BFP") else ""
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, cols)
            w.writeheader()
            w.writerows(rows)
    assert aggregate(d) == 0 and report(d) == 0
    return d


def test_error_claim_paper_length_runs_judged(paper):
    got = claim_field(paper, "dice-bfpcsup-under-0.25pct")
    assert got.startswith(("holds|", "does not hold|")), got


def test_new_claim_csup_error_near_zero_judged(paper):
    """BFP-CSUP's worst error "often close to zero" on the paper-length fixture: judged
    (its 2 runs per point are below the 3 every claim needs, so the rule's verdict is
    said)."""
    got = claim_field(paper, "dice-csup-error-near-zero")
    assert field_matches(got, "the rule alone would say ", "BFP-CSUP points",
                         start="inconclusive|too few runs: 2 per point"), got


def test_figdata_marks_mixed_modes(paper):
    assert any(ln.startswith("# mixed_modes: MorrisAdapt@1thr MorrisAdapt@2thr")
               for ln in read(os.path.join(paper, "figdata", "dice-fig4-high.dat")).splitlines())


def test_figdata_note_says_bimodal(paper):
    assert any(ln.startswith("# note: bimodal: MorrisAdapt at 1 thr ended in different modes "
                            "(exact 1, morris 1)")
               for ln in read(os.path.join(paper, "figdata", "dice-fig4-high.dat")).splitlines())


def test_report_reading_says_bimodal(paper):
    assert "bimodal points: MorrisAdapt at 1 thr: its 2 runs ended in different modes " \
        "(exact 1, morris 1)" in read(os.path.join(paper, "REPORT.md"))

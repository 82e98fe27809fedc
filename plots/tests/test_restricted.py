# SPDX-License-Identifier: MIT
"""A restricted run (run-all --experiments, --variants) lists only the claims it
can speak to, judged as on the whole set; what each claim needs
(plots/claims/restriction.py) is complete. On the synthetic 256-PU set."""
import csv
import filecmp
import os
import re
import shutil

import pytest

from plotsets import aggregate, claim_field, claims_doc, read, report

NAMES = ("dice-fig3", "dice-fig4-low", "dice-fig4-high", "dice-fig5", "baselines", "latency",
         "read-cost", "ayers", "ayers-tunable")


def test_claim_needs_are_complete(big):
    """Each claim judged on the synthetic set cut to only its needs (its figures'
    experiments, the CSVs its rule reads besides, the variants it names or declares;
    the other CSVs absent, the other variants' rows gone) says what it says on the
    whole set."""
    from claims import CLAIMS
    from claims.context import Context
    from claims.judge import evaluate
    from claims.restriction import needed_experiments, needed_variants, variant_words
    from figbuild import Figures
    from figures import FIGURES
    from resultset import ResultSet
    from resultset_summary import machine_summary
    full = {c["id"]: c for c in claims_doc(big)["claims"]}

    class Cut(ResultSet):
        """The set with only the CSVs of names, and of them only the rows of variants."""
        def __init__(self, path, names, variants):
            ResultSet.__init__(self, path)
            self.names, self.variants = names, variants

        def csv(self, name):
            rows = ResultSet.csv(self, name) if name in self.names else None
            if rows is None or self.variants is None:
                return rows
            return [r for r in rows if r["counter"] in self.variants]
    words = variant_words()
    groups = {}
    for c in CLAIMS:
        e, v = needed_experiments(c, FIGURES), needed_variants(c, words)
        groups.setdefault((tuple(e), tuple(v) if v else None), []).append(c)
    bad = []
    for (e, v), cs in groups.items():
        rs = Cut(big, [x + ".csv" for x in e], v)
        m = machine_summary(rs)
        figs = Figures(rs, m, FIGURES)
        figs.build()
        for c, got in zip(cs, evaluate(Context(rs, figs, m), cs)):
            want = full[c.id]
            for k in ("verdict", "measured", "reason"):
                if got[k] != want[k]:
                    bad.append("%s (needs %s; %s): %s %r, on the whole set %r"
                               % (c.id, ", ".join(e), ", ".join(v or ["every variant"]), k,
                                  got[k], want[k]))
    assert bad == []


def restricted_set(big, dst, exps, variants):
    """The synthetic set as run-all --experiments and --variants would have left it
    (only the CSVs of EXPS, only the rows of VARIANTS; "all" keeps every one), with
    its run-all.conf, aggregated and reported: the aggregator's output."""
    os.makedirs(dst)
    for name in NAMES:
        if exps != "all" and name not in exps.split(","):
            continue
        shutil.copy("%s/%s.csv.meta.json" % (big, name), dst)
        with open("%s/%s.csv" % (big, name), newline="") as f:
            rows = list(csv.reader(f))
        with open("%s/%s.csv" % (dst, name), "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(
                [r for i, r in enumerate(rows)
                 if i == 0 or variants == "all" or r[0] in variants.split(",")])
    with open(dst + "/run-all.conf", "w") as f:
        f.write("experiments=%s\nvariants=%s\n" % (exps, variants))
    log = []
    assert aggregate(dst, log) == 0 and report(dst) == 0
    return log[0]


def claims_listed(d):
    """The claim ids REPORT.md lists (the rows of its two claim tables)."""
    text = {c["claim"]: c["id"] for c in claims_doc(d)["claims"]}
    out = []
    for line in read(d + "/REPORT.md").splitlines(True):
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) > 2 and cells[0][2:].lstrip("C").isdigit():
            claim = cells[1].rsplit(" (", 1)[0].replace("\\|", "|")
            out.append(text.get(claim, "unknown: " + claim))
    return out


def left_out_ids(d):
    return [c["id"] for c in claims_doc(d)["claims"] if c.get("left_out")]


def left_out_lines(d):
    return [ln for ln in read(d + "/REPORT.md").splitlines()
            if "left out: this run was restricted" in ln]


def total():
    from claims import CLAIMS
    return len(CLAIMS)


def same_verdicts(d, big, ids):
    return [i for i in ids if claim_field(d, i) != claim_field(big, i)]


def test_restricted_experiments(big, tmp_path):
    """Restricted to three experiments. The claims they cannot speak to, counted here
    from the figure table and the claims' declarations: every figure's source CSV
    (or the experiment of a figure-less one) and the CSVs declared in data must be
    among them. One line says how many are left out and why; the others are listed
    and judged as in the full run."""
    from claims import CLAIMS
    from figures import FIGURES
    exps = "dice-fig4-low,dice-fig4-high,ayers"
    d = str(tmp_path / "rx")
    log = restricted_set(big, d, exps, "all")
    assert os.path.getsize(d + "/REPORT.md") > 0
    run = exps.split(",")
    src = dict((f.id, f.source[:-4]) for f in FIGURES)
    want = sum(1 for c in CLAIMS
               if any(src.get(f.strip(), f.strip()) not in run for f in c.figure.split(","))
               or any(x[:-4] not in run for x in c.data))
    assert len(left_out_lines(d)) == 1
    assert ("%d claims left out: this run was restricted to experiments dice-fig4-low, "
            "dice-fig4-high, ayers (run-all --experiments) and they need others." % want) \
        in read(d + "/REPORT.md").splitlines()
    listed, left = claims_listed(d), left_out_ids(d)
    assert len(listed) == total() - want and len(left) == want and want > 0
    assert not set(left) & set(listed) and not any(ln.startswith("unknown") for ln in listed)
    assert same_verdicts(d, big, listed) == []
    assert "(%d left out: the run was restricted)" % want in log


def test_restricted_variants(big, tmp_path):
    """Restricted to three variants (every experiment): a claim on another variant, or
    on every variant of its figures, is left out; so is nothing else."""
    d = str(tmp_path / "rv")
    restricted_set(big, d, "all", "FetchAdd,Serial,Scalable")
    listed, left = claims_listed(d), left_out_ids(d)
    nleft = len(left)
    assert ("%d claims left out: this run was restricted to variants FetchAdd, Serial, "
            "Scalable (run-all --variants) and they need others." % nleft) \
        in read(d + "/REPORT.md").splitlines()
    assert len(listed) == total() - nleft and 0 < nleft < total()
    assert not set(left) & set(listed)
    assert "dice-serial-loses-90pct" in listed
    assert "dice-fig3-similar-to-8" in left
    assert same_verdicts(d, big, listed) == []


def test_restricted_both_one_line(big, tmp_path):
    d = str(tmp_path / "rb")
    restricted_set(big, d, "ayers", "FetchAdd,Serial")
    pat = re.compile(r"[0-9]* claims left out: this run was restricted to experiments ayers and "
                     r"variants FetchAdd, Serial \(run-all --experiments, --variants\) and "
                     r"they need others\.")
    assert any(pat.fullmatch(ln) for ln in read(d + "/REPORT.md").splitlines())


def test_full_run(big, tmp_path):
    """A full run (experiments=all, variants=all) lists every claim, leaves nothing
    out, and writes claims.json and REPORT.md byte for byte as without its
    run-all.conf."""
    d = str(tmp_path / "rf")
    restricted_set(big, d, "all", "all")
    assert len(claims_listed(d)) == total()
    assert left_out_lines(d) == [] and "left_out" not in read(d + "/figdata/claims.json")
    shutil.copy(d + "/REPORT.md", str(tmp_path / "rf.report"))
    shutil.copy(d + "/figdata/claims.json", str(tmp_path / "rf.claims"))
    os.remove(d + "/run-all.conf")
    aggregate(d)
    report(d)
    assert filecmp.cmp(str(tmp_path / "rf.report"), d + "/REPORT.md", shallow=False)
    assert filecmp.cmp(str(tmp_path / "rf.claims"), d + "/figdata/claims.json", shallow=False)

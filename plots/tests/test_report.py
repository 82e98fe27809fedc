# SPDX-License-Identifier: MIT
"""plots/report.py: REPORT.md's claim rows and verdicts, its provenance header
(schema 1 and 2), an emulated CPU's claims, and the failed points listed."""
import glob
import json
import os
import re

import pytest

from plotsets import aggregate, claims_doc, copy_set, lines, read, report

VERDICT_ROW = re.compile(
    r"\| (\*\*holds\*\*|\*\*consistent with\*\*|\*\*does not hold\*\*)( \([0-9]+ runs?[^)]*\))?"
    r"(: .+)? \|$|\| \*inconclusive\*( \([0-9]+ runs?[^)]*\))?: .+ \|$"
    r"|\| \*not measurable\* \([a-z ]+\): .+ \|$|\| \*no test here\* \([a-z ]+\): .+ \|$")
APART_ROW = re.compile(r"\| \*by construction\*( \([0-9]+ runs?[^)]*\))?: .+ \|$")


def md(d):
    return lines(os.path.join(d, "REPORT.md"))


def test_report_exits_0(rs):
    assert os.path.isfile(os.path.join(rs, "REPORT.md"))


def test_report_has_at_least_12_claim_rows(rs):
    rows = [ln for ln in md(rs) if re.match(r"^\| [0-9]+ \|", ln)]
    assert len(rows) >= 12, len(rows)


def test_report_every_claim_row_has_a_verdict(rs):
    """Every row of a claim (numbered, or C<n> among those true by construction) ends
    with one of the verdicts of plots/report.py's VERDICT_TEXT (a judged one with the
    runs it rests on, "(3 runs)"); those without a count phrase only in the table apart."""
    bad = [ln for ln in md(rs) if re.match(r"^\| [0-9]+ \|", ln) and not VERDICT_ROW.search(ln)]
    bad += [ln for ln in md(rs) if re.match(r"^\| C[0-9]+ \|", ln) and not APART_ROW.search(ln)]
    assert bad == []


def test_report_has_machine_header(rs):
    assert any(ln.startswith("| Machine | ") for ln in md(rs))


def test_report_schema1_cpu_not_recorded(rs):
    """Provenance in the header: a schema-1 set says "not recorded"."""
    assert "| CPU | not recorded (schema 1) |" in md(rs)


def edit_meta(d, edit):
    for p in glob.glob(d + "/*.meta.json"):
        with open(p) as f:
            m = json.load(f)
        edit(m)
        with open(p, "w") as f:
            json.dump(m, f)


def test_report_schema2_provenance(tmp_path):
    """A schema-2 set shows its cpu record (here written into a copy of the fixture's
    metadata)."""
    d = copy_set(tmp_path, "prov")
    edit_meta(d, lambda m: m.update(
        schema_version=2, compiler="gcc (Debian 12.2.0-14) 12.2.0", compiler_command="gcc",
        cpu={"model": "AMD EPYC 7B13", "vendor": "AuthenticAMD", "sockets": 1, "cores": 2,
             "pus": 4, "smt": "on", "governor": "powersave", "boost": "on",
             "min_mhz": 1500, "max_mhz": "unknown"}))
    assert aggregate(d) == 0 and report(d) == 0
    text = md(d)
    assert "| Result schema | 2 |" in text
    assert "| CPU | AMD EPYC 7B13 (AuthenticAMD); 1 socket, 2 cores, 4 PUs; SMT on |" in text
    assert any(ln.startswith("| Frequency | governor powersave, boost on, frequency 1500-unknown "
                            "MHz (not a fixed clock") for ln in text)
    assert any(ln.startswith("| Build | compiler gcc (Debian 12.2.0-14) 12.2.0 (`gcc`), CFLAGS")
               for ln in text)


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    """An emulated CPU (meta.json cpu_emulation, e.g. QEMU TCG), with the points
    run-all.sh recorded as failed (failed-points.csv)."""
    d = copy_set(tmp_path_factory.mktemp("emu"), "emu")
    edit_meta(d, lambda m: m.update(cpu_emulation={
        "hypervisor": "qemu-tcg", "signature": "TCGTCGTCGTCG", "emulated": True}))
    with open(d + "/failed-points.csv", "w") as f:
        f.write("experiment,part,args,reason\n"
                "dice-fig3,t2-Serial-r0,\"--counter=Serial --work=50\",\"calibration of the "
                "external work for --work failed: a pause costs nothing measurable\"\n")
    assert aggregate(d) == 0 and report(d) == 0
    return d


def test_emulated_cpu_claims(emu, rs):
    """Every timing claim is not measurable for that reason, every claim on an error or
    accuracy figure is judged as on the unmodified fixture."""
    from claims.judge import ERROR_FIGURES
    claims = claims_doc(emu)["claims"]
    ref = {c["id"]: c for c in claims_doc(rs)["claims"]}
    bad = []
    for c in claims:
        error = all(f.strip() in ERROR_FIGURES for f in c["figure"].split(","))
        if error and (c["verdict"], c["reason"]) != (ref[c["id"]]["verdict"],
                                                     ref[c["id"]]["reason"]):
            bad.append(c["id"] + ": error claim changed")
        if not error and not (c["verdict"] == "not measurable" and (
                "emulated CPU (qemu-tcg)" in c["reason"] or
                ref[c["id"]]["verdict"] == "not measurable")):
            bad.append(c["id"] + ": timing claim judged")
    errors = [c for c in claims if all(f.strip() in ERROR_FIGURES for f in c["figure"].split(","))]
    assert bad == []
    assert errors and len(errors) < len(claims)


def test_emulated_cpu_header(emu):
    assert any(ln.startswith("| CPU emulation | qemu-tcg: emulated CPU") for ln in md(emu))


def test_failed_points_listed(emu):
    assert any(ln.startswith("## Failed points") for ln in md(emu))
    assert any(ln.startswith("| dice-fig3 | t2-Serial-r0 | calibration of the external work for "
                            "--work failed: a pause costs nothing measurable |") for ln in md(emu))


def test_report_names_both_papers(rs):
    text = read(os.path.join(rs, "REPORT.md"))
    assert "Dice §" in text and "(Ayers" in text

# SPDX-License-Identifier: MIT
"""Shared fixtures of the plots/ tests: the source tree's paths on sys.path,
and writable copies of the fixture result set tests/fixtures/results-small
(the source tree may be read-only), aggregated and reported once a session."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plotsets  # noqa: E402  (needs HERE on sys.path)


@pytest.fixture(scope="session")
def rs(tmp_path_factory):
    """The fixture set, aggregated and reported (REPORT.md)."""
    d = plotsets.copy_set(tmp_path_factory.mktemp("rs"), "rs")
    assert plotsets.aggregate(d) == 0
    assert plotsets.report(d) == 0
    return d


@pytest.fixture(scope="session")
def big(tmp_path_factory):
    """The synthetic 256-PU, 4-node set of tests/fixtures/synth_bigbox.py, aggregated."""
    d = str(tmp_path_factory.mktemp("big") / "big")
    r = plotsets.run_py([os.path.join(plotsets.TOP, "tests", "fixtures", "synth_bigbox.py"), d])
    assert r.returncode == 0, r.stdout
    assert plotsets.aggregate(d) == 0
    return d


@pytest.fixture(scope="session")
def adv(tmp_path_factory):
    """A copy of the fixture whose numbers make the advice's winners decisive:
    RBO x1000 and Serial (racy) x1e6 at 0% work; BFP-DUP x1e5 but with a 5% error
    (above the 1% of approx-high); Morris x1000 with 7500 counters, CAS x100 there
    (the best precise one: many-exact); CAS reads in 0.5 ns; RBO's
    dice-fig4-high runs marked busy (a busy column: 1 for RBO's rows, 0 for the
    others). Aggregated and reported."""
    d = plotsets.copy_set(tmp_path_factory.mktemp("adv"), "adv")
    high = os.path.join(d, "dice-fig4-high.csv")
    plotsets.scale(high, "RBO", "ops_per_ms", 1000)
    plotsets.scale(high, "Serial", "ops_per_ms", 1000000)
    plotsets.scale(high, "BFP-DUP", "ops_per_ms", 100000, "rel_error", "0.05")
    plotsets.scale(os.path.join(d, "dice-fig5.csv"), "Morris", "ops_per_ms", 1000)
    plotsets.scale(os.path.join(d, "dice-fig5.csv"), "CAS", "ops_per_ms", 100)
    plotsets.scale(os.path.join(d, "read-cost.csv"), "CAS", "read_ns", 0, "read_ns", "0.5")
    plotsets.edit_rows(high, lambda h, rows: (h + ["busy"], [
        r + ["1" if r[0] == "RBO" else "0"] for r in rows]))
    assert plotsets.aggregate(d) == 0 and plotsets.report(d) == 0
    return d


@pytest.fixture
def claims_ctx(rs, tmp_path):
    """The claims context of the fixture set, its figures' data built in tmp_path."""
    import claims
    from figbuild import Figures
    from figures import FIGURES
    from resultset import ResultSet
    from resultset_summary import machine_summary
    s = ResultSet(rs)
    m = machine_summary(s)
    figs = Figures(s, m, FIGURES)
    figs.build(str(tmp_path))
    return claims.Context(s, figs, m)

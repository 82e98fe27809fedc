# SPDX-License-Identifier: MIT
"""The plots/ tree: the figure table against doc/design.md §6, the plan's
experiments counted, the gnuplot style in step with style.json, the file sizes
and their listing in Makefile.am, and the variants' palette."""
import itertools
import json
import math
import os
import re
import subprocess

import pytest

from plotsets import PLOTS, TOP, run_py

# Every figure id of doc/design.md §6, from the figure table (a new entry is tested in
# the aggregator and both renderers without a change here).
SPEC_FIGURES = """dice-fig3 dice-fig4-low dice-fig4-high dice-fig5 dice-fig6-low dice-fig6-high
ayers-accuracy ayers-accuracy-detail ayers-accuracy-tunable ayers-scaling ayers-scaling-detail
baselines latency read-cost""".split()


def test_figure_table_has_every_spec_figure():
    from figures import FIGURE_IDS
    assert [i for i in SPEC_FIGURES if i not in FIGURE_IDS] == []


def test_every_planned_experiment_counted():
    """Every experiment of run-all's plan writes a CSV the result set's provenance,
    files present and busy runs are counted over (resultset.PLAN_SOURCES): one
    that only claims read (no figure) is counted too."""
    from resultset import PLAN_SOURCES
    from runall.plan import EXPERIMENTS
    assert [e for e in EXPERIMENTS if e + ".csv" not in PLAN_SOURCES] == []


def test_style_gp_matches_style_json():
    r = run_py([os.path.join(PLOTS, "style.py"), "--check"])
    assert r.returncode == 0, r.stdout


def _plots_python():
    for root, _, files in os.walk(PLOTS):
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(root, f)


def test_plots_python_files_at_most_450_lines():
    """Every Python file of plots/ (claims/ and tests/ included) at 450 lines or fewer
    (a longer one is split by what it does)."""
    over = []
    for p in _plots_python():
        with open(p) as f:
            n = sum(1 for _ in f)
        if n > 450:
            over.append("%s:%d" % (os.path.relpath(p, PLOTS), n))
    assert over == []


def test_plots_files_listed_in_makefile():
    """The tarball carries every .py and .gp file of plots/ (listed in Makefile.am:
    make distcheck)."""
    mk = os.path.join(TOP, "Makefile.am")
    if not os.path.isfile(mk):
        pytest.skip("no Makefile.am in %s" % TOP)
    with open(mk) as f:
        text = f.read()
    unlisted = []
    for root, _, files in os.walk(PLOTS):
        for f in files:
            if f.endswith((".py", ".gp")):
                rel = os.path.relpath(os.path.join(root, f), TOP)
                if not re.search(r"\s%s(\s|$)" % re.escape(rel), text):
                    unlisted.append(rel)
    assert unlisted == []


def _lab(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = [v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


def test_palette_separates_every_variant():
    """A series for each variant of scbench --list=json, colours far apart (CIELAB
    Delta E 1976 >= 40: the pairs once found alike, ScalableCAS/BFP-DUP,
    Striped/RBONumaAdapt, Batched/MorrisAdapt, were 14-30 apart), and every
    (marker, dash) pair and every marker its own."""
    scbench = os.environ.get("SCBENCH")
    if not scbench or not os.access(scbench, os.X_OK):
        pytest.skip("SCBENCH not set (run by make check)")
    listing = subprocess.run([scbench, "--list=json"], stdout=subprocess.PIPE, check=True,
                             universal_newlines=True).stdout
    names = [x["name"] for x in json.loads(listing)["variants"]]
    with open(os.path.join(PLOTS, "style.json")) as f:
        st = json.load(f)
    v = [s for s in st["series"] if not s["name"].startswith("T")]
    d = min((math.dist(_lab(a["color"]), _lab(b["color"])), a["name"], b["name"])
            for a, b in itertools.combinations(v, 2))
    print("closest colours: %s / %s, Delta E %.1f" % (d[1], d[2], d[0]))
    assert sorted(s["name"] for s in v) == sorted(names)
    assert d[0] >= 40, d
    assert len(set((s["pt"], s["dash"]) for s in v)) == len(v)
    assert len(set(s["pt"] for s in v)) == len(v)

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py A B [--out DIR] - compare two result sets point by point (doc/design.md §10).

Run through plots/compare, which finds a Python with numpy and scipy
(Debian: python3-scipy). A point is one figure panel of plots/figures.py, one
series (variant), one x (thread count, or N for count-to-N figures), with the
same parameters, external work and counter-array size in both sets. The
measure is the figure's own: throughput for the timed figures, time for the
count-to-N figures, |relative error| for the error figures, ns for latency and
read cost, bytes per counter. The value/N accuracy figures are left out: their
claims are judged in REPORT.md, and value/N is not a cost that can regress.

Writes DIR/compare.csv, DIR/COMPARE.md and DIR/<figure>.png/.pdf overlays
(drawn by plots/compare_overlay.py from compare.csv, when matplotlib imports).
This file wires the parts together: compare_io.py reads the sets and writes
compare.csv, compare_points.py computes the rows (with compare_stats.py),
compare_report.py writes COMPARE.md. The method (METHOD of compare_report.py,
stated in COMPARE.md):

  test      per point, a two-sided moderated t-test (empirical Bayes, Smyth
            2004) of the difference of mean log values: each point's run-to-run
            variance is shrunk towards the typical variance of its figure panel
            by as much as the points' variances are alike (their spread decides
            the prior degrees of freedom), so it keeps its own noise where the
            variants differ and borrows degrees of freedom where they agree.
            With 3-5 runs per point an exact rank test cannot reach significance
            after a correction (3 vs 3 runs: smallest two-sided p = 0.1).
            Points with a value <= 0 (an exact count, a 0 ns bucket) have no
            log: Mann-Whitney U (exact for small samples without ties, else the
            normal approximation).
  CI        95% percentile bootstrap of median_b / median_a, 10,000 resamples of
            each set's runs, numpy default_rng(SEED) restarted for every point.
  correction Benjamini-Hochberg within each figure (false discovery rate 5%
            per figure), not over every point of every figure.
  flag      significant when the adjusted p < 0.05 AND the CI excludes 1
            AND the ratio is at least 1 + MIN_EFFECT (or at most its inverse).
  quantized latency and read-cost points whose median is under QUANT_STEPS
            steps of the timer (the smallest step between the set's values)
            are compared but not tested: their values are not continuous.
  power     per figure, the smallest change a lone changed point is flagged
            at (50% and 80% of the time), and the largest changes not flagged.
  caveats   different modes, timers (ns_per_tick), machines, busy runs and
            points with fewer than 2 runs are stated at the top (and on
            standard error).

Exit status 0, 1 on a failure (a file of A or B that cannot be read: as aggregate.py and
atlas), 2 on bad usage or when A or B is not a result set.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402

from compare_io import NotAResultSet, load, write_csv  # noqa: E402
from compare_points import compare  # noqa: E402
from compare_report import blind_text, caveats, direction, point_text, render  # noqa: E402
from resultset import ResultSetError  # noqa: E402
from writing import write_atomically  # noqa: E402

# The experiments that get an overlay figure (Dice's and the baselines).
OVERLAY = ("dice-fig3", "dice-fig4-low", "dice-fig4-high", "dice-fig5", "baselines")


def main(argv):
    import cli  # the parser of the plots tools (plots/cli.py)
    ap = cli.Parser(
        "plots/compare",
        description="Compare result set B with result set A point by point: writes "
                    "compare.csv, COMPARE.md and overlay figures (see results/README.md).")
    ap.add_argument("a", metavar="A", help="the first result set (the baseline)")
    ap.add_argument("b", metavar="B", help="the second result set")
    ap.add_argument("--out", metavar="DIR",
                    help="output directory (default: compare-<A>-vs-<B> in the current "
                         "directory; created if missing)")
    ap.add_argument("--no-figures", action="store_true",
                    help="write compare.csv and COMPARE.md only (no overlay figures)")
    args = ap.parse_args(argv[1:])
    try:
        import numpy as np
        import scipy.stats  # noqa: F401
        import scipy as sp
    except ImportError as e:
        print("plots/compare: needs numpy and scipy (%s): apt-get install python3-scipy, "
              "and run it with that Python (/usr/bin/python3)" % e, file=sys.stderr)
        return 1
    out = args.out or "compare-%s-vs-%s" % (
        os.path.basename(os.path.abspath(args.a)), os.path.basename(os.path.abspath(args.b)))
    if os.path.exists(out) and not os.path.isdir(out):
        print("plots/compare: --out %s: exists and is not a directory" % out, file=sys.stderr)
        return 2
    try:
        rs_a, ma, figs_a = load(args.a)
        rs_b, mb, figs_b = load(args.b)
    except NotAResultSet as e:
        print("plots/compare: %s" % e, file=sys.stderr)
        return 2
    except ResultSetError as e:
        print("plots/compare: %s" % e, file=sys.stderr)
        return 1
    try:
        return write_comparison(args, out, np, sp, rs_a, rs_b, ma, mb, figs_a, figs_b)
    except ResultSetError as e:
        print("plots/compare: %s" % e, file=sys.stderr)
    except OSError as e:
        print("plots/compare: %s: %s" % (e.filename or out, e.strerror or e), file=sys.stderr)
    return 1


def write_comparison(args, out, np, sp, rs_a, rs_b, ma, mb, figs_a, figs_b):
    """compare.csv, the overlays and COMPARE.md in out; 0."""
    os.makedirs(out, exist_ok=True)
    rows, power = compare(np, sp, figs_a, figs_b)
    warn = caveats(rs_a, rs_b, ma, mb, figs_a, figs_b)
    for w in warn:
        print("plots/compare: warning: %s" % w.replace("**", ""), file=sys.stderr)
    write_csv(os.path.join(out, "compare.csv"), rows)
    figures = []
    if not args.no_figures:
        try:
            import compare_overlay
            figures = compare_overlay.draw(out, rows, OVERLAY)
        except ImportError as e:
            print("plots/compare: no overlay figures: %s (apt-get install python3-matplotlib)"
                  % e, file=sys.stderr)
    text = render(rows, args.a, args.b, ma, mb, figures, power, warn)
    write_atomically(os.path.join(out, "COMPARE.md"), text)
    sig = [r for r in rows if r["significant"] == "yes"]
    print("plots/compare: %d points compared, %d significant, %d in only one set; %s; %s"
          % (sum(1 for r in rows if r["p_value"] is not None), len(sig),
             sum(1 for r in rows if r["test"].startswith("only in")), blind_text(power),
             os.path.join(out, "COMPARE.md")))
    for r in sig:
        print("plots/compare: significant: %s %s %s: %.3gx (%s in B)"
              % (r["figure"], r["counter"], point_text(r), r["ratio"], direction(r)))
    return 0


if __name__ == "__main__":
    sys.exit(guarded("plots/compare", main, sys.argv))

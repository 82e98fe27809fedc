#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py A B [--out DIR] - compare two result sets, or two plain scbench CSVs,
point by point (doc/design.md §10).

Run through plots/compare, which finds a Python with numpy and scipy
(Debian: python3-scipy). A and B are two result set directories, or two
plain scbench CSVs (scbench --output=FILE, each with its FILE.meta.json or
without; one of each is refused). Of two result sets, a point is one figure
panel of plots/figures.py, one series (variant), one x (thread count, or N for
count-to-N figures), with the same parameters, external work and
counter-array size in both sets. The measure is the figure's own: throughput
for the timed figures, time for the count-to-N figures, |relative error| for
the error figures, ns for latency and read cost, bytes per counter. The
value/N accuracy figures are left out: their claims are judged in REPORT.md,
and value/N is not a cost that can regress. Of two CSVs, a point is the CSVs'
own rows grouped over their runs (compare_points.CSV_POINTS says it in full):
one measure (throughput of the timed rows, time of the count-to-N rows,
|relative error| of the variants that are not precise, read cost and latency
where recorded), one variant, one thread count or N, with the same
parameters, external work and array size.

Writes DIR/compare.csv and DIR/compare.json (the same table: {"columns": the
CSV's header, "rows": one object per row, numbers as JSON numbers with the
CSV's 6 significant digits, null for an empty number field or an infinite
ratio, text as strings; UTF-8}), DIR/COMPARE.md and DIR/<figure>.png/.pdf overlays (drawn by
plots/compare_overlay.py from the rows, when matplotlib imports).
This file wires the parts together: compare_io.py reads the inputs and writes
compare.csv and compare.json, compare_points.py computes the rows (with
compare_stats.py), compare_report.py writes COMPARE.md. The method (METHOD of compare_report.py,
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
  caveats   different modes or protocols, missing metadata, timers
            (ns_per_tick), machines, busy runs and points with fewer than 2
            runs are stated at the top (and on standard error).

Exit status 0, 1 on a failure (a file of A or B that cannot be read: as aggregate.py and
atlas), 2 on bad usage: a result set and a CSV, a directory that is not a
result set, a file that is not a CSV of scbench.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402

from compare_io import BadInput, load_sides, write_csv, write_json  # noqa: E402
from compare_points import CSV_POINTS, compare  # noqa: E402
from compare_report import (blind_text, caveats, direction, f_ratio, point_text,  # noqa: E402
                            recommendation_line, render)
from resultset import ResultSetError  # noqa: E402
from writing import write_atomically  # noqa: E402

# The experiments that get an overlay figure (Dice's and the baselines); of two
# plain CSVs, the throughput.
OVERLAY = ("dice-fig3", "dice-fig4-low", "dice-fig4-high", "dice-fig5", "baselines")
OVERLAY_CSV = ("throughput",)


def main(argv):
    import cli  # the parser of the plots tools (plots/cli.py)
    ap = cli.Parser(
        "plots/compare",
        description="Compare B with A point by point: two result sets (directories), or "
                    "two plain scbench CSVs (scbench --output=FILE, with FILE.meta.json or "
                    "without). Writes DIR/compare.csv and DIR/compare.json (the same table: "
                    "one row per point, numbers as JSON numbers, null for an empty number "
                    "or an infinite ratio), DIR/COMPARE.md and overlay figures (see "
                    "results/README.md).",
        epilog="Of two result sets, a point is one panel of a figure of plots/figures.py, "
               "one variant, one thread count (N for count-to-N figures), with the same "
               "parameters, external work and counter-array size in both. Of two CSVs, "
               + CSV_POINTS + ". Exit status: 0 done, 1 a file that cannot be read (or no "
               "numpy and scipy), 2 bad usage: a result set and a CSV, a CSV that is not "
               "scbench's, a directory that is not a result set.")
    ap.add_argument("a", metavar="A", help="the first result set or scbench CSV (the baseline)")
    ap.add_argument("b", metavar="B", help="the second, of the same kind")
    ap.add_argument("--out", metavar="DIR",
                    help="output directory (default: compare-<A>-vs-<B> in the current "
                         "directory, without .csv; created if missing)")
    ap.add_argument("--no-figures", action="store_true",
                    help="write compare.csv, compare.json and COMPARE.md only (no overlay "
                         "figures)")
    args = ap.parse_args(argv[1:])
    try:
        import numpy as np
        import scipy.stats  # noqa: F401
        import scipy as sp
    except ImportError as e:
        print("plots/compare: needs numpy and scipy (%s): apt-get install python3-scipy, "
              "and run it with that Python (/usr/bin/python3)" % e, file=sys.stderr)
        return 1
    def stem(p):
        base = os.path.basename(os.path.abspath(p))
        return base[:-len(".csv")] if os.path.isfile(p) and base.endswith(".csv") else base
    out = args.out or "compare-%s-vs-%s" % (stem(args.a), stem(args.b))
    if os.path.exists(out) and not os.path.isdir(out):
        print("plots/compare: --out %s: exists and is not a directory" % out, file=sys.stderr)
        return 2
    try:
        a, b = load_sides(args.a, args.b)
    except BadInput as e:
        print("plots/compare: %s" % e, file=sys.stderr)
        return 2
    except ResultSetError as e:
        print("plots/compare: %s" % e, file=sys.stderr)
        return 1
    try:
        return write_comparison(args, out, np, sp, a, b)
    except ResultSetError as e:
        print("plots/compare: %s" % e, file=sys.stderr)
    except OSError as e:
        print("plots/compare: %s: %s" % (e.filename or out, e.strerror or e), file=sys.stderr)
    return 1


def write_comparison(args, out, np, sp, a, b):
    """compare.csv, compare.json, the overlays and COMPARE.md in out (a, b:
    compare_io.Side); 0."""
    os.makedirs(out, exist_ok=True)
    recommendation = recommendation_line(a, b)
    print("plots/compare: %s" % recommendation)
    rows, power = compare(np, sp, a, b)
    warn = caveats(a, b)
    for w in warn:
        print("plots/compare: warning: %s" % w.replace("**", ""), file=sys.stderr)
    write_csv(os.path.join(out, "compare.csv"), rows)
    write_json(os.path.join(out, "compare.json"), rows)
    figures = []
    if not args.no_figures:
        try:
            import compare_overlay
            figures = compare_overlay.draw(out, rows, OVERLAY if a.kind == "set" else OVERLAY_CSV)
        except ImportError as e:
            print("plots/compare: no overlay figures: %s (apt-get install python3-matplotlib)"
                  % e, file=sys.stderr)
    text = render(rows, a, b, figures, power, warn, recommendation)
    write_atomically(os.path.join(out, "COMPARE.md"), text)
    sig = [r for r in rows if r["significant"] == "yes"]
    print("plots/compare: %d points compared, %d significant, %d in only one set; %s; %s"
          % (sum(1 for r in rows if r["p_value"] is not None), len(sig),
             sum(1 for r in rows if r["test"].startswith("only in")), blind_text(power),
             os.path.join(out, "COMPARE.md")))
    for r in sig:
        print("plots/compare: significant: %s %s %s: %s (%s in B)"
              % (r["figure"], r["counter"], point_text(r), f_ratio(r["ratio"]), direction(r)))
    return 0


if __name__ == "__main__":
    sys.exit(guarded("plots/compare", main, sys.argv))

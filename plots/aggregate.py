#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aggregate.py DIR - the one aggregator of a result set (STYLE.md principle 7).

Reads the scbench CSVs of result set DIR (results/README.md has the schema) and
writes everything the figures and the report need, so that neither renderer nor
the report computes a statistic:

  DIR/figdata/<figure>.dat    per-figure tidy data (format: plots/figdata.py):
                              one row per (series, x) with n, median, min, max,
                              mean, p5, p95 over the runs of that point, and the
                              analytic envelope where one exists
  DIR/figdata/figures.tsv     every figure id of doc/design.md §6: ok + its .dat files,
                              or skipped + why (a missing CSV is skipped, not fatal)
  DIR/figdata/claims.json     the result-set summary, one entry per claim of
                              the two papers (what was measured here and the
                              verdict; in a restricted run, "left_out" on those
                              it cannot speak to, and a "left_out" record),
                              and "advice": which counter to use here, one
                              entry per usage scenario

This file only wires the parts together:
  resultset.py   reading the CSVs and .meta.json
  resultset_summary.py  the machine summary (machine, protocol, load, restriction)
  writing.py     writing every file at once
  stats.py       the statistics (median, percentiles, Spearman)
  envelopes.py   the analytic envelopes and models
  figures.py     the figure table, one entry per figure id (built by figbuild.py)
  claims/        the claims, one module per paper section or family, with their rules
  advice.py      which counter to use on this machine, one declaration per scenario

Standard library only; any Python 3.5+ (run by /usr/bin/python3 or the first
python3 on PATH). Exit status 0 (also when files are missing), 1 when a file
cannot be read or written or a number in it is not one its column takes (one
line naming file, line and column), 2 on bad usage or a directory that is no
result set (nothing is written into it).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree (it may be read-only)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402
import advice  # noqa: E402
import claims  # noqa: E402
import consistency  # noqa: E402
from figbuild import Figures  # noqa: E402
from figures import FIGURES  # noqa: E402
from resultset import ResultSet, ResultSetError, is_result_set  # noqa: E402
from resultset_summary import machine_summary  # noqa: E402
from figdata import read_index  # noqa: E402
from writing import OutsideSet, set_subdir, write_atomically  # noqa: E402
from stats import PCT_METHOD  # noqa: E402


def main(argv):
    """Exit status as the module says; a result set that cannot be read or
    written (a non-number in a CSV, a file it may not read) is one line on
    standard error and status 1, never a traceback."""
    try:
        return aggregate(argv)
    except ResultSetError as e:
        print("aggregate.py: %s" % e, file=sys.stderr)
    except OutsideSet as e:
        print("aggregate.py: %s" % e, file=sys.stderr)
    except OSError as e:
        print("aggregate.py: %s: %s" % (e.filename or "", e.strerror or e), file=sys.stderr)
    return 1


def made_before(outdir):
    """The .dat files an earlier aggregate wrote into outdir (its figures.tsv's
    'ok' lines name them): plain names only; none when there is no index."""
    try:
        index = read_index(os.path.join(outdir, "figures.tsv"))
    except (OSError, UnicodeDecodeError):
        return set()
    return set(f for _, s, w in index if s == "ok" for f in w.split()
               if f.endswith(".dat") and "/" not in f and not f.startswith("."))


def aggregate(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: aggregate.py DIR\n  writes DIR/figdata/*.dat, figures.tsv and claims.json "
              "from the scbench CSVs in DIR", file=sys.stderr)
        return 0 if len(argv) == 2 else 2
    d = argv[1]
    if not os.path.isdir(d):
        print("aggregate.py: %s: not a directory" % d, file=sys.stderr)
        return 2
    if not is_result_set(d):
        print("aggregate.py: %s: not a result set (no scbench CSV of run-all.sh, no "
              "run-all.conf): nothing written" % d, file=sys.stderr)
        return 2
    rs = ResultSet(d)
    outdir = set_subdir(d, "figdata")
    earlier = made_before(outdir)
    machine = machine_summary(rs)
    figs = Figures(rs, machine, FIGURES)
    figs.build(outdir)
    # The .dat files of this aggregate are written; those an earlier one made
    # (its figures.tsv lists them) and this one did not go now (never before: a
    # failure keeps the old set). Any other file there is left alone.
    made = set(f for _, s, w in figs.index if s == "ok" for f in w.split())
    for old in earlier - made:
        path = os.path.join(outdir, old)
        if os.path.isfile(path) and not os.path.islink(path):
            os.remove(path)
    ctx = claims.Context(rs, figs, machine)
    judged = claims.evaluate(ctx, claims.CLAIMS)
    # a run restricted to some experiments or variants: the claims it cannot speak to
    left_out = claims.leave_out(judged, claims.CLAIMS, figs.table, machine)
    # figure notes measured beside the statistics: bimodal throughput points, and the
    # real step of the timer behind read-cost's and latency's nanoseconds
    fig_notes = claims.bimodal_notes(ctx)
    for fid, name in (("read-cost", "read-cost.csv"), ("latency", "latency.csv")):
        if ctx.timer_note(name):
            fig_notes.setdefault(fid, []).append(ctx.timer_note(name))
    write_atomically(os.path.join(outdir, "figures.tsv"), "".join(
        ["# figure id\tstatus\t.dat files (ok) or reason (skipped); written by "
         "plots/aggregate.py\n"] +
        ["%s\t%s\t%s\n" % entry for entry in figs.index]))
    bands_said = consistency.band_notes(figs.stats, machine.get("work_calibration"))
    doc = {"generated_by": "plots/aggregate.py", "result_set": machine,
           "percentile_method": PCT_METHOD,
           "verdicts": claims.VERDICTS,
           "not_measurable_causes": claims.NM_CAUSES,
           "rules": [{"name": n, "text": t} for n, t in claims.RULES],
           "notes": rs.notes + figs.notes + bands_said,
           "figures": [{"id": i, "status": s, "detail": w,
                        "end_states": ["%s: %s" % r if len(figs.readings[i]) > 1 else r[1]
                                       for r in figs.readings[i]] if i in figs.readings else [],
                        "measured_notes": fig_notes.get(i, [])}
                       for i, s, w in figs.index],
           "claims": judged,
           "advice": advice.answers(rs, figs, machine)["rows"]}
    if left_out:   # only a restricted run's (a full run's claims.json is as it was)
        doc["left_out"] = left_out
    bands = consistency.band_table(figs.stats)
    if bands:
        write_atomically(os.path.join(outdir, consistency.BANDS_FILE), bands)
    elif os.path.exists(os.path.join(outdir, consistency.BANDS_FILE)):
        os.remove(os.path.join(outdir, consistency.BANDS_FILE))
    write_atomically(os.path.join(outdir, "claims.json"),
                     json.dumps(doc, indent=1, sort_keys=False) + "\n")
    made = [w for _, s, w in figs.index if s == "ok"]
    # The figures without data: plots/regen says them, once, in one line.
    print("aggregate.py: %d figure(s) with data in %s (%d .dat files), %d claims%s"
          % (len(made), outdir, sum(len(w.split()) for w in made), len(judged),
             " (%d left out: the run was restricted)" % left_out["count"] if left_out else ""))
    for n in rs.notes + figs.notes + bands_said:
        print("aggregate.py: note: %s" % n)
    return 0


if __name__ == "__main__":
    sys.exit(guarded("aggregate.py", main, sys.argv))

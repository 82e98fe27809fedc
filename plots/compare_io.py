# SPDX-License-Identifier: MIT
"""The files of plots/compare: its inputs read as the two sides of a comparison
(Side: two result set directories, or two plain scbench CSVs, each written by
scbench --output=FILE with its FILE.meta.json or without), and its table
written as compare.csv and as compare.json (the same COLUMNS and rows).
"""

import csv
import json
import math
import os

from compare_points import csv_points, csv_steps, figure_points, figure_steps
from figbuild import load_set
from figures import FIGURES
from resultset import REQUIRED, SOURCES, ResultSet, ResultSetError, is_result_set
from resultset_summary import load_summary, machine_summary
from writing import csv_field, csv_text, write_atomically

COLUMNS = ["figure", "counter", "threads", "median_a", "median_b", "ratio", "ci_low", "ci_high",
           "p_value", "significant", "point", "params", "n_a", "n_b", "p_adj", "test",
           "busy_a", "busy_b"]


class BadInput(Exception):
    """A or B that plots/compare does not take (status 2): the message is one line."""


class Side:
    """One of the two things compared: a result set ("set") or a plain scbench CSV
    ("csv"). path as given; rs (ResultSet) and names (its CSVs read); m, the
    machine summary (resultset_summary.machine_summary of its CSVs); points
    (compare_points.collect's); steps ({source: timer step})."""

    def __init__(self, kind, path, rs, names, points, steps):
        self.kind, self.path, self.rs, self.names = kind, path, rs, names
        self.m = machine_summary(rs, names)
        self.points, self.steps = points, steps
        self.figs = None  # a result set's figures (figbuild), for its advice

    def tick(self):
        """The ns per tick of the timer its metadata states, or None."""
        ticks = [(self.rs.meta(n) or {}).get("ns_per_tick") for n in self.names]
        ticks = [t for t in ticks if isinstance(t, (int, float)) and t > 0]
        return ticks[0] if ticks else None

    def load(self):
        return load_summary(self.rs, self.names)


def result_set_side(path):
    """The Side of a result set directory: BadInput (status 2) when path is none,
    ResultSetError (status 1, as aggregate.py and atlas) when a file of it cannot
    be read."""
    if not is_result_set(path):
        raise BadInput("%s: not a result set (no directory holding any of %s)"
                       % (path, ", ".join(SOURCES)))
    rs, _, figs = load_set(path, FIGURES)
    side = Side("set", path, rs, SOURCES, figure_points(figs), figure_steps(figs))
    side.figs = figs
    return side


def csv_side(path):
    """The Side of a plain scbench CSV: BadInput (status 2) when its first line is
    not scbench's header (a column every result CSV has is missing) or it is no
    UTF-8 CSV text; ResultSetError (status 1) when a value in it is not a number
    its column takes, or it cannot be read."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
    except (UnicodeDecodeError, csv.Error) as e:
        raise BadInput("%s: not a CSV file of scbench (%s)" % (
            path, "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else e))
    except OSError as e:
        raise ResultSetError("%s: %s" % (path, e.strerror or e))
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise BadInput("%s: not a CSV file of scbench (no column %s; scbench --output=FILE "
                       "writes one)" % (path, ", ".join(missing)))
    # A symbolic link: the CSV and its FILE.meta.json are those beside its target.
    real = os.path.realpath(path)
    rs = ResultSet(os.path.dirname(real))
    name = os.path.basename(real)
    rs.csv(name)   # every number checked now (ResultSetError)
    return Side("csv", path, rs, [name], csv_points(rs, name), csv_steps(rs, name))


def load_sides(a, b):
    """(Side of A, Side of B): two result sets, or two plain scbench CSVs;
    BadInput for one of each, a file that is not there, or what either side
    refuses."""
    files = [os.path.isfile(p) for p in (a, b)]
    if all(files):
        return csv_side(a), csv_side(b)
    if any(files):
        f, other = (a, b) if files[0] else (b, a)
        if os.path.isdir(other):
            raise BadInput("%s is a file and %s a directory: give two result sets or two "
                           "scbench CSVs" % (f, other))
        raise BadInput("%s: no such file (give two scbench CSVs, or two result sets)" % other)
    return result_set_side(a), result_set_side(b)


def write_csv(path, rows):
    write_atomically(path, csv_text(COLUMNS, rows))


def json_value(v):
    """A field of compare.json: the number compare.csv writes (6 significant
    digits) as a JSON number, null for an empty number field and for an
    infinite ratio (A's median 0, which median_a shows), text as a string."""
    if isinstance(v, float):
        return float(csv_field(v)) if math.isfinite(v) else None
    return v


def json_text(rows):
    """compare.json: {"columns": COLUMNS, "rows": [{column: value}]}, the rows of
    compare.csv in its order, one a line; UTF-8."""
    def dump(v):
        return json.dumps(v, ensure_ascii=False, allow_nan=False)
    return '{"columns": %s,\n "rows": [%s]}\n' % (dump(COLUMNS), ",".join(
        "\n  " + dump({c: json_value(r[c]) for c in COLUMNS}) for r in rows))


def write_json(path, rows):
    write_atomically(path, json_text(rows))

# SPDX-License-Identifier: MIT
"""Helpers of the plots/ tests: the source tree's paths, writable copies of
the fixture result set, the tools run on them, and CSV edits by column name."""
import csv
import json
import os
import shutil
import subprocess
import sys

TOP = os.environ.get("TOP_SRCDIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOTS = os.path.join(TOP, "plots")
FIXTURE = os.path.join(TOP, "tests", "fixtures", "results-small")
for _d in (os.path.join(TOP, "harness"), PLOTS):
    if _d not in sys.path:
        sys.path.insert(0, _d)


def copy_set(parent, name):
    """A writable copy of the fixture at PARENT/NAME (its path, a str)."""
    d = os.path.join(str(parent), name)
    shutil.copytree(FIXTURE, d)
    for root, dirs, files in os.walk(d):
        for f in dirs + files:
            p = os.path.join(root, f)
            os.chmod(p, os.stat(p).st_mode | 0o200)
    return d


def run_py(args, env=None):
    """python3 ARGS (without writing bytecode), its output in .stdout."""
    e = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    return subprocess.run([sys.executable, "-B"] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, env=e)


def aggregate(d, log=None):
    """plots/aggregate.py on D: its exit status (its output in LOG if given)."""
    r = run_py([os.path.join(PLOTS, "aggregate.py"), d])
    if log is not None:
        log.append(r.stdout)
    return r.returncode


def report(d):
    """plots/report.py on D: its exit status."""
    return run_py([os.path.join(PLOTS, "report.py"), d]).returncode


def claims_doc(d):
    with open(os.path.join(d, "figdata", "claims.json")) as f:
        return json.load(f)


def claim_field(d, cid):
    """"verdict|reason|measured" of claim CID in D's claims.json (as the shell had it)."""
    for c in claims_doc(d)["claims"]:
        if c["id"] == cid:
            return "%s|%s|%s" % (c["verdict"], c["reason"], c["measured"])
    return ""


def read(path):
    with open(path) as f:
        return f.read()


def lines(path):
    return read(path).splitlines()


def edit_rows(path, edit):
    """Rewrites the CSV at PATH with EDIT(header, rows) -> (header, rows)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = edit(rows[0], rows[1:])
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([head] + body)


def _awk_number(v):
    """A number as awk prints a computed field (CONVFMT %.6g unless integral)."""
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else "%.6g" % v


def scale(path, variant, column, factor, column2=None, value=None):
    """The VARIANT rows of the CSV at PATH: COLUMN times FACTOR, then COLUMN2 set to
    VALUE (the awk edit the shell test made)."""
    def edit(head, rows):
        c = head.index(column)
        c2 = head.index(column2) if column2 else None
        for r in rows:
            if r[0] == variant:
                r[c] = _awk_number(float(r[c]) * factor)
                if c2 is not None:
                    r[c2] = value
        return head, rows
    edit_rows(path, edit)

# SPDX-License-Identifier: MIT
"""Reading a result set: the scbench CSVs (schema: harness/csv.h, read through
plots/schema.py; explained in results/README.md) and their
.meta.json sidecars (ResultSet), and whether a directory is a result set.
Every number read back is checked here, in one place (check_number, the
ranges in COLUMNS, the allowed texts in TEXT_COLUMNS): a value that is not a
finite number in its column's range, or a text its column does not allow,
is a ResultSetError, one line naming the file, line and column. The summary
of the machine and protocol is plots/resultset_summary.py; every file the
plots write goes through plots/writing.py.
Standard library only.
"""

import csv
import json
import math
import os
from collections.abc import Mapping
from types import MappingProxyType

import schema

# run-all's experiments (harness/runall/experiments.json, the one list), in its order.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "harness",
                       "runall", "experiments.json"), encoding="utf-8") as _f:
    EXPERIMENTS = json.load(_f)["experiments"]
# The CSVs the figures are drawn from (the figure table names its sources among them).
SOURCES = [e["id"] + ".csv" for e in EXPERIMENTS if e["figures"]]
# The experiments of run-all's plan that only claims read (no figure): id -> CSV.
CLAIM_ONLY_CSV = {e["id"]: e["id"] + ".csv" for e in EXPERIMENTS if not e["figures"]}
# Every CSV run-all.sh writes (doc/design.md §6): what a set's provenance, its
# files present and missing, and its busy runs are counted over.
PLAN_SOURCES = SOURCES + sorted(CLAIM_ONLY_CSV.values())
NOT_RECORDED = "not recorded"
# The fields of a result CSV may be long (params, end_state), never this long:
# a longer one is an error, not a traceback.
csv.field_size_limit(1 << 20)

# The result CSV's columns as scbench declares them (plots/schema.py): the
# text ones with their allowed values, and the range of each numeric one,
# (integer?, min, max). A column not listed must be a finite number.
INF = schema.INF
SCHEMA = schema.load()
TEXT_COLUMNS = schema.text_columns(SCHEMA)
COLUMNS = dict(schema.ranges(SCHEMA))
COLUMNS.update({
    # the latency histograms (NAME.csv.latency.csv, harness/csv.h out_latency_rows)
    "bucket_low_ns": (False, 0, INF), "bucket_high_ns": (False, 0, INF),
    "count": (True, 0, INF),
    # meta.json counts (results/README.md) that plots/atlas reads
    "cpu.sockets": (True, 1, INF), "cpu.cores": (True, 1, INF), "cpu.pus": (True, 1, INF),
    "topology.pus": (True, 1, COLUMNS["threads"][2]),
    "topology.nodes": (True, 1, COLUMNS["threads"][2]),
})

# The columns every result CSV has had since schema 1 (results/README.md,
# columns 1-24) and that the plots read: a file without one is refused.
REQUIRED = ("counter", "kind", "threads", "run", "mode", "work_pct", "counters", "seconds",
            "ops", "value", "rel_error", "ops_per_ms")


# The .meta.json fields read as text (results/README.md); another JSON type is dropped.
META_TEXT = ("host", "kernel", "date", "source_revision", "scbench_version", "compiler",
             "cflags", "binary", "compiler_command", "binding", "pmu_status", "clock")


class ResultSetError(Exception):
    """A result set that cannot be read as one: the message is one line."""


def check_number(text, path, lineno, column):
    """The float of text, a number in column's range (COLUMNS), else ResultSetError.
    lineno None: a field of a JSON file (column names it, e.g. cpu.pus)."""
    integer, lo, hi = COLUMNS.get(column, (False, -INF, INF))
    try:
        v = float(text)
    except (TypeError, ValueError):
        v = None
    if v is not None and math.isfinite(v) and not (integer and v != int(v)) and lo <= v <= hi:
        return v + 0.0  # -0 is 0
    where = ("%s field %s: %r" % (path, column, text) if lineno is None else
             "%s line %d column %s: %r" % (path, lineno, column, text))
    if v is None or not math.isfinite(v):
        raise ResultSetError("%s is not a finite number" % where)
    if integer and v != int(v):
        raise ResultSetError("%s is not an integer" % where)
    raise ResultSetError("%s is out of range [%s, %s]" % (where, "%g" % lo, "%g" % hi))


def check_text(text, path, lineno, column):
    """text, one of column's allowed values (TEXT_COLUMNS) if it has any, else
    ResultSetError."""
    allowed = TEXT_COLUMNS.get(column)
    if allowed and text not in allowed:
        raise ResultSetError("%s line %d column %s: %r is not one of %s"
                             % (path, lineno, column, text, ", ".join(allowed)))
    return text


def text_rows(path, shown):
    """The rows of CSV path, read one at a time: yields (header, lineno, fields),
    the header a list of column names (line 1), fields a list of texts, line
    numbers from 2; blank lines are skipped. Any failure to read it
    (permission, not UTF-8, a field over 1 MiB, a broken quote) is a
    ResultSetError naming shown."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                return
            lineno = 1
            for fields in reader:
                if fields:
                    lineno += 1
                    yield header, lineno, fields
    except UnicodeDecodeError as e:
        raise ResultSetError("%s: not UTF-8 text (byte %d)" % (shown, e.start))
    except csv.Error as e:
        raise ResultSetError("%s: not a CSV file: %s" % (shown, e))
    except OSError as e:
        raise ResultSetError("%s: %s" % (shown, e.strerror or e))


def read_text_rows(path, shown):
    """The rows of CSV path as dicts, line numbers from 2 (header on line 1):
    [(lineno, row)], as csv.DictReader reads them (a missing field None, the
    extra ones a list under the key None). Errors: text_rows's."""
    out = []
    for header, lineno, fields in text_rows(path, shown):
        row = dict(zip(header, fields))
        for name in header[len(fields):]:
            row[name] = None
        if len(fields) > len(header):
            row[None] = fields[len(header):]
        out.append((lineno, row))
    return out


def parse_params(text):
    out = {}
    for part in (text or "").split(";"):
        if "=" in part:
            k, _, v = part.partition("=")
            out[k.strip()] = v.strip()
    return out


def end_mode(row):
    """The regime a run's counter ended in: the `mode` key of its end_state
    (results/README.md), "" for a variant without modes, NOT_RECORDED when the
    CSV predates the end_state column (schema 2 and older)."""
    if row.get("end_state") is None:
        return NOT_RECORDED
    return parse_params(row["end_state"]).get("mode", "")


def threshold_of(row):
    """Scalable's threshold T of a row (13 unless its params say otherwise)."""
    try:
        return int(float(row["params_map"].get("threshold", 13)))
    except ValueError:
        return 13


def rng_of(row):
    """Scalable's generator of a row: its rng parameter, "xorshift" (the default)
    when the params do not name one (every set measured before rng=mix)."""
    return row["params_map"].get("rng", "xorshift")


def seconds_of(r):
    """Seconds of a run. The seconds column has 6 decimals; below 1 ms the
    ops_per_ms column (6 significant digits) gives more precision when there is
    one counter. A run timed at 0 s (faster than the clock's reading) is None."""
    s = r.get("seconds")
    opm = r.get("ops_per_ms")
    if (s is None or s < 1e-3) and opm and r.get("counters", 1) == 1 and r.get("ops"):
        return r["ops"] / (opm * 1e3)
    return s if s and s > 0 else None


class Row(Mapping):
    """One row of a result CSV, read only: a tuple of its values (one per
    column of its file's header, then params_map) and the columns' index
    shared by every row of the file. A dict a row took 3 KB; this, with
    the values repeated down a column shared, a few hundred bytes."""
    __slots__ = ("_index", "_values")

    def __init__(self, index, values):
        self._index, self._values = index, values

    def __getitem__(self, key):
        return self._values[self._index[key]]

    def get(self, key, default=None):
        i = self._index.get(key)
        return default if i is None else self._values[i]

    def __iter__(self):
        return iter(self._index)

    def __len__(self):
        return len(self._index)


class RowReader:
    """The rows of one result CSV, its numbers checked (check_number) and the
    values repeated down a column (text, parameters, thread counts) kept once."""
    SHARED = 256   # distinct values a column keeps shared; beyond, each is its own

    def __init__(self, path):
        self.path, self.index = path, None

    def start(self, header):
        """header (the CSV's first line): the columns, REQUIRED checked."""
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise ResultSetError("%s: no column %s (results/README.md: every result CSV "
                                 "has it)" % (self.path, ", ".join(missing)))
        self.index = {c: i for i, c in enumerate(header)}   # a repeated column: the last
        self.take = [i for i, c in enumerate(header) if self.index[c] == i]
        self.names = [header[i] for i in self.take]
        self.index = {c: k for k, c in enumerate(self.names)}
        self.index["params_map"] = len(self.names)
        self.shared = [{} for _ in self.names]
        self.params = {}
        self.over = self.index.get("overflowed")
        self.error = self.index.get("rel_error")

    def row(self, lineno, fields):
        values = []
        for k, i in enumerate(self.take):
            text, seen = fields[i], self.shared[k]
            v = seen.get(text, seen)
            if v is seen:
                name = self.names[k]
                if name in TEXT_COLUMNS:
                    v = check_text(text, self.path, lineno, name)
                else:
                    v = check_number(text, self.path, lineno, name) if text != "" else None
                if len(seen) < self.SHARED:
                    seen[text] = v
            values.append(v)
        params = values[self.index["params"]] if "params" in self.index else None
        pm = self.params.get(params)
        if pm is None:
            pm = self.params[params] = MappingProxyType(parse_params(params))
        values.append(pm)
        if self.over is not None and values[self.over] and self.error is not None:
            values[self.error] = None
        return Row(self.index, tuple(values))


class ResultSet:
    def __init__(self, path):
        self.path = path
        self.cache = {}
        self.notes = []   # problems met while reading, for the report

    def csv(self, name):
        """Rows of DIR/name as read-only mappings (Row: numbers as floats, empty
        as None, and params_map, the params parsed), or None if missing."""
        if name in self.cache:
            return self.cache[name]
        path = os.path.join(self.path, name)
        rows = None
        if os.path.isfile(path):
            rows = []
            reader = RowReader(path)
            over = set()
            for header, lineno, fields in text_rows(path, path):
                if reader.index is None:
                    reader.start(header)
                if len(fields) != len(header):
                    self.notes.append("%s line %d: wrong number of fields, ignored"
                                      % (name, lineno))
                    continue
                row = reader.row(lineno, fields)
                rows.append(row)
                if row.get("overflowed"):
                    over.add(row["counter"])
            # Schema 3: a run whose true count exceeded its counter's range measured
            # the wrap, not the algorithm: its error leaves every error figure and claim
            # (RowReader.row left it out).
            if over:
                self.notes.append("%s: %d run(s) overflowed the counter's range (%s); their "
                                  "relative error is left out of error figures and claims"
                                  % (name, sum(1 for r in rows if r.get("overflowed")),
                                     ", ".join(sorted(over))))
        self.cache[name] = rows
        return rows

    def rows(self, name, mode):
        """The rows of one mode: 'timed', or 'count' (those with a true count)."""
        return [r for r in (self.csv(name) or []) if r.get("mode") == mode
                and (mode != "count" or r.get("ops"))]

    def histograms(self, name):
        """The latency histograms of CSV name: {(counter, threads, run):
        {(bucket_low_ns, bucket_high_ns): count}} from its sidecar
        name.latency.csv, else from the sidecars of run-all.sh's parts
        (DIR/parts/<id>/*.csv.latency.csv, kept next to the merged CSV), with
        the path(s) read; None where there is none (results/README.md)."""
        key = ("histograms", name)
        if key in self.cache:
            return self.cache[key]
        paths = [os.path.join(self.path, name + ".latency.csv")]
        if not os.path.isfile(paths[0]):
            parts = os.path.join(self.path, "parts", name[:-len(".csv")])
            paths = sorted(os.path.join(parts, f) for f in (os.listdir(parts)
                           if os.path.isdir(parts) else []) if f.endswith(".csv.latency.csv"))
        out = {}
        for path in paths:
            for lineno, b in read_text_rows(path, path):
                if None in b or any(b.get(c) is None for c in
                                    ("counter", "threads", "run", "bucket_low_ns",
                                     "bucket_high_ns", "count")):
                    self.notes.append("%s line %d: not a histogram row, ignored"
                                      % (os.path.relpath(path, self.path), lineno))
                    continue
                num = {c: check_number(b[c], path, lineno, c) for c in
                       ("threads", "run", "bucket_low_ns", "bucket_high_ns", "count")}
                run = (b["counter"], num["threads"], num["run"])
                bucket = (num["bucket_low_ns"], num["bucket_high_ns"])
                h = out.setdefault(run, {})
                h[bucket] = h.get(bucket, 0) + int(num["count"])
        result = (out, [os.path.relpath(p, self.path) for p in paths]) if out else None
        self.cache[key] = result
        return result

    def meta(self, name):
        """The .meta.json of CSV name as a dict; None when missing, and (with
        a note) when unreadable or not a JSON object."""
        key = ("meta", name)
        if key in self.cache:
            return self.cache[key]
        path = os.path.join(self.path, name + ".meta.json")
        m = None
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    m = json.load(f)
            except (OSError, ValueError) as e:  # UnicodeDecodeError is a ValueError
                self.notes.append("%s.meta.json: unreadable (%s), ignored"
                                  % (name, str(e).splitlines()[0]))
            if m is not None and not isinstance(m, dict):
                self.notes.append("%s.meta.json: not a JSON object, ignored" % name)
                m = None
            if m is not None:
                # Fields read as objects must be objects; others are shown as text.
                for k in ("topology", "run_all", "cpu"):
                    if k in m and not isinstance(m[k], dict):
                        self.notes.append("%s.meta.json: %s is not a JSON object, ignored"
                                          % (name, k))
                        m[k] = None
                if not isinstance(m.get("command_line"), list) or \
                        not all(isinstance(a, str) for a in m["command_line"]):
                    m["command_line"] = None
                for k in META_TEXT:
                    if m.get(k) is not None and not isinstance(m[k], str):
                        m[k] = None
                topo = m.get("topology") or {}
                for k in ("pus", "cores", "nodes", "cache_line"):
                    v = topo.get(k)
                    if v is not None and (isinstance(v, bool) or not isinstance(v, int)
                                          or v < 1):
                        topo[k] = None
        self.cache[key] = m
        return m


def is_result_set(path):
    """Does directory path hold a result set (one of SOURCES, or a run-all.conf)?"""
    return os.path.isdir(path) and (any(os.path.isfile(os.path.join(path, n)) for n in SOURCES)
                                    or os.path.isfile(os.path.join(path, "run-all.conf")))


def calibration(path):
    """The external work calibrated once for result set path (run-all.calibration,
    harness/runall/calibrate.py): per level, by increasing PCT, {"work_pct",
    "work_iters", "spread", "stable", "share", "target", "off_target"}; the
    share is the single-thread CAS throughput at the level over the one at 0%
    work, the target 1 - PCT/100;
    spread: the settling calibrations' largest over smallest, less 1. [] when
    the set has none (no external work, or a set made before run-all calibrated
    once per set). A level whose fields are not numbers of their range is left
    out: the file is data."""
    try:
        with open(os.path.join(path, "run-all.calibration"), encoding="utf-8") as f:
            cal = json.load(f)
    except (OSError, ValueError):
        return []
    out = []
    for lv in cal.get("levels", []) if isinstance(cal, dict) else []:
        try:
            pct = float(lv["work_pct"])
            got = {k: float(lv[k]) for k in ("work_iters", "spread", "share", "target")}
        except (KeyError, TypeError, ValueError):
            continue
        if 0 < pct < 100 and all(math.isfinite(v) and v >= 0 for v in got.values()):
            got.update(work_pct=pct, stable=lv.get("stable") is True,
                       off_target=lv.get("off_target") is True)
            out.append(got)
    return sorted(out, key=lambda lv: lv["work_pct"])

# SPDX-License-Identifier: MIT
"""Reading a result set: the scbench CSVs (schema: results/README.md), their
.meta.json sidecars, and the summary of the machine and protocol that the
report's header and the claims' "not measurable" reasons use.
Every number read back is checked here, in one place (check_number, the
ranges in COLUMNS): a value that is not a finite number in its column's range
is a ResultSetError, one line naming the file, line and column. Every file
the plots write goes through write_atomically.
Standard library only.
"""

import csv
import glob
import io
import json
import math
import os
import random
import re
import string

# Every CSV run-all.sh writes (doc/design.md §6); the figure table names its sources among them.
SOURCES = ["dice-fig3.csv", "dice-fig4-low.csv", "dice-fig4-high.csv", "dice-fig5.csv",
           "ayers.csv", "ayers-tunable.csv", "baselines.csv", "latency.csv", "read-cost.csv"]
TEXT_COLUMNS = {"counter", "kind", "mode", "placement", "params", "pmu_status", "end_state",
                "pus_used", "nodes_used"}
NOT_RECORDED = "not recorded"
# The fields of a result CSV may be long (params, end_state), never this long:
# a longer one is an error, not a traceback.
csv.field_size_limit(1 << 20)

# The range of each numeric column (results/README.md): (integer?, min, max).
# A column not listed must be a finite number.
INF = float("inf")
COLUMNS = {
    "threads": (True, 1, 16384), "run": (True, 0, INF), "work_pct": (False, 0, 100),
    "work_iters": (False, 0, INF), "counters": (True, 1, INF), "nodes": (True, 1, INF),
    "nodes_virtual": (True, 0, 1), "seconds": (False, 0, INF), "ops": (True, 0, INF),
    "value": (False, 0, INF), "ops_per_ms": (False, 0, INF),
    "bytes_per_counter": (False, 0, INF), "seed": (True, 0, 2 ** 64 - 1),
    "oversubscribed": (True, 0, 1), "ctx_switches": (False, 0, INF),
    "migrated": (False, 0, INF), "read_ns": (False, 0, INF), "overflowed": (True, 0, 1),
    # the latency histograms (NAME.csv.latency.csv)
    "bucket_low_ns": (False, 0, INF), "bucket_high_ns": (False, 0, INF),
    "count": (True, 0, INF),
    # meta.json counts (results/README.md) that plots/atlas reads
    "cpu.sockets": (True, 1, INF), "cpu.cores": (True, 1, INF), "cpu.pus": (True, 1, INF),
    "topology.pus": (True, 1, 16384), "topology.nodes": (True, 1, 16384),
}


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
    where = ("%s field %s: %r" % (path, column, text) if lineno is None else
             "%s line %d column %s: %r" % (path, lineno, column, text))
    if v is None or not math.isfinite(v):
        raise ResultSetError("%s is not a finite number" % where)
    if integer and v != int(v):
        raise ResultSetError("%s is not an integer" % where)
    if not lo <= v <= hi:
        raise ResultSetError("%s is out of range [%s, %s]" % (where, "%g" % lo, "%g" % hi))
    return v + 0.0  # -0 is 0


def read_text_rows(path, shown):
    """The rows of CSV path as dicts, line numbers from 2 (header on line 1):
    [(lineno, row)]. Any failure to read it (permission, not UTF-8, a field
    over 1 MiB, a broken quote) is a ResultSetError naming shown."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            return [(lineno, row) for lineno, row in enumerate(reader, 2)]
    except UnicodeDecodeError as e:
        raise ResultSetError("%s: not UTF-8 text (byte %d)" % (shown, e.start))
    except csv.Error as e:
        raise ResultSetError("%s: not a CSV file: %s" % (shown, e))
    except OSError as e:
        raise ResultSetError("%s: %s" % (shown, e.strerror or e))


def _remove_stale_temps(path):
    for old in glob.glob(glob.escape(path) + ".tmp.??????") + [path + ".tmp"]:
        try:
            if os.path.isfile(old) and not os.path.islink(old):
                os.remove(old)
        except OSError:
            pass


def write_atomically(path, text):
    """Replace path by text (str, written as UTF-8, or bytes: an image) all at
    once: written to path.tmp.XXXXXX in its
    directory (such files a SIGKILL left are removed first), synced, given the
    mode of the file it replaces (a new one: 0666 less the umask), renamed.
    OSError when that fails; path is then as it was."""
    _remove_stale_temps(path)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    for _ in range(100):
        tmp = "%s.tmp.%s" % (path, "".join(random.choice(string.ascii_letters + string.digits)
                                            for _ in range(6)))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else
              os.fdopen(fd, "w", encoding="utf-8", newline="")) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def csv_field(v):
    """A value as a CSV field the plots write: a float to 6 significant digits,
    None empty, infinity "inf"."""
    if v is None:
        return ""
    if isinstance(v, float):
        return "inf" if math.isinf(v) else "%.6g" % v
    return str(v)


def csv_text(columns, rows):
    """A CSV (header, then one line per dict of rows) as text, for write_atomically."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([csv_field(r[c]) for c in columns])
    return buf.getvalue()


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


def seconds_of(r):
    """Seconds of a run. The seconds column has 6 decimals; below 1 ms the
    ops_per_ms column (6 significant digits) gives more precision when there is
    one counter. A run timed at 0 s (faster than the clock's reading) is None."""
    s = r.get("seconds")
    opm = r.get("ops_per_ms")
    if (s is None or s < 1e-3) and opm and r.get("counters", 1) == 1 and r.get("ops"):
        return r["ops"] / (opm * 1e3)
    return s if s and s > 0 else None


class ResultSet:
    def __init__(self, path):
        self.path = path
        self.cache = {}
        self.notes = []   # problems met while reading, for the report

    def csv(self, name):
        """Rows of DIR/name as dicts (numbers as floats, empty as None), or None if missing."""
        if name in self.cache:
            return self.cache[name]
        path = os.path.join(self.path, name)
        rows = None
        if os.path.isfile(path):
            rows = []
            text_rows = read_text_rows(path, path)
            missing = [c for c in REQUIRED if text_rows and c not in text_rows[0][1]]
            if missing:
                raise ResultSetError("%s: no column %s (results/README.md: every result CSV "
                                     "has it)" % (path, ", ".join(missing)))
            for lineno, raw in text_rows:
                if None in raw or any(v is None for v in raw.values()):
                    self.notes.append("%s line %d: wrong number of fields, ignored"
                                      % (name, lineno))
                    continue
                row = {}
                for k, v in raw.items():
                    if k in TEXT_COLUMNS:
                        row[k] = v
                    else:
                        row[k] = check_number(v, path, lineno, k) if v != "" else None
                row["params_map"] = parse_params(row.get("params"))
                rows.append(row)
            # Schema 3: a run whose true count exceeded its counter's range measured
            # the wrap, not the algorithm: its error leaves every error figure and claim.
            over = [r for r in rows if r.get("overflowed")]
            for r in over:
                r["rel_error"] = None
            if over:
                self.notes.append("%s: %d run(s) overflowed the counter's range (%s); their "
                                  "relative error is left out of error figures and claims"
                                  % (name, len(over),
                                     ", ".join(sorted(set(r["counter"] for r in over)))))
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


def option_of(cmd, name):
    for a in cmd or []:
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return None


DATE_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\Z")


def meta_dates(meta):
    """The UTC start dates a meta.json speaks for: its own "date" and, for a
    set merged by run-all.sh, the first and last of its parts' (run_all's
    first_date and last_date). Only well-formed dates; anything else is
    ignored, never shown."""
    ra = meta.get("run_all") if isinstance(meta.get("run_all"), dict) else {}
    found = [meta.get("date"), ra.get("first_date"), ra.get("last_date")]
    return [t for t in found if isinstance(t, str) and DATE_RE.match(t)]


def schema_version(meta):
    """The schema version of a .meta.json (results/README.md): 1 when it has no key."""
    v = meta.get("schema_version")
    return v if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1000 else 1


def is_result_set(path):
    """Does directory path hold a result set (one of SOURCES, or a run-all.conf)?"""
    return os.path.isdir(path) and (any(os.path.isfile(os.path.join(path, n)) for n in SOURCES)
                                    or os.path.isfile(os.path.join(path, "run-all.conf")))


def runs_per_point(meta, cmd):
    """Runs of each point: run-all.sh's record when it split them over invocations
    (meta.json "run_all", results/README.md), else the invocation's --runs."""
    per = (meta.get("run_all") or {}).get("runs_per_point")
    return str(per) if per else option_of(cmd, "runs") or "5 (default)"


def cpu_emulation(metas):
    """The meta.json `cpu_emulation` record (schema 4) as {"hypervisor": text,
    "emulated": True/False/None}: emulated if any file says so; None when no
    file records it. Validated: anything else is read as unknown."""
    recs = [mm.get("cpu_emulation") for _, mm in metas]
    recs = [r for r in recs if isinstance(r, dict)]
    if not recs:
        return None
    flags = [r.get("emulated") for r in recs]
    names = sorted(set(str(r.get("hypervisor"))[:32] for r in recs
                       if isinstance(r.get("hypervisor"), str)))
    emulated = True if True in flags else (False if flags and all(f is False for f in flags)
                                           else None)
    return {"hypervisor": ", ".join(names) or "unknown", "emulated": emulated}


def load_summary(rs):
    """{"runs", "busy_runs", "rule"} over the set's CSVs with a busy column
    (results/README.md, columns 30-34), or None when none has one."""
    busy = total = 0
    rule = None
    for name in SOURCES:
        for r in rs.csv(name) or []:
            if r.get("busy") is not None:
                total += 1
                busy += r.get("busy") == 1
        rule = rule or ((rs.meta(name) or {}).get("load") or {}).get("busy_rule")
    if not total:
        return None
    return {"runs": total, "busy_runs": busy, "rule": rule or "see results/README.md"}


def load_text(load):
    """One line on how busy the machine was, for REPORT.md and the advice."""
    if not load:
        return "not recorded (CSVs of schema 3 or older)"
    if not load["busy_runs"]:
        return "quiet: none of the %d runs was busy (%s)" % (load["runs"], load["rule"])
    return ("BUSY: %d of %d runs were taken while %s; their figures measure that load "
            "as much as the counters" % (load["busy_runs"], load["runs"], load["rule"]))


def machine_summary(rs):
    metas = [(n, rs.meta(n)) for n in SOURCES]
    metas = [(n, m) for n, m in metas if m]
    present = [n for n in SOURCES if rs.csv(n) is not None]
    out = {"files_present": present,
           "files_missing": [n for n in SOURCES if n not in present],
           "meta_missing": [n for n in present if not rs.meta(n)]}
    if not metas:
        return out
    m = metas[0][1]
    topo = m.get("topology") or {}
    versions = sorted(set(schema_version(mm) for _, mm in metas))
    out.update({
        "schema_versions": versions,
        "cpu": next((mm["cpu"] for _, mm in metas if isinstance(mm.get("cpu"), dict)), None),
        "compiler_command": m.get("compiler_command"), "binary": m.get("binary"),
        "host": m.get("host"), "kernel": m.get("kernel"),
        "dates": sorted(set(t for _, mm in metas for t in meta_dates(mm))),
        "scbench_version": m.get("scbench_version"),
        "source_revision": m.get("source_revision"),
        "compiler": m.get("compiler"), "cflags": m.get("cflags"),
        "topology": topo.get("description"), "pus": topo.get("pus"),
        "cores": topo.get("cores"), "nodes": topo.get("nodes"),
        "cache_line": topo.get("cache_line"),
        "nodes_virtual": bool(m.get("nodes_virtual")),
        "binding": m.get("binding"), "pmu_status": m.get("pmu_status"),
        "clock": m.get("clock"),
        "load": load_summary(rs),
    })
    emu = cpu_emulation(metas)
    if emu is not None:   # only sets of schema 4 record it (older claims.json unchanged)
        out["cpu_emulation"] = emu
    nodes = out.get("nodes") or 1
    out["nodes_text"] = "%d %sNUMA node%s" % (nodes, "virtual " if out["nodes_virtual"] else "",
                                                "s" if nodes != 1 else "")
    # The protocol, from the command lines.
    timed = [(n, mm) for n, mm in metas if not option_of(mm.get("command_line"), "ops")]
    if timed:
        cmd = timed[0][1].get("command_line")
        out["protocol_timed"] = {"warmup_s": option_of(cmd, "warmup") or "2 (default)",
                                 "duration_s": option_of(cmd, "duration") or "8 (default)",
                                 "runs": runs_per_point(timed[0][1], cmd)}
    counted = [(n, mm) for n, mm in metas if option_of(mm.get("command_line"), "ops")]
    if counted:
        out["protocol_count"] = {"runs": runs_per_point(counted[0][1],
                                                        counted[0][1].get("command_line"))}
    split = next((mm["run_all"] for _, mm in timed if isinstance(mm.get("run_all"), dict)), None)
    if split:
        out["run_all_order"] = {"order_seed": split.get("order_seed"),
                                "invocations": split.get("invocations")}
    conf = os.path.join(rs.path, "run-all.conf")
    if os.path.isfile(conf):
        try:
            with open(conf, encoding="utf-8") as f:
                for line in f:
                    val = line.split("=", 1)[1].strip().strip('"') if "=" in line else ""
                    if line.startswith("mode=") and val in ("quick", "default", "paper",
                                                            "paper-errors"):
                        out["run_all_mode"] = val
                    for key in ("experiments", "variants"):
                        # names only (validated by run-all.sh); anything else is not shown
                        if line.startswith(key + "=") and val != "all" and \
                                re.fullmatch(r"[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*", val):
                            out["run_all_" + key] = val.split(",")
        except (OSError, ValueError) as e:
            rs.notes.append("run-all.conf: unreadable (%s), ignored" % str(e).splitlines()[0])
    revs = sorted(set(mm.get("source_revision") for _, mm in metas), key=str)
    if len(revs) > 1:
        out["source_revisions"] = revs
    hosts = set(mm.get("host") for _, mm in metas)
    for _, mm in metas:  # the hosts run-all's parts ran on (a set run in shards)
        ra = mm.get("run_all")
        if isinstance(ra, dict) and isinstance(ra.get("hosts"), list):
            hosts |= {h for h in ra["hosts"] if isinstance(h, str) and re.fullmatch(r"[A-Za-z0-9._-]{1,253}", h)}
    hosts = sorted(hosts, key=str)
    if len(hosts) > 1:
        out["hosts"] = hosts
    return out

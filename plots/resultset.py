# SPDX-License-Identifier: MIT
"""Reading a result set: the scbench CSVs (schema: results/README.md), their
.meta.json sidecars, and the summary of the machine and protocol that the
report's header and the claims' "not measurable" reasons use.
Standard library only.
"""

import csv
import json
import os

# Every CSV run-all.sh writes (doc/design.md §6); the figure table names its sources among them.
SOURCES = ["dice-fig3.csv", "dice-fig4-low.csv", "dice-fig4-high.csv", "dice-fig5.csv",
           "ayers.csv", "ayers-tunable.csv", "baselines.csv", "latency.csv", "read-cost.csv"]
TEXT_COLUMNS = {"counter", "kind", "mode", "placement", "params", "pmu_status", "end_state"}
NOT_RECORDED = "not recorded"


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
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                for lineno, raw in enumerate(reader, 2):
                    if None in raw or any(v is None for v in raw.values()):
                        self.notes.append("%s line %d: wrong number of fields, ignored"
                                          % (name, lineno))
                        continue
                    row = {}
                    try:
                        for k, v in raw.items():
                            if k in TEXT_COLUMNS:
                                row[k] = v
                            else:
                                row[k] = float(v) if v != "" else None
                    except ValueError:
                        self.notes.append("%s line %d: a number does not parse, ignored"
                                          % (name, lineno))
                        continue
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
            with open(path, newline="") as f:
                for lineno, b in enumerate(csv.DictReader(f), 2):
                    try:
                        run = (b["counter"], float(b["threads"]), float(b["run"]))
                        bucket = (float(b["bucket_low_ns"]), float(b["bucket_high_ns"]))
                        n = int(b["count"])
                    except (KeyError, TypeError, ValueError):
                        self.notes.append("%s line %d: not a histogram row, ignored"
                                          % (os.path.relpath(path, self.path), lineno))
                        continue
                    h = out.setdefault(run, {})
                    h[bucket] = h.get(bucket, 0) + n
        result = (out, [os.path.relpath(p, self.path) for p in paths]) if out else None
        self.cache[key] = result
        return result

    def meta(self, name):
        path = os.path.join(self.path, name + ".meta.json")
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None


def option_of(cmd, name):
    for a in cmd or []:
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return None


def schema_version(meta):
    """The schema version of a .meta.json (results/README.md): 1 when it has no key."""
    v = meta.get("schema_version")
    return v if isinstance(v, int) else 1


def runs_per_point(meta, cmd):
    """Runs of each point: run-all.sh's record when it split them over invocations
    (meta.json "run_all", results/README.md), else the invocation's --runs."""
    per = (meta.get("run_all") or {}).get("runs_per_point")
    return str(per) if per else option_of(cmd, "runs") or "5 (default)"


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
        "dates": sorted(set(mm.get("date") for _, mm in metas if mm.get("date"))),
        "scbench_version": m.get("scbench_version"),
        "source_revision": m.get("source_revision"),
        "compiler": m.get("compiler"), "cflags": m.get("cflags"),
        "topology": topo.get("description"), "pus": topo.get("pus"),
        "cores": topo.get("cores"), "nodes": topo.get("nodes"),
        "cache_line": topo.get("cache_line"),
        "nodes_virtual": bool(m.get("nodes_virtual")),
        "binding": m.get("binding"), "pmu_status": m.get("pmu_status"),
        "clock": m.get("clock"),
    })
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
        with open(conf) as f:
            for line in f:
                if line.startswith("mode="):
                    out["run_all_mode"] = line.split("=", 1)[1].strip().strip('"')
    revs = sorted(set(mm.get("source_revision") for _, mm in metas))
    if len(revs) > 1:
        out["source_revisions"] = revs
    hosts = sorted(set(mm.get("host") for _, mm in metas))
    if len(hosts) > 1:
        out["hosts"] = hosts
    return out

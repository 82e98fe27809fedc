# SPDX-License-Identifier: MIT
"""The summary of a result set's machine and protocol (machine_summary), read
from its .meta.json sidecars and run-all.conf: what the report's header, the
claims' "not measurable" reasons, the advice and plots/compare say of the
machine, the dates, the protocol, the load and the run's restriction.
Standard library only.
"""

import os
import re

from resultset import PLAN_SOURCES, calibration

# run-all's plan in a result set (harness/runall/plan.py writes it).
PLAN_NAME = "run-all.plan"


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


def load_summary(rs, names=PLAN_SOURCES):
    """{"runs", "busy_runs", "rule", "timed", "count"} over the set's CSVs
    (names) with a busy column (results/README.md, columns 30-34), timed and
    count (busy, runs) of that mode; None when no CSV has the column."""
    busy = total = 0
    rule = None
    by_mode = {"timed": [0, 0], "count": [0, 0]}
    for name in names:
        for r in rs.csv(name) or []:
            if r.get("busy") is not None:
                total += 1
                busy += r.get("busy") == 1
                if r.get("mode") in by_mode:
                    by_mode[r["mode"]][0] += r.get("busy") == 1
                    by_mode[r["mode"]][1] += 1
        rule = rule or ((rs.meta(name) or {}).get("load") or {}).get("busy_rule")
    if not total:
        return None
    return {"runs": total, "busy_runs": busy, "rule": rule or "see results/README.md",
            "timed": tuple(by_mode["timed"]), "count": tuple(by_mode["count"])}


def load_text(load):
    """One line on how busy the machine was, for REPORT.md and the advice."""
    if not load:
        return "not recorded (CSVs of schema 3 or older)"
    if not load["busy_runs"]:
        return "quiet: none of the %d runs was busy (%s)" % (load["runs"], load["rule"])
    return ("BUSY: %d of %d runs were taken while %s; their figures measure that load "
            "as much as the counters" % (load["busy_runs"], load["runs"], load["rule"]))


def planned_sources(rs):
    """The CSVs of PLAN_SOURCES that the set's run-all.plan plans (a set
    restricted with --experiments plans fewer), in PLAN_SOURCES' order; all
    of them where the set has no plan that can be read (a plan line is
    "ID CHUNK ARGS": only an ID that names one of them counts)."""
    path = os.path.join(rs.path, PLAN_NAME)
    if os.path.islink(path) or not os.path.isfile(path):
        return PLAN_SOURCES
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            ids = {line.split(None, 1)[0] + ".csv" for line in f if line.strip()}
    except OSError:
        return PLAN_SOURCES
    planned = [n for n in PLAN_SOURCES if n in ids]
    return planned or PLAN_SOURCES


def machine_summary(rs, names=None):
    """The summary of result set rs from its CSVs names (by default every CSV
    that its run-all.plan plans, planned_sources; plots/compare gives one plain
    scbench CSV) and their .meta.json, and its run-all.conf."""
    if names is None:
        names = planned_sources(rs)
    metas = [(n, rs.meta(n)) for n in names]
    metas = [(n, m) for n, m in metas if m]
    present = [n for n in names if rs.csv(n) is not None]
    out = {"files_present": present,
           "files_missing": [n for n in names if n not in present],
           "meta_missing": [n for n in present if not rs.meta(n)]}
    if not metas:
        return out
    out.update(machine_fields(rs, names, metas))
    out.update(protocol_fields(metas))
    out.update(conf_fields(rs))
    out.update(mixed_fields(metas))
    return out


def machine_fields(rs, names, metas):
    """The summary's machine, build, dates, load, work calibration and emulation,
    from the first meta.json of metas [(name, meta)] (the dates and schema of all)."""
    m = metas[0][1]
    topo = m.get("topology") or {}
    versions = sorted(set(schema_version(mm) for _, mm in metas))
    out = {
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
        "load": load_summary(rs, names),
    }
    work = calibration(rs.path)
    if work:   # only sets calibrated once by run-all (older claims.json unchanged)
        out["work_calibration"] = work
    emu = cpu_emulation(metas)
    if emu is not None:   # only sets of schema 4 record it (older claims.json unchanged)
        out["cpu_emulation"] = emu
    nodes = out.get("nodes") or 1
    out["nodes_text"] = "%d %sNUMA node%s" % (nodes, "virtual " if out["nodes_virtual"] else "",
                                                "s" if nodes != 1 else "")
    return out


def protocol_fields(metas):
    """The summary's protocol, from the command lines of metas [(name, meta)]: the
    timed points', the count-to-N runs' and run-all's order of the timed runs."""
    out = {}
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
    return out


def conf_fields(rs):
    """The summary's run-all mode and restriction, from rs's run-all.conf ({} without
    one; an unreadable one is noted in rs.notes)."""
    out = {}
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
    return out


def mixed_fields(metas):
    """The summary's source revisions and hosts where metas [(name, meta)] name
    more than one ({} otherwise)."""
    out = {}
    revs = sorted(set(mm.get("source_revision") for _, mm in metas), key=str)
    if len(revs) > 1:
        out["source_revisions"] = revs
    hosts = set(mm.get("host") for _, mm in metas)
    for _, mm in metas:  # the hosts run-all's parts ran on (a set run in shards)
        ra = mm.get("run_all")
        if isinstance(ra, dict) and isinstance(ra.get("hosts"), list):
            hosts |= {h for h in ra["hosts"]
                      if isinstance(h, str) and re.fullmatch(r"[A-Za-z0-9._-]{1,253}", h)}
    hosts = sorted(hosts, key=str)
    if len(hosts) > 1:
        out["hosts"] = hosts
    return out

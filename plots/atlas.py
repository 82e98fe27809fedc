#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""atlas.py SET... [--out DIR] - which counter on which machine: result sets from
different machines read side by side (doc/design.md §10, doc/figures.md "An atlas across
machines").

Run through plots/atlas, which finds a Python with matplotlib for the figures.
Writes into DIR (default ./atlas), never into a result set:

  ATLAS.md               the machines (provenance of each set), the answer of every
                         scenario of plots/advice.py per machine, each variant's
                         throughput normalised to FetchAdd's per machine, the
                         verdict of every paper claim per machine (plots/claims),
                         and the points that cannot be matched across machines
  atlas-normalised.csv   every normalised value (one row per panel, variant, level,
                         machine)
  atlas-unmatched.csv    every point that could not be matched, and why
  atlas-<panel>.png/.pdf the normalised throughputs as a heat map (matplotlib)
  atlas-claims.png/.pdf  the verdicts as a grid, claim x machine (matplotlib)

Nothing is judged here: the answers are advice.answers', the verdicts
claims.evaluate's, on each set's statistics computed in memory (figbuild.load_set)
exactly as plots/aggregate.py computes them. A set without its provenance
(meta.json: host, kernel, the cpu record, topology) is refused with the field
named; two sets of one machine are allowed only in different modes (they are
labelled by mode). Every number read back is validated (resultset.check_number);
nothing read from a set is executed. Exit status 0, 1 when a file cannot be
read or written, 2 on bad usage or a set that is refused.
"""

import io
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402

import advice  # noqa: E402
import claims  # noqa: E402
from figbuild import load_set  # noqa: E402
from figures import FIGURES, OPS_PER_MS  # noqa: E402
from report import VERDICT_MD, VERDICT_TEXT, cell  # noqa: E402
from resultset import (SOURCES, ResultSetError, check_number, csv_text,  # noqa: E402
                       is_result_set, write_atomically)
from claims.core import f_rate, f_ratio  # noqa: E402

# Every variant's throughput is divided by this one's at the same thread count of
# the same panel of the same set: the hardware's atomic add, the simplest precise
# counter, measured in every throughput experiment (Dice's and the baselines).
BASELINE = "FetchAdd"
# The panels normalised: every timed figure of plots/figures.py whose y is throughput.
THROUGHPUT = [f.id for f in FIGURES if f.mode == "timed" and f.xlabel == "threads"
              and any(p.ylabel == OPS_PER_MS.ylabel for p in f.panels)]
# When the machines differ in PUs, points are matched at these fractions of each
# machine's PU count (its own thread count in each column).
FRACTIONS = [("1 thread", lambda pus: 1), ("half the PUs", lambda pus: max(1, pus // 2)),
             ("all PUs", lambda pus: pus)]
# The provenance a set must record (meta.json, results/README.md): (field, what).
REQUIRED = [("host", "the machine's name"), ("kernel", "the kernel release"),
            ("cpu.model", "the CPU model"), ("cpu.sockets", "the sockets"),
            ("cpu.cores", "the cores"), ("topology.pus", "the PUs"),
            ("topology.nodes", "the NUMA nodes")]
COUNTS = ("cpu.sockets", "cpu.cores", "topology.pus", "topology.nodes")
NOT_RECORDED = "not recorded"


class Refused(Exception):
    """A set or an output directory the atlas will not take: one line."""


# --- the machines ---------------------------------------------------------------

def field(meta, name):
    """meta's value of a dotted field name (cpu.model), or None."""
    v = meta
    for k in name.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    return v


def provenance(path, rs):
    """{field: value} of REQUIRED, the same in every .meta.json of the set; Refused
    (naming the set, the file and the field) when one is missing, not a valid
    value, or differs between the set's files."""
    found = {}
    present = [n for n in SOURCES if rs.csv(n) is not None]
    for name in present:
        meta = rs.meta(name)
        mpath = os.path.join(path, name + ".meta.json")
        if not meta:
            raise Refused("%s: no provenance for %s (%s.meta.json missing or unreadable)"
                          % (path, name, name))
        for key, what in REQUIRED:
            v = field(meta, key)
            if key in COUNTS:
                if v is None or isinstance(v, bool) or not isinstance(v, (int, str)):
                    v = None
                elif v != "unknown":
                    try:
                        v = int(check_number(v, mpath, None, key))
                    except ResultSetError as e:
                        raise Refused(str(e))
            elif not isinstance(v, str) or not v.strip():
                v = None
            if v is None:
                hint = (" (schema 1: written before scbench recorded its CPU)"
                        if key.startswith("cpu.") and not isinstance(meta.get("cpu"), dict)
                        else "")
                raise Refused("%s: missing provenance: %s has no %s (%s)%s"
                              % (path, name + ".meta.json", key, what, hint))
            if key != "host" and found.setdefault(key, (v, name))[0] != v:
                raise Refused("%s: its files come from different machines: %s in %s is %r, "
                              "in %s %r" % (path, key, found[key][1] + ".meta.json",
                                            found[key][0], name + ".meta.json", v))
        found.setdefault("hosts", set()).add(meta["host"])
    out = {k: v[0] for k, v in found.items() if k != "hosts"}
    out["hosts"] = sorted(found["hosts"])
    return out


class Machine:
    """One result set: its data, statistics, provenance, mode and label."""

    def __init__(self, path):
        """Reads the set and checks its provenance; the statistics come with build()."""
        self.path = path
        self.rs, self.m, self.figs = load_set(path, FIGURES)
        self.prov = provenance(path, self.rs)
        self.pus = self.prov["topology.pus"]
        pt = self.m.get("protocol_timed") or {}
        self.runs = pt.get("runs", "?")
        if self.m.get("run_all_mode"):
            self.mode = self.m["run_all_mode"]
        elif pt:
            self.mode = "scbench %s s + %s s" % (pt["warmup_s"].split()[0],
                                                 pt["duration_s"].split()[0])
        else:
            self.mode = "count-to-N only"
        hosts = self.prov["hosts"]
        self.label = hosts[0] if len(hosts) == 1 else "%s+%d" % (hosts[0], len(hosts) - 1)
        self.tag = ""   # what label_machines adds to tell it from another set's

    def build(self):
        """The figures' statistics, in memory (nothing is written into the set)."""
        self.figs.build()

    def identity(self):
        p = self.prov
        return (p["cpu.model"], p["cpu.sockets"], p["cpu.cores"], p["topology.pus"],
                p["topology.nodes"])

    def same_machine(self, other):
        return (self.identity() == other.identity() and
                bool(set(self.prov["hosts"]) & set(other.prov["hosts"])))


def label_machines(ms):
    """Unique labels: the host; two sets of one machine (different modes) get the
    mode after it, two machines of one host name the set's directory name."""
    for m in ms:
        twins = [o for o in ms if o.label == m.label and o is not m]
        if twins and all(m.same_machine(o) for o in twins):
            m.tag = " (%s)" % m.mode
        elif twins:
            m.tag = " [%s]" % os.path.basename(os.path.abspath(m.path))
    for m in ms:
        m.label += m.tag
    seen = {}
    for i, m in enumerate(ms, 1):
        if m.label in seen:
            m.label += " #%d" % i
        seen[m.label] = m


def check_machines(ms):
    """Refused when a set is given twice, or one machine twice in one mode."""
    for i, a in enumerate(ms):
        for b in ms[i + 1:]:
            if os.path.realpath(a.path) == os.path.realpath(b.path):
                raise Refused("%s is given twice" % a.path)
            if a.same_machine(b) and a.mode == b.mode:
                raise Refused(
                    "%s and %s: the same machine (host %s, %s, %s PUs) in the same mode (%s): "
                    "an atlas has one set per machine and mode (plots/compare compares two sets "
                    "of one machine)" % (a.path, b.path, ", ".join(a.prov["hosts"]),
                                         a.prov["cpu.model"], a.pus, a.mode))


def emulation_text(m):
    emu = m.m.get("cpu_emulation")
    if emu is None:
        return "%s (schema %s)" % (NOT_RECORDED, "/".join(
            str(v) for v in m.m.get("schema_versions") or ["?"]))
    return "%s: %s" % (emu.get("hypervisor"), {True: "**emulated**", False: "no"}.get(
        emu.get("emulated"), "unknown"))


def busy_text(m):
    load = m.m.get("load")
    if not load:
        return "%s (schema 3 or older)" % NOT_RECORDED
    return "%d of %d runs%s" % (load["busy_runs"], load["runs"],
                                " (**busy**)" if load["busy_runs"] else "")


def machines_section(ms):
    out = ["## The machines", "",
           "One result set per machine (or per machine and mode), from its provenance "
           "(the `.meta.json` of every result file: host, CPU, topology and kernel must be "
           "recorded and the same in every file of a set). The label heads the machine's "
           "column in every table below.", "",
           "| Machine | Result set | Host | CPU | Sockets / cores / PUs | NUMA nodes | Kernel "
           "| Emulated CPU | Mode | Runs per point | Busy runs |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in ms:
        p = m.prov
        hosts = ", ".join(p["hosts"])
        if len(p["hosts"]) > 1:
            hosts += " (%d nodes)" % len(p["hosts"])
        out.append("| %s |" % " | ".join(cell(str(x)) for x in (
            "**%s**" % m.label, "`%s`" % m.path, hosts, p["cpu.model"],
            "%s / %s / %s" % (p["cpu.sockets"], p["cpu.cores"], p["topology.pus"]),
            m.m.get("nodes_text", p["topology.nodes"]), p["kernel"], emulation_text(m),
            m.mode, m.runs, busy_text(m))))
    out.append("")
    modes = sorted(set(m.mode for m in ms))
    if len(modes) > 1:
        out += ["**The sets were taken in different modes** (%s): run lengths and run counts "
                "differ, so a difference between machines includes the protocol's." %
                ", ".join(modes), ""]
    return out


# --- which counter, per machine -------------------------------------------------

PROV = "provisional: "


def tags(row, set_cav):
    """The caveats of one answer, short (the legend gives advice's full text)."""
    out = []
    if row.get("provisional"):
        out.append(PROV + "few runs")
    out += [PROV + h for h, _ in set_cav]
    best = (row.get("best") or "").split("[")[0]
    if best in advice.STALE_READ:
        out.append("stale get")
    elif row.get("caveat") == advice.PROBABILISTIC_CAVEAT:
        out.append("by contract")
    return out


def answer_cell(row, set_cav):
    if not row.get("best"):
        return "- (%s)" % row.get("reason")
    text = "**%s**" % row["best"]
    if row["ties"]:
        text += " = %s" % ", ".join(row["ties"])
    text += " (%s, %d thr)" % (row["value"], row["threads"])
    t = tags(row, set_cav)
    if t:
        text += " [%s]" % "; ".join(t)
    return text


def disagreement(sc, ms, rows, answers):
    """One line on a scenario whose best differs between machines, or None."""
    named = [(m, rows[m.label]) for m in ms if rows[m.label].get("best")]
    why = [(m, [t[len(PROV):] for t in tags(r, answers[m.label]["set_caveats"])
                if t.startswith(PROV)]) for m, r in named]
    shaky = ["%s (%s)" % (m.label, "; ".join(w)) for m, w in why if w]
    shaky = (" Provisional on %s: the difference may be that set's noise or load."
             % ", ".join(shaky)) if shaky else ""

    def measured(m):
        return set(s for p in sc.panels for s in (m.figs.stats.get(p) or {}))
    absent = ["%s on %s" % (r["best"], o.label) for m, r in named for o, _ in named
              if o is not m and r["best"] not in measured(o)]
    if absent:
        shaky += " Not measured everywhere: %s." % ", ".join(sorted(set(absent)))
    bests = set(r["best"] for _, r in named)
    if len(bests) < 2:
        return None
    groups = [set([r["best"]] + r["ties"]) for _, r in named]
    common = set.intersection(*groups)
    where = "; ".join("%s on %s (%d thr)" % (r["best"], m.label, r["threads"]) for m, r in named)
    if common:
        return ("*%s*: %s; within run-to-run noise: %s tied for best on every machine.%s"
                % (sc.text, where, ", ".join(sorted(common)), shaky))
    threads = set(r["threads"] for _, r in named)
    why = (" (judged at different thread counts: the contention differs)"
           if len(threads) > 1 else "")
    return ("*%s*: %s; no variant is tied for best on every machine%s.%s"
            % (sc.text, where, why, shaky))


def advice_section(ms, answers):
    out = ["## Which counter to use, per machine", "",
           "For each usage scenario of REPORT.md's \"Which counter to use on this machine\" "
           "(`plots/advice.py`: the same rules, computed from each set), the best variant on "
           "each machine, every variant tied with it (`=`: its min-max band overlaps the "
           "best's), its measure and the thread count judged (the most measured without "
           "oversubscription, so it differs between machines). Serial (racy) is never a "
           "candidate. Caveats in brackets: *by contract* (a probabilistic counter: %s), "
           "*stale get* (%s), *provisional: few runs* (under %d runs per point: no winner "
           "with confidence), *provisional: the machine was busy* / *the CPU was emulated* "
           "(the whole set)." % (advice.PROBABILISTIC_CAVEAT,
                                 "; ".join("%s: %s" % kv for kv in advice.STALE_READ.items()),
                                 claims.core.MIN_RUNS), "",
           "| Scenario | %s |" % " | ".join(cell(m.label) for m in ms),
           "|---|" + "---|" * len(ms)]
    for i, sc in enumerate(advice.SCENARIOS):
        out.append("| %s | %s |" % (cell(sc.text), " | ".join(
            cell(answer_cell(answers[m.label]["rows"][i], answers[m.label]["set_caveats"]))
            for m in ms)))
    out += ["", "Rules (as REPORT.md states them):", ""]
    out += ["- *%s*: %s" % (sc.text, sc.rule()) for sc in advice.SCENARIOS]
    out += ["", "### Where the machines disagree", ""]
    lines = [disagreement(sc, ms, {m.label: answers[m.label]["rows"][i] for m in ms}, answers)
             for i, sc in enumerate(advice.SCENARIOS)]
    lines = [x for x in lines if x]
    out += ["- " + x for x in lines] if lines else [
        "Nowhere: every scenario has the same best variant on every machine where one was "
        "named."]
    out.append("")
    return out


# --- throughput normalised to the baseline --------------------------------------

def panels_of(ms):
    """[(panel id, figure id, stats key)] of the throughput panels in any set, in
    figure-table order."""
    out = []
    for fid in THROUGHPUT:
        keys = []
        for m in ms:
            keys += [k for k in m.figs.stats if k[0] == fid and k not in keys]
        out += [(fid + sfx, fid, (fid, sfx)) for _, sfx in sorted(keys, key=lambda k: k[1])]
    return out


def levels_of(ms):
    """[(level label, {machine label: thread count})] and the matching rule (text)."""
    pus = set(m.pus for m in ms)
    if len(pus) == 1:
        ts = sorted(set(int(x) for m in ms for key in m.figs.stats if key[0] in THROUGHPUT
                        for pts in m.figs.stats[key].values() for x in pts
                        if x <= m.pus))
        return ([("%d thr" % t, {m.label: t for m in ms}) for t in ts],
                "every machine has %d PUs: points are matched at the same thread count "
                "(each count up to the PUs measured on some machine)" % pus.pop())
    return ([(name, {m.label: f(m.pus) for m in ms}) for name, f in FRACTIONS],
            "the machines differ in PUs (%s): points are matched at the same fraction of "
            "each machine's PUs: 1 thread, half the PUs (rounded down) and all the PUs, "
            "each machine at its own thread count" % ", ".join(
                "%s %d" % (m.label, m.pus) for m in ms))


def thread_span(xs):
    xs = sorted(int(x) for x in xs)
    return "%d" % xs[0] if len(xs) == 1 else ", ".join("%d" % x for x in xs)


def normalise(ms):
    """(values, unmatched, levels, rule): values {(panel, variant, level, machine):
    row dict}; unmatched: [dict(machine, set, panel, variant, threads, level, why)]."""
    levels, rule = levels_of(ms)
    values, unmatched = {}, []
    for pid, fid, key in panels_of(ms):
        variants = []
        for m in ms:
            variants += [s for s in (m.figs.stats.get(key) or {}) if s not in variants]
        for v in variants:
            for lname, at in levels:
                got, why = {}, {}
                for m in ms:
                    t = at[m.label]
                    st = m.figs.stats.get(key)
                    if not st:
                        why[m.label] = "experiment not in this set (%s)" % m.figs.entry(
                            fid).source
                    elif v not in st:
                        why[m.label] = "variant not measured in this set"
                    elif t not in st[v]:
                        why[m.label] = "no run at this thread count (measured: %s)" % (
                            thread_span(st[v]))
                    elif st[v][t]["oversub"]:
                        why[m.label] = "oversubscribed"
                    elif BASELINE not in st or t not in st[BASELINE] or \
                            not st[BASELINE][t]["median"]:
                        why[m.label] = "no %s run at this thread count to normalise by" % (
                            BASELINE)
                    else:
                        p, b = st[v][t], st[BASELINE][t]
                        got[m.label] = {
                            "panel": pid, "variant": v, "level": lname, "machine": m.label,
                            "set": m.path, "threads": t, "median": p["median"],
                            "baseline": b["median"], "ratio": p["median"] / b["median"],
                            "overlap": p["min"] <= b["max"] and b["min"] <= p["max"],
                            "runs": min(p["n"], b["n"])}
                for lab, row in got.items():
                    values[(pid, v, lname, lab)] = row
                if got and why:
                    for m in ms:
                        if m.label in why:
                            unmatched.append({"machine": m.label, "set": m.path, "panel": pid,
                                              "variant": v, "threads": at[m.label],
                                              "level": lname, "why": why[m.label]})
        # Points at thread counts that are no level of their machine.
        for m in ms:
            st = m.figs.stats.get(key) or {}
            used = set(at[m.label] for _, at in levels)
            for v, pts in st.items():
                for x in sorted(pts):
                    if int(x) in used:
                        continue
                    why = ("oversubscribed (more threads than the %d PUs)" % m.pus
                           if pts[x]["oversub"] or x > m.pus else
                           "not 1 thread, half or all of this machine's %d PUs (the "
                           "fractions matched)" % m.pus)
                    unmatched.append({"machine": m.label, "set": m.path, "panel": pid,
                                      "variant": v, "threads": int(x), "level": "",
                                      "why": why})
    return values, unmatched, levels, rule


def col_title(m, lname, at):
    """'vm, half the PUs (1 thr)', or 'vm, 2 thr' when the level is a thread count."""
    t = "%d thr" % at[m.label]
    return "%s, %s" % (m.label, lname) + ("" if lname == t else " (%s)" % t)


def normalised_section(ms, values, levels, rule, figures):
    out = ["## Throughput normalised to %s, per machine" % BASELINE, "",
           "Each variant's median throughput divided by %s's median throughput at the same "
           "thread count, in the same panel of the same set (so the machines' absolute "
           "speeds cancel out; %s is the hardware's atomic add, the simplest precise "
           "counter, measured in every throughput experiment). Matching: %s. `-`: the point "
           "could not be matched on that machine (see \"Points that cannot be matched\"); "
           "`~` after a value: its min-max band overlaps %s's (not told apart from it by "
           "these runs). Every value with its medians is in `atlas-normalised.csv`."
           % (BASELINE, BASELINE, rule, BASELINE), ""]
    cols = [(lname, at, m) for lname, at in levels for m in ms]
    for pid, fid, key in panels_of(ms):
        variants = []
        for m in ms:
            variants += [s for s in (m.figs.stats.get(key) or {}) if s not in variants]
        if not any((pid, v, c[0], c[2].label) in values for v in variants for c in cols):
            continue
        out += ["### %s" % pid, "",
                "| Variant | %s |" % " | ".join(cell(col_title(m, lname, at))
                                                 for lname, at, m in cols),
                "|---|" + "---|" * len(cols)]
        base = []
        for lname, at, m in cols:
            row = values.get((pid, BASELINE, lname, m.label))
            base.append(f_rate(row["baseline"]) if row else "-")
        out.append("| *%s ops/ms* | %s |" % (BASELINE, " | ".join(base)))
        for v in variants:
            cells = []
            for lname, at, m in cols:
                row = values.get((pid, v, lname, m.label))
                cells.append("-" if row is None else f_ratio(row["ratio"]) +
                             ("~" if row["overlap"] and v != BASELINE else ""))
            out.append("| %s | %s |" % (cell(v), " | ".join(cells)))
        out.append("")
        if pid in figures:
            out += ["![%s normalised](%s)" % (pid, figures[pid]), ""]
    return out


def unmatched_section(unmatched):
    out = ["## Points that cannot be matched", "",
           "A point (experiment panel, variant, thread count) of one machine that has no "
           "counterpart on another, grouped by machine, panel and reason; one row per point "
           "in `atlas-unmatched.csv`.", ""]
    if not unmatched:
        return out + ["None: every point of every set was matched.", ""]
    groups = {}
    for u in unmatched:
        g = groups.setdefault((u["machine"], u["panel"], u["why"]), {"v": [], "t": set()})
        if u["variant"] not in g["v"]:
            g["v"].append(u["variant"])
        g["t"].add(u["threads"])
    out += ["%d points, in %d groups:" % (len(unmatched), len(groups)), "",
            "| Machine | Experiment | Variants | Threads | Why |", "|---|---|---|---|---|"]
    for (mach, pid, why), g in groups.items():
        out.append("| %s | %s | %s | %s | %s |" % (cell(mach), pid, cell(", ".join(g["v"])),
                                                   thread_span(g["t"]), cell(why)))
    out.append("")
    return out


# --- the claims per machine -----------------------------------------------------

def verdict_cell(c):
    text = VERDICT_MD.get(c["verdict"], c["verdict"])
    if c.get("cause"):
        text += " (%s)" % c["cause"]
    return text


def claims_section(ms, judged, figure):
    out = ["## Which paper claims hold on which machine", "",
           "The verdict of every claim of REPORT.md on each machine, computed by the same "
           "rules (`plots/claims`; the reasons are in each set's REPORT.md); a *not "
           "measurable* verdict keeps its cause: %s." % "; ".join(
               "%s: %s" % kv for kv in claims.NM_CAUSES.items()), ""]
    for m in ms:
        counts = {}
        for c in judged[m.label]:
            counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
        out.append("- **%s**: %s%s." % (cell(m.label), ", ".join(
            phrase % counts.get(v, 0) for v, _, phrase in VERDICT_TEXT if phrase),
            "; %d by construction" % counts["by construction"]
            if counts.get("by construction") else ""))
    out.append("")
    if figure:
        out += ["![claims per machine](%s)" % figure, ""]
    out += ["| # | Claim (source) | %s |" % " | ".join(cell(m.label) for m in ms),
            "|---|---|" + "---|" * len(ms)]
    first = judged[ms[0].label]
    for i, c in enumerate(first):
        out.append("| %d | %s (%s) | %s |" % (i + 1, cell(c["claim"]), cell(c["source"]),
                                              " | ".join(verdict_cell(judged[m.label][i])
                                                         for m in ms)))
    out += ["", "### Claims judged differently", "",
            "Claims that hold on one machine and do not hold on another (a verdict that "
            "was judged on both), with each machine's reason:", ""]
    diff = []
    for i, c in enumerate(first):
        vs = [(m, judged[m.label][i]) for m in ms]
        judged_vs = set(x["verdict"] for _, x in vs if x["verdict"] in claims.core.JUDGED)
        if len(judged_vs) > 1:
            diff.append("- #%d %s: %s" % (i + 1, cell(c["claim"]), "; ".join(
                "%s: %s (%s)" % (cell(m.label), x["verdict"], cell(x["reason"]))
                for m, x in vs)))
    out += diff or ["None."]
    out.append("")
    return out


# --- figures --------------------------------------------------------------------

def draw_figures(out, ms, values, levels, judged):
    """atlas-<panel>.png/.pdf and atlas-claims.png/.pdf; ({panel: file}, claims
    file or None), or raises ImportError without matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    plt.rcParams.update({"font.size": 8, "svg.hashsalt": "scbench"})

    def save(fig, name):
        for ext in ("png", "pdf"):
            buf = io.BytesIO()
            fig.savefig(buf, format=ext, dpi=110, bbox_inches="tight",
                        metadata={"CreationDate": None} if ext == "pdf" else None)
            write_atomically(os.path.join(out, "%s.%s" % (name, ext)), buf.getvalue())
        plt.close(fig)
        return name + ".png"

    made = {}
    cols = [(lname, at, m) for lname, at in levels for m in ms]
    for pid, fid, key in panels_of(ms):
        variants = []
        for m in ms:
            variants += [s for s in (m.figs.stats.get(key) or {}) if s not in variants]
        grid = [[values.get((pid, v, c[0], c[2].label)) for c in cols] for v in variants]
        if not any(x for row in grid for x in row):
            continue
        logs = [[math.log2(x["ratio"]) if x and x["ratio"] > 0 else float("nan")
                 for x in row] for row in grid]
        span = max([1.0] + [abs(x) for row in logs for x in row if x == x])
        span = min(span, 10.0)
        fig, ax = plt.subplots(figsize=(1.6 + 1.05 * len(cols), 1.2 + 0.3 * len(variants)))
        cmap = plt.get_cmap("RdBu").copy()
        cmap.set_bad("#e0e0e0")
        im = ax.imshow(logs, cmap=cmap, vmin=-span, vmax=span, aspect="auto")
        for i, row in enumerate(grid):
            for j, x in enumerate(row):
                text = "-" if x is None else short_ratio(x["ratio"])
                dark = x is not None and abs(logs[i][j]) > 0.6 * span
                ax.text(j, i, text, ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
        ax.set_yticks(range(len(variants)))
        ax.set_yticklabels(variants)
        ax.set_xticks(range(len(cols)))
        # Rotated, one line each: side by side, machine names of any length
        # overlapped once there were more than a few columns.
        ax.set_xticklabels([col_title(m, lname, at) for lname, at, m in cols], fontsize=7,
                           rotation=40, ha="right", rotation_mode="anchor")
        for j in range(len(ms), len(cols), len(ms)):
            ax.axvline(j - 0.5, color="black", linewidth=1.2)
        bar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
        step = max(1, int(span) // 4)
        ticks = [t for t in range(-int(span), int(span) + 1) if t % step == 0]
        bar.set_ticks(ticks)
        bar.set_ticklabels(["%dx" % 2 ** t if t >= 0 else "1/%dx" % 2 ** -t for t in ticks])
        bar.set_label("throughput / %s's (log scale)" % BASELINE)
        ax.set_title("%s: each variant's median throughput over %s's at the same thread "
                     "count, per machine\n(grey '-': not matched on that machine)"
                     % (pid, BASELINE), fontsize=8)
        crowded = overlapping_labels(fig, ax.get_xticklabels())
        if crowded:
            print("plots/atlas: warning: atlas-%s: %d column labels overlap their neighbours"
                  % (pid, crowded), file=sys.stderr)
        made[pid] = save(fig, "atlas-" + pid)
    # The verdicts as a grid.
    order = [v for v, _, _ in VERDICT_TEXT]
    colours = {"holds": "#2ca02c", "consistent with": "#98df8a", "does not hold": "#d62728",
               "inconclusive": "#ffdd57", "not measurable": "#d9d9d9",
               "by construction": "#9ecae1"}
    first = judged[ms[0].label]
    grid = [[order.index(judged[m.label][i]["verdict"]) if judged[m.label][i]["verdict"]
             in order else float("nan") for m in ms] for i in range(len(first))]
    fig, ax = plt.subplots(figsize=(3.2 + 1.3 * len(ms), 1.0 + 0.16 * len(first)))
    cmap = ListedColormap([colours.get(v, "#ffffff") for v in order])
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(order) - 0.5, aspect="auto",
              interpolation="nearest")
    for i in range(len(first)):
        for j, m in enumerate(ms):
            c = judged[m.label][i]
            if c.get("cause"):
                ax.text(j, i, c["cause"], ha="center", va="center", fontsize=5)
    ax.set_yticks([i - 0.5 for i in range(1, len(first))], minor=True)
    ax.set_xticks([j - 0.5 for j in range(1, len(ms))], minor=True)
    ax.grid(which="minor", color="white", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.set_yticks(range(len(first)))
    ax.set_yticklabels(["%d %s" % (i + 1, c["id"]) for i, c in enumerate(first)], fontsize=5)
    ax.set_xticks(range(len(ms)))
    ax.set_xticklabels([m.label for m in ms], fontsize=7)
    ax.xaxis.tick_top()
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[v]) for v in order]
    ax.legend(handles, order, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
              fontsize=7, title="verdict (text: the not-measurable cause)", title_fontsize=7)
    return made, save(fig, "atlas-claims")


def overlapping_labels(fig, labels):
    """How many x tick labels overlap the next one, as drawn: side by side
    (unrotated) when their boxes meet; rotated by the same angle, when the
    distance between their parallel baselines, the ticks' spacing times the
    sine of the angle, is less than a line of their text."""
    renderer = fig.canvas.get_renderer()
    texts = [t for t in labels if t.get_text()]
    n = 0
    for a, b in zip(texts, texts[1:]):
        angle = math.radians(a.get_rotation())
        if angle == 0:
            n += a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))
            continue
        xa = a.get_transform().transform(a.get_position())[0]
        xb = b.get_transform().transform(b.get_position())[0]
        line = a.get_fontsize() * fig.dpi / 72 * 1.2
        n += abs(xb - xa) * math.sin(angle) < line
    return n


def short_ratio(r):
    """A ratio in a heat-map cell: 3 characters or so (1.2k, not 1.2e+03)."""
    if r >= 999.5:
        return "%.2gk" % (r / 1000.0) if r < 99500 else "%.0fk" % (r / 1000.0)
    return "%.0f" % r if r >= 99.5 else "%.2g" % r


# --- files ----------------------------------------------------------------------

def check_out(out, sets):
    """Refused when out is a result set, inside one, or inside a SET given."""
    real = os.path.realpath(out)
    for s in sets:
        rs = os.path.realpath(s)
        if real == rs or real.startswith(rs.rstrip(os.sep) + os.sep):
            raise Refused("--out %s is inside the result set %s: an atlas is written beside "
                          "result sets, never into one" % (out, s))
    d = real
    while True:
        if is_result_set(d):
            raise Refused("--out %s is inside the result set %s: an atlas is written beside "
                          "result sets, never into one" % (out, d))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    if os.path.exists(out) and not os.path.isdir(out):
        raise Refused("--out %s exists and is not a directory" % out)


def render(ms, answers, values, unmatched, levels, rule, judged, figures, claims_fig, note):
    out = ["# Atlas: which counter on which machine", "",
           "%d result sets from %d machines read side by side; generated by `plots/atlas %s`."
           % (len(ms), len(set(m.identity() for m in ms)),
              " ".join(m.path for m in ms)), ""]
    out += machines_section(ms)
    out += advice_section(ms, answers)
    out += normalised_section(ms, values, levels, rule, figures)
    out += claims_section(ms, judged, claims_fig)
    out += unmatched_section(unmatched)
    if note:
        out += ["## Figures", "", note, ""]
    return "\n".join(out)


def build(args):
    for s in args.sets:
        if not os.path.isdir(s):
            raise Refused("%s: not a directory" % s)
        if not any(os.path.isfile(os.path.join(s, n)) for n in SOURCES):
            raise Refused("%s: not a result set (none of %s)" % (s, ", ".join(SOURCES)))
    check_out(args.out, args.sets)
    ms = [Machine(s) for s in args.sets]
    check_machines(ms)
    label_machines(ms)
    for m in ms:
        m.build()
    answers = {m.label: advice.answers(m.rs, m.figs, m.m) for m in ms}
    judged = {m.label: claims.evaluate(claims.Context(m.rs, m.figs, m.m), claims.CLAIMS)
              for m in ms}
    values, unmatched, levels, rule = normalise(ms)
    os.makedirs(args.out, exist_ok=True)
    figures, claims_fig, note = {}, None, None
    if args.no_figures:
        note = "Not drawn (--no-figures)."
    else:
        try:
            figures, claims_fig = draw_figures(args.out, ms, values, levels, judged)
        except ImportError as e:
            note = "Not drawn: %s (apt-get install python3-matplotlib)." % e
            print("plots/atlas: no figures: %s" % e, file=sys.stderr)
    write_atomically(os.path.join(args.out, "atlas-normalised.csv"), csv_text(
        ["panel", "variant", "level", "machine", "threads", "median", "baseline", "ratio",
         "overlap", "runs", "set"], [values[k] for k in sorted(values)]))
    write_atomically(os.path.join(args.out, "atlas-unmatched.csv"), csv_text(
        ["machine", "panel", "variant", "threads", "level", "why", "set"], unmatched))
    write_atomically(os.path.join(args.out, "ATLAS.md"), render(
        ms, answers, values, unmatched, levels, rule, judged, figures, claims_fig, note))
    print("plots/atlas: %d machines, %d normalised values, %d points not matched, %d "
          "figures: %s" % (len(ms), len(values), len(unmatched),
                           len(figures) + (1 if claims_fig else 0),
                           os.path.join(args.out, "ATLAS.md")))
    return 0


def main(argv):
    import cli  # the parser of the plots tools (plots/cli.py)
    ap = cli.Parser(
        "plots/atlas",
        description="Read result sets from different machines side by side: writes "
                    "ATLAS.md, atlas-normalised.csv, atlas-unmatched.csv and figures "
                    "(doc/figures.md: An atlas across machines).")
    ap.add_argument("sets", metavar="SET", nargs="+", help="a result set (one per machine)")
    ap.add_argument("--out", metavar="DIR", default="atlas",
                    help="output directory (default ./atlas; created if missing; never "
                         "inside a result set)")
    ap.add_argument("--no-figures", action="store_true", help="ATLAS.md and the CSVs only")
    args = ap.parse_args(argv[1:])
    try:
        return build(args)
    except Refused as e:
        print("plots/atlas: %s" % e, file=sys.stderr)
        return 2
    except ResultSetError as e:
        print("plots/atlas: %s" % e, file=sys.stderr)
    except OSError as e:
        print("plots/atlas: %s: %s" % (e.filename or args.out, e.strerror or e),
              file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(guarded("plots/atlas", main, sys.argv))

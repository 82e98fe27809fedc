# SPDX-License-Identifier: MIT
"""Throughput normalised to FetchAdd's, per machine (plots/atlas): the points
of every throughput panel matched across machines (at the same thread count,
or at the same fraction of each machine's PUs when they differ), each
variant's median over the baseline's (atlas-normalised.csv), the points that
cannot be matched and why (atlas-unmatched.csv), and ATLAS.md's two sections
on them.
"""

from claims.core import f_rate, f_ratio
from figures import FIGURES, OPS_PER_MS
from report import cell

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

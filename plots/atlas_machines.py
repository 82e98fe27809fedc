# SPDX-License-Identifier: MIT
"""The machines of plots/atlas: each result set read (Machine: its data, its
statistics, its provenance, mode and label), its provenance checked (a set
without host, kernel, CPU or topology in every .meta.json, or with files from
different machines, is Refused), the labels that tell the sets apart, and
ATLAS.md's section "The machines".
"""

import os

from figbuild import load_set
from figures import FIGURES
from report import cell
from resultset import SOURCES, ResultSetError, check_number

# The provenance a set must record (meta.json, results/README.md): (field, what).
REQUIRED = [("host", "the machine's name"), ("kernel", "the kernel release"),
            ("cpu.model", "the CPU model"), ("cpu.sockets", "the sockets"),
            ("cpu.cores", "the cores"), ("topology.pus", "the PUs"),
            ("topology.nodes", "the NUMA nodes")]
COUNTS = ("cpu.sockets", "cpu.cores", "topology.pus", "topology.nodes")
NOT_RECORDED = "not recorded"


class Refused(Exception):
    """A set or an output directory the atlas will not take: one line."""


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

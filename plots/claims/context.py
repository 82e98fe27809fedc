# SPDX-License-Identifier: MIT
"""What a verdict rule may ask of the result set (Context): a figure's
statistics, an experiment's CSV, the timer's real step, the bimodal
throughput points, the count-to-N rows, and the generated "not measurable"
reasons for too few threads or NUMA nodes (threads_reason, nodes_reason).
Standard library only.
"""

from claims.core import DATA, MACHINE, not_measurable
from resultset import CLAIM_ONLY_CSV
from stats import batched_reads, batched_text, bimodal_split, group_stats, timer_step

# Experiments of run-all's plan with no figure yet: their CSV, read by
# Context.st as throughput by thread count; a set measured before they were planned
# has none, and a claim on them is not measurable for that reason.
EXPERIMENT_CSV = CLAIM_ONLY_CSV


class Context:
    """The result set (rs), the figures' statistics (figs) and the machine (m)."""

    def __init__(self, rs, figs, machine):
        self.rs = rs
        self.figs = figs
        self.m = machine
        self.cache = {}   # data shared by the rules of one family, by key
        self.needs = []   # the points the claim being judged wants more runs of

    def need_runs(self, fid, panel, series, x, runs):
        """Note that the point at x threads of figure fid (panel) of series is near
        its line and undecided on runs runs a side (claims/judge.py's needs_runs):
        its experiment (the figure's CSV), the variants, the thread count, and for
        a panel of one --work (baselines' -w0) that work. Count-to-N figures
        (their x is N, their runs are not split by run) are not noted."""
        fig = [f for f in self.figs.table if f.id == fid]
        source = EXPERIMENT_CSV.get(fid) or (fig[0].source if fig and fig[0].mode == "timed"
                                             else None)
        if not source:
            return
        need = {"experiment": source[:-len(".csv")], "counters": list(series), "threads": int(x),
                "runs": runs}
        if panel.startswith("-w") and panel[2:].isdigit():
            need["work"] = panel[2:]
        if need not in self.needs:
            self.needs.append(need)

    def st(self, fid, panel=""):
        """{series: {x: stats}} of a figure's panel, or None; for an experiment of
        EXPERIMENT_CSV its median ops/ms by thread count, from its CSV: all of its
        rows, or with panel "-wN" (as baselines' panels) the rows of N% work."""
        got = self.figs.stats.get((fid, panel))
        work = panel[2:] if panel.startswith("-w") and panel[2:].isdigit() else None
        if (got is None and fid in EXPERIMENT_CSV and (not panel or work is not None)
                and self.rs is not None):
            rows = [r for r in self.rs.rows(EXPERIMENT_CSV[fid], "timed")
                    if r.get("ops_per_ms") is not None and
                    (work is None or float(r.get("work_pct") or 0) == float(work))]
            if rows:
                got = group_stats(rows, lambda r: r["counter"], lambda r: int(r["threads"]),
                                  lambda r: r["ops_per_ms"])
        return got

    def missing(self, fid):
        """Why figure fid has no statistics."""
        if fid in EXPERIMENT_CSV:
            return not_measurable(DATA, "no data: %s is an experiment new to run-all's plan "
                                  ", not in this result set; the next sweep "
                                  "measures it" % EXPERIMENT_CSV[fid])
        for fig in self.figs.table:
            if fig.id == fid:
                if self.rs.csv(fig.source) is None:
                    return "%s is not in this result set" % fig.source
                return "%s has no usable rows" % fig.source
        return "no data"

    def timer_note(self, name):
        """What the timer of CSV name (read-cost.csv: read_ns; latency.csv: its
        histograms' buckets) resolves, measured: its real step beside the ns per
        tick its meta.json states; "" when it cannot be measured."""
        key = ("timer", name)
        if key not in self.cache:
            tick = ((self.rs.meta(name) or {}).get("ns_per_tick")
                    if self.rs is not None else None)
            if name == "latency.csv":
                found = self.rs.histograms(name) if self.rs is not None else None
                hists = found[0] if found else {}   # (histograms, paths read)
                # only buckets one tick wide can show the step (wider ones are the
                # histogram's own log-linear resolution)
                vals = [lo for h in hists.values() for (lo, hi), n in h.items()
                        if n > 0 and tick and hi - lo <= 1.01 * tick]
                what = "the occupied one-tick latency buckets"
            else:
                rows = self.rs.rows(name, "timed") if self.rs is not None else []
                batch = batched_reads(rows)
                if batch is not None:
                    return self.batched_note(key, name, batch)
                vals = [r.get("read_ns") for r in rows]
                what = "the distinct read_ns values"
            step = timer_step(vals, tick or 0.0) if tick else None
            self.cache[("step", name)] = step
            self.cache[key] = "" if step is None else (
                "timer step here %.3g ns (measured: the usual gap between %s of %s; "
                "meta.json states %.3g ns per tick)%s"
                % (step, what, name, tick, "; a difference below a step is not resolved"
                   if step > 1.5 * tick else ""))
        return self.cache[key]

    def batched_note(self, key, name, b):
        """timer_note of a read-cost CSV whose samples time K gets each (schema 6,
        stats.batched_reads b): resolved when the step is at most 1% of every
        sample; else the one-step note, the step being step / K per get."""
        self.cache[("step", name)] = b["per_get_ns"]
        if b["resolved"]:
            self.cache[key] = "timer: %s (read_k, timer_step_ns of %s)" % (batched_text(b),
                                                                        name)
        else:
            self.cache[key] = (
                "timer step here %.3g ns per get (the step of %.3g ns over the fewest gets "
                "of a sample, read_k and timer_step_ns of %s; a sample spans as few as %.0f "
                "steps); a difference below a step is not resolved"
                % (b["per_get_ns"], b["step_ns"], name, b["steps_min"]))
        return self.cache[key]

    def timer_step(self, name):
        """The timer's real step (ns) measured from CSV name's values (timer_note
        says how), or None."""
        self.timer_note(name)
        return self.cache.get(("step", name))

    def bimodal(self):
        """{(figure, panel): [(series, x, low runs, high runs, gap)]}: the throughput
        points whose runs split in two (stats.bimodal_split)."""
        if "bimodal" not in self.cache:
            out = {}
            for fig in getattr(self.figs, "table", []):
                for panel in fig.panels:
                    if not panel.ylabel.startswith("throughput"):
                        continue
                    st = self.figs.stats.get((fig.id, panel.suffix)) or {}
                    for s, pts in st.items():
                        for x in sorted(pts):
                            sp = bimodal_split(pts[x]["values"])
                            if sp:
                                out.setdefault((fig.id, panel.suffix), []).append(
                                    (s, x) + sp)
            self.cache["bimodal"] = out
        return self.cache["bimodal"]

    def count_rows(self, name):
        return self.rs.rows(name, "count")

    def timed_rows(self, names, variants):
        """Timed rows of the CSVs names of these variants that have a relative error."""
        return [r for name in names for r in self.rs.rows(name, "timed")
                if r["counter"] in variants and r.get("rel_error") is not None]

    def count_threads(self, name):
        rows = self.count_rows(name)
        return max(int(r["threads"]) for r in rows) if rows else 0

    @staticmethod
    def xs(stats, series):
        return sorted(x for s in series if s in stats for x in stats[s])

    def largest_threads_text(self, stats):
        xs = [x for pts in stats.values() for x in pts]
        t = int(max(xs)) if xs else 0
        return ("the largest thread count in this result set is %d (machine: %s PUs, %s)"
                % (t, self.m.get("pus", "?"), self.m.get("nodes_text", "? nodes")))

    def threads_reason(self, claim, stats=None, used=None):
        """Why claim cannot be judged with the thread counts here: against the
        largest thread count of stats (a threads axis), or against used, the one
        thread count of a count-to-N set."""
        t = claim.threads
        if used is not None:
            if claim.threads_at:
                why = ("%s counted with %d threads; this set used %d (machine: %s PUs)"
                       % (claim.paper, t, used, self.m.get("pus", "?")))
            else:
                why = "needs at least %d threads" % t
        else:
            phrase = claim.threads_text or ("{threads} threads" if claim.threads_at
                                            else "at least {threads} threads")
            why = "needs %s; %s" % (phrase.format(threads=t), self.largest_threads_text(stats))
        return not_measurable(MACHINE, why + claim.threads_why)

    def nodes_reason(self, claim):
        """Why claim cannot be judged on this machine's NUMA nodes, or None."""
        if claim.nodes <= 1:
            return None
        if self.m.get("nodes_virtual") or (self.m.get("nodes") or 1) < claim.nodes:
            return not_measurable(MACHINE, "needs at least %d real NUMA nodes%s; this machine "
                                  "has %s" % (claim.nodes, claim.nodes_why,
                                              self.m.get("nodes_text", "1 node")))
        return None

    def point(self, claim, stats, series, t):
        """(stats dict, None) or (None, reason) for one series at exactly t threads."""
        if series not in stats:
            return None, "%s was not measured" % series
        if t not in stats[series]:
            return None, self.threads_reason(claim, stats)
        p = stats[series][t]
        if p["oversub"]:
            return None, not_measurable(MACHINE, "needs %d threads on %d PUs; the %d-thread "
                                        "point here was oversubscribed (%s PUs)"
                                        % (t, t, t, self.m.get("pus", "?")))
        return p, None

    def context_at_max(self, stats, series, fmt, col="median"):
        """'at 2 threads (the most here): A x, B y' for a claim that cannot be checked."""
        xs = self.xs(stats, series)
        if not xs:
            return ""
        t = xs[-1]
        parts = ["%s %s" % (s, fmt(stats[s][t][col])) for s in series
                 if s in stats and t in stats[s]]
        return "at %d threads (the most here): %s" % (t, ", ".join(parts))

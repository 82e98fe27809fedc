# SPDX-License-Identifier: MIT
"""What a plan will run and what it will not: the requests an experiment
drops (a variant it does not run, a thread count above the machine's PUs),
said in one line each; --dry-run's listing per experiment (variants, thread
counts, invocations, time); the one estimate of a whole run (the runs from
the plan, plus the figures and the report). Writes nothing."""

from . import plan as PL

# Seconds plots/regen takes per experiment's CSV of a result set (the figures
# with gnuplot and matplotlib, the claims, the report), and once for the rest:
# measured on the 2-PU development machine (a --quick set of the 11
# experiments: 82 s, loaded by other builds; the reference set: 95 s).
FIGURES_PER_EXPERIMENT_S = 6.5
FIGURES_FIXED_S = 15.0


def by_experiment(points):
    """{experiment: (variants in plan order, thread counts)} of point lines."""
    out = {}
    for line in points:
        ident, _, args = line.split(" ", 2)
        vs, ts = out.setdefault(ident, ([], []))
        for v in PL.option(args, "counter").split(","):
            if v not in vs:
                vs.append(v)
        t = int(PL.option(args, "threads"))
        if t not in ts:
            ts.append(t)
    return out


def names(reg, vs):
    return reg.names if vs == ["all"] else vs


def dropped(o, reg, full, threads):
    """One line per request the plan will not run: per chosen experiment the
    requested variants it does not run, and thread counts capped by the PUs."""
    out = []
    if o.max_threads is not None and o.max_threads > threads[-1]:
        out.append("--max-threads=%d: this machine has %d PUs, so the thread counts are %s "
                   "(no point runs more threads than PUs)"
                   % (o.max_threads, threads[-1], " ".join(map(str, threads))))
    if not o.variants:
        return out
    exps = by_experiment(full)
    for e in o.experiments or PL.EXPERIMENTS:
        if e not in exps:
            continue
        runs = names(reg, exps[e][0])
        lost = [v for v in o.variants if v not in runs]
        if lost and len(lost) < len(o.variants):
            out.append("%s does not run %s (its variants: %s)"
                       % (e, ", ".join(lost), ", ".join(runs)))
        elif lost:
            out.append("%s runs none of %s: left out (its variants: %s)"
                       % (e, ", ".join(lost), ", ".join(runs)))
    return out


def figures_seconds(experiments):
    return FIGURES_FIXED_S + FIGURES_PER_EXPERIMENT_S * len(experiments)


def total(plan, mode, reg, threads):
    """(seconds of runs, seconds of figures) of a split plan's lines."""
    nall = len(reg.names)
    est = PL.estimates(plan, mode, nall, threads[-1], set_calibrated=True)
    exps = sorted({line.split(" ", 1)[0] for line in plan})
    return sum(est.values()), figures_seconds(exps)


def confirm_text(confirm_min):
    """', then at most N min of --confirm runs' when the budget is on."""
    return (", then at most %d min of --confirm runs where a claim is undecided near its "
            "line" % confirm_min) if confirm_min else ""


def minutes(s):
    return "%.1f min" % (s / 60) if s >= 60 else "%.0f s" % s


def listing(mode, reg, points, plan, threads, confirm_min=0):
    """--dry-run's lines: per experiment what runs, how many invocations, how long;
    confirm_min: the --confirm budget, said after the total."""
    est = PL.estimates(plan, mode, len(reg.names), threads[-1], set_calibrated=True)
    exps = by_experiment(points)
    out = ["%s mode on this machine (%d PUs): thread counts %s"
           % (mode, PL.pu_count(), " ".join(map(str, threads)))]
    for e in [x for x in PL.EXPERIMENTS if x in exps]:
        vs, ts = exps[e]
        mine = [line for line in plan if line.split(" ", 1)[0] == e]
        secs = sum(est[" ".join(line.split(" ", 2)[:2])] for line in mine)
        out.append("  %-15s %4d invocations, about %-8s %d variant%s at %s thread%s: %s"
                   % (e, len(mine), minutes(secs), len(names(reg, vs)),
                      "" if len(names(reg, vs)) == 1 else "s", ",".join(map(str, ts)),
                      "" if ts == [1] else "s", " ".join(names(reg, vs))))
    runs, figs = total(plan, mode, reg, threads)
    out.append("total: %d invocations, about %s (%s of runs, %s of figures and the report)"
               % (len(plan), minutes(runs + figs), minutes(runs), minutes(figs)))
    if confirm_min:
        out.append("--confirm: after these%s" % confirm_text(confirm_min))
    return out

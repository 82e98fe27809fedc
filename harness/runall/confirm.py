# SPDX-License-Identifier: MIT
"""--confirm=MINUTES: after the planned rounds, runs added only where a
claim is undecided near its line, until each is decided, the sequential rule's
last look is reached (plots/stats.py SEQ_LOOKS) or the budget is spent.

Each pass judges the merged set (plots/aggregate.py, then plots/report.py
--needs-runs, whose JSON is parsed and validated: nothing read from the result
set is executed), adds the runs that bring each point it names to its next look
(new run indices, --first-run=K, one line per run as the planned ones), records
them in run-all.plan (beside the point's planned runs) and run-all.order (a
round per run index, shuffled, under a comment naming the confirmation round)
before any runs, and runs them with the planned rounds' machinery: the progress
line, busy detection, Ctrl-C and --resume (which runs what is recorded and not
done, then goes on confirming)."""

import json
import os
import re
import signal
import subprocess
import sys
import time

from . import Usage, say
from . import merge as M
from . import parts as P
from . import plan as PL
from . import setpath as S

# Minutes of confirmation runs by mode: the default mode's planned runs take about
# 15 minutes on 2 PUs, so 8 keeps it under 25; --quick decides nothing near a line
# on its one run, and --paper-errors measures errors, not ratios.
DEFAULT_MINUTES = {"quick": 0, "default": 8, "paper": 60, "paper-errors": 0}
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def minutes(o, mode):
    """The budget in minutes: --confirm=MINUTES (checked), else the mode's."""
    if o.confirm is None:
        return DEFAULT_MINUTES[mode]
    if not re.fullmatch(r"0|[1-9][0-9]{0,4}", o.confirm):
        raise Usage("--confirm=%s: expected minutes, an integer in [0, 99999] (0: no "
                    "confirmation runs)" % o.confirm)
    return int(o.confirm)


def needs(ctx):
    """The points to run more of, from the judge: [{experiment, counters, threads,
    work (optional), next}], or None when the plots are not there to judge."""
    plots = os.path.join(ctx.top, "plots")
    agg, rep = os.path.join(plots, "aggregate.py"), os.path.join(plots, "report.py")
    if not (os.path.isfile(agg) and os.path.isfile(rep)):
        return None
    ctx.child = subprocess.Popen([sys.executable, agg, ctx.dir], stdout=subprocess.DEVNULL)
    status = ctx.child.wait()
    ctx.child = None
    if status != 0:
        return None
    out = subprocess.run([sys.executable, rep, "--needs-runs", ctx.dir], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout
    try:
        doc = json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    got = []
    for n in doc.get("needs", []) if isinstance(doc, dict) else []:
        if isinstance(n, dict) and type(n.get("next")) is int and 1 <= n["next"] <= 1000 \
                and type(n.get("threads")) is int and isinstance(n.get("experiment"), str) \
                and isinstance(n.get("counters"), list):
            got.append(n)
    return got


def point_of(chunk):
    """(point, run index) of a planned run's chunk "t2-CAS-r1", or None."""
    m = re.fullmatch(r"(.+)-r([0-9]+)", chunk)
    return (m.group(1), int(m.group(2))) if m else None


def added(plan, wanted):
    """The plan with the runs wanted added ([(ID, CHUNK, ARGS)] each inserted after
    its point's last run), and the runs added."""
    last = {}   # (ID, point) -> (index in plan, run index, args)
    for j, (ident, chunk, args) in enumerate(plan):
        p = point_of(chunk)
        if p and PL.option(args, "first-run") == str(p[1]):
            if (ident, p[0]) not in last or p[1] > last[(ident, p[0])][1]:
                last[(ident, p[0])] = (j, p[1], args)
    extra = {}
    for n in wanted:
        for (ident, point), (j, k, args) in last.items():
            if ident != n["experiment"] or PL.option(args, "counter") not in n["counters"] \
                    or PL.option(args, "threads") != str(n["threads"]) \
                    or ("work" in n and PL.option(args, "work") != n["work"]):
                continue
            for r in range(k + 1, n["next"]):
                extra.setdefault(j, {})[r] = (ident, "%s-r%d" % (point, r), re.sub(
                    r"(^| )--first-run=[0-9]+", r"\1--first-run=%d" % r, args))
    out, new = [], []
    for j, line in enumerate(plan):
        out.append(line)
        for r in sorted(extra.get(j, {})):
            out.append(extra[j][r])
            new.append(extra[j][r])
    return out, new


def record(ctx, plan, new, rnd):
    """run-all.plan and run-all.order with the new runs, written with the signals
    held (a Ctrl-C between the two files would leave them disagreeing); returns
    the new runs in their order."""
    seed = (ctx.order_seed + 7919 * rnd) % 2147483646 + 1
    mine = PL.shuffle(["%s %s %s" % line for line in new], seed)
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        M.write_file(os.path.join(ctx.dir, "run-all.plan"),
                     "".join("%s %s %s\n" % line for line in plan))
        with open(S.inside(ctx.dir, "run-all.order"), encoding="utf-8") as f:
            text = f.read()
        M.write_file(os.path.join(ctx.dir, "run-all.order"), text + (
            "# confirmation round %d (--confirm): runs added near a claim's line, shuffled "
            "from seed %d\n" % (rnd, seed)) + "".join(k + "\n" for k in mine))
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    by = {i + " " + c: (i, c, a) for i, c, a in new}
    return [by[k] for k in mine]


def confirm(ctx, plan, budget_min):
    """Confirmation rounds until no claim needs runs, the last look is reached or
    the next round's estimate would pass budget_min minutes (the plan's estimate
    of its runs, scaled after the first round by the time the rounds took against
    their estimate); returns the plan."""
    if budget_min <= 0:
        return plan
    with open(S.inside(ctx.dir, "run-all.order"), encoding="utf-8") as f:
        rnd = sum(1 for line in f if line.startswith("# confirmation round "))
    spent = estimated = 0.0
    while True:
        wanted = needs(ctx)
        if wanted is None:
            say("--confirm: no judge here (plots/ missing or failed): no confirmation runs")
            return plan
        plan2, new = added(plan, wanted)
        claims = sorted(set(n.get("claim", "") for n in wanted))
        if not new:
            if claims:
                say("--confirm: %d claim(s) still undecided near their line at the last look"
                    % len(claims))
            return plan
        est = PL.estimates(["%s %s %s" % line for line in new], ctx.mode, 0, ctx.threads[-1])
        # the plan's estimate, scaled by what the rounds before took against theirs
        cost = sum(est.values()) * (spent / estimated if estimated and spent else 1.0)
        if spent + cost > budget_min * 60:
            say("--confirm: the next round (%d runs, about %.1f min) would pass the budget "
                "(%d min, %.1f spent): %d claim(s) left undecided near their line; more with "
                "--resume %s --confirm=MINUTES" % (len(new), cost / 60, budget_min,
                                                    spent / 60, len(claims), P.quote(ctx.dir)))
            return plan
        rnd += 1
        say("--confirm: round %d: %d run(s) at %d point(s) near the line of %d undecided "
            "claim(s): %s" % (rnd, len(new), len(set((i, point_of(c)[0]) for i, c, _ in new)),
                              len(claims), ", ".join(claims[:6])))
        mine = record(ctx, plan2, new, rnd)
        plan = plan2
        started = time.time()
        P.run(ctx, mine, est)
        spent += time.time() - started
        estimated += sum(est.values())
        M.merge(ctx, plan)

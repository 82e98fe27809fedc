# SPDX-License-Identifier: MIT
"""The points whose claims want more runs: `plots/report.py --needs-runs
DIR` prints them as JSON for run-all's --confirm, from DIR/figdata/claims.json.

A claim lists them ("needs_runs", claims/judge.py) when it is inconclusive only
because some of its points lie near their line on fewer runs than the sequential
rule's last look (stats.SEQ_LOOKS); a claim undecided for another reason (not
measurable, no test here, evidence only at fewer threads) lists none. Each point
is validated here (claims.json is data), and carries the next look of the
schedule: the runs a side it should have before it is judged again."""

import re

from resultset import COLUMNS
from stats import SEQ_LOOKS, seq_first_look

# scbench's largest thread count, as its CSV schema declares it.
MAX_THREADS = COLUMNS["threads"][2]
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")


def next_look(runs):
    """The first look of SEQ_LOOKS above runs that can decide a point near its line
    (a look below stats.seq_first_look() cannot: no runs are added for it), or
    None when none is left."""
    return next((n for n in SEQ_LOOKS if n > runs and n >= seq_first_look()), None)


def valid(need):
    """need as a clean dict, or None when any field is not what judge.py writes."""
    if not isinstance(need, dict):
        return None
    exp, counters = need.get("experiment"), need.get("counters")
    threads, runs, work = need.get("threads"), need.get("runs"), need.get("work")
    if not (isinstance(exp, str) and NAME.match(exp) and isinstance(counters, list) and counters
            and all(isinstance(v, str) and NAME.match(v) for v in counters)):
        return None
    if not (type(threads) is int and 1 <= threads <= MAX_THREADS and type(runs) is int
            and 1 <= runs <= 1000):
        return None
    if work is not None and not (isinstance(work, str) and re.fullmatch(r"[0-9]{1,3}", work)):
        return None
    out = {"experiment": exp, "counters": list(counters), "threads": threads, "runs": runs}
    if work is not None:
        out["work"] = work
    return out


def needs_runs(doc):
    """{"looks": SEQ_LOOKS, "needs": [...]}: each point of an inconclusive claim's
    needs_runs with its claim id and next look; points at the last look are left
    out (no look is left for them), and so is anything malformed."""
    out = []
    for c in doc.get("claims", []) if isinstance(doc, dict) else []:
        if not isinstance(c, dict) or c.get("verdict") != "inconclusive":
            continue
        for need in c.get("needs_runs") or []:
            need = valid(need)
            if need is None or next_look(need["runs"]) is None:
                continue
            need["claim"] = str(c.get("id", ""))[:100]
            need["next"] = next_look(need["runs"])
            out.append(need)
    return {"looks": list(SEQ_LOOKS), "needs": out}

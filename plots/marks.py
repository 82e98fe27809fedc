# SPDX-License-Identifier: MIT
"""Which points of a figure are marked (drawn boxed: an open square around
the variant's own marker), and why: the one statement in Python of the rule
scbench's table flags b, t and o follow (harness/summary.h).

A point is one series at one x of one figure; its runs are the CSV rows behind
it. It is marked when any of its runs
  b  ran on a busy machine (the CSV's busy column is 1: load.h's rule),
  t  in timed mode, measured for a time further from its target (the command
     line's --duration, scbench's default 8 s; unknown, so no t, for a CSV
     without its .meta.json) than TIME_SLACK_S + TIME_SLACK x the target,
  o  in timed mode with OUTLIER_MIN_RUNS or more runs, has a ln(ops/ms) further
     from the median of the point's lns than OUTLIER_K x MAD_SCALE x their
     median absolute deviation (MAD_SCALE makes the MAD estimate a standard
     deviation under normal noise).
A count-mode run (--ops) has no time target, and its ops/ms, over a run of
microseconds, measures start-up: only b applies to it.
The marks go to the renderers as the .dat files' 'marked' column (a sum of the
bits below; 0: not marked) and, when a figure has one, a caption line.
Standard library only.
"""

import math

from stats import median

TIME_SLACK_S = 0.05       # summary.h SUMMARY_TIME_SLACK_S
TIME_SLACK = 0.10         # summary.h SUMMARY_TIME_SLACK
OUTLIER_K = 3.0           # summary.h SUMMARY_OUTLIER_K
OUTLIER_MIN_RUNS = 5      # summary.h SUMMARY_OUTLIER_MIN_RUNS
MAD_SCALE = 1.4826
DEFAULT_DURATION_S = 8.0  # scbench's --duration when the command line gives none

BUSY, TIME_OFF, OUTLIER = 1, 2, 4
WHY = ((BUSY, "b", "a busy run"), (TIME_OFF, "t", "a run off its time target"),
       (OUTLIER, "o", "an outlier run"))

RULE = ("b: a run on a busy machine (the busy column); t: a timed run measured more than "
        "%.2f s + %.0f%% off its --duration; o: with %d or more timed runs, a run whose "
        "ln(ops/ms) is beyond %g x %g x MAD of the point's lns"
        % (TIME_SLACK_S, TIME_SLACK * 100, OUTLIER_MIN_RUNS, OUTLIER_K, MAD_SCALE))


def target_seconds(command_line):
    """The --duration of a timed command line (a list of words), in seconds; the
    default when it names none; None when the value is not a positive number or
    there is no command line (a CSV without its .meta.json: the target is unknown)."""
    if not command_line:
        return None
    for a in command_line:
        if isinstance(a, str) and a.startswith("--duration="):
            try:
                v = float(a.split("=", 1)[1])
            except ValueError:
                return None
            return v if v > 0 and math.isfinite(v) else None
    return DEFAULT_DURATION_S


def time_off(seconds, target):
    """A run of seconds measured off target by the t rule."""
    return abs(seconds - target) > TIME_SLACK_S + TIME_SLACK * target


def outlier(ops_per_ms):
    """Any of the values an outlier by the o rule (non-positive values are left out)."""
    lns = [math.log(v) for v in ops_per_ms
           if isinstance(v, (int, float)) and v > 0 and math.isfinite(v)]
    if len(lns) < OUTLIER_MIN_RUNS:
        return False
    med = median(lns)
    dev = [abs(v - med) for v in lns]
    mad = median(dev)
    return mad > 0 and max(dev) > OUTLIER_K * MAD_SCALE * mad


def point_marks(rows, target):
    """The bits (BUSY, TIME_OFF, OUTLIER) of a point's runs rows (CSV row dicts);
    target: the timed runs' target seconds (None: no t)."""
    bits = 0
    if any(r.get("busy") == 1 for r in rows):
        bits |= BUSY
    timed = [r for r in rows if r.get("mode") == "timed"]
    if target is not None and any(isinstance(r.get("seconds"), (int, float)) and
                                  time_off(r["seconds"], target) for r in timed):
        bits |= TIME_OFF
    if outlier([r.get("ops_per_ms") for r in timed]):
        bits |= OUTLIER
    return bits


def letters(bits):
    """'bt', 'o', ... of a point's bits ('' when not marked)."""
    return "".join(c for b, c, _ in WHY if bits & b)


def caption(n):
    """The caption line of a figure with n marked points."""
    return ("boxed: a busy run, a run off its time target, or an outlier run; %d point%s"
            % (n, "" if n == 1 else "s"))


def figure_caption(captions):
    """One caption for a figure of side-by-side panels, from its panels'
    caption() lines, left to right ('' for a panel without a marked point):
    the panels' counts in one line, '' when no panel has a marked point."""
    counts = [int(c.rsplit("; ", 1)[1].split()[0]) if c else 0 for c in captions]
    if not any(counts):
        return ""
    head = caption(2).rsplit("; ", 1)[0]
    if len(counts) == 1:
        return caption(counts[0])
    if len(set(counts)) == 1:
        return "%s; %d points in each panel" % (head, counts[0])
    return "%s; %s points in the panels from left to right" % (
        head, ", ".join(str(n) for n in counts))

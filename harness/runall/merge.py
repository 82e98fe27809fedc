# SPDX-License-Identifier: MIT
"""Merging the parts of each experiment into DIR/ID.csv with its meta.json
(and DIR/ID.csv.latency.csv from the parts' histogram sidecars), the list of
failed points, and the checks a merge needs: every part there and whole, all
from machines of one kind."""

import csv
import io
import json
import os
import re

from . import Failure, say
from . import calibrate as CAL
from . import setpath as S

# A part's fields are read whatever their length (a .failed reason, a long
# end_state): csv's default limit of 128 KiB made a merge fail.
csv.field_size_limit(2 ** 31 - 1)
# A failed point's reason in failed-points.csv: its first line, this long at most.
REASON_MAX = 1000
from . import parts as P
from .plan import option

# What must be equal in every part's meta.json for the parts to make one set:
# (label, path of keys).
PROVENANCE = (("cpu model", ("cpu", "model")), ("PUs", ("topology", "pus")),
              ("NUMA nodes", ("topology", "nodes")), ("kernel", ("kernel",)))
ORDER_NOTE = ("run-all.order: repetition r of every timed point of every experiment before repetition "
              "r+1, each round shuffled by the order seed; count-to-N last")


def read_meta(path):
    """A part's meta.json as a dict ({} when it is no JSON object)."""
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("%s: not a JSON file (%s)" % (path, str(e).splitlines()[0]))
    return meta if isinstance(meta, dict) else {}


def field(meta, keys):
    for k in keys:
        meta = meta.get(k) if isinstance(meta, dict) else None
    return meta


def check_parts(d, plan):
    """Every part of the plan is whole or recorded as failed: else Failure
    listing the missing and incomplete ones."""
    bad = []
    for ident, chunk, args in plan:
        part = P.path(d, ident, chunk)
        if os.path.exists(part + ".failed"):
            continue
        if not os.path.exists(part):
            bad.append("missing: parts/%s/%s.csv" % (ident, chunk))
        elif not P.complete(part, args):
            bad.append("incomplete: parts/%s/%s.csv" % (ident, chunk))
    if bad:
        more = ["... and %d more" % (len(bad) - 20)] if len(bad) > 20 else []
        head = "%d of the plan's %d parts are not done: nothing merged" % (len(bad), len(plan))
        raise Failure("\n".join([head] + bad[:20] + more))


def check_one_kind(metas):
    """All parts from machines of one kind (PROVENANCE equal): else Failure
    naming the parts that differ from the first and in what."""
    if not metas:
        return
    (first, m0), bad = metas[0], []
    for name, m in metas[1:]:
        diff = ["%s %r (not %r)" % (label, field(m, keys), field(m0, keys)) for label, keys in PROVENANCE
                if field(m, keys) != field(m0, keys)]
        if diff:
            bad.append("%s: %s" % (name, ", ".join(diff)))
    if bad:
        more = ["... and %d more" % (len(bad) - 20)] if len(bad) > 20 else []
        head = "the parts come from machines of different kinds (against %s): nothing merged" % first
        raise Failure("\n".join([head] + bad[:20] + more))


def read_part(d, ident, chunk):
    """(header, rows) of a part's CSV, each a list of fields; Failure naming
    the part when it is no CSV (a field over csv's 128 KiB limit: scbench
    writes none)."""
    name = "parts/%s/%s.csv" % (ident, chunk)
    try:
        with open(P.path(d, ident, chunk), encoding="utf-8", errors="surrogateescape", newline="") as f:
            table = list(csv.reader(f))
    except csv.Error as e:
        raise Failure("%s: not a CSV file (%s): nothing merged" % (name, e))
    return (table[0] if table else []), table[1:]


def point_problems(name, header, rows, args):
    """What in a part's rows is not the point of its plan line args: each row
    with the header's field count, and the (counter, threads, run) keys exactly
    those of --counter, --threads and --first-run/--runs, each once (for
    --counter=all, which split() leaves in no plan line run-all writes, only
    the threads, the runs and that no key is there twice)."""
    col = {c: i for i, c in enumerate(header)}
    if not all(c in col for c in ("counter", "threads", "run")):
        return ["%s: its header has no counter, threads or run column" % name]
    for n, r in enumerate(rows, 2):
        if len(r) != len(header):
            return ["%s line %d: %d fields, the header has %d" % (name, n, len(r), len(header))]
    given = option(args, "counter")
    counters = None if given == "all" else given.split(",")
    first = int(option(args, "first-run", last=True) or 0)
    runs = range(first, first + int(option(args, "runs", last=True)))
    threads = option(args, "threads", last=True)
    got = [(r[col["counter"]], r[col["threads"]], r[col["run"]]) for r in rows]
    if counters is None:
        odd = [k for k in got if k[1] != threads or not re.fullmatch(r"[0-9]{1,9}", k[2])
               or int(k[2]) not in runs]
        if odd or len(set(got)) != len(got):
            return ["%s: rows of another point (%s) or one twice; its plan line: %s"
                    % (name, ",".join(odd[0]) if odd else "a key twice", args)]
        return []
    want = {(c, threads, str(r)) for c in counters for r in runs}
    extra = [k for k in got if k not in want]
    if extra:
        return ["%s: a row of another point (counter %s, threads %s, run %s); its plan line: %s"
                % ((name,) + extra[0] + (args,))]
    if len(got) != len(set(got)) or set(got) != want:
        twice = [k for k in got if got.count(k) > 1]
        what = ("counter %s, threads %s, run %s twice" % twice[0] if twice
                else "counter %s, threads %s, run %s missing" % sorted(want - set(got))[0])
        return ["%s: %s; its plan line: %s" % (name, what, args)]
    return []


def usual(values):
    """{group: (value, name)}: the value most parts of a group have (on a tie,
    the first part's), with a part that has it; values: [(group, value, name)]."""
    count, first = {}, {}
    for g, v, name in values:
        count[(g, v)] = count.get((g, v), 0) + 1
        first.setdefault((g, v), name)
    best = {}
    for (g, v), n in count.items():  # insertion order: the first part's value wins a tie
        if g not in best or n > count[(g, best[g][0])]:
            best[g] = (v, first[(g, v)])
    return best


def check_schema(d, done, meta_of):
    """Every part of one schema, before anything is written: the header most
    parts of its experiment have, the schema_version and source_revision most
    parts of the set have, and rows that are its plan line's points; else
    Failure naming the parts that differ."""
    read = [(i, c, a, "parts/%s/%s.csv" % (i, c)) + read_part(d, i, c) for i, c, a in done]
    key = {"schema_version": lambda i, c: json.dumps(meta_of[(i, c)].get("schema_version")),
           "source_revision": lambda i, c: json.dumps(meta_of[(i, c)].get("source_revision"))}
    sets = {label: usual([(0, f(i, c), name) for i, c, _, name, _, _ in read])[0]
            for label, f in key.items() if read}
    headers = usual([(i, tuple(h), name) for i, _, _, name, h, _ in read])
    bad = []
    for ident, chunk, args, name, header, rows in read:
        for label, f in key.items():
            v, other = sets[label]
            if f(ident, chunk) != v:
                bad.append("%s: %s %s (%s has %s)" % (name, label, f(ident, chunk), other, v))
        cmd = meta_of[(ident, chunk)].get("command_line")
        if isinstance(cmd, list) and all(isinstance(a, str) for a in cmd) and \
                any(a.startswith("--output=") for a in cmd):  # scbench's record of its invocation
            ran = [a for a in cmd[1:] if not a.startswith("--output=")]
            if ran != args.split():
                bad.append("%s: made by scbench %s, not by its plan line (%s)" % (name, " ".join(ran), args))
        h0, other = headers[ident]
        if tuple(header) != h0:
            at = next((i for i, (a, b) in enumerate(zip(header, h0)) if a != b), min(len(header), len(h0)))
            bad.append("%s: its header differs from %s's at column %d (%s, not %s)"
                       % (name, other, at + 1, (header + ["nothing"])[at], (list(h0) + ["nothing"])[at]))
            continue
        bad.extend(point_problems(name, header, rows, args))
    if bad:
        more = ["... and %d more" % (len(bad) - 20)] if len(bad) > 20 else []
        head = "%d part(s) do not fit the plan or the set's schema: nothing merged" % len(bad)
        raise Failure("\n".join([head] + bad[:20] + more))


def text_lines(path):
    """The lines of path, each with its newline (the last as it is)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        lines = [line + "\n" for line in f.read().split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def write_file(path, text):
    """path written through path.tmp (made new: never through a link or
    into a file linked elsewhere) renamed into place."""
    with S.create(path + ".tmp") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def meta_text(meta):
    """scbench's layout: one top-level key a line; a path's byte that is not
    UTF-8 (a surrogate escape) as scbench writes it, \\udcXX: the file is UTF-8."""
    text = "{\n" + ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v, ensure_ascii=False))
                              for k, v in meta.items()) + "\n}\n"
    return re.sub("[\udc80-\udcff]", lambda m: "\\u%04x" % ord(m.group()), text)


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def merged_load(csv_text, load):
    """The meta's "load" (one part's runs) made the whole experiment's, from
    the CSV's load columns: runs, busy runs, the largest load average,
    runnable count, other processes' PUs and steal; the busy rule is
    scbench's (harness/load.h). Without the columns (an older scbench) None."""
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    if not rows or "busy" not in rows[0] or not isinstance(load, dict):
        return None
    def most(col):
        return max([number(r.get(col)) for r in rows if r.get(col)] + [0.0])
    busy = sum(r["busy"] == "1" for r in rows)
    return {"runs": len(rows), "busy_runs": busy, "busy": busy > 0,
            "load1_max": round(most("load1"), 2), "runnable_max": int(most("runnable")),
            "other_pus_max": round(most("other_pus"), 3), "steal_pct_max": round(most("steal_pct"), 2),
            "busy_rule": load.get("busy_rule")}


def merged_meta(ctx, ident, meta, nparts, hosts, dates):
    """The meta.json of the part with the most threads (its placement map;
    calibration and command line are that invocation's: each row's work_iters
    is its own), plus "run_all", how the parts were made (results/README.md);
    dates: the start dates of all its parts, sorted."""
    cmd = meta.get("command_line") if isinstance(meta.get("command_line"), list) else []
    how = "one scbench invocation per run (--runs=1 --first-run=r: run r seeded --seed + r)"
    per = ctx.runs
    if any(isinstance(a, str) and a.startswith("--ops=") for a in cmd):
        how = "one scbench invocation per N with all its runs (count-to-N)"
        per = ctx.ayers_runs
    reader = ("off: --read-cost=off, no reader thread, read_ns empty" if "--read-cost=off" in cmd
              else "on: read_ns measured")
    meta = dict(meta)
    meta["run_all"] = {"experiment": ident, "mode": ctx.mode, "invocations": how, "runs_per_point": per,
                       "parts": nparts, "order_seed": ctx.order_seed,
                       "experiments": ",".join(ctx.experiments) or "all",
                       "variants": ",".join(ctx.variants) or "all", "order": ORDER_NOTE, "reader": reader,
                       "hosts": hosts}
    if dates:
        # The experiment's span, where "date" is one part's start only.
        meta["run_all"]["first_date"] = dates[0]
        meta["run_all"]["last_date"] = dates[-1]
    return meta


def merge(ctx, plan):
    """Check the parts, then write every experiment's CSV, latency sidecar and
    meta.json, and failed-points.csv; returns the number of failed points.
    Nothing is written unless every part passes every check."""
    d = ctx.dir
    check_parts(d, plan)
    done = [(i, c, a) for i, c, a in plan if not os.path.exists(P.path(d, i, c) + ".failed")]
    metas = [("parts/%s/%s.csv" % (i, c), read_meta(P.path(d, i, c) + ".meta.json")) for i, c, _ in done]
    check_one_kind(metas)
    cal = CAL.read(d)  # the work calibrated for the set: on the parts' kind of machine
    if cal and metas and CAL.mismatch(cal, metas[0][1]):
        raise Failure("%s: %s, but the set's external work was calibrated on another kind of "
                      "machine: nothing merged"
                      % (metas[0][0], ", ".join(CAL.mismatch(cal, metas[0][1]))))
    meta_of = dict(zip([(i, c) for i, c, _ in done], [m for _, m in metas]))
    check_schema(d, done, meta_of)
    hosts = sorted({m["host"] for _, m in metas if isinstance(m.get("host"), str)})
    outputs = []  # (path, text), written once all are made
    for ident in dict.fromkeys(i for i, _, _ in plan):
        mine = [(i, c) for i, c, _ in done if i == ident]
        if not mine:
            continue  # every point of the experiment failed: no CSV
        rows, hist = [], []
        for i, c in mine:
            part = P.path(d, i, c)
            lines = text_lines(part)
            rows += lines if not rows else lines[1:]
            if os.path.isfile(part + ".latency.csv"):
                lines = text_lines(part + ".latency.csv")
                hist += lines if not hist else lines[1:]
        out = S.inside(d, ident + ".csv")
        for suffix in (".latency.csv", ".meta.json"):
            S.inside(d, ident + ".csv" + suffix)
        text = "".join(rows)
        outputs.append((out, text))
        if hist:
            outputs.append((out + ".latency.csv", "".join(hist)))
        # The last part has the most threads: its placement map.
        dates = sorted(t for t in (meta_of[k].get("date") for k in mine) if isinstance(t, str))
        meta = merged_meta(ctx, ident, meta_of[mine[-1]], len(mine), hosts, dates)
        load = merged_load(text, meta.get("load"))
        if load is not None:
            meta["load"] = load
        outputs.append((out + ".meta.json", meta_text(meta)))
    for path, text in outputs:
        write_file(path, text)
    return failed_points(d, plan)


def failed_points(d, plan):
    """failed-points.csv: experiment,part,args,reason of every point that
    failed (results/README.md); none: no file."""
    out = S.inside(d, "failed-points.csv")
    if os.path.exists(out):
        os.remove(out)
    rows = []
    for ident, chunk, args in plan:
        f = P.path(d, ident, chunk) + ".failed"
        if os.path.exists(f):
            with open(f, encoding="utf-8", errors="replace") as r:
                reason = r.readline(REASON_MAX + 1).rstrip("\n")[:REASON_MAX]
            rows.append('%s,%s,"%s","%s"\n' % (ident, chunk, args.replace('"', '""'),
                                                reason.replace('"', '""')))
    if rows:
        write_file(out, "experiment,part,args,reason\n" + "".join(rows))
        say("%d points failed (listed in %s and the report)" % (len(rows), out))
    return len(rows)


def busy_warning(d):
    """One line when any run of the set found the machine busy."""
    n = b = 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".csv") or os.path.islink(os.path.join(d, name)):
            continue  # (a link: no data of this set)
        try:
            with open(os.path.join(d, name), encoding="utf-8", errors="replace", newline="") as f:
                for r in csv.DictReader(f):
                    if "busy" not in r:
                        break
                    n += 1
                    b += r["busy"] == "1"
        except OSError:
            continue
    if b:
        say("warning: the machine was busy (other processes or steal) during %d of %d runs: see the busy "
            "column and REPORT.md" % (b, n))

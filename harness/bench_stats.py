# SPDX-License-Identifier: MIT
"""bench_stats.py - the statistics of make bench: harness/bench.sh runs scbench
and handle_bench and hands their files to this (standard library only; run by
$PYTHON, else /usr/bin/python3, else python3).

  bench_stats.py metrics T1.CSV T2.CSV [HANDLE [PAIRED]]  the metric file
  bench_stats.py compare CURRENT BASELINE                 the regression gate
  bench_stats.py aligned PAIRED ALIGNED RUNS              the loop-alignment table
  bench_stats.py report METRICS SRC PATH LRSKIP           each target met or MISSED

A metric file is CSV: metric,value,noise,better,runs,values. The bench runs
scbench RUNS times (default 7), each time every variant once (--runs=1,
--first-run=i), so the runs of the variants interleave and run i of a variant
is paired with run i of its reference, taken seconds apart. values are the
per-run paired figures (space-separated); value is their median; noise is
their robust spread, 1.4826 x the median absolute deviation of their logs (a
relative standard deviation that one disturbed run does not move); better
is "lower" or "higher". The runs come from T1.CSV and T2.CSV (scbench at 1 and
2 threads), HANDLE (handle_bench: "round variant kernel|fixed source ns") and
PAIRED (handle_bench --paired, --versus, --floor, --librseq: "round metric ns
ns_ref ratio").

The gate (compare): with d = log(median now / median baseline), signed so
that d > 0 is worse, and se = 1.2533 x sqrt(noise_now^2 / runs_now +
noise_base^2 / runs_base) (the standard error of a difference of medians;
each noise at least 1%), a metric REGRESSED when d > max(log 1.10, 3.5 se):
worse by more than 10% and by more than 3.5 standard errors (one-sided
normal tail 2.3e-4 per metric, about 8e-3 for the 36 metrics of make bench).
When 3.5 se exceeds log 1.25 the two benches are too noisy to see a 25%
slowdown: the metric is NOISY (not judged). Exit 0 when nothing regressed and
nothing was too noisy, 1 on a regression, 3 when only too-noisy metrics
remain (re-run on a quiet machine, or with more runs: RUNS=N), 2 on a file of
the old format (no per-run values). Each run records whether the machine was
busy (scbench's busy column, results/README.md); bench.sh says how many runs
were, since a busy machine is the usual cause.

node_refresh_ns/* metrics are the ns that reading node ids from the kernel
adds to one handle-API increment (run i with the ids against run i without):
near 0, of either sign, so their noise is 1.4826 x the MAD of the values in
ns, and the gate compares them as differences: REGRESSED when now - baseline
exceeds max(0.25 ns, 3.5 se), NOISY when 3.5 se exceeds 1 ns.

The aligned table gives per build and variant the median of the handle's
ratio to the inlined increment over the processes and [the largest]; a
variant meets the 1.3x target only when every build's median does.

The output is that of the awk programs this replaced, byte for byte: values
keep mawk's semantics (a field is a number as strtod reads it and compares as
one only when it looks like one, else as a string; an absent one is 0 or "";
printf's numbers are C's: inf, -nan)."""

import functools
import math
import operator
import os
import re
import sys

# The metrics of the scbench CSVs after floor_ns/Sharded, in the file's order:
# (name, better, threads, numerator, denominator) of each run's ratio of ops/ms;
# the counters are among those bench.sh runs. CAS, no target, is the floor of
# MorrisAdapt, BFP-CSUP and ScalableCAS (a CAS loop on one word at 1 thread);
# Scalable does Morris's kind of work at 1 thread (a step taken with a random
# draw); PerCPU (rseq where it exists) against a locked add and against Sharded
# (no atomic), PerCPUGroup and PerCPUTree (where it ran) against PerCPU.
GROUPS = {"prob": "Morris MorrisAdapt BFP-DUP BFP-CSUP Scalable ScalableCAS ScalableCapped".split(),
          "adapt": "RBONumaAdapt MultilineAdapt MorrisAdapt BFP-CSUP".split()}  # bench.sh runs them
RATIOS = ([("cost_vs_FetchAdd_1t/" + p, "lower", 1, "FetchAdd", p) for p in GROUPS["prob"]]
          + [("reference_vs_FetchAdd_1t/CAS", "lower", 1, "FetchAdd", "CAS")]
          + [("cost_vs_CAS_1t/" + a, "lower", 1, "CAS", a)
             for a in GROUPS["adapt"]]
          + [("cost_vs_Morris_1t/Scalable", "lower", 1, "Morris", "Scalable")]
          + [("speedup_vs_FetchAdd_2t/" + q, "higher", 2, q, "FetchAdd") for q in ("BFP-CSUP", "Morris", "Scalable")]
          + [("percpu_cost/vs_FetchAdd_1t", "lower", 1, "FetchAdd", "PerCPU"),
             ("percpu_cost/vs_Sharded_1t", "lower", 1, "Sharded", "PerCPU"),
             ("percpu_cost/vs_Sharded_2t", "lower", 2, "Sharded", "PerCPU"),
             ("group_cost/vs_PerCPU_1t", "lower", 1, "PerCPU", "PerCPUGroup"),
             ("tree_cost/vs_PerCPU_1t", "lower", 1, "PerCPU", "PerCPUTree"),
             ("tree_cost/vs_PerCPU_2t", "lower", 2, "PerCPU", "PerCPUTree")])
SUBSEP = "\x1c"

# --- awk values: float (a number), str (a field or a constant), None (unset) ---
_NUM = re.compile(r"[ \t\n\v\f\r]*([+-]?)(?:(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                  r"(?:[pP][+-]?[0-9]+)?)|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
                  r"|([iI][nN][fF](?:[iI][nN][iI][tT][yY])?)|([nN][aA][nN](?:\([0-9A-Za-z_]*\))?))")
_CONV = re.compile(r"%([-+ #0]*)(\d*)(\.\d*)?([sdfgeEG%])")
_WS = re.compile(r"[ \t\n]+")


def strtod(s):
    """(value, end) of C's strtod on s; end 0 when nothing is a number."""
    mo = _NUM.match(s)
    if not mo:
        return 0.0, 0
    sign, hexa, dec, inf, _ = mo.groups()
    v = float.fromhex(hexa) if hexa else float(dec) if dec else math.inf if inf else math.nan
    return (-v if sign == "-" else v), mo.end()


def num(v):
    """An awk value as a number."""
    return 0.0 if v is None else strtod(v)[0] if isinstance(v, str) else float(v)


def astr(v):
    """An awk value as a string (a number: an integer as %d, else %.6g)."""
    if v is None or isinstance(v, str):
        return v or ""
    return "%d" % v if math.isfinite(v) and v == int(v) and abs(v) <= 2147483647 else fmt("%.6g", v)


def compare_awk(op, a, b):
    """a OP b as mawk compares: as strings when either is a string that does not
    look like a number (as mawk's test: it starts with a digit, a sign or a
    point, ends with a digit or a point, and strtod reads all of it), else as
    numbers by the sign of their difference, so that a NaN equals anything."""
    for s in (a, b):
        t = s.strip(" \t\v\f\r") if isinstance(s, str) else "0"
        if not t or t[0] not in "0123456789+-." or t[-1] not in "0123456789." or strtod(t)[1] != len(t):
            return op(astr(a), astr(b))
    x, y = num(a), num(b)
    return op((x > y) - (x < y), 0)


gt, ge, le, eq = (functools.partial(compare_awk, op) for op in (operator.gt, operator.ge, operator.le, operator.eq))


def fmt(spec, *args):
    """C's printf of awk values (%d as mawk's: clamped to an int; -nan signed)."""
    it = iter(args)

    def one(mo):
        flags, width, prec, conv = mo.groups()
        if conv == "%":
            return "%"
        a, p = next(it), "%" + flags + width + (prec or "")
        if conv == "s":
            return (p + "s") % astr(a)
        x = num(a)
        if conv == "d":
            x = 2147483647 if x >= 2147483647 else int(x) if x > -2147483647 else -2147483647
            return (p + "d") % x
        if x != x and math.copysign(1.0, x) < 0:
            return ((p + conv) % -math.inf).replace("inf", "nan").replace("INF", "NAN")
        return (p + conv) % x
    return _CONV.sub(one, spec)


def div(a, b):
    """a / b in C's doubles (no exception: inf, or -nan for 0/0)."""
    if b != 0:
        return a / b
    return a if a != a else -math.nan if a == 0 else math.copysign(math.inf, a) * math.copysign(1.0, b)


def libm(name, x):
    """math.log, sqrt or exp of x as C's (log 0 = -inf, -nan out of the domain, overflow inf)."""
    try:
        return getattr(math, name)(x)
    except OverflowError:
        return math.inf
    except ValueError:
        return -math.inf if x == 0 else -math.nan


def key(*parts):
    """An awk subscript a, b, ...: the parts as strings joined by SUBSEP."""
    return SUBSEP.join(map(astr, parts))


def records(path, sep=None):
    """The lines of the file path (bytes as latin-1; none when it cannot be
    read), each as [$0, $1, ...]: split at sep, else at blanks as awk's " "."""
    try:
        with open(path.encode("latin-1"), "rb") as f:
            lines = f.read().decode("latin-1").split("\n")
    except OSError:
        return []
    if lines[-1] == "":
        lines.pop()
    return [[s] + (s.split(sep) if s else []) if sep else [s] + [w for w in _WS.split(s) if w] for s in lines]


def field(rec, k, unset=""):
    """$k of a record [$0, $1, ...] (past NF: unset)."""
    k = int(num(k))
    return rec[k] if 0 <= k < len(rec) else unset


def med(x, n):
    """The median of x[1..n] (a dict, as awk's array), sorted in place by insertion."""
    for i in range(2, int(n) + 1):
        t, j = x.get(i), i - 1
        while j >= 1 and gt(x.get(j), t):
            x[j + 1] = x.get(j)
            j -= 1
        x[j + 1] = t
    if math.fmod(n, 2):
        return x.get((n + 1) / 2)
    return (num(x.get(n / 2)) + num(x.get(n / 2 + 1))) / 2


def logmad(x, n):
    """1.4826 x the median absolute deviation of the logs of x[1..n]."""
    y = {i: libm("log", num(x.get(i))) for i in range(1, int(n) + 1)}
    x.update(y)
    m = num(med(x, n))
    for i in y:
        x[i] = y[i] - m if y[i] > m else m - y[i]
    return 1.4826 * num(med(x, n))


def read_rounds(path, width):
    """HANDLE's or PAIRED's lines "round name ...": $5 by the first width
    fields, the names ($2) in order, the number of rounds."""
    val, order, rounds = {}, [], None
    for rec in records(path) if path != "" else []:
        val[key(*(field(rec, k, None) for k in range(1, width + 1)))] = field(rec, 5, None)
        if astr(field(rec, 2)) not in order:
            order.append(astr(field(rec, 2)))
        if gt(num(field(rec, 1, None)) + 1, rounds):
            rounds = num(field(rec, 1, None)) + 1
    return val, order, rounds


def metrics(t1, t2, handle="", paired=""):
    """The metric file's lines."""
    x, out, tp, col, f, nr = {}, ["metric,value,noise,better,runs,values\n"], {}, {}, 0, None
    for path in (t1, t2):  # tp[file, counter, run] = ops_per_ms, the columns by name
        for fnr, rec in enumerate(records(path, ","), 1):
            if fnr == 1:
                f += 1
                col.update((key(f, name), i) for i, name in enumerate(rec[1:], 1))
                continue
            r = field(rec, col.get(key(f, "run")))
            tp[key(f, field(rec, col.get(key(f, "counter"))), r)] = field(rec, col.get(key(f, "ops_per_ms")))
            if gt(num(r) + 1, nr):
                nr = num(r) + 1

    def summarize(name, better, values, n):
        for i in range(math.ceil(num(n))):
            x[i + 1] = values(i)
        vals = " ".join(fmt("%.6g", x.get(i)) for i in range(1, int(num(n)) + 1))
        m = med(x, num(n))
        out.append(fmt("%s,%.6g,%.4f,%s,%d,%s\n", name, m, logmad(x, num(n)), better, n, vals))

    summarize("floor_ns/Sharded", "lower", lambda i: div(1e6, num(tp.get(key(1, "Sharded", i)))), nr)
    for name, better, f, a, b in RATIOS:
        if not name.startswith("tree_cost") or gt(tp.get(key(f, "PerCPUTree", 0)), 0):
            summarize(name, better, lambda i: div(num(tp.get(key(f, a, i))), num(tp.get(key(f, b, i)))), nr)
    hns, order, hr = read_rounds(handle, 3)  # ns per handle-API increment, kernel - fixed, per round
    for v in order:
        vals = []
        for i in range(math.ceil(num(hr))):
            x[i + 1] = num(hns.get(key(i, v, "kernel"))) - num(hns.get(key(i, v, "fixed")))
            vals.append(fmt("%.4f", x[i + 1]))
        m = med(x, num(hr))
        for i in range(1, int(num(hr)) + 1):
            d = num(x.get(i)) - num(m)
            x[i] = -d if d < 0 else d
        out.append(fmt("node_refresh_ns/%s,%.4f,%.4f,lower,%d,%s\n", v, m, 1.4826 * num(med(x, num(hr))),
                       hr, " ".join(vals)))
    # the handle API against the inlined increment (and the other pairs), per round
    pr, order, rounds = read_rounds(paired, 2)
    for v in order:
        summarize(v, "lower", lambda i: pr.get(key(i, v)), rounds)
    return out


def judge(m, base, bn, br, bb, now, nn, nrn):
    """The gate's line of metric m (baseline fields base, noise bn, runs br,
    better bb; now's now, nn, nrn), and whether it regressed and is too noisy:
    node_refresh_ns/ as differences in ns, the others as log ratios."""
    ns = m.startswith("node_refresh_ns")
    sb = bn if ns or gt(bn, 0.01) else 0.01
    sc = nn if ns or gt(nn, 0.01) else 0.01
    se = 1.2533 * libm("sqrt", div(num(sb) * num(sb), num(br)) + div(num(sc) * num(sc), num(nrn)))
    d = num(now) - num(base) if ns else libm("log", div(num(now), num(base)))
    d = -d if bb == "higher" and not ns else d
    least, blind = (0.25, 1) if ns else (libm("log", 1.10), libm("log", 1.25))
    limit = 3.5 * se if 3.5 * se > least else least
    noisy = 3.5 * se > blind
    bad = not noisy and d > limit
    said = "REGRESSED" if bad else "ok" if not noisy else "NOISY (cannot see 1 ns)" if ns else \
        "NOISY (cannot see a 25% change)"
    if ns:
        return fmt("  %-34s baseline %+8.3f ns  now %+8.3f ns (lower is better; allowed +%.2f ns)  %s\n",
                   m, base, now, limit, said), bad, noisy
    return fmt("  %-34s baseline %10.4g  now %10.4g  %+6.1f%% (%s is better; allowed %.1f%%)  %s\n", m, base, now,
               div(100 * (num(now) - num(base)), num(base)), bb, 100 * (libm("exp", limit) - 1), said), bad, noisy


def compare(current, baseline):
    """(the gate's lines, its exit status) for two metric files."""
    out, cur, nr, regressed, unjudged = [], {}, 0, 0, 0
    for path in (current, baseline):
        for fnr, rec in enumerate(records(path, ","), 1):
            nr += 1
            if fnr == 1:
                if len(rec) < 7 or rec[6] != "values":
                    out.append(fmt("bench: %s: not a metric file of this bench.sh (no per-run values:"
                                   " save it again)\n", path))
                    return out, 2
                continue
            m, value, noise, better, runs = (field(rec, k) for k in range(1, 6))
            if nr == fnr:  # the first file (as awk's NR == FNR: also when it is empty)
                cur[m] = (value, noise, runs)
            elif m not in cur:
                out.append(fmt("  %-34s baseline %.4g, not measured now\n", m, value))
            else:
                text, bad, noisy = judge(m, value, noise, runs, better, *cur[m])
                out.append(text)
                regressed, unjudged = regressed + bad, unjudged + noisy
    out.append(fmt("bench: %d metric%s regressed, %d too noisy to judge\n", regressed,
                   "" if regressed == 1 else "s", unjudged))
    return out, 1 if regressed > 0 else 3 if unjudged > 0 else 0


def aligned(paired, aligned_path, runs):
    """The table's lines: PAIRED's handle_vs_inline_1t/V ratios are the plain
    build's, ALIGNED's lines "BUILD VARIANT RATIO" the others'."""
    out = ["handle API / inline, 1 thread, by the loop alignment of the program (median of %s processes"
           " per build, [largest]; handle_bench is plain -O2):\n" % runs]
    n, val, top, vs, builds = {}, {}, {}, [], ["plain -O2"]

    def add(bb, vv, x):
        k = astr(bb) + SUBSEP + astr(vv)
        n[k] = num(n.get(k)) + 1
        val[key(k, n[k])] = x
        if k not in top or gt(x, top[k]):
            top[k] = x
    for rec in records(paired):
        if astr(field(rec, 2, None)).startswith("handle_vs_inline_1t/"):
            v = re.sub(r"^.*/", "", rec[2], count=1)
            add("plain -O2", v, field(rec, 5, None))
            if v not in vs:
                vs.append(v)
    for rec in records(aligned_path):
        if field(rec, 1) not in builds:
            builds.append(field(rec, 1))
        add(field(rec, 1), field(rec, 2), field(rec, 3))
    r = {k: med({q: val[key(k, q)] for q in range(1, int(n[k]) + 1)}, n[k]) for k in n}
    out.append(fmt("  %-12s", "") + "".join(fmt(" %18s", b) for b in builds) + fmt("  %s\n", "spread (max/min)"))
    for v in vs:
        lo = hi = ""
        line = fmt("  %-12s", v)
        for b in builds:
            y = r.get(b + SUBSEP + v)
            line += fmt(" %18s", "-" if eq(y, "") else fmt("%.3fx [%.2f]", y, top.get(b + SUBSEP + v)))
            if not eq(y, ""):
                lo = y if eq(lo, "") or gt(lo, y) else lo
                hi = y if eq(hi, "") or gt(y, hi) else hi
        out.append(line + fmt("  %.2f (target <= 1.3x in every build: %s)\n", div(num(hi), num(lo)),
                              "met" if le(hi, 1.3) else "MISSED"))
    return out


def report(metrics_path, src, path, lrskip):
    """The report's lines: each target met or MISSED."""
    order, v, nz, out = [], {}, {}, []
    for rec in records(metrics_path, ",")[1:]:
        order.append(field(rec, 1))
        v[field(rec, 1)], nz[field(rec, 1)] = field(rec, 2), field(rec, 3)

    def line(m, target="", test=None, limit=0, unit="x"):
        ok = "" if target == "" else "met" if test(v.get(m), limit) else "MISSED"
        out.append(fmt("  %-15s %7.2f%s  (robust run-to-run sd %4.1f%%)  %s %s\n", (m.split("/") + [""])[1],
                       v.get(m), unit, 100 * num(nz.get(m)), target, ok))

    def section(prefix, heading, *target, draw=None):
        """heading (if any) and each metric of prefix (by draw, else line), if there is one."""
        ms = [m for m in order if m.startswith(prefix)]
        out.extend([heading] if ms and heading else [])
        for m in ms:
            (draw or line)(m, *target)
        return bool(ms)

    def refresh(m):
        out.append(fmt("  %-15s %+7.2f ns  (robust run-to-run sd %.2f ns)  target <= 1 ns: %s\n",
                       (m.split("/") + [""])[1], v.get(m), nz.get(m), "met" if le(v.get(m), 1) else "MISSED"))
    out.append("\nharness floor, 1 thread, ns per increment:\n")
    line("floor_ns/Sharded", "target <= 1.5 ns:", le, 1.5, " ns")
    out.append("\n1 thread, cost relative to FetchAdd:\n")
    section("cost_vs_FetchAdd_1t", None, "target <= 1.5x:", le, 1.5)
    if "reference_vs_FetchAdd_1t/CAS" in v:
        line("reference_vs_FetchAdd_1t/CAS")
        out.append(fmt(CAS, "as here, they cannot meet 1.5x" if gt(v["reference_vs_FetchAdd_1t/CAS"], 1.5)
                       else "they can"))
    out.append("\n1 thread, cost relative to CAS:\n")
    section("cost_vs_CAS_1t", None, "target <= 1.1x:", le, 1.1)
    out.append("\n1 thread, cost relative to Morris (the same kind of work):\n")
    line("cost_vs_Morris_1t/Scalable", "target <= 1.05x:", le, 1.05)
    out.append(fmt("\nPerCPU (path: %s) and PerCPUGroup, cost ratios:\n", path))
    line("percpu_cost/vs_FetchAdd_1t", "target <= 0.6x:", le, 0.6)
    line("percpu_cost/vs_Sharded_1t")
    line("percpu_cost/vs_Sharded_2t")
    line("group_cost/vs_PerCPU_1t", "target <= 1.2x:", le, 1.2)
    out.append("\nPerCPUTree (per-CPU words and a carry tree), cost relative to PerCPU:\n")
    line("tree_cost/vs_PerCPU_1t", "target <= 1.2x:", le, 1.2)
    line("tree_cost/vs_PerCPU_2t", "target <= 1.2x:", le, 1.2)
    if "paired_vs_PerCPU_1t/PerCPUTree" in v:
        line("paired_vs_PerCPU_1t/PerCPUTree", "target <= 1.2x (inlined, paired chunks):", le, 1.2)
    out.append("\n2 threads, one counter, throughput relative to FetchAdd:\n")
    section("speedup_vs_FetchAdd_2t", None, "target >= 3x:", ge, 3)
    section("paired_vs_CAS_1t", "\n1 thread, cost relative to CAS, the inlined increments alternating in one"
            " process:\n", "target <= 1.1x:", le, 1.1)
    section("handle_vs_inline_1t", "\nhandle API, 1 thread, sc_counter_inc relative to the inlined increment"
            " (paired chunks, one process):\n", "target <= 1.3x:", le, 1.3)
    section("percpu_vs_floor_1t", FLOOR, draw=lambda m: line(m, *(("target <= 2.0x:", le, 2.0)
                                                                  if m.endswith("cursor") else ())))
    section("floor_indexed_1t", INDEXED)
    if not section("librseq_1t", LIBRSEQ) and lrskip != "":
        out.append(fmt("\nlibrseq: skipped: %s\n", lrskip))
    section("node_refresh_ns", fmt("\nhandle API, ns per sc_counter_inc added by node ids from the kernel (%s),"
                                   " against SCOUNTERS_NODE=fixed:\n", src), draw=refresh)
    return out


CAS = ("  (CAS, no target: MorrisAdapt, BFP-CSUP and ScalableCAS count by a CAS loop at 1 thread,\n  so their"
       " cost relative to CAS, below, is what they add; where CAS itself is over 1.5x, %s)\n")
FLOOR = ("\nper-CPU add, 1 thread, relative to a relaxed load and store of the thread's own word at a"
         " base+displacement address, the target's floor (paired chunks, one process):\n  the target is the add"
         " through the thread's cursor (PerCPU-cursor: the word's address kept in a register);\n  PerCPU's"
         " increment finds its word by the id it loads in the sequence (no target; see the indexed floor below)\n")
INDEXED = ("\nthe same, against an indexed floor (no target; the target above uses the base+displacement floor):\n"
           "  the indexed floor is a load and store of a thread-private word at an index loaded each increment,\n"
           "  as every per-CPU add addresses its word; floor-indexed is its cost over the floor above\n")
LIBRSEQ = ("\nlibrseq's per-CPU add against the floor above, and PerCPU's increment over librseq's (paired chunks,"
           " one process):\n  the per-CPU target read against this host's reference rseq add (1.00x: parity;"
           " no verdict)\n")
COMMANDS = dict(metrics=(metrics, 2, 4), compare=(compare, 2, 2), aligned=(aligned, 3, 3), report=(report, 4, 4))
COMMANDS["counters"] = (lambda group: [",".join(GROUPS[group]) + "\n"], 1, 1)  # prob or adapt


def main(argv):
    """Run a subcommand; its text on standard output (bytes as they came), its status."""
    args = [os.fsencode(a).decode("latin-1") for a in argv[1:]]
    if not args or args[0] not in COMMANDS or not COMMANDS[args[0]][1] <= len(args) - 1 <= COMMANDS[args[0]][2]:
        sys.stderr.write("usage:\n" + __doc__.split("\n\n")[1] + "\n")
        return 2
    result = COMMANDS[args[0]][0](*args[1:])
    out, status = result if args[0] == "compare" else (result, 0)
    sys.stdout.buffer.write("".join(out).encode("latin-1"))
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# SPDX-License-Identifier: MIT
"""A result set's own files: run-all.conf, run-all.plan and run-all.order.

A result set is data (it may come from anyone): each file is parsed with fixed
keys and checked values, never sourced or evaluated; anything else is a Usage
error naming the file and line."""

import os
import re

from . import Usage
from . import parts as P
from . import setpath as S
from .plan import EXPERIMENTS, MAX_THREADS, MODES, PROTOCOL, option, thread_list

CONF_KEYS = ("mode", "threads", "order_seed", "experiments", "variants")
NAME_LIST = r"[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*"
MAX_SEED = 2147483646


def seed_ok(text):
    return bool(re.fullmatch(r"[1-9][0-9]{0,9}", text)) and int(text) <= MAX_SEED


def threads_ok(text):
    if not re.fullmatch(r"[1-9][0-9]{0,4}( [1-9][0-9]{0,4})*", text):
        return False
    ts = [int(t) for t in text.split()]
    return all(t <= MAX_THREADS for t in ts) and all(a < b for a, b in zip(ts, ts[1:]))


def read_lines(path):
    """The lines of path without their newline (a last line without one
    included); Usage when it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8", "surrogateescape")
    except OSError:
        raise Usage("%s: cannot read it" % path)
    lines = data.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def read_conf(path):
    """run-all.conf as a dict: mode, threads (a list), order_seed (int or None),
    experiments and variants (lists, empty for all)."""
    if not os.path.isfile(path):
        raise Usage("%s: cannot read it" % path)
    conf, seen = {"order_seed": None, "experiments": [], "variants": []}, set()
    for n, line in enumerate(read_lines(path), 1):
        if line == "" or line.startswith("#"):
            continue
        m = re.fullmatch(r"([a-z_]+)=(.*)", line)
        if not m:
            raise Usage("%s line %d: expected KEY=VALUE" % (path, n))
        key, value = m.group(1), m.group(2)
        q = re.fullmatch(r'"(.*)"', value)
        if q:
            value = q.group(1)
        if key in seen:
            raise Usage("%s line %d: %s given twice" % (path, n, key))
        seen.add(key)
        if key == "mode":
            if value not in MODES:
                raise Usage("%s line %d: mode: expected quick, default, paper or paper-errors" % (path, n))
            conf["mode"] = value
        elif key == "threads":
            if not threads_ok(value):
                raise Usage("%s line %d: threads: expected thread counts in [1, %d], increasing"
                            % (path, n, MAX_THREADS))
            conf["threads"] = [int(t) for t in value.split()]
        elif key == "order_seed":
            if not seed_ok(value):
                raise Usage("%s line %d: order_seed: expected an integer in [1, 2147483646]" % (path, n))
            conf["order_seed"] = int(value)
        elif key in ("experiments", "variants"):
            if not re.fullmatch("all|" + NAME_LIST, value):
                raise Usage("%s line %d: %s: expected all or a comma-separated list of names"
                            % (path, n, key))
            conf[key] = [] if value == "all" else value.split(",")
        else:
            raise Usage("%s line %d: unknown key '%s' (expected mode, threads, order_seed, "
                        "experiments, variants)" % (path, n, key))
    for key in ("mode", "threads") + (CONF_KEYS[2:] if "order_seed" in seen else ()):
        if key not in seen:   # (an older set has only mode and threads)
            raise Usage("%s: no %s line" % (path, key))
    return conf


def check_order_seed(conf, order_f):
    """run-all.conf's order_seed against the one run-all.order was made from
    (its comment says it): Usage when they differ (an edited conf)."""
    for line in read_lines(order_f):
        m = re.match(r"# from order seed ([0-9]+):", line)
        if m and int(m.group(1)) != conf["order_seed"]:
            raise Usage("%s: order_seed=%d, but run-all.order was made from order seed %s"
                        % (os.path.join(os.path.dirname(order_f), "run-all.conf"), conf["order_seed"],
                           m.group(1)))


def check_conf(conf, plan, path):
    """run-all.conf against the plan it was written with (both parsed): the
    mode's protocol in every line, the thread counts, and the experiments and
    variants it names exactly those planned; Usage naming the first mismatch
    (an edited conf must not make the report describe other runs)."""
    warmup, duration, _, count_runs, _ = PROTOCOL[conf["mode"]]
    for n, (ident, chunk, args) in enumerate(plan, 1):
        where = "%s: %s %s of run-all.plan" % (path, ident, chunk)
        if option(args, "duration") is not None and (option(args, "warmup"), option(args, "duration")) \
                != (warmup, duration):
            raise Usage("%s runs --warmup=%s --duration=%s, not mode %s's %s and %s"
                        % (where, option(args, "warmup"), option(args, "duration"), conf["mode"],
                           warmup, duration))
        if option(args, "ops") is not None and option(args, "runs", last=True) != str(count_runs):
            raise Usage("%s runs --runs=%s, not mode %s's %d"
                        % (where, option(args, "runs", last=True), conf["mode"], count_runs))
        if int(option(args, "threads", last=True)) not in conf["threads"]:
            raise Usage("%s runs --threads=%s, not one of threads=\"%s\""
                        % (where, option(args, "threads", last=True), " ".join(map(str, conf["threads"]))))
    if plan and max(int(option(a, "threads", last=True)) for _, _, a in plan) != conf["threads"][-1]:
        raise Usage("%s: threads=\"%s\", but run-all.plan runs at most %d threads" % (
            path, " ".join(map(str, conf["threads"])),
            max(int(option(a, "threads", last=True)) for _, _, a in plan)))
    if conf["mode"] == "paper-errors":
        other = [i for i, _, _ in plan if i not in ("dice-fig4-low", "dice-fig4-high")]
        if other:
            raise Usage("%s: mode paper-errors, but run-all.plan runs %s" % (path, other[0]))
    planned = {"experiments": set(i for i, _, _ in plan),
               "variants": set(v for _, _, a in plan for v in option(a, "counter").split(","))}
    for key, names in planned.items():
        given = conf[key]
        unknown = [g for g in given if g not in names or (key == "experiments" and g not in EXPERIMENTS)]
        extra = sorted(names - set(given)) if given else []
        if unknown or extra:
            raise Usage("%s: %s=%s, but run-all.plan runs %s" % (
                path, key, ",".join(given), "no %s" % unknown[0] if unknown else "%s too" % extra[0]))


def conf_text(conf):
    return ('mode=%s\nthreads="%s"\norder_seed=%d\nexperiments=%s\nvariants=%s\n'
            % (conf["mode"], " ".join(map(str, conf["threads"])), conf["order_seed"],
               ",".join(conf["experiments"]) or "all", ",".join(conf["variants"]) or "all"))


def order_text(order, seed):
    return ("# run-all.sh: the order in which the invocations of run-all.plan run (id chunk),\n"
            "# from order seed %d: round K (repetition K of every timed point)\n"
            "# shuffled, the rounds in order, then the count-to-N invocations\n" % seed
            + "".join(line + "\n" for line in order))


def check_plan(plan_f, order_f):
    """The plan (a list of (ID, CHUNK, ARGS)) and the order (a list of
    "ID CHUNK"), checked before any use: each plan line "ID CHUNK ARGS" with ID
    and CHUNK plain names (no path), ARGS scbench options of a plain form with
    --counter, --threads and --runs, and no --output; each order line an
    "ID CHUNK" of the plan, once."""
    plan, state = [], {}
    for n, line in enumerate(read_lines(plan_f), 1):
        words = line.split()
        ident, chunk = (words + ["", ""])[:2]
        if not (re.fullmatch(r"[a-z0-9][a-z0-9-]*", ident)
                and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", chunk)):
            raise Usage("%s line %d: expected ID CHUNK ARGS with plain names" % (plan_f, n))
        for a in words[2:]:
            if not re.fullmatch(r"--[a-z-]+(=[A-Za-z0-9.,=_+-]+)?", a) or a.startswith("--output"):
                raise Usage("%s line %d: '%s' is not an option run-all.sh plans" % (plan_f, n, a))
        args = " ".join(words[2:])
        if not all(re.search(r" --%s( |$)" % r, " " + args) for r in
                   (r"runs=[1-9][0-9]{0,5}", r"counter=[A-Za-z0-9,-]+", r"threads=[1-9][0-9]{0,4}")):
            raise Usage("%s line %d: expected --counter, --threads and --runs" % (plan_f, n))
        key = ident + " " + chunk
        if key in state:
            raise Usage("%s line %d: %s twice" % (plan_f, n, key))
        state[key] = 1
        plan.append((ident, chunk, args))
    if not plan:
        raise Usage("%s: empty" % plan_f)
    order = []
    for n, line in enumerate(read_lines(order_f), 1):
        if line.startswith("#"):
            continue
        if state.get(line) != 1:
            raise Usage("%s line %d: not an invocation of run-all.plan" % (order_f, n))
        state[line] = 2
        order.append(line)
    for ident, chunk, _ in plan:
        if state[ident + " " + chunk] != 2:
            raise Usage("%s: %s %s of run-all.plan is missing" % (order_f, ident, chunk))
    return plan, order


def open_result_set(o):
    """The result set of --resume, checked: (dir, conf, plan, order)."""
    d = o.resume
    if not os.path.isdir(d):
        raise Usage("--resume %s: no such result set" % d)
    conf_f, plan_f, order_f = (S.inside(d, f)
                               for f in ("run-all.conf", "run-all.plan", "run-all.order"))
    for sub in ("parts", "logs"):  # a link here would take the runs' files elsewhere
        S.inside(d, sub)
    if not os.path.isfile(conf_f):
        raise Usage("--resume %s: not a run-all result set (no run-all.conf)" % d)
    if o.out is not None:
        raise Usage("give --out or --resume, not both")
    conf = read_conf(conf_f)  # data: parsed, never sourced
    if conf["order_seed"] is None or not all(os.path.isfile(f) for f in (plan_f, order_f)):
        raise Usage("--resume %s: no run-all.plan/run-all.order (made by an older run-all.sh, "
                    "which ran all runs of a point in one invocation): finish it with that "
                    "version" % d)
    plan, order = check_plan(plan_f, order_f)
    check_conf(conf, plan, conf_f)
    check_order_seed(conf, order_f)
    for ident, chunk, _ in plan:  # a linked part directory refused before anything runs
        P.path(d, ident, chunk)
    # Options of a new set that contradict the recorded ones (the same ones are allowed).
    if o.mode_given and o.mode_given != conf["mode"]:
        raise Usage("--%s: %s was planned in mode %s, which --resume follows (leave the mode out)"
                    % (o.mode_given, d, conf["mode"]))
    if o.max_threads is not None and thread_list(o.max_threads)[-1] != conf["threads"][-1]:
        raise Usage("--max-threads=%d: %s was planned for threads=\"%s\", which --resume follows "
                    "(leave --max-threads out)"
                    % (o.max_threads, d, " ".join(map(str, conf["threads"]))))
    return os.path.abspath(d), conf, plan, order

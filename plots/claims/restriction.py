# SPDX-License-Identifier: MIT
"""What a restricted run can speak to (run-all --experiments, --variants).

A run restricted to some experiments or variants (run-all.conf: experiments=
or variants= other than all, read by resultset_summary.machine_summary as
run_all_experiments and run_all_variants) cannot speak to a claim that needs
an experiment or a variant it did not run: REPORT.md leaves such a claim out
and says in one line how many it left out and why. A full run (both "all")
leaves nothing out: every claim is listed, "not measurable" ones included.

What a claim needs is derived from its declaration, never from its verdict:
  experiments  the experiment of each of its figures (DIR/<experiment>.csv, the
               figure's source; an experiment without a figure, EXPERIMENT_CSV,
               is its own) and of the CSVs its rule reads besides (Claim.data);
  variants     those it declares (Claim.variants), else every variant its
               sentence names, by name or by Ayers's word for it (the alias of
               plots/style.json: racing, interlocked); a claim that names none
               speaks of every variant of its figures, and a run restricted to
               some variants cannot speak to it.
plots/tests/test_restricted.py checks that these needs are complete: every claim judged
on a set cut to its needs gets the verdict it gets on the whole set.
Standard library only.
"""

import re

import style
from claims.context import EXPERIMENT_CSV


def experiment_of(csv_name):
    """The run-all experiment that writes CSV csv_name (DIR/<experiment>.csv)."""
    return csv_name[:-len(".csv")] if csv_name.endswith(".csv") else csv_name


def needed_experiments(claim, table):
    """The experiments claim needs, sorted: its figures' (table: the figure
    table, plots/figures.py) and those of the CSVs its rule reads besides."""
    sources = {f.id: f.source for f in table}
    out = set(experiment_of(n) for n in claim.data)
    for fid in (f.strip() for f in claim.figure.split(",")):
        if fid in EXPERIMENT_CSV:
            out.add(experiment_of(EXPERIMENT_CSV[fid]))
        else:
            out.add(experiment_of(sources[fid]))
    return sorted(out)


def variant_words():
    """[(variant, pattern)]: each variant of plots/style.json (its series that are
    not Scalable thresholds T<n>) as a whole word of a claim's sentence, and its
    alias (Ayers's word for it, any case) where it has one."""
    out = []
    for s in style.load()["series"]:
        if re.fullmatch(r"T\d+", s["name"]):
            continue
        words = [re.escape(s["name"])]
        if s.get("alias") and s["alias"] != "ayers":
            words.append("(?i:%s)" % re.escape(s["alias"]))
        out.append((s["name"], re.compile(r"(?<![\w-])(?:%s)(?![\w-])" % "|".join(words))))
    return out


def needed_variants(claim, words=None):
    """The variants claim speaks of, sorted; None: every variant of its figures
    (its sentence names none and it declares none)."""
    if claim.variants is not None:
        return sorted(claim.variants)
    found = sorted(v for v, pattern in (words or variant_words()) if pattern.search(claim.text))
    return found or None


def restriction(machine):
    """(experiments, variants) the run was restricted to, each a list or None
    (all); (None, None) for a full run."""
    return machine.get("run_all_experiments"), machine.get("run_all_variants")


def unmet(claim, table, machine, words=None):
    """Why a run restricted as machine says cannot speak to claim (text), or None."""
    experiments, variants = restriction(machine)
    why = []
    if experiments is not None:
        missing = [e for e in needed_experiments(claim, table) if e not in experiments]
        if missing:
            why.append("needs experiment%s %s" % ("" if len(missing) == 1 else "s",
                                                   ", ".join(missing)))
    if variants is not None:
        need = needed_variants(claim, words)
        if need is None:
            why.append("speaks of every variant of its figures")
        else:
            missing = [v for v in need if v not in variants]
            if missing:
                why.append("needs variant%s %s" % ("" if len(missing) == 1 else "s",
                                                    ", ".join(missing)))
    return "; ".join(why) or None


def leave_out(judged, claims, table, machine):
    """Mark every entry of judged (claims.json's, in the order of claims) that a
    restricted run cannot speak to with "left_out" (why); the record of what was
    left out for claims.json ({"count", "text"}: text is REPORT.md's one line),
    or None for a full run, whose entries stay as they are."""
    experiments, variants = restriction(machine)
    if experiments is None and variants is None:
        return None
    words = variant_words()
    n = 0
    for entry, c in zip(judged, claims):
        why = unmet(c, table, machine, words)
        if why:
            entry["left_out"] = why
            n += 1
    what = [("experiments %s" % ", ".join(experiments), "--experiments")
            if experiments is not None else None,
            ("variants %s" % ", ".join(variants), "--variants")
            if variants is not None else None]
    what = [w for w in what if w]
    text = "%d claim%s left out: this run was restricted to %s (run-all %s) and %s others." % (
        n, "" if n == 1 else "s", " and ".join(w for w, _ in what),
        ", ".join(o for _, o in what), "it needs" if n == 1 else "they need")
    return {"count": n, "text": text}

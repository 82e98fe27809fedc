# SPDX-License-Identifier: MIT
"""What a claim is, the verdicts, the general rules, and the numbers as the report writes them.

A claim is a declaration (Claim): its id, the paper section it comes from, its
sentence (with the threshold the verdict uses for words like "about"), the
figure that shows it, the thread count and NUMA nodes it needs, and its verdict
rule. A rule is a function rule(ctx, claim) -> (measured, verdict, reason):
what was measured here (text), one of VERDICTS, and why; ctx is what a rule
may ask of the result set (claims/context.py). The "not measurable" reasons
for too few threads or nodes are generated from the declared needs
(Context.threads_reason, nodes_reason), never written per claim, and
claims/judge.py's evaluate() enforces the needs whatever the rule says.
Standard library only.
"""

import re

from stats import (BIMODAL_GAP, MEDIAN_TAIL, SEQ_BAND, SEQ_LOOKS, SEQ_TOTAL, ratio_false_verdict,
                   seq_first_look, seq_look_rate, seq_total_rate)

HOLDS, FAILS, NM = "holds", "does not hold", "not measurable"
CONSISTENT, INCONCLUSIVE, BY_CONSTRUCTION = "consistent with", "inconclusive", "by construction"
NO_TEST = "no test here"
# The verdicts and their meaning (REPORT.md's legend); plots/report.py's
# VERDICT_TEXT says how each is written and counted.
VERDICTS = {HOLDS: "the measurement here agrees with the claim, at every point in range and "
                   "with every point decided by more than one run",
            CONSISTENT: "the measurement agrees only within the stated tolerance for sampling "
                        "error (it does not pass the claim's bound itself)",
            FAILS: "it was measured here and disagrees (at a point not decided by one run)",
            INCONCLUSIVE: "measured, but the evidence is too thin to decide: too few runs, a "
                          "point that one run decides, or evidence only at thread counts other "
                          "than the claim's (the reason says which)",
            NO_TEST: "measured, but the measurement could not have come out the other way: "
                     "the outcome opposite to the claim, at this machine's thread counts, "
                     "work and resolution, would not show in it (the reason says why: the "
                     "regime, the noise floor or the instrument)",
            NM: "this result set cannot test it (the reason says why)",
            BY_CONSTRUCTION: "true because the harness makes it so (a calibration or a "
                             "definition); listed apart and not counted"}
JUDGED = (HOLDS, CONSISTENT, FAILS)
# Runs per point below which no claim is judged: the papers report the median of 5;
# with fewer than 3 a median is a single run or the mean of two.
MIN_RUNS = 3

# Why a claim is not measurable here: each "not measurable" verdict has one cause,
# and REPORT.md's summary counts them apart. A rule names its cause with
# not_measurable(cause, text); the reasons made by threads_reason and nodes_reason
# are MACHINE, any other reason is DATA. A new cause is one line here.
MACHINE, PLAN, RUN_LENGTH, CONDITION, DATA = ("machine", "plan", "run length", "condition",
                                              "data")
NM_CAUSES = {MACHINE: "too few PUs or NUMA nodes on this machine",
             PLAN: "the experiment is not in run-all.sh's plan, or scbench does not record "
                   "what it needs",
             RUN_LENGTH: "runs too short for the count the claim speaks of (run "
                         "./run-all.sh --paper-errors)",
             CONDITION: "the claim's condition never arose in these runs (e.g. an adaptive "
                        "counter that never switched)",
             DATA: "a result file or series is missing from this set"}


# Why a measurement cannot fail its claim here ("no test here"): each such verdict
# has one cause, written beside it (claims/opposite.py says how each is found).
REGIME, NOISE_FLOOR, INSTRUMENT = "regime", "noise floor", "instrument"
NT_CAUSES = {REGIME: "the claim's effect cannot arise at these thread counts and this work "
                     "(e.g. nothing is contended, or a counter's whole cost is below the "
                     "line the claim draws)",
             NOISE_FLOOR: "the effect the claim's line needs is below the runs' spread",
             INSTRUMENT: "the timer or the timing around each operation hides the effect"}


class Reason(str):
    """A reason with the cause of a "not measurable" verdict (one of NM_CAUSES)."""
    cause = DATA


def no_test(cause, text):
    """The reason of a "no test here" verdict, tagged with its cause (NT_CAUSES)."""
    r = Reason(text)
    r.cause = cause
    return r


def not_measurable(cause, text):
    """The reason of a "not measurable" verdict, tagged with its cause."""
    r = Reason(text)
    r.cause = cause
    return r


# The "condition" rule: a count-to-N time is compared only where every series takes
# at least STARTUP_FACTOR times its time at the smallest N (its start-up: thread
# creation and the barrier); claims/rules.py's startup_dominated applies it.
STARTUP_FACTOR = 10

# The papers' words, one scale each (the "words" rule of RULES): "similar" is a spread
# within FEW_PERCENT (10%) either way, "slightly" a gain above 1 within it, and
# "significantly" a gain beyond it. Dice §5.1 calls Serial's gap in Fig. 3 "slightly
# lower" and still counts Serial among the counters that "perform similarly"; §1 says
# separate loads and stores "slightly" reduce latency. "About x" (a number) is within a
# factor ABOUT of x, either side.
FEW_PERCENT = 1.1
ABOUT = 2.0

# The fewest runs whose min-max band alone reaches the noise rule's one-sided miss.
FULL_CONFIDENCE_RUNS = next(n for n in range(1, 64) if 2.0 ** -n <= MEDIAN_TAIL)

# The general rules every verdict follows, stated in REPORT.md (in this order). A
# rule in plots/claims that changes what is judged where gets a line here.
RULES = [
    ("named threads", "A claim that names a thread count (\"at 256 threads\") is judged only "
     "at that count, never rescaled to a smaller machine: without it, not measurable (too few "
     "PUs); the measured column shows the largest count here for context."),
    ("paper's machine", "A claim from an experiment the paper ran with all its machine's "
     "threads without naming a count (Ayers's 12) is judged at the largest thread count here; "
     "when that is below the paper's, its verdict is shown but counted inconclusive (evidence "
     "only at another thread count). A claim over a range (\"up to 8 threads\", a figure's "
     "whole axis) is judged at every count measured in it and holds only if the range was "
     "measured; a failure at a measured count stands."),
    ("noise", "A comparison is decided at a point only if it clears its line by more than the "
     "noise: a point where leaving one run out changes the answer (a point one run decides), "
     "or where the line falls inside the interval on the ratio of the two medians, is "
     "inconclusive. The interval is distribution-free (order statistics, no resampling and "
     "no seed): each series' median lies in [x(k), x(n+1-k)] of its n sorted runs, k the "
     "largest whose one-sided miss P(Bin(n, 1/2) < k) is at most %.4g%% (the min-max band, k "
     "= 1, below %d runs), and the ratio's interval is [lo(a)/hi(b), hi(a)/lo(b)]. It "
     "narrows as runs are added (about as 1/sqrt(n)), so more runs decide more points. Its "
     "false-verdict rate under the null (the true ratio of medians on the line) is at most "
     "2(1 - (1 - q(a))(1 - q(b))) for any distributions, q the one-sided misses: at most "
     "%.3g%% with %d or more runs per series, %.3g%% at 5 and %.3g%% at 3, where the min-max band "
     "is the best interval those runs give (each point's reason states its rate)."
     % (100 * MEDIAN_TAIL, FULL_CONFIDENCE_RUNS,
        100 * ratio_false_verdict(MEDIAN_TAIL, MEDIAN_TAIL), FULL_CONFIDENCE_RUNS,
        100 * ratio_false_verdict(2.0 ** -5, 2.0 ** -5),
        100 * ratio_false_verdict(2.0 ** -3, 2.0 ** -3))),
    ("sequential", "Near its line (a median ratio within %.3g%% of where the answer "
     "changes) a point is decided by one interval on the ratio: the Hodges-Lehmann shift of "
     "log throughput (or time), the median of the differences between every run of one side "
     "and every run of the other, with its Mann-Whitney interval (exact and distribution-free: "
     "the sorted differences' order statistics, from the null distribution of the "
     "Mann-Whitney count), decided only at the looks of a fixed schedule, %s runs a side "
     "(run-all's --confirm adds runs to both sides of such points, in shuffled rounds, up to "
     "the next look), each look's two-sided false-verdict rate at most %.3g%%, so %.3g%% over "
     "every look, the first included (Bonferroni spending; the union bound holds whatever "
     "the dependence between looks; the intervals attain %.3g%% in all). At %d runs a side "
     "no interval reaches a look's rate, so such a point is first decided at %d. Before that "
     "look a point farther from its line is decided only if the band of every run of one "
     "side over every run of the other, widened by the larger spread within a side, clears "
     "the line; else more runs are added. A point farther from its line follows the noise "
     "rule. Each claim states the runs a side its verdict rests on."
     % (100 * (SEQ_BAND - 1), ", ".join(map(str, SEQ_LOOKS)), 100 * seq_look_rate(),
        100 * SEQ_TOTAL, 100 * seq_total_rate(), SEQ_LOOKS[0], seq_first_look())),
    ("condition", "A claim is judged only where the paper's condition applies: points where "
     "an adaptive counter never left its initial mode are left out of a claim about its "
     "switched mode (end_state), points where a probabilistic counter was exact in every run "
     "(it never left its precise mode by design, e.g. BFP-CSUP without contention) are left "
     "out only of the error-range claims about counters in their probabilistic mode (never "
     "out of a comparison the paper states without a contention condition, such as "
     "BFP-CSUP's speed against BFP-DUP's or the adaptive counters in the array), runs whose "
     "BFP exponent saturated at its maximum are left out of the RSTDV bound they no longer "
     "follow, a count-to-N time is compared only at N where "
     "every series takes at least %dx its start-up time (the time at the smallest N: \"at "
     "high counts\"), and a claim on low projected values only at counts that are low; "
     "points left out are named, and with none left the claim is not measurable."
     % STARTUP_FACTOR),
    ("run length", "A claim on how large a probabilistic counter's error gets (every one: Fig. "
     "6's and the array's) is judged on runs of the paper's length (8 s), or on shorter runs "
     "only when 8 s at their throughput would not have counted more than 2x higher; else not "
     "measurable (runs too short)."),
    ("runs", "No claim is judged on fewer than %d runs per point (more where the claim says)."
     % MIN_RUNS),
    ("what the timer and the runs hide", "Beside every read-cost claim on nanoseconds the "
     "report states what the timer resolves: where each sample timed K gets in a row (schema "
     "6) and spans at least 100 of the clock's steps, the step's share of the shortest sample; "
     "for a set of one get per sample, the timer's real step, measured from the values (the "
     "usual gap between distinct readings), next to the ns per tick meta.json states: a "
     "difference below a step is not resolved. A throughput point whose runs split in two by more than %gx is "
     "bimodal (two regimes, not noise): its figure's notes list it, and so does every claim "
     "that names that variant at that thread count." % BIMODAL_GAP),
    ("words", "The papers' words have one scale each, taken from their own usage: "
     "\"similar\" (and \"about the same\", \"about as well\") is within %gx either way, "
     "\"slightly\" is a gain above 1x and within %gx, \"significantly\" is beyond %gx (Dice "
     "§5.1 calls Serial's gap in Fig. 3 \"slightly lower\" and counts Serial among the "
     "counters that \"perform similarly\"); \"about\" a number is within a factor %g of it, "
     "either side. A claim restates only which of them it uses."
     % (FEW_PERCENT, FEW_PERCENT, FEW_PERCENT, ABOUT)),
    ("a test that can fail", "A verdict of holds or does not hold needs a measurement that "
     "could have come out the other way here: each claim whose test could be blind says what "
     "the opposite outcome would look like at this machine's thread counts, work and "
     "resolution (a counter costly enough to cross the claim's line, a contended counter, an "
     "effect larger than the timer's step or than the timing around each operation), and "
     "where the measurement could not have shown it the claim has no test here, with the "
     "reason (the regime, the noise floor or the instrument). One measured fact is counted "
     "once: a claim whose measurement is another claim's is judged where the paper's "
     "condition differs, or not counted twice."),
    ("by construction", "A claim that holds because the harness or the algorithm makes it so "
     "(a calibration, an exact mode by definition) is listed apart and not counted."),
]


class Claim:
    """One claim of a paper.

    threads: the thread count the claim speaks of; threads_at: the claim is
    judged at exactly that count ("needs 256 threads"), else at that count and
    more ("needs at least 32 threads"); threads_text overrides the phrase
    ({threads} is the count); threads_why is appended to the reason.
    threads_upto: the claim speaks of every thread count up to threads ("up
    to 8 threads", or a paper figure's whole range): it is judged on the counts
    measured, and a "holds" on fewer than those counts becomes inconclusive
    (evidence only at other thread counts) while a failure at a measured count stands.
    nodes: the real NUMA nodes it needs; nodes_why is said after the count.
    min_runs: the least runs per point (or per group, as the rule says) behind
    a verdict; a rule reports the runs it used and evaluate() makes a verdict
    on fewer inconclusive.
    by_construction: why the claim holds by construction (a calibration, a
    definition): it is still measured, and when it holds it is listed apart
    and not counted.
    paper_threads: the thread count of the paper's machine, for a claim from an
    experiment run with all its threads that names no count: judged at the
    largest count here; below paper_threads the verdict is inconclusive (the
    "paper's machine" rule of RULES).
    design_note: why the algorithm, by design, departs from the claim where it
    does; said with a verdict that does not hold.
    data: the CSVs its rule reads besides its figures' sources, where run-all's
    plan puts runs of its variants (a run restricted to other experiments
    cannot speak to it: claims/restriction.py).
    variants: the variants it speaks of, where its sentence does not name them
    all (e.g. "those six", "the probabilistic counters"); else the ones its
    sentence names are taken.
    opposite: opposite(ctx, claim) -> why the measurement could not have shown
    the outcome opposite to the claim here (a no_test(cause, text) reason), or
    None when it could; a judged or inconclusive verdict then becomes "no test
    here" (claims/opposite.py has the checks).
    """

    def __init__(self, id, source, text, figure, rule, threads=1, threads_at=False,
                 threads_text=None, threads_why="", nodes=1, nodes_why="",
                 threads_upto=False, min_runs=MIN_RUNS, by_construction=None,
                 paper_threads=None, design_note=None, data=(), variants=None,
                 opposite=None):
        self.id, self.source, self.text, self.figure, self.rule = id, source, text, figure, rule
        self.threads, self.threads_at = threads, threads_at
        self.threads_text, self.threads_why = threads_text, threads_why
        self.threads_upto = threads_upto
        self.nodes, self.nodes_why = nodes, nodes_why
        self.min_runs, self.by_construction = min_runs, by_construction
        self.paper_threads = paper_threads
        self.design_note = design_note
        self.data, self.variants = tuple(data), variants
        self.opposite = opposite

    @property
    def paper(self):
        return re.split("[ ,]", self.source)[0]


# --- numbers as the report writes them ---------------------------------------------

def f_rate(v):
    if v is None:
        return "n/a"
    if v >= 100:
        return "{:,.0f} ops/ms".format(v)
    return "%.3g ops/ms" % v


def f_pct(v, digits=3):
    return "n/a" if v is None else ("%." + str(digits) + "g%%") % v


def f_ratio(v):
    if v is None:
        return "n/a"
    return "{:,.0f}x".format(v) if v >= 1000 else "%.3gx" % v


def f_n(v):
    v = int(v)
    if v >= 10 ** 9:
        return "%.3g G" % (v / 1e9)
    if v >= 10 ** 6:
        return "%.3g M" % (v / 1e6)
    return "{:,}".format(v)


def f_rho(rho):
    return "n/a" if rho is None else "%.2f" % rho

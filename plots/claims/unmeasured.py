# SPDX-License-Identifier: MIT
"""The claims of the two papers that no result set of this project can test on a
small machine or with run-all.sh's plan: each listed with its cause, so
that the report's count of the papers' claims is complete. A claim here gets a
rule when the plan or a machine could measure it."""

from claims.core import MACHINE, NM, PLAN, Claim, not_measurable


def never(cause, why):
    """A rule that says why its claim is not measurable (cause: NM_CAUSES)."""
    return lambda ctx, c: ("", NM, not_measurable(cause, why))


CLAIMS = [
    Claim("dice-one-delayed-update", "Dice §1",
          "Under contention many increments of an unsynchronized counter can be lost to a "
          "single delayed update", "dice-fig6-high",
          never(PLAN, "scbench records each run's final count, not which store overwrote "
                "which, so no lost increment can be traced to one delayed update")),
    Claim("dice-rbonuma-advantage-moderate", "Dice §2.1",
          "Under moderate load the advantage of RBONuma and RBONumaAdapt over RBO is reduced, "
          "as there is less opportunity for consecutive increments on one node",
          "dice-fig4-low",
          never(MACHINE, "needs threads on at least 2 real NUMA nodes (consecutive "
                "increments on one node against increments across nodes); this machine has "
                "1 node"), nodes=2),
    Claim("dice-rbonuma-tuning-sensitive", "Dice §2.1",
          "The NUMA-aware RBO counters are sensitive to system-specific tuning, which makes "
          "them less stable", "dice-fig4-high",
          never(PLAN, "run-all.sh runs each counter with one setting of its backoff and "
                "patience; no sweep of them is in the plan")),
    Claim("dice-multiline-no-cross-node", "Dice §2.2",
          "With one component per node, Multiline's CAS updates are not as problematic as "
          "often assumed, as there is no cross-node contention", "dice-fig4-high",
          never(MACHINE, "needs threads on at least 2 real NUMA nodes; on one node every "
                "thread shares the one component line"), nodes=2),
    Claim("dice-multilineadapt-shifting-contention", "Dice §2.2",
          "If different counters are contended at different times, MultilineAdapt's "
          "inflations may add up to excessive space over time", "dice-fig5",
          never(PLAN, "no experiment of the plan moves the hot counter during a run")),
    Claim("dice-rbonuma-positive-not-competitive", "Dice §5.1",
          "With 99.02% external work RBONuma and RBONumaAdapt scale positively but are not "
          "competitive with the counters that scale well", "dice-fig3",
          never(MACHINE, "needs thread counts beyond 8, where contention arises in Fig. 3, "
                "and 2 real NUMA nodes for the node-aware counters"), threads=16, nodes=2),
    Claim("dice-nonscalable-similarly-poor", "Dice §5.2",
          "With no external work the nonscalable counters all perform similarly poorly at "
          "high thread counts", "dice-fig4-high",
          never(MACHINE, "needs the paper's high thread counts (up to 256), where they stop "
                "scaling"), threads=256, threads_at=True),
    Claim("dice-prob-scale-no-work", "Dice §5.2",
          "With no external work Morris, MorrisAdapt, BFP-DUP and BFP-CSUP again scale well",
          "dice-fig4-high",
          never(MACHINE, "needs at least 4 threads to measure scaling beyond the step from "
                "one thread to a shared line"), threads=4),
    Claim("dice-array-gap-disappears", "Dice §5.3",
          "In the array Multiline's lead over MultilineAdapt mostly disappears at higher "
          "thread counts", "dice-fig5",
          never(MACHINE, "needs thread counts beyond 32, where the paper sees the gap close"),
          threads=64),
    Claim("dice-morrisadapt-skips-rng", "Dice §5.3",
          "In the array MorrisAdapt's increments of uncontended counters avoid generating a "
          "random number", "dice-fig5",
          never(PLAN, "scbench records no count of random numbers drawn per increment")),
    Claim("ayers-instrumented-2-3x", "Ayers, Introduction",
          "Instrumented code with shared counters ran 2-3x slower than uninstrumented code "
          "in heavily multithreaded applications", "baselines",
          never(PLAN, "an application benchmark with and without instrumentation is not in "
                "run-all.sh's plan; scbench measures the counters alone")),
    Claim("ayers-server-metrics", "Ayers, Scalability",
          "With Scalable counting, instrumented server benchmarks (TechEmpower) improved "
          "significantly", "baselines",
          never(PLAN, "no server benchmark is in run-all.sh's plan")),
]

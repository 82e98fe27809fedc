# SPDX-License-Identifier: MIT
"""Dice §5.3: 7500 counters, one hot (Fig. 5)."""

from claims.core import Claim
from claims.rules import FEW_PERCENT, compare_medians, pairwise_faster, throughput_ratio_above

CLAIMS = [
    Claim("dice-fig5-multiline-2x", "Dice §5.3",
          "In the 7500-counter array at 32 threads, Multiline gives more than 2x "
          "MultilineAdapt's throughput",
          "dice-fig5", throughput_ratio_above(["Multiline"], ["MultilineAdapt"], 2.0),
          threads=32, threads_at=True),
    Claim("dice-fig5-adaptive-wins", "Dice §5.3",
          "In the 7500-counter array the adaptive probabilistic counters outperform their "
          "non-adaptive versions significantly: MorrisAdapt > Morris, BFP-CSUP > BFP-DUP "
          "(verdict: median above %gx at every thread count; the paper calls a gap of a few "
          "percent \"slightly\" lower, so \"significantly\" is more than that)" % FEW_PERCENT,
          "dice-fig5", compare_medians([(a, [b]) for a, b in (("MorrisAdapt", "Morris"),
                                                               ("BFP-CSUP", "BFP-DUP"))],
                                       lambda r: r > FEW_PERCENT,
                                       "above %gx at every thread count measured" % FEW_PERCENT,
                                       "not above %gx" % FEW_PERCENT),
          threads=256, threads_upto=True, threads_text="Fig. 5's thread counts, 1-{threads}"),
    Claim("dice-fig5-bfp-beats-morris", "Dice §5.3",
          "In the 7500-counter array the BFP counters beat the Morris ones: "
          "BFP-DUP > Morris, BFP-CSUP > MorrisAdapt",
          "dice-fig5", pairwise_faster([("BFP-DUP", "Morris"), ("BFP-CSUP", "MorrisAdapt")]),
          threads=256, threads_upto=True, threads_text="Fig. 5's thread counts, 1-{threads}"),
]

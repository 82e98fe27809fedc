# SPDX-License-Identifier: MIT
"""Dice §1, §5.1: a Serial (racy load/store) counter loses increments under contention."""

from claims.core import Claim
from claims.rules import serial_error_above

CLAIMS = [
    Claim("dice-serial-loses-90pct", "Dice §1",
          "A Serial (unsynchronized load/store) counter shared by 32 or more threads "
          "consistently loses over 90% of its increments",
          "dice-fig6-high", serial_error_above(90.0, "min"), threads=32),
    Claim("dice-serial-99pct-256", "Dice §5.1",
          "At 0% external work and 256 threads Serial's relative error consistently exceeds "
          "99% (verdict: every run, the least of the runs, above 99%, as for its twin claim "
          "of Dice §1)",
          "dice-fig6-high", serial_error_above(99.0, "min"), threads=256),
    Claim("dice-serial-75pct-64", "Dice §5.1",
          "With low contention (99.01% external work; judged on the 99% runs of Fig. 6) Serial's "
          "relative error exceeds 75% at 64 threads and more",
          "dice-fig6-low", serial_error_above(75.0, "median"), threads=64),
    Claim("dice-serial-10pct-8", "Dice §5.1",
          "With low contention (99.01% external work; judged on the 99% runs of Fig. 6) Serial's "
          "relative error exceeds 10% at 8 threads and more",
          "dice-fig6-low", serial_error_above(10.0, "median"), threads=8),
]

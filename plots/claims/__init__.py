# SPDX-License-Identifier: MIT
"""The claims of the two papers that REPORT.md judges, one module per paper
section or family of claims; the report numbers them in the order below.

To add a claim: add one Claim(...) to the CLAIMS list of the module it belongs
to (claims/core.py says what a Claim declares; claims/rules.py has the verdict
rules shared by a family; claims/context.py says what a rule may ask of the
result set; claims/judge.py applies the general rules to every verdict;
claims/restriction.py says which claims a restricted run cannot speak to). A
new family gets a new module, listed here.
"""

from claims import (ayers_accuracy, ayers_cost, ayers_more, ayers_notes, ayers_rng, contention,
                    dice_array, dice_design, dice_error, dice_more, dice_naive, dice_scaling,
                    dice_serial, unmeasured)
from claims.context import Context
from claims.core import NM_CAUSES, RULES, VERDICTS
from claims.judge import bimodal_notes, evaluate
from claims.restriction import leave_out

__all__ = ["CLAIMS", "MODULES", "NM_CAUSES", "RULES", "VERDICTS", "Context", "bimodal_notes",
           "evaluate", "leave_out"]

MODULES = [dice_serial, dice_scaling, dice_array, dice_error, dice_design, ayers_accuracy,
           ayers_cost, ayers_notes, dice_more, ayers_more, ayers_rng, contention, dice_naive,
           unmeasured]
CLAIMS = [c for m in MODULES for c in m.CLAIMS]

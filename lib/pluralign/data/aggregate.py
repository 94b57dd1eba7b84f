"""Aggregated labels, derived from the annotations (never stored as truth).

:func:`aggregate` is the one place a rule turns a pair's judgments into one label or value.
"""

from __future__ import annotations

import pandas as pd

from pluralign.data.core import PreferenceData

__all__ = ["aggregate", "RULES"]

#: rule -> what it returns per pair
RULES = {
    "majority": '"A", "B", "tie" or "split" (PreferenceData.majority: the plurality of A / B / tie votes; a side '
    "drawing with the ties wins; A and B drawing is a split)",
    "mean": "mean signed preference, −2 … 2 (negative favours A)",
    "share_a": "share of judgments preferring A, ties counting half (the empirical P(A ≻ B))",
    "strength": "mean absolute preference, 0 (ties only) … 2 (all significant)",
    "count": "number of judgments",
}


def aggregate(data: PreferenceData, rule: str = "majority") -> pd.Series:
    """One aggregated value per pair (indexed by ``pair_id``) by ``rule``, one of :data:`RULES`."""
    fns = {
        "majority": data.majority,
        "mean": data.mean_preference,
        "share_a": data.share_a,
        "strength": data.strength,
        "count": data.n_annotators,
    }
    if rule not in fns:
        raise ValueError(f"unknown aggregation rule {rule!r}; one of {', '.join(RULES)}")
    return fns[rule]().rename(rule)

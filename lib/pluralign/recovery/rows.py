"""The recovery table's rows (:data:`COLUMNS`): one per check, of three kinds — a *method row* (the method gives
back what the simulator planted), a *claim row* (``quantity`` starting ``claim_``: one of the papers' claims, its
verdict from the CI) and a *stand-in row* (:data:`STAND_IN`: the demo's small trained model against the planted
weights) — and the intervals the checks share."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.stats import bootstrap_ci

__all__ = ["COLUMNS", "REQUIRED", "HIGH_AGREEMENT", "STAND_IN", "is_method", "row", "pearson_ci", "fisher_ci"]

COLUMNS = ["part", "quantity", "description", "planted", "estimate", "ci_low", "ci_high", "criterion", "recovered"]
#: the method rows the demo table must hold: one per method of the library that the planted truth can check
#: (:func:`~pluralign.recovery.demo.recovery_table` refuses a table without one of them)
REQUIRED = (
    "diverging_share",
    "cause_agreement",
    "meanvar_auroc_diverging",
    "rm_accuracy_high_agreement",
    "imprint_weight_correlation",
    "imprint_weight_coverage",
    "robustness_sign",
    "margin_pstar_correlation",
    "subjectivity_category_accuracy",
)
#: "the simulated population agrees": at least this share of its annotators on one side
HIGH_AGREEMENT = 0.8
#: rows that check the demo's trained stand-in models rather than a method: reported with their verdict, like a
#: claim row, but a miss there is a finding about the small stand-in RM (the method rows check the estimators)
STAND_IN = ("imprint_rm_weight_correlation", "robustness_rm_sign")


def is_method(quantity) -> pd.Series | bool:
    """Whether a row id names a method check (not a ``claim_`` row, not a :data:`STAND_IN` row)."""
    if isinstance(quantity, str):
        return not quantity.startswith("claim_") and quantity not in STAND_IN
    q = pd.Series(quantity)
    return ~q.str.startswith("claim_") & ~q.isin(STAND_IN)


def row(part, quantity, description, planted, estimate, ci, criterion, recovered) -> dict:
    """One row of the recovery table (``ci`` a (low, high) pair)."""
    return {
        "part": part,
        "quantity": quantity,
        "description": description,
        "planted": float(planted) if planted is not None else np.nan,
        "estimate": float(estimate),
        "ci_low": float(ci[0]),
        "ci_high": float(ci[1]),
        "criterion": criterion,
        "recovered": bool(recovered),
    }


def pearson_ci(a, b, seed: int = 0, n_boot: int = 1000):
    """Pearson r of ``a`` and ``b`` with its 95% percentile bootstrap CI over pairs."""
    x = np.column_stack([np.asarray(a, float), np.asarray(b, float)])
    return bootstrap_ci(x, lambda v: np.corrcoef(v[:, 0], v[:, 1])[0, 1], n_boot=n_boot, seed=seed)


def fisher_ci(r: float, n: int) -> tuple[float, float]:
    """The 95% Fisher z interval of a Pearson r over ``n`` points (here: features)."""
    z, half = np.arctanh(np.clip(r, -0.999999, 0.999999)), 1.959964 / np.sqrt(max(n - 3, 1))
    return float(np.tanh(z - half)), float(np.tanh(z + half))  # Fisher z interval over the features

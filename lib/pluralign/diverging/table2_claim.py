"""The claim of Diverging Preferences' Table 2 (§3, "Results"): "When presented with examples with diverging
preferences, reward models predict differences in rewards that are akin to high-agreement preferences, even when
trained over all annotator labels."

Measured per trained model as the **decisiveness gap**: Table 2's measure (P(chosen ≻ rejected) for Bradley-Terry,
r_chosen − r_rejected for MSE regression; :func:`pluralign.diverging.reward_models.table2`) averaged over the
held-out *High-Agreement Prefs.* minus averaged over the *Diverging Prefs. (All)*, with a percentile bootstrap 95%
interval (the pairs of both rows resampled together). The paper's own gap is the difference of its two printed rows.

What the interval says (:func:`gap_words`): a Bradley-Terry model is **level** on the two rows (the paper's claim)
when the whole interval lies within ±:data:`LEVEL` of 0 on the probability scale — the band the recovery page's
check of this claim uses; **less decisive on diverging** pairs when it lies above 0 and leaves the band, **more
decisive on diverging** when below; else **inconclusive**. MSE rewards are on the 1–5 Likert scale, where no band
has been set: their gap reads by its sign alone."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from pluralign.diverging.reward_models import SUBSETS, RewardModelRun, chosen_values, paper_table2
from pluralign.stats import N_BOOT, bootstrap_ci

__all__ = ["LEVEL", "WORDS", "READS", "decisiveness_gap", "gap_words", "table2_claim", "claim_says", "model_sentence"]

#: the band (on P(chosen ≻ rejected)) inside which a Bradley-Terry model's gap reads "level"
LEVEL = 0.05
#: the verdicts a table cell shows
WORDS = {
    "level": "level",
    "less": "less decisive on diverging",
    "more": "more decisive on diverging",
    "inconclusive": "inconclusive",
    "none": "no estimate",
}
HIGH, DIVERGING = SUBSETS[0], SUBSETS[2]


def _gap(x: np.ndarray) -> float:
    """Mean of the high-agreement rows minus mean of the diverging rows (column 1: 1 = diverging)."""
    div = x[:, 1] > 0.5
    if div.all() or not div.any():
        return float("nan")
    return float(x[~div, 0].mean() - x[div, 0].mean())


def decisiveness_gap(values: pd.Series, agreement: pd.Series, *, n_boot: int = N_BOOT, seed: int = 0) -> tuple:
    """The decisiveness gap of one model: the mean of ``values`` (Table 2's measure per held-out pair) over the
    high-agreement preferences minus over the diverging pairs (``agreement``: the pairs' classes,
    :func:`pluralign.diverging.agreement.agreement_classes`), with a percentile bootstrap 95% interval; returns
    ``(gap, low, high, n high-agreement, n diverging)`` (NaN without pairs of either class)."""
    a = agreement.reindex(values.index)
    keep = a.isin(["high-agreement-pref", "diverging"]).to_numpy()
    x = np.column_stack([values.to_numpy(float)[keep], (a[keep] == "diverging").to_numpy(float)])
    n_div = int(x[:, 1].sum())
    n_high = len(x) - n_div
    if not n_div or not n_high:
        return (float("nan"),) * 3 + (n_high, n_div)
    est, lo, hi = bootstrap_ci(x, _gap, n_boot=n_boot, seed=seed)
    return float(est), float(lo), float(hi), n_high, n_div


def gap_words(gap: float, lo: float, hi: float, *, probability: bool) -> str:
    """What a gap's interval says (module docstring): "level" (a probability model's interval within ±LEVEL),
    "less decisive on diverging" (above 0), "more decisive on diverging" (below 0), "inconclusive"."""
    if not all(v is not None and math.isfinite(float(v)) for v in (gap, lo, hi)):
        return WORDS["none"]
    if probability and -LEVEL <= lo and hi <= LEVEL:
        return WORDS["level"]
    if lo > 0:
        return WORDS["less"]
    if hi < 0:
        return WORDS["more"]
    return WORDS["inconclusive"]


def _paper_gap(name: str, model: str, paper_reference) -> float:
    """The paper's gap for the block ``name`` stands for: its High-Agreement Prefs. row minus its Diverging Prefs.
    (All) row (NaN where the paper has no such model or block)."""
    try:
        block = paper_table2(name, paper_reference)
    except KeyError:
        return float("nan")
    if model not in block:
        return float("nan")
    return float(block.loc[HIGH, model] - block.loc[DIVERGING, model])


def table2_claim(
    runs: Mapping[str, RewardModelRun], *, n_boot: int = N_BOOT, seed: int = 0, paper_reference=None
) -> pd.DataFrame:
    """Table 2's claim per data set and model (module docstring): columns ``high-agreement pairs``, ``diverging
    pairs``, ``gap``, ``lo``, ``hi`` (this run's), ``paper gap`` (the paper's, for the block the data set stands
    for), ``probability`` (a Bradley-Terry model's measure), ``says`` (:func:`gap_words`) and ``paper says`` (the
    same rule on the paper's point gap). Index (data set, model)."""
    rows = []
    for name, r in runs.items():
        vals = chosen_values(r.classified, p_a=r.p_a or None, reward_gap=r.gap or None)
        for model, v in vals.groupby("model", sort=False):
            prob = v["measure"].iloc[0].startswith("P(")
            s = pd.Series(v["value"].to_numpy(float), index=v["pair_id"].to_numpy())
            gap, lo, hi, n_high, n_div = decisiveness_gap(s, r.classified["agreement"], n_boot=n_boot, seed=seed)
            paper = _paper_gap(name, model, paper_reference)
            rows.append(
                {
                    "data set": name,
                    "model": model,
                    "high-agreement pairs": n_high,
                    "diverging pairs": n_div,
                    "gap": gap,
                    "lo": lo,
                    "hi": hi,
                    "paper gap": paper,
                    "probability": prob,
                    "says": gap_words(gap, lo, hi, probability=prob),
                    "paper says": gap_words(paper, paper, paper, probability=prob),
                }
            )
    return pd.DataFrame(rows).set_index(["data set", "model"])


def claim_says(claim: pd.DataFrame) -> str:
    """Whether Table 2's claim holds on one data set's rows of :func:`table2_claim`, in words: "holds" when every
    Bradley-Terry model reads "level", "does not hold" when one reads less (or more) decisive on diverging pairs,
    else "is not decided" (an interval too wide for either)."""
    bt = claim[claim["probability"]]["says"]
    if not len(bt) or (bt == WORDS["none"]).all():
        return "is not measured"
    if (bt == WORDS["level"]).all():
        return "holds"
    if bt.isin([WORDS["less"], WORDS["more"]]).any():
        return "does not hold"
    return "is not decided"


#: How a model's gap reads in a sentence (:data:`WORDS` → the words after the model's name).
READS = {
    WORDS["level"]: "is level on the two rows",
    WORDS["less"]: "is less decisive on diverging pairs than on high-agreement ones",
    WORDS["more"]: "is more decisive on diverging pairs than on high-agreement ones",
    WORDS["inconclusive"]: "has a gap whose interval is too wide to tell",
    WORDS["none"]: "has no gap on these pairs",
}


def model_sentence(model: str, row, unit: str = "") -> str:
    """One model's row of :func:`table2_claim` as a clause: its reading, its gap with the interval (``unit`` after
    it, e.g. " Likert points") and the paper's gap where the paper has one."""
    from pluralign.presentation import fmt_interval, signed

    gap = fmt_interval(row["gap"], row["lo"], row["hi"], 3)
    paper = f"; the paper's gap {row['paper gap']:.3f}" if row["paper gap"] == row["paper gap"] else ""
    return signed(f"{model} {READS[row['says']]} ({gap}{unit}{paper})")

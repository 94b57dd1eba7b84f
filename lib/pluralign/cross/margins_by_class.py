"""Question 1 — are Beyond the Binary's margins small exactly on Diverging Preferences' diverging pairs?

A pair's margin (Beyond the Binary Eq. 3, ``m = |Σ j_i − n/2| / (n/2)``; :mod:`pluralign.btb.margins`) is
compared across the agreement classes of Diverging Preferences §3 (:func:`pluralign.diverging.agreement_classes`).
The separation is the AUROC of ``1 − m`` for "diverging" against both high-agreement classes
(:func:`pluralign.diverging.knowing.disagreement_auroc`, Mann-Whitney with a percentile bootstrap CI): 0.5 means
the margin says nothing about the class, 1 that every diverging pair has a smaller margin than every
high-agreement pair.

Three margins: the *synthetic* one (n judgments of an LLM, or the demo's simulated judge), the *gold* one
(Eq. 3 over the pair's own annotators, §2) and, on simulated data, the *planted* population margin
``|2p* − 1|`` (what a judge that knew the population would give, Eq. 2 and 3 with n → ∞). The gold margin is
computed from the very judgments that define the agreement classes, so its AUROC is partly true by
construction, and the planted AUROC does not bound it: the classes and the gold margin share the sampling noise of
the same few annotators, which the population margin does not see. The planted AUROC bounds a margin that is
independent of the annotators given the population: the synthetic one. On simulated data that judge is itself
drawn from p* (:class:`pluralign.btb.margins.SimulatedJudge`: the population's preference with log-odds noise), so
there it measures how far the population's split separates the classes through a noisy judge, not whether an LLM
judge perceives disagreement; that test needs a real judge (the paper profile).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.cross.common import class_masks, intervals, read_against_planted
from pluralign.diverging.knowing import disagreement_auroc, diverging_labels
from pluralign.stats import N_BOOT, bootstrap_ci

__all__ = ["margin_auroc", "margin_distribution", "margin_separation", "display", "GOLD", "PLANTED_READING"]


def _checked(name: str, m: pd.Series) -> pd.Series:
    m = pd.Series(m, dtype=float)
    bad = m.isna()
    if bad.any():
        raise ValueError(
            f"margin {name!r}: {int(bad.sum())} pairs have no margin (first: {m.index[bad][0]!r}); "
            "nothing is dropped silently — leave those pairs out before calling"
        )
    if ((m < 0) | (m > 1)).any():
        raise ValueError(f"margin {name!r}: values must lie in [0, 1] (Eq. 3)")
    return m


def margin_auroc(
    margin: pd.Series,
    classified: pd.DataFrame,
    *,
    against=("high-agreement-pref", "high-agreement-tie"),
    n_boot: int = N_BOOT,
    seed: int = 0,
):
    """AUROC of ``1 − margin`` for diverging vs the ``against`` classes (default both high-agreement classes)
    with its bootstrap CI, as :class:`pluralign.diverging.knowing.Interval`; None when one of the two groups is
    empty. ``margin``: Series indexed by pair_id (every pair must be classified)."""
    m = _checked("margin", margin)
    class_masks(classified, m.index)  # every pair classified
    labels = diverging_labels(classified.loc[m.index], against=against)
    if labels.all() or not labels.any():
        return None
    return disagreement_auroc(1 - m, labels, n_boot=n_boot, seed=seed)


def margin_distribution(
    margins: dict, classified: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = 0
) -> pd.DataFrame:
    """Per margin source (``margins``: ``{name: Series indexed by pair_id}``) and agreement class: ``pairs``
    (int), ``mean margin`` with its 95% bootstrap CI (``mean``, ``lo``, ``hi``), the ``median`` and the share
    of pairs with ``m = 1`` (unanimous). Classes without pairs are left out."""
    rows = []
    for name, m in margins.items():
        m = _checked(name, m)
        for cls, mask in class_masks(classified, m.index).items():
            x = m.to_numpy()[mask]
            if not len(x):
                continue
            est, lo, hi = bootstrap_ci(x, np.mean, n_boot=n_boot, seed=seed)
            rows.append(
                {
                    "margin": name,
                    "class": cls,
                    "pairs": int(len(x)),
                    "mean": est,
                    "lo": lo,
                    "hi": hi,
                    "median": float(np.median(x)),
                    "unanimous (m = 1)": float(np.mean(np.isclose(x, 1.0))),
                }
            )
    return pd.DataFrame(rows)


#: The margin source computed from the very judgments that define the agreement classes (Eq. 3 over the pair's own
#: annotators): its AUROC is partly true by construction and not bounded by the planted one. Its label names no
#: count ("annotators", "judgments" would read as a count row).
GOLD = "gold (the pair's own votes)"

#: What a margin's AUROC means against the planted AUROC (the population margin ``|2p* − 1|`` against the same
#: classes: what a judge with unlimited judgments of the population would reach), for a margin independent of the
#: sampled annotators given the population (the synthetic one) and for one computed from their own judgments (the
#: gold one, :data:`GOLD`): where the CI sits against it (:func:`pluralign.cross.common.read_against_planted`).
PLANTED_READING = {
    "independent": {
        "covers": (
            "its CI covers the planted AUROC ({p}): the margin separates the classes as far as the population's own "
            "split does"
        ),
        "below": (
            "its CI lies below the planted AUROC ({p}): the margin separates the classes less than the population's "
            "own split does"
        ),
        "above": (
            "its CI lies above the planted AUROC ({p}), more than the population's own split can separate them: a "
            "margin independent of the annotators should not get there"
        ),
    },
    "same judgments": {
        "covers": "its CI covers the planted AUROC ({p})",
        "below": (
            "its CI lies below the planted AUROC ({p}), although it is computed from the same judgments that define "
            "the classes"
        ),
        "above": (
            "its CI lies above the planted AUROC ({p}), as it may: it is computed from the same judgments that define "
            "the classes, so it shares their sampling noise and is not bounded by the population's split"
        ),
    },
}


def margin_separation(
    margins: dict,
    classified: pd.DataFrame,
    *,
    planted: pd.Series | None = None,
    same_judgments=(GOLD,),
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> pd.DataFrame:
    """Question 1's answer per margin source: diverging and high-agreement pair counts, the AUROC of ``1 − m``
    (:func:`margin_auroc`) with CI, and the verdict from the CI against 0.5. With ``planted`` (the planted
    population margin ``|2p* − 1|`` of simulated data) the planted AUROC on the same pairs stands beside
    each estimate, and the verdict reads the CI against it too (:data:`PLANTED_READING`; the sources named in
    ``same_judgments`` are computed from the judgments that define the classes, so the planted AUROC does not bound
    them). Returns one row per source (index ``margin``): ``verdict`` the long reading, ``short`` a table
    cell's words."""
    rows = []
    for name, m in margins.items():
        m = _checked(name, m)
        labels = diverging_labels(classified.loc[m.index])
        auc = margin_auroc(m, classified, n_boot=n_boot, seed=seed)
        row = {"margin": name, "diverging pairs": int(labels.sum()), "high-agreement pairs": int((~labels).sum())}
        if auc is None:
            row.update(AUROC=np.nan, lo=np.nan, hi=np.nan)
        else:
            row.update(AUROC=auc.estimate, lo=auc.lo, hi=auc.hi)
        if planted is not None:
            p = margin_auroc(planted.reindex(m.index), classified, n_boot=n_boot, seed=seed)
            row["planted AUROC (|2p*−1|)"] = np.nan if p is None else p.estimate
        prefs = margin_auroc(m, classified, against=("high-agreement-pref",), n_boot=n_boot, seed=seed)
        row.update(zip(("AUROC vs prefs", "prefs lo", "prefs hi"), (np.nan,) * 3 if prefs is None else prefs))
        p = row.get("planted AUROC (|2p*−1|)", np.nan)
        reading = read_against_planted(
            row["AUROC"],
            row["lo"],
            row["hi"],
            planted=p,
            null=0.5,
            above=(
                "margins are smaller on diverging pairs"
                if np.isfinite(p)
                else "supported: margins are smaller on diverging pairs"
            ),
            below=(
                "margins are larger on diverging pairs"
                if np.isfinite(p)
                else "contradicted: margins are larger on diverging pairs"
            ),
            planted_reading=PLANTED_READING["same judgments" if name in same_judgments else "independent"],
            why_missing="no diverging or no high-agreement pairs",
        )
        row["verdict"], row["short"] = reading.long, reading.short
        rows.append(row)
    return pd.DataFrame(rows).set_index("margin")


def display(sep: pd.DataFrame) -> pd.DataFrame:
    """:func:`margin_separation` as the page shows it: the AUROC with its CI in one cell."""
    out = sep[["diverging pairs", "high-agreement pairs"]].copy()
    shown, planted = intervals(sep[["AUROC", "lo", "hi"]], sep.get("planted AUROC (|2p*−1|)"))
    out["AUROC of 1 − m [95% CI]"] = shown
    if "planted AUROC (|2p*−1|)" in sep:
        out["planted (population margin)"] = planted
    out["AUROC vs high-agreement prefs only"] = intervals(sep[["AUROC vs prefs", "prefs lo", "prefs hi"]])[0]
    out["verdict"] = sep["short"]
    return out

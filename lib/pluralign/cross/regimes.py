"""Question 3 — does a reward model "resist" mostly where people disagree?

SEAL §2.2 (Table 1) sorts the pairs of an alignment data set D by the alignment δ of a pre-D and a post-D
reward model into four regimes and measures the alignment score a₊ = Σδ/N and the alignment resistance
a₋ = 1 − a₊ (:mod:`pluralign.seal.resistance`: :func:`~pluralign.seal.resistance.aligned`,
:func:`~pluralign.seal.resistance.alignment_regimes`). Here they are computed separately for each agreement
class of Diverging Preferences (:func:`pluralign.diverging.agreement_classes`) on the same pairs, and the
difference of the post-D resistance between diverging and high-agreement pairs gets a bootstrap CI
(pairs resampled; hypothesis: a₋ is larger on diverging pairs).

On simulated data the planted reference is the resistance of the *population*: the share of pairs whose
chosen entry (the sampled annotators' majority, as SEAL takes it) is not the one the population prefers
(p* ≤ ½ for the chosen side; :func:`population_alignment`) — what a reward model that had learnt the population
exactly would "resist".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.cross.common import class_masks, read_against_planted
from pluralign.seal.resistance import REGIMES, aligned, alignment_regimes
from pluralign.stats import N_BOOT, bootstrap_ci

__all__ = ["population_alignment", "regimes_by_class", "resistance_difference", "display", "PLANTED_READING"]

CLASSES = ("high-agreement-pref", "diverging", "other", "all")


def population_alignment(view: pd.DataFrame, share_a: pd.Series) -> pd.Series:
    """δ of the population itself per pair of SEAL's view (:func:`pluralign.seal.chosen_rejected`'s table:
    ``pair_id``, ``chosen_side``): True when the population share preferring the chosen entry exceeds ½
    (``share_a`` = p*, Eq. 2 of Beyond the Binary; a population split evenly is misaligned, as a reward tie)."""
    p = share_a.reindex(view["pair_id"]).to_numpy(float)
    if np.isnan(p).any():
        raise ValueError("population_alignment: share_a lacks some pairs of the view")
    chosen_a = (view["chosen_side"] == "A").to_numpy()
    return pd.Series(np.where(chosen_a, p > 0.5, p < 0.5), index=view["pair_id"].to_numpy(), name="population δ")


def regimes_by_class(
    rewards: pd.DataFrame,
    classified: pd.DataFrame,
    *,
    population: pd.Series | None = None,
    classes=CLASSES,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> pd.DataFrame:
    """SEAL's a₊ (pre-D and post-D), a₋ (post-D) and the four regime shares (Table 1) per agreement class.

    ``rewards``: :func:`pluralign.seal.alignment_rewards`'s table (``pair_id``, ``pre_chosen``, ``pre_rejected``,
    ``post_chosen``, ``post_rejected``); ``population``: the planted δ (:func:`population_alignment`), whose
    a₋ stands beside the estimate. Returns one row per class with pairs: ``pairs``, ``a+ pre``, ``a+ post``,
    ``a- post`` with ``lo`` / ``hi`` (95% bootstrap CI), the shares of :data:`pluralign.seal.REGIMES`, and
    ``planted a-``."""
    R = rewards.set_index("pair_id")
    reg = alignment_regimes(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
    pre = aligned(R["pre_chosen"], R["pre_rejected"])
    post = aligned(R["post_chosen"], R["post_rejected"])
    rows = []
    for cls, mask in class_masks(classified, R.index, classes).items():
        if not mask.any():
            continue
        est, lo, hi = bootstrap_ci((~post[mask]).astype(float), np.mean, n_boot=n_boot, seed=seed)
        row = {
            "class": cls,
            "pairs": int(mask.sum()),
            "a+ pre": float(pre[mask].mean()),
            "a+ post": float(post[mask].mean()),
            "a- post": est,
            "lo": lo,
            "hi": hi,
            **{r: float(np.mean(reg[mask] == r)) for r in REGIMES},
        }
        if population is not None:
            row["planted a-"] = float(1 - population.reindex(R.index).to_numpy(bool)[mask].mean())
        rows.append(row)
    return pd.DataFrame(rows).set_index("class")


def resistance_difference(
    rewards: pd.DataFrame,
    classified: pd.DataFrame,
    *,
    which: str = "post",
    population: pd.Series | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> dict:
    """a₋(diverging) − a₋(high-agreement prefs.) of the ``which`` ("pre" / "post") RM with a bootstrap CI
    (pairs of both classes resampled together), the verdict against 0 and, with ``population``, the planted
    difference, and the verdict read against it as well (:func:`pluralign.cross.common.read_against_planted`,
    :data:`PLANTED_READING`). Returns ``{"delta", "lo", "hi", "n_diverging", "n_high_agreement", "planted",
    "verdict"`` (the long reading), ``"short"`` (a table cell's words), ``"vs_planted"}`` (``"covers"`` /
    ``"above"`` / ``"below"``, None without a planted value)."""
    R = rewards.set_index("pair_id")
    mis = (~aligned(R[f"{which}_chosen"], R[f"{which}_rejected"])).astype(float)
    masks = class_masks(classified, R.index, ("high-agreement-pref", "diverging"))
    keep = masks["high-agreement-pref"] | masks["diverging"]
    x = np.column_stack([mis[keep], masks["diverging"][keep].astype(float)])

    def diff(m):
        d = m[:, 1] > 0.5
        if d.all() or not d.any():
            return np.nan
        return m[d, 0].mean() - m[~d, 0].mean()

    n_d, n_h = int(masks["diverging"].sum()), int(masks["high-agreement-pref"].sum())
    est, lo, hi = bootstrap_ci(x, diff, n_boot=n_boot, seed=seed) if n_d and n_h else (np.nan,) * 3
    planted = np.nan
    if population is not None and n_d and n_h:
        pm = (~population.reindex(R.index).to_numpy(bool)).astype(float)
        planted = float(pm[masks["diverging"]].mean() - pm[masks["high-agreement-pref"]].mean())
    reading = read_against_planted(
        est,
        lo,
        hi,
        planted=planted,
        above=(
            "a₋ is larger on diverging pairs"
            if np.isfinite(planted)
            else "supported: the reward model resists more on diverging pairs"
        ),
        below=(
            "a₋ is smaller on diverging pairs"
            if np.isfinite(planted)
            else "contradicted: it resists less on diverging pairs"
        ),
        planted_reading=PLANTED_READING,
        why_missing="no diverging or no high-agreement pairs",
    )
    return {
        "delta": est,
        "lo": lo,
        "hi": hi,
        "n_diverging": n_d,
        "n_high_agreement": n_h,
        "planted": planted,
        "verdict": reading.long,
        "short": reading.short,
        "vs_planted": reading.vs_planted,
    }


#: What a₋(diverging) − a₋(high-agreement) means against the population's own planted difference (the share of
#: pairs whose majority label the population does not prefer, diverging minus high-agreement): where the CI sits
#: against it (:func:`pluralign.cross.common.read_against_planted`).
PLANTED_READING = {
    "covers": (
        "as large as the population's own difference ({p}): the majority labels the population does not prefer "
        "explain it, so the reward model adds no resistance of its own on diverging pairs"
    ),
    "below": (
        "smaller than the population's own difference ({p}): the majority labels the population does not prefer "
        "explain the gap, and the reward model sides with them on diverging pairs more often than the population "
        "does, so it adds no resistance of its own there"
    ),
    "above": (
        "larger than the population's own difference ({p}): beyond the majority labels the population does not "
        "prefer, the reward model adds resistance of its own on diverging pairs"
    ),
}


def display(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`regimes_by_class` as the page shows it: counts as integers, shares as % with one decimal."""
    out = pd.DataFrame(index=table.index)
    out["pairs"] = table["pairs"].astype(int)
    pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    out["a₊ pre-D"] = table["a+ pre"].map(pct)
    out["a₊ post-D"] = table["a+ post"].map(pct)
    out["a₋ post-D [95% CI]"] = [
        f"{pct(v)} [{pct(lo)}, {pct(hi)}]" for v, lo, hi in zip(table["a- post"], table["lo"], table["hi"])
    ]
    if "planted a-" in table:
        out["planted a₋ (population)"] = table["planted a-"].map(pct)
    for r in REGIMES:
        out[r] = table[r].map(pct)
    return out

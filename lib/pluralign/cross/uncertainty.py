"""Question 2 — does the mean-variance reward model's uncertainty track the margin?

The mean-variance RM of Diverging Preferences §4 (:mod:`pluralign.rewards.objectives`, objective
"mean-variance") gives every response a Gaussian reward N(μ, σ²); its uncertainty about a *pair* is
``σ_pair = √(σ_A² + σ_B²)``, the denominator of ``P(A ≻ B) = Φ((μ_A − μ_B)/σ_pair)``. If the model has learnt
where people disagree, σ_pair is large where Beyond the Binary's margin (Eq. 3) is small: a negative rank
correlation. It is measured per agreement class (Spearman ρ with a percentile bootstrap CI); no correlation
is reported on fewer than :data:`~pluralign.cross.common.MIN_POINTS` points.

On simulated data the planted counterpart of σ_pair is the spread of the utility gap across the annotator
population, ``√(Σ_f ((x_B,f − x_A,f) · sd_f)²)`` over the planted features and the population's weight
standard deviations (:func:`pluralign.data.simulate.population_weights`; judgment noise and the detection of
subtle errors left out): :func:`planted_spread`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from pluralign.cross.common import MIN_POINTS, class_masks, intervals, read_against_planted
from pluralign.stats import N_BOOT, bootstrap_ci

__all__ = ["pair_sigma", "planted_spread", "spearman", "sigma_margin_correlations", "display", "PLANTED_READING"]


def pair_sigma(predicted: pd.DataFrame) -> pd.Series:
    """``σ_pair = √(σ_A² + σ_B²)`` per pair from a mean-variance RM's ``predict`` table (``pair_id, sigma_a,
    sigma_b``, or indexed by pair_id)."""
    p = predicted.set_index("pair_id") if "pair_id" in predicted.columns else predicted
    miss = [c for c in ("sigma_a", "sigma_b") if c not in p.columns]
    if miss:
        raise ValueError(
            f"pair_sigma: the predictions lack {miss} (RewardModel.predict of a mean-variance RM gives them)"
        )
    return np.sqrt(p["sigma_a"].astype(float) ** 2 + p["sigma_b"].astype(float) ** 2).rename("sigma_pair")


def planted_spread(truth: pd.DataFrame, weights: dict | None = None) -> pd.Series:
    """The planted spread of the utility gap across the simulated population, per pair:
    ``√(Σ_f ((b_f − a_f) · sd_f)²)`` (features with ``a_<f>`` / ``b_<f>`` truth columns; ``sd_f`` from
    :func:`pluralign.data.simulate.population_weights` ``(weights)``)."""
    from pluralign.data.simulate import population_weights

    sd = population_weights(weights)["sd"]
    feats = [f for f in sd.index if f"a_{f}" in truth.columns and f"b_{f}" in truth.columns]
    if not feats:
        raise ValueError("planted_spread: the truth has no a_<feature> / b_<feature> columns (simulated data only)")
    d = np.column_stack([(truth[f"b_{f}"] - truth[f"a_{f}"]).to_numpy(float) * sd[f] for f in feats])
    return pd.Series(np.sqrt((d**2).sum(axis=1)), index=truth.index, name="planted spread")


#: What ρ(σ, margin) means against the planted ρ (the population's spread of the utility gap with the same margin on
#: the same pairs): where the CI sits against it (:func:`pluralign.cross.common.read_against_planted`).
PLANTED_READING = {
    "covers": (
        "its CI covers the planted spread's ρ ({p}): consistent with σ relating to the margin as the population's "
        "spread of tastes does"
    ),
    "below": (
        "its CI lies below the planted spread's ρ ({p}): σ is more negatively related to the margin than the "
        "population's spread of tastes is, so σ is not an estimate of that spread alone"
    ),
    "above": (
        "its CI lies above the planted spread's ρ ({p}): σ is less negatively related to the margin than the "
        "population's spread of tastes is"
    ),
}


def spearman(x: np.ndarray) -> float:
    """Spearman ρ of the two columns of ``x`` (mid-ranks for ties); NaN when either column is constant."""
    a, b = rankdata(x[:, 0]), rankdata(x[:, 1])
    if np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def spearman_many(xs: np.ndarray) -> np.ndarray:
    """:func:`spearman` of each resample of a stack ``xs`` (k × n × 2), ranked all at once: the bootstrap's
    replicates without a Python loop over them (NaN where either column of a resample is constant)."""
    a, b = (rankdata(xs[:, :, j], axis=1) for j in (0, 1))
    a, b = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip((a * b).sum(axis=1) / den, -1, 1)
    return np.where(den == 0, np.nan, rho)


def sigma_margin_correlations(
    sigma: pd.Series,
    margins: dict,
    classified: pd.DataFrame,
    *,
    planted: pd.Series | None = None,
    classes=("high-agreement-pref", "high-agreement-tie", "diverging", "all"),
    n_boot: int = N_BOOT,
    seed: int = 0,
    min_points: int = MIN_POINTS,
) -> pd.DataFrame:
    """Spearman ρ between σ_pair (``sigma``, indexed by pair_id) and each margin of ``margins``
    (``{name: Series}``) per agreement class, with a percentile bootstrap CI and the verdict against 0
    (hypothesis: ρ < 0). A class with fewer than ``min_points`` pairs gets no estimate ("too few"), and one
    whose margin or σ is constant gets none either (said so). ``planted``: the planted spread
    (:func:`planted_spread`), whose ρ with the same margin on the same pairs stands beside the estimate.
    The verdict is read against 0 and against the planted ρ (:func:`pluralign.cross.common.read_against_planted`,
    :data:`PLANTED_READING`): σ can fall with the margin and still not be the population's spread.
    Returns rows ``margin, class, pairs, rho, lo, hi, [planted rho], verdict`` (the long reading), ``short`` (a
    table cell's words)."""
    rows = []
    for name, m in margins.items():
        both = pd.concat(
            [pd.Series(sigma, dtype=float).rename("s"), pd.Series(m, dtype=float).rename("m")], axis=1, join="inner"
        )
        if both.isna().any().any():
            raise ValueError(
                f"sigma_margin_correlations: missing σ or margin {name!r} for "
                f"{int(both.isna().any(axis=1).sum())} pairs"
            )
        for cls, mask in class_masks(classified, both.index, classes).items():
            x = both.to_numpy()[mask]
            row = {"margin": name, "class": cls, "pairs": int(len(x)), "rho": np.nan, "lo": np.nan, "hi": np.nan}
            if planted is not None:
                px = np.column_stack([planted.reindex(both.index).to_numpy(float)[mask], x[:, 1]])
                row["planted rho"] = spearman(px) if len(x) >= min_points else np.nan
            if len(x) < min_points:
                row["verdict"] = f"too few pairs for a correlation (n = {len(x)} < {min_points})"
                row["short"] = f"too few pairs (n = {len(x)})"
            elif np.ptp(x[:, 1]) == 0 or np.ptp(x[:, 0]) == 0:
                row["verdict"] = (
                    "— (the margin is the same for every pair of this class: no correlation)"
                    if np.ptp(x[:, 1]) == 0
                    else "— (σ is constant here: no correlation)"
                )
                row["short"] = "constant margin" if np.ptp(x[:, 1]) == 0 else "constant σ"
            else:
                est, lo, hi = bootstrap_ci(x, spearman, n_boot=n_boot, seed=seed, many=spearman_many)
                p = row.get("planted rho", np.nan)
                reading = read_against_planted(
                    est,
                    lo,
                    hi,
                    planted=p,
                    above=(
                        "σ is larger where the margin is larger"
                        if np.isfinite(p)
                        else "contradicted: σ is larger where the margin is larger"
                    ),
                    below=(
                        "σ is larger where the margin is smaller"
                        if np.isfinite(p)
                        else "supported: σ is larger where the margin is smaller"
                    ),
                    planted_reading=PLANTED_READING,
                )
                row.update(rho=est, lo=lo, hi=hi, verdict=reading.long, short=reading.short)
            rows.append(row)
    return pd.DataFrame(rows)


def display(corr: pd.DataFrame) -> pd.DataFrame:
    """:func:`sigma_margin_correlations` as the page shows it (ρ with its CI in one cell, "—" without one; the
    verdict's short words, the long reading being the page's note)."""
    out = corr[["margin", "class", "pairs"]].copy()
    shown, planted = intervals(corr[["rho", "lo", "hi"]], corr.get("planted rho"))
    out["Spearman ρ(σ, margin) [95% CI]"] = shown
    if "planted rho" in corr:
        out["planted ρ (population spread)"] = planted
    out["verdict"] = corr["short"]
    return out.set_index(["margin", "class"])

"""Label flips of the § 2.3 rewriting (SEAL App. D.6 / Fig. 12, App. D.7 / Table 3).

For entry type * ∈ {c, r} and feature τ the *label flip* is ``t_i^*(τ) − t̂_i^*(τ)`` (original minus rewritten):
+1 when the original has the feature and the rewrite loses it, −1 when the rewrite gains it, 0 when unchanged
(sentiment, coded −1/0/1, can also flip by ±2). The flips are the regressors of the robustness scores (Eq. 4,
:mod:`pluralign.seal.robustness`); here: the flips themselves, their shares per feature (Fig. 12) and the
original-vs-rewritten cosine similarity by flip (Table 3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["label_flips", "flip_shares", "similarity_by_flip"]


def label_flips(original: pd.DataFrame, rewritten: pd.DataFrame, features: Sequence[str] | None = None) -> pd.DataFrame:
    """Label flips ``t_i^*(τ) − t̂_i^*(τ)`` (original minus rewritten; App. D.6, Fig. 12) per text and
    feature, from numerically encoded labels (``features.feature_matrix``): +1 the rewrite lost the
    feature, −1 it gained it, 0 unchanged; sentiment (−1/0/1) can give ±2; NaN where either is missing.
    Rows are matched by position."""
    if len(original) != len(rewritten):
        raise ValueError(f"label_flips: {len(original)} original rows vs {len(rewritten)} rewritten rows")
    features = list(features) if features is not None else [c for c in original.columns if c in rewritten.columns]
    missing = [f for f in features if f not in original.columns or f not in rewritten.columns]
    if missing:
        raise ValueError(f"label_flips: feature(s) {missing} missing from the original or rewritten labels")
    a = original[features].reset_index(drop=True).apply(pd.to_numeric, errors="raise").astype(float)
    b = rewritten[features].reset_index(drop=True).apply(pd.to_numeric, errors="raise").astype(float)
    return a - b


def flip_shares(flips: pd.DataFrame) -> pd.DataFrame:
    """Share of texts per flip value (columns −1, 0, 1, plus ±2 if present) for each feature (Fig. 12);
    missing flips are left out of the denominator (``n`` column)."""
    levels = sorted({int(v) for v in np.unique(flips.to_numpy()[~np.isnan(flips.to_numpy())])} | {-1, 0, 1})
    rows = {}
    for f in flips.columns:
        col = flips[f].dropna()
        rows[f] = {**{lv: float(np.mean(col == lv)) if len(col) else np.nan for lv in levels}, "n": int(len(col))}
    out = pd.DataFrame(rows).T
    out.index.name = "feature"
    out["n"] = out["n"].astype(int)
    return out


def similarity_by_flip(cosine, flips: pd.DataFrame) -> pd.DataFrame:
    """Mean ± SD of the original-vs-rewritten cosine similarity by flip value, per feature (App. D.7,
    Table 3). ``cosine``: one similarity per text (``pluralign.embed.cosine_pairs``), aligned with
    ``flips`` rows. Returns rows (feature, flip) with ``mean``, ``sd``, ``n``."""
    cos = np.asarray(cosine, dtype=float).reshape(-1)
    if len(cos) != len(flips):
        raise ValueError(f"similarity_by_flip: {len(cos)} similarities but {len(flips)} rows of flips")
    rows = []
    for f in flips.columns:
        for lv, grp in pd.Series(cos).groupby(flips[f].to_numpy()):
            rows.append(
                {
                    "feature": f,
                    "flip": int(lv),
                    "mean": float(grp.mean()),
                    "sd": float(grp.std(ddof=1)) if len(grp) > 1 else np.nan,
                    "n": int(len(grp)),
                }
            )
    # no flip at all (every label missing): an empty table of the same shape, not an error
    return (
        pd.DataFrame(rows, columns=["feature", "flip", "mean", "sd", "n"]).set_index(["feature", "flip"]).sort_index()
    )

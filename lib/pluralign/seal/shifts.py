"""Reward shifts (SEAL Definition 1, Eq. 2; Fig. 2, Table 6, Fig. 3 centre).

A pair's *reward vector* is ``(r(t_i^c), r(t_i^r))``: x = reward of the chosen entry, y = reward of the
rejected one. Pre-D and post-D reward models give two vectors; the reward shift θ_i is the angle between
them.

**Sign convention.** Definition 1 writes θ_i = arccos(⟨v̲, v⟩ / (‖v̲‖‖v‖)), which is unsigned. Figures 2-4 and
SEAL's public analysis code (``analysis/functions.py::compute_angle``) use the signed version: the arccos,
negated when the 2-D cross product ``v̲ × v`` is negative. :func:`reward_shift` returns that signed angle in
degrees, in (−180, 180]: **positive when the post-D vector lies counter-clockwise of the pre-D vector** in
the (chosen, rejected) plane. The first bisector (chosen = rejected) separates aligned pairs (below it,
chosen > rejected) from misaligned ones (above it); in the third quadrant, where most hh-rlhf rewards lie,
a counter-clockwise (positive) shift moves a vector from above the bisector towards below it, i.e. towards
alignment. ``abs(reward_shift(...))`` equals Definition 1's arccos.

**Centred shifts.** A Bradley–Terry reward is identified only up to an additive constant (the likelihood of
σ(r(t^c) − r(t^r)) does not change when a constant is added to every reward), and two separately trained reward
heads differ by such an offset. Definition 1's angle is not invariant to it: adding c to every post-D reward moves
each post-D vector by (c, c) and turns it. :func:`reward_offsets` measures each model's mean reward over D's
entries; :func:`centred_reward_shift` is Definition 1's angle computed on rewards centred per model (each model's
mean over the chosen and rejected entries of D subtracted), the estimator this project reads beside the paper's:
invariant to either model's offset, and equal to the paper's when both models' rewards already have mean 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.seal.imprint import VIF_THRESHOLD, bonferroni, vif_filter

__all__ = [
    "RewardShiftFit",
    "reward_shift",
    "centred_reward_shift",
    "centred_rewards",
    "reward_offsets",
    "RewardOffsets",
    "reward_angle",
    "reward_shift_regression",
    "REWARD_COLUMNS",
]

REWARD_COLUMNS = ("pre_chosen", "pre_rejected", "post_chosen", "post_rejected")
"""The columns of the rewards table of :func:`~pluralign.seal.design.alignment_rewards`: r̲(t_i^c), r̲(t_i^r),
r(t_i^c), r(t_i^r)."""


@dataclass(frozen=True)
class RewardShiftFit:
    """The reward shift θ_i regressed on the chosen and rejected entries' features (SEAL Eq. 2; Table 6,
    Fig. 3 centre), from :func:`reward_shift_regression`.

    ``table``: one row per (``entry`` c/r, ``feature``) with ``estimate``, ``std_error``, ``z``, ``p_value``,
    ``p_bonferroni``, ``ci_low``, ``ci_high``, ``vif``, ``dropped_vif``; ``n_obs`` pairs in the regression,
    ``n_dropped_missing`` pairs left out (missing θ or feature); ``intercept`` (NaN without one); ``r2``;
    ``dropped_vif`` the regressors (``"feature|c"`` / ``"feature|r"``) removed by the VIF filter
    (VIF above ``vif_threshold``); ``model`` ("OLS") and ``cov_type`` (statsmodels' covariance type)."""

    table: pd.DataFrame
    n_obs: int
    n_dropped_missing: int
    intercept: float
    r2: float
    dropped_vif: list[str]
    model: str = "OLS"
    cov_type: str = "nonrobust"


def _pre_post(rewards: tuple, what: str) -> list:
    """The four reward columns from the rewards table (one argument) or the four arrays themselves."""
    if len(rewards) == 1 and isinstance(rewards[0], pd.DataFrame):
        R = rewards[0]
        miss = [c for c in REWARD_COLUMNS if c not in R.columns]
        if miss:
            raise ValueError(
                f"{what}: the rewards table lacks column(s) {miss} (alignment_rewards gives {REWARD_COLUMNS})"
            )
        return [R[c] for c in REWARD_COLUMNS]
    if len(rewards) == 4:
        return list(rewards)
    raise TypeError(
        f"{what}: give the rewards table of alignment_rewards, or the four arrays {REWARD_COLUMNS}; "
        f"got {len(rewards)} argument(s)"
    )


def _as_rewards(**arrays) -> list[np.ndarray]:
    out = []
    n = None
    for name, a in arrays.items():
        v = np.asarray(a, dtype=float).reshape(-1) if np.ndim(a) else np.asarray([a], dtype=float)
        if n is None:
            n = len(v)
        elif len(v) != n:
            sizes = {k: int(np.size(x)) for k, x in arrays.items()}
            raise ValueError(f"reward arrays must have the same length, got {sizes}")
        bad = ~np.isfinite(v)
        if bad.any():
            raise ValueError(
                f"{name}: {int(bad.sum())} missing or infinite reward(s) (first at position "
                f"{int(np.flatnonzero(bad)[0])})"
            )
        out.append(v)
    return out


def reward_angle(chosen, rejected) -> np.ndarray:
    """Polar angle of the reward vector (chosen, rejected) in degrees, in (−180, 180] (Fig. 2 left,
    Fig. 10). Aligned vectors (chosen > rejected) have angles in (−135, 45); NaN for the zero vector."""
    c, r = _as_rewards(chosen=chosen, rejected=rejected)
    ang = np.degrees(np.arctan2(r, c))
    ang = np.where(ang == -180.0, 180.0, ang)
    return np.where((c == 0) & (r == 0), np.nan, ang)


def reward_shift(*rewards) -> np.ndarray:
    """Reward shift θ_i (SEAL Definition 1), signed, in degrees, one per pair, in (−180, 180].

    ``rewards``: the rewards table of :func:`~pluralign.seal.design.alignment_rewards` (columns
    :data:`REWARD_COLUMNS`), or those four arrays: pre_chosen, pre_rejected, post_chosen, post_rejected.

    θ_i is the angle from the pre-D reward vector ``(r̲(t_i^c), r̲(t_i^r))`` to the post-D reward vector
    ``(r(t_i^c), r(t_i^r))`` in the plane x = chosen reward, y = rejected reward; positive when the
    post-D vector lies counter-clockwise of the pre-D one (the convention of SEAL's analysis code: a
    positive shift in the third quadrant moves a pair toward alignment). Its absolute value is
    Definition 1's ``arccos`` of the cosine between the two vectors. Exactly opposite vectors give +180.
    NaN where either vector is (0, 0), where the angle is undefined.

    Computed as ``atan2(v̲ × v, v̲ · v)``, which is exact near 0° and 180° where arccos loses precision.
    """
    pc, pr, qc, qr = _as_rewards(**dict(zip(REWARD_COLUMNS, _pre_post(rewards, "reward_shift"))))
    cross = pc * qr - pr * qc
    dot = pc * qc + pr * qr
    theta = np.degrees(np.arctan2(cross, dot))
    theta = np.where(theta <= -180.0, 180.0, theta)
    undefined = ((pc == 0) & (pr == 0)) | ((qc == 0) & (qr == 0))
    return np.where(undefined, np.nan, theta)


@dataclass(frozen=True)
class RewardOffsets:
    """Each reward model's mean reward over the chosen and rejected entries of D (:func:`reward_offsets`): ``pre``
    (r̲), ``post`` (r) and ``offset`` = post − pre, the constant by which the two models' rewards differ on average
    (Bradley–Terry identifies neither model's constant, so this offset is an artefact of training, not a finding)."""

    pre: float
    post: float

    @property
    def offset(self) -> float:
        return self.post - self.pre


def reward_offsets(*rewards) -> RewardOffsets:
    """The pre-D and post-D models' mean rewards over all 2n entries of D (chosen and rejected together) as
    :class:`RewardOffsets`. ``rewards``: as :func:`reward_shift`."""
    pc, pr, qc, qr = _as_rewards(**dict(zip(REWARD_COLUMNS, _pre_post(rewards, "reward_offsets"))))
    return RewardOffsets(pre=float(np.mean(np.r_[pc, pr])), post=float(np.mean(np.r_[qc, qr])))


def centred_rewards(*rewards) -> list[np.ndarray]:
    """The four reward arrays (pre_chosen, pre_rejected, post_chosen, post_rejected) with each model's mean over the
    chosen and rejected entries of D (:func:`reward_offsets`) subtracted: the rewards' additive constant, which
    Bradley–Terry training leaves undetermined, fixed at 0 for both models."""
    pc, pr, qc, qr = _as_rewards(**dict(zip(REWARD_COLUMNS, _pre_post(rewards, "centred_rewards"))))
    o = reward_offsets(pc, pr, qc, qr)
    return [pc - o.pre, pr - o.pre, qc - o.post, qr - o.post]


def centred_reward_shift(*rewards) -> np.ndarray:
    """The reward shift θ_i of SEAL's Definition 1 (signed as :func:`reward_shift`, degrees, in (−180, 180]) on
    rewards centred per model (:func:`centred_rewards`). Definition 1 takes the angle between the raw pre-D and
    post-D reward vectors, which changes when a constant is added to one model's rewards; a Bradley–Terry reward
    carries no such constant, so the centred angle is the better estimator of how training on D turned a pair's
    rewards: it is invariant to either model's offset. ``rewards``: as :func:`reward_shift`."""
    return reward_shift(*centred_rewards(*rewards))


def _pair_design(
    chosen: pd.DataFrame, rejected: pd.DataFrame, features: Sequence[str] | None, what: str
) -> tuple[pd.DataFrame, list[str]]:
    """Design matrix of chosen (``_c``) and rejected (``_r``) features, one row per pair."""
    if not isinstance(chosen, pd.DataFrame) or not isinstance(rejected, pd.DataFrame):
        raise TypeError(f"{what}: chosen and rejected features must be DataFrames (one row per pair)")
    if len(chosen) != len(rejected):
        raise ValueError(f"{what}: {len(chosen)} chosen rows but {len(rejected)} rejected rows")
    features = list(features) if features is not None else list(chosen.columns)
    for side, frame in (("chosen", chosen), ("rejected", rejected)):
        missing = [f for f in features if f not in frame.columns]
        if missing:
            raise ValueError(f"{what}: {side} features lack column(s) {missing}")
    X = pd.DataFrame(index=range(len(chosen)))
    for f in features:
        X[f"{f}|c"] = pd.to_numeric(
            chosen[f].astype("float64") if chosen[f].dtype == bool else chosen[f], errors="coerce"
        ).to_numpy(dtype=float)
    for f in features:
        X[f"{f}|r"] = pd.to_numeric(
            rejected[f].astype("float64") if rejected[f].dtype == bool else rejected[f], errors="coerce"
        ).to_numpy(dtype=float)
    return X, features


def _table(
    params, bse, tvalues, pvalues, names: list[str], features: list[str], dropped: dict, vif: pd.Series, level_q: float
) -> pd.DataFrame:
    rows = []
    for f in features:
        for side in ("c", "r"):
            key = f"{f}|{side}"
            est = params.get(key, np.nan)
            se = bse.get(key, np.nan)
            rows.append(
                {
                    "entry": side,
                    "feature": f,
                    "estimate": est,
                    "std_error": se,
                    "z": tvalues.get(key, np.nan),
                    "p_value": pvalues.get(key, np.nan),
                    "ci_low": est - level_q * se,
                    "ci_high": est + level_q * se,
                    "vif": dropped.get(key, vif.get(key, np.nan)),
                    "dropped_vif": key in dropped,
                }
            )
    out = pd.DataFrame(rows).set_index(["entry", "feature"])
    out["p_bonferroni"] = bonferroni(out["p_value"].to_numpy())
    return out


def reward_shift_regression(
    theta,
    chosen: pd.DataFrame,
    rejected: pd.DataFrame,
    features: Sequence[str] | None = None,
    *,
    intercept: bool = True,
    vif_threshold: float | None = VIF_THRESHOLD,
    cov_type: str = "nonrobust",
    level: float = 0.95,
) -> RewardShiftFit:
    """Reward shifts regressed on chosen and rejected features (SEAL Eq. 2; Table 6; Fig. 3 centre)::

        θ_i = Σ_τ β^c_τ t_i^c(τ) + β^r_τ t_i^r(τ) + ε_i

    ``chosen``/``rejected``: feature tables with one row per pair, in the order of ``theta``. OLS with
    statsmodels; an intercept is included by default (SEAL's ``angle.R`` fits ``lm(angles ~ .)``, which
    has one, though Eq. 2 omits it). Features with VIF above ``vif_threshold`` are dropped (over the
    joint chosen + rejected design); p-values Bonferroni-corrected over the reported coefficients.

    Returns :class:`RewardShiftFit`, whose ``table`` is indexed by (``entry`` in {"c", "r"}, ``feature``)
    with ``estimate``, ``std_error``, ``z``, ``p_value``, ``p_bonferroni``, ``ci_low``, ``ci_high``, ``vif``,
    ``dropped_vif``.
    """
    import statsmodels.api as sm
    from scipy import stats as st

    y = np.asarray(theta, dtype=float).reshape(-1)
    X, features = _pair_design(chosen, rejected, features, "reward_shift_regression")
    if len(y) != len(X):
        raise ValueError(f"reward_shift_regression: {len(y)} shifts but {len(X)} pairs of features")
    ok = np.isfinite(y) & X.notna().all(axis=1).to_numpy()
    kept, dropped, vif = vif_filter(X[ok], vif_threshold)
    design = sm.add_constant(X.loc[ok, kept], has_constant="add") if intercept else X.loc[ok, kept]
    fit = sm.OLS(y[ok], design).fit(cov_type=cov_type)
    q = st.t.ppf(0.5 + level / 2, fit.df_resid) if cov_type == "nonrobust" else st.norm.ppf(0.5 + level / 2)
    out = _table(fit.params, fit.bse, fit.tvalues, fit.pvalues, kept, features, dropped, vif, q)
    return RewardShiftFit(
        table=out,
        n_obs=int(ok.sum()),
        n_dropped_missing=int((~ok).sum()),
        intercept=float(fit.params.get("const", np.nan)),
        r2=float(fit.rsquared),
        dropped_vif=list(dropped),
        model="OLS",
        cov_type=cov_type,
    )

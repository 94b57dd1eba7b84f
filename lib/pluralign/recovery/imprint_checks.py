"""SEAL Eq. 1 (the feature imprint) against the planted truth: the method on a noisy oracle reward whose weights are
known, once on the simulator's planted features (``imprint_weights``) and once on the features the demo's
featurizer reads from the texts (``imprint_text_weights``: :func:`pluralign.seal.design.entry_features` with the
rule featurizer), each judged by a criterion that a null method fails (:func:`imprint_judge`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.data.difficulty import PROMPT_EFFECT
from pluralign.recovery.rows import (
    ALPHA,
    calibration,
    calibration_reads,
    calibration_text,
    fisher_ci,
    fmt3,
    null_pass_rate,
    row,
)

__all__ = [
    "imprint_judge",
    "imprint_draws",
    "eq1_closed_form",
    "oracle_imprint",
    "TEXT_WEIGHTS",
    "text_weights",
    "oracle_imprint_text",
]

#: Eq. 1's imprints must correlate with the planted weights at least this much (Pearson r over the features, first
#: noise draw). Source: with 8 features a noise method reaches it with probability ≈ 0.001 (t test of r, 6 d.f.);
#: a correct method on the demo's oracle reaches r > 0.98 (its noise is the trained RM's, far below the weights').
CORRELATION = 0.9


def imprint_judge(est, lo, hi, planted, *, calibrated=None, correlation: float = CORRELATION, alpha=ALPHA) -> dict:
    """The criterion of an Eq. 1 row from its fits over noise draws: ``est`` / ``lo`` / ``hi`` arrays draws ×
    features (NaN where a feature was dropped), ``planted`` the weights per feature. Passes when the first draw's
    imprints correlate with the weights at ``r ≥ correlation`` and the intervals are calibrated on both sides
    (:func:`~pluralign.recovery.rows.calibration` of ``z = (β̂ − w) / SE``, draws × the features marked
    ``calibrated``, default all). Returns ``r``, ``cal`` and ``ok``."""
    est, lo, hi, w = (np.asarray(v, float) for v in (est, lo, hi, planted))
    first = np.isfinite(est[0])
    r = float(np.corrcoef(est[0, first], w[first])[0, 1]) if first.sum() > 2 and np.ptp(est[0, first]) > 0 else 0.0
    se = (hi - lo) / (2 * 1.959964)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (est - w) / se
    mask = np.ones(len(w), bool) if calibrated is None else np.asarray(calibrated, bool)
    cal = calibration(z[:, mask], alpha)
    return {"r": r, "cal": cal, "ok": bool(np.isfinite(r) and r >= correlation and cal["ok"])}


def _null_pass(est, lo, hi, planted, calibrated, seed: int) -> float:
    """:func:`~pluralign.recovery.rows.null_pass_rate` of :func:`imprint_judge`: noise imprints (normal, sd of the
    planted weights) with the method's own interval widths."""
    est, lo, hi, w = (np.asarray(v, float) for v in (est, lo, hi, planted))
    half, sd = (hi - lo) / 2, float(np.std(w)) or 1.0

    def make(rng):
        e = np.where(np.isfinite(est), rng.normal(0.0, sd, est.shape), np.nan)
        return e, e - half, e + half

    return null_pass_rate(lambda o: imprint_judge(*o, w, calibrated=calibrated)["ok"], make, seed=seed)


def imprint_draws(util, X, ids, weights: pd.Series, *, noise_sd: float, n_draws: int, seed: int, fit=None):
    """Eq. 1 of ``n_draws`` noisy oracle rewards ``util[side] + N(0, noise_sd²)`` per entry on the feature frames
    ``X`` (the two entries' features, one row per pair of ``ids``), through the production fit
    (:func:`pluralign.seal.imprint.feature_imprint`, or ``fit`` in its place: the broken variants of
    :mod:`pluralign.recovery.mutations`). Returns ``est``, ``lo``, ``hi`` arrays draws × ``weights.index``.

    The draws share the features and differ only in the noise, and Eq. 1 (least squares with pair fixed effects,
    pair-clustered SEs) is linear in the reward: the first draw goes through the production fit, every draw
    through its closed form (:func:`eq1_closed_form`, one solve over all features for all draws), which must give
    the production fit's first draw back to 1e-8 (otherwise every draw goes through the production fit). A
    broken variant of the production fit (:func:`~pluralign.recovery.mutations.broken_fit`) breaks these draws'
    tables one by one, in order; any other ``fit`` is run on every draw."""
    from pluralign.recovery.seal_checks import _imprint_fit

    rng = np.random.default_rng([seed, 14])
    n_draws = max(1, int(n_draws))
    noise = noise_sd * rng.standard_normal((n_draws, 2, len(ids)))  # the stream of one draw's A then B, per draw
    rewards = [(util[0] + e[0], util[1] + e[1]) for e in noise]
    cols = ["estimate", "ci_low", "ci_high"]
    from pluralign.seal.imprint import feature_imprint

    base, breaks = getattr(fit, "base", fit), getattr(fit, "breaks", None)
    if base is None or base is feature_imprint:
        first = _imprint_fit(*rewards[0], None, ids, X=X).table
        tables = eq1_closed_form(first, rewards, X, ids)
        if tables is None:
            tables = [first] + [_imprint_fit(ra, rb, None, ids, X=X).table for ra, rb in rewards[1:]]
    else:
        tables = [_imprint_fit(ra, rb, None, ids, fit=base, X=X).table for ra, rb in rewards]
    if breaks is not None:
        tables = [breaks(t) for t in tables]
    out = [t.reindex(weights.index)[cols].to_numpy(float).T for t in tables]
    return tuple(np.array([o[k] for o in out]) for k in range(3))


def eq1_closed_form(first: pd.DataFrame, rewards, X, ids, tol: float = 1e-8):
    """SEAL Eq. 1's fit (:func:`pluralign.seal.imprint.feature_imprint`: pair fixed effects, CRV1 SEs clustered by
    pair) of every reward in ``rewards`` (pairs of arrays A, B) on the entries' features ``X``, in closed form:
    with two entries per pair the fixed effects difference out, so β = (ΔXᵀΔX)⁻¹ΔXᵀΔr on the features the
    production fit kept (``first``: its table for ``rewards[0]``), and the cluster-robust variance is
    (ΔXᵀΔX)⁻¹ Σᵢ dᵢ² Δxᵢ Δxᵢᵀ (ΔXᵀΔX)⁻¹ with d the differenced residuals, times the production fit's
    small-sample factor; the interval's quantile is the production fit's. Returns one table per reward
    (``first`` itself, then ``estimate``, ``std_error``, ``ci_low``, ``ci_high`` per feature), or None when the
    pairs are not two entries each or the closed form does not give ``first`` back to ``tol`` (relative)."""
    ids = pd.Index(ids)
    kept = [f for f in first.index if np.isfinite(first.loc[f, "estimate"])]
    if not kept or not ids.is_unique or len(ids) != len(X[0]) or len(kept) >= len(ids):
        return None
    dX = X[0][kept].to_numpy(float) - X[1][kept].to_numpy(float)
    dR = np.column_stack([np.asarray(a, float) - np.asarray(b, float) for a, b in rewards])  # pairs × draws
    A = dX.T @ dX
    try:
        Ainv = np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return None
    beta = Ainv @ (dX.T @ dR)  # features × draws: one solve for every draw
    d = dR - dX @ beta
    B = dX @ Ainv
    naive = np.sqrt((B * B).T @ (d * d))  # features × draws: the sandwich's diagonal
    f = first.loc[kept]
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = f["std_error"].to_numpy(float) / naive[:, 0]
        q = ((f["ci_high"] - f["estimate"]) / f["std_error"]).to_numpy(float)
    if not (np.all(np.isfinite(scale)) and np.all(np.isfinite(q))):
        return None
    se = naive * float(np.median(scale))
    ok = np.allclose(beta[:, 0], f["estimate"], rtol=tol, atol=tol * float(np.abs(beta[:, 0]).max()))
    ok = ok and np.allclose(se[:, 0], f["std_error"], rtol=tol) and np.ptp(q) <= tol * abs(q[0])
    if not ok:
        return None
    rows = first.index.get_indexer(kept)
    out = [first]
    for k in range(1, dR.shape[1]):
        v = np.full((len(first), 4), np.nan)
        v[rows] = np.column_stack([beta[:, k], se[:, k], beta[:, k] - q[0] * se[:, k], beta[:, k] + q[0] * se[:, k]])
        out.append(pd.DataFrame(v, index=first.index, columns=["estimate", "std_error", "ci_low", "ci_high"]))
    return out


def _row(quantity, what, est, lo, hi, w, calibrated, seed: int) -> dict:
    j = imprint_judge(est, lo, hi, w.to_numpy(), calibrated=calibrated)
    cal = j["cal"]
    return row(
        "seal",
        quantity,
        f"Eq. 1 (pair FE, clustered SEs) imprints of {what} vs the {len(w)} planted weights; coverage at "
        + ", ".join(f"{lv:.0%}: {cal['share'][lv]:.3f}" for lv in cal["share"]),
        None,
        j["r"],
        fisher_ci(j["r"], int(np.isfinite(est[0]).sum())),
        f"r ≥ {CORRELATION:g} and {calibration_text(cal)}",
        j["ok"],
        interval="Fisher z over features",
        null_pass=_null_pass(est, lo, hi, w, calibrated, seed),
        reads=f"r {fmt3(j['r'])} (at least {CORRELATION:g}); {calibration_reads(cal)}",
    )


def oracle_imprint(
    data, pair_ids, *, noise_sd: float, n_draws: int = 25, seed: int = 0, prompt_effect=PROMPT_EFFECT, fit=None
) -> dict:
    """Row ``imprint_weights``: SEAL Eq. 1 on a noisy oracle ``r(t) = x(t) · w + c_pair + ε`` over the planted
    features (:func:`~pluralign.recovery.seal_checks.oracle_utilities`: ``w`` the population's mean weights,
    ``c_pair`` a prompt effect correlated with the pair's features that Eq. 1's α_i must absorb; ``ε ~ N(0,
    noise_sd²)``), ``n_draws`` draws of ε; judged by :func:`imprint_judge` against ``w`` itself (scale 1)."""
    from pluralign.data.simulate import FEATURES
    from pluralign.recovery.seal_checks import oracle_utilities

    ids = pd.Index(list(pair_ids))
    w = data.meta["weights"]["mean"].reindex(list(FEATURES))
    u = oracle_utilities(data, ids, prompt_effect=prompt_effect)
    t = data.truth.reindex(ids)
    X = tuple(pd.DataFrame({f: t[f"{s}_{f}"].to_numpy() for f in FEATURES}) for s in ("a", "b"))
    est, lo, hi = imprint_draws((u["a"], u["b"]), X, ids, w, noise_sd=noise_sd, n_draws=n_draws, seed=seed, fit=fit)
    what = (
        f"a noisy oracle reward (planted utility + a prompt effect of {prompt_effect:g} per planted feature of the "
        f"pair + N(0, {noise_sd:.2g}²) per entry) on the planted features of {len(ids)} pairs, {len(est)} draws"
    )
    return _row("imprint_weights", what, est, lo, hi, w, None, seed)


#: the planted features the rule featurizer can read, and the taxonomy feature that reads each (with the sign of
#: the relation: harmless = 1 − harmfulness); every other regressor of the featurizer has planted weight 0
TEXT_WEIGHTS = {
    "last_response_is_refusal": ("refusal", 1.0),
    "last_response_is_harmless": ("harmfulness", -1.0),
    "last_response_sentiment": ("sentiment", 1.0),
    "response_has_list": ("format", 1.0),
}


def text_weights(weights: pd.Series, regressors) -> pd.Series:
    """The planted weights in the featurizer's taxonomy names (:data:`TEXT_WEIGHTS`; 0 for the other
    ``regressors``)."""
    return pd.Series(
        {f: TEXT_WEIGHTS[f][1] * weights[TEXT_WEIGHTS[f][0]] if f in TEXT_WEIGHTS else 0.0 for f in regressors}
    )


#: the featurizer's features of the last data sets :func:`_text_features` read, by the objects' ids (kept with
#: them, so the ids stay their own): the row, its broken variants and its planning steps read the same texts
_FEATURES: dict = {}


def _text_features(data, view):
    """The rule featurizer's features of ``view``'s chosen and rejected texts
    (:func:`pluralign.seal.design.entry_features`, ``source="rules"``), computed once per (data, view)."""
    from pluralign.seal.design import entry_features

    key = (id(data), id(view))
    if key not in _FEATURES:
        while len(_FEATURES) >= 2:
            _FEATURES.pop(next(iter(_FEATURES)))
        _FEATURES[key] = (entry_features(data, view, "rules"), data, view)
    return _FEATURES[key][0]


def oracle_imprint_text(
    data, view, *, noise_sd: float, n_draws: int = 25, seed: int = 0, prompt_effect=PROMPT_EFFECT, fit=None
) -> dict:
    """Row ``imprint_text_weights``: SEAL Eq. 1 on the features the demo's featurizer produces from the chosen and
    rejected texts of ``view`` (:func:`pluralign.seal.design.entry_features`, ``source="rules"``), for a noisy
    oracle whose utility is the planted features the featurizer can read (:data:`TEXT_WEIGHTS`) times the
    population's mean weights, plus a prompt effect and ``N(0, noise_sd²)`` per entry. Judged by
    :func:`imprint_judge`: r over every regressor; calibration over the regressors the featurizer reads without
    error on these entries (agreement with the planted label 1.0) — a mislabelled regressor's imprint is
    attenuated (errors in variables), a finding about the featurizer that coverage would blame on Eq. 1."""
    from pluralign.seal.planted import planted_features, planted_taxonomy

    F = _text_features(data, view)
    regs = list(F.regressors)
    w = text_weights(data.meta["weights"]["mean"], regs)
    planted = planted_features(data, view)
    vis = [TEXT_WEIGHTS[f][0] for f in TEXT_WEIGHTS]
    util, exact = [], np.ones(len(regs), bool)
    for side, fx in zip(planted, (F.chosen, F.rejected)):
        x = side[vis].to_numpy(float)
        util.append(x @ data.meta["weights"]["mean"].reindex(vis).to_numpy(float))
        tax = planted_taxonomy(side)
        exact &= [f in tax and np.array_equal(fx[f].to_numpy(float), tax[f].to_numpy(float)) for f in regs]
    offset = prompt_effect * sum(side[vis].to_numpy(float).sum(1) for side in planted) / 2
    util = (util[0] + offset, util[1] + offset)
    X = (F.chosen[regs].reset_index(drop=True), F.rejected[regs].reset_index(drop=True))
    ids = pd.Index(view["pair_id"])
    est, lo, hi = imprint_draws(util, X, ids, w, noise_sd=noise_sd, n_draws=n_draws, seed=seed, fit=fit)
    what = (
        f"a noisy oracle reward (planted utility of the readable features + a prompt effect + N(0, {noise_sd:.2g}²)) "
        f"on the rule featurizer's features of {len(ids)} pairs' texts, {len(est)} draws; calibrated on "
        + ", ".join(f for f, e in zip(regs, exact) if e)
    )
    return _row("imprint_text_weights", what, est, lo, hi, w, exact, seed)

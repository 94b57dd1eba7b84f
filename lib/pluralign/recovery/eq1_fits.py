"""SEAL Eq. 1 (the feature imprint, Table 5) fitted in closed form on the recovery's draws: with two entries per
pair the pair fixed effects difference out, so the production fit's estimates and pair-clustered standard errors
are a few matrix products per draw (:func:`eq1_closed_form`), and SEAL's own code's pooled OLS as well
(:func:`seal_code_closed_form`). Each is checked against the production fit on the first draw and returns None when
it does not give it back, so the rows (:mod:`.imprint_checks`) fall back to the production fit: the same numbers,
without refitting every draw. :func:`eq1_definition` holds a fit's table to Eq. 1 as defined, on its own draw."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DEFINITION_TOL", "eq1_definition", "eq1_closed_form", "seal_code_closed_form"]

#: the largest relative deviation from Eq. 1's definition (:func:`eq1_definition`) a fit may show, fixed before any
#: run of the rows used it: the production fit (pyfixest) and the closed form agree to about 1e-15 (measured on a
#: 300-pair design); the nearest wrong convention, fixest's small-sample factor counting no fixed effect, moves the
#: standard errors by about 1 / (4 × the pairs) (1e-4 at 1,200 pairs), plain OLS standard errors by percents
DEFINITION_TOL = 1e-6


def _variances(dX, d, Ainv):
    """The two sandwiches :func:`eq1_closed_form` knows, before the fit's small-sample factor (features × draws):
    CRV1 by pair (Σᵢ dᵢ² Δxᵢ Δxᵢᵀ as the meat) and the iid variance of a fit without clustering
    (Σᵢ dᵢ² · (ΔXᵀΔX)⁻¹)."""
    B = dX @ Ainv
    return {"CRV1": np.sqrt((B * B).T @ (d * d)), "iid": np.sqrt(np.outer(np.diag(Ainv), (d * d).sum(axis=0)))}


def eq1_definition(table: pd.DataFrame, draw, level: float = 0.95) -> float:
    """How far a fit's ``table`` (``estimate``, ``std_error``, ``ci_low``, ``ci_high`` per feature) lies from SEAL
    Eq. 1 as defined, on the ``draw`` it was fitted on (``((reward_a, reward_b), (X_a, X_b))``, one row per pair),
    over the features it estimated: the largest relative deviation of its estimates (relative to the largest
    estimate), standard errors and interval half-widths from a closed form written apart from pyfixest. With two
    entries per pair the pair fixed effects difference out: β = (ΔXᵀΔX)⁻¹ΔXᵀΔr; the pair-clustered variance (CRV1)
    is (ΔXᵀΔX)⁻¹ Σᵢ dᵢ² Δxᵢ Δxᵢᵀ (ΔXᵀΔX)⁻¹ times G/(G − 1) · (N − 1)/(N − K − 1) (G pairs, N = 2G entries, K
    features; the fixed effects nested in the clusters count as one parameter: fixest's and pyfixest's default small-
    sample correction); the interval β ± t(G − 1) · SE at ``level``. A fit with plain OLS standard errors, other
    clusters, another small-sample factor or another estimate deviates; infinite when the table estimated no
    feature or ΔXᵀΔX is singular."""
    from scipy import stats as st

    kept = [f for f in table.index if np.isfinite(table.loc[f, "estimate"])]
    (ra, rb), (Xa, Xb) = draw
    if not kept or not set(kept) <= set(Xa.columns):
        return float("inf")
    dX = Xa[kept].to_numpy(float) - Xb[kept].to_numpy(float)
    dR = np.asarray(ra, float) - np.asarray(rb, float)
    g, k = len(dR), len(kept)
    try:
        Ainv = np.linalg.inv(dX.T @ dX)
    except np.linalg.LinAlgError:
        return float("inf")
    beta = Ainv @ (dX.T @ dR)
    crv1 = _variances(dX, (dR - dX @ beta)[:, None], Ainv)["CRV1"][:, 0]
    se = crv1 * np.sqrt(g / (g - 1) * (2 * g - 1) / (2 * g - k - 1))
    half = st.t.ppf(0.5 + level / 2, g - 1) * se
    t = table.loc[kept]
    got_half = (t["ci_high"] - t["ci_low"]).to_numpy(float) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = [
            np.abs(t["estimate"].to_numpy(float) - beta) / max(float(np.abs(beta).max()), 1e-300),
            np.abs(t["std_error"].to_numpy(float) / se - 1),
            np.abs(got_half / half - 1),
        ]
    worst = float(np.max(np.concatenate(dev)))
    return worst if np.isfinite(worst) else float("inf")


def eq1_closed_form(first: pd.DataFrame, draws, tol: float = 1e-8):
    """SEAL Eq. 1's fit (pair fixed effects, standard errors CRV1 by pair, or iid) of every draw in closed form:
    with two entries per pair the fixed effects difference out, so β = (ΔXᵀΔX)⁻¹ΔXᵀΔr on the features the fit
    kept on the first draw (``first``: its table), with the variance (ΔXᵀΔX)⁻¹ Σᵢ dᵢ² Δxᵢ Δxᵢᵀ (ΔXᵀΔX)⁻¹
    (CRV1, d the differenced residuals) or Σᵢ dᵢ² (ΔXᵀΔX)⁻¹ (iid), whichever gives the fit's first draw back,
    times the fit's small-sample factor (the same for draws of one size); the interval's quantile is the fit's.
    ``draws``: per draw ``((reward_a, reward_b), (X_a, X_b))``, the first the one ``first`` was fitted on, every
    draw as many pairs. Returns one table per draw (``first`` itself, then ``estimate``, ``std_error``,
    ``ci_low``, ``ci_high`` per feature), or None when a draw's ΔXᵀΔX is singular or the closed form does not give
    ``first`` back to ``tol`` (relative)."""
    kept = [f for f in first.index if np.isfinite(first.loc[f, "estimate"])]
    if not kept or len(kept) >= len(draws[0][1][0]):
        return None
    fits = []
    for (ra, rb), (Xa, Xb) in draws:
        idx = Xa.columns.get_indexer(kept)
        dX = Xa.to_numpy(float)[:, idx] - Xb.to_numpy(float)[:, idx]
        dR = (np.asarray(ra, float) - np.asarray(rb, float))[:, None]
        try:
            Ainv = np.linalg.inv(dX.T @ dX)
        except np.linalg.LinAlgError:
            return None
        beta = Ainv @ (dX.T @ dR)
        fits.append((beta[:, 0], _variances(dX, dR - dX @ beta, Ainv)))
    f = first.loc[kept]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = ((f["ci_high"] - f["estimate"]) / f["std_error"]).to_numpy(float)
    b0 = fits[0][0]
    if not (np.all(np.isfinite(q)) and np.ptp(q) <= tol * abs(q[0])):
        return None
    if not np.allclose(b0, f["estimate"], rtol=tol, atol=tol * float(np.abs(b0).max())):
        return None
    for kind in ("CRV1", "iid"):
        naive = fits[0][1][kind][:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = float(np.median(f["std_error"].to_numpy(float) / naive))
        if np.isfinite(scale) and np.allclose(naive * scale, f["std_error"], rtol=tol):
            break
    else:
        return None
    rows = first.index.get_indexer(kept)
    out = [first]
    for beta, var in fits[1:]:
        se = var[kind][:, 0] * scale
        v = np.full((len(first), 4), np.nan)
        v[rows] = np.column_stack([beta, se, beta - q[0] * se, beta + q[0] * se])
        out.append(pd.DataFrame(v, index=first.index, columns=["estimate", "std_error", "ci_low", "ci_high"]))
    return out


def seal_code_closed_form(first: pd.DataFrame, draws, tol: float = 1e-8):
    """SEAL Eq. 1 as SEAL's code fits it (:func:`pluralign.seal.imprint.feature_imprint_seal_code`: the VIF filter
    with the pair dummies, then OLS over the pooled entries on the kept features, an intercept and the pair's
    position 1, 2, … as a number, classical standard errors) of every draw in closed form: β = (ZᵀZ)⁻¹Zᵀr and
    Var β = σ̂² (ZᵀZ)⁻¹ with σ̂² the residual variance on 2n − p d.f., the interval's quantile the fit's. Each draw's
    VIF filter runs as the fit's does (:func:`~pluralign.seal.imprint.vif_filter`, the fit's default threshold);
    a draw where it keeps other features than the first draw's goes through the fit. ``first`` and ``draws`` as
    :func:`eq1_closed_form`. Returns one table per draw (``first`` itself, then the closed form's; None for a draw
    to fit), or None when the closed form does not give ``first`` back to ``tol`` (relative) or a draw's ZᵀZ is
    singular."""
    import inspect

    from pluralign.seal import imprint as imp

    kept = [f for f in first.index if np.isfinite(first.loc[f, "estimate"])]
    features = list(draws[0][1][0].columns)
    if not kept:
        return None
    threshold = inspect.signature(imp.feature_imprint_seal_code).parameters["vif_threshold"].default
    n = len(draws[0][0][0])
    pairs = np.repeat(np.arange(n), 2)
    position = pairs + 1.0
    fits = []
    for (ra, rb), (Xa, Xb) in draws:
        X = np.column_stack([Xa.to_numpy(float), Xb.to_numpy(float)]).reshape(2 * n, len(features))
        if imp.vif_filter(pd.DataFrame(X, columns=features), threshold, groups=pairs)[0] != kept:
            fits.append(None)
            continue
        Z = np.column_stack([np.ones(2 * n), X[:, [features.index(f) for f in kept]], position])
        r = np.column_stack([np.asarray(ra, float), np.asarray(rb, float)]).reshape(-1)
        zz = Z.T @ Z
        if np.linalg.matrix_rank(zz) < zz.shape[0]:
            return None
        ainv = np.linalg.inv(zz)
        beta = ainv @ (Z.T @ r)
        res = r - Z @ beta
        se = np.sqrt(res @ res / (len(r) - Z.shape[1]) * np.diag(ainv))
        fits.append((beta[1 : 1 + len(kept)], se[1 : 1 + len(kept)]))
    f = first.loc[kept]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = ((f["ci_high"] - f["estimate"]) / f["std_error"]).to_numpy(float)
    if fits[0] is None or not (np.all(np.isfinite(q)) and np.ptp(q) <= tol * abs(q[0])):
        return None
    for got, want in zip(fits[0], (f["estimate"], f["std_error"])):
        w = want.to_numpy(float)
        if not np.allclose(got, w, rtol=tol, atol=tol * float(np.abs(w).max())):
            return None
    rows = first.index.get_indexer(kept)
    out = [first]
    for fit in fits[1:]:
        if fit is None:
            out.append(None)
            continue
        beta, se = fit
        v = np.full((len(first), 4), np.nan)
        v[rows] = np.column_stack([beta, se, beta - q[0] * se, beta + q[0] * se])
        out.append(pd.DataFrame(v, index=first.index, columns=["estimate", "std_error", "ci_low", "ci_high"]))
    return out

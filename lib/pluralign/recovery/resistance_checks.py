"""SEAL Eq. 3 (which features predict misalignment) and Table 1's alignment regimes against the planted truth: a
pre-D and a post-D noisy oracle reward whose noise on a pair's reward gap is logistic, so Eq. 3's logit is the true
model and its coefficients are planted exactly (:func:`planted_resistance`), and each pair's regime has a known
probability."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from pluralign.recovery.rows import (
    ALPHA,
    calibration,
    calibration_reads,
    calibration_text,
    normal_quantile,
    null_pass_rate,
    row,
    table_arrays,
)

__all__ = ["EQ3", "planted_resistance", "separated", "resistance_judge", "resistance_draws", "oracle_resistance"]

#: Eq. 3 as the row fits it: Table 7's outcome (misaligned), the logit, and every identifiable feature (an infinite
#: VIF threshold drops only constant or exactly collinear columns; :func:`oracle_resistance` says why)
EQ3 = {"outcome": "misaligned", "model": "logit", "vif_threshold": float("inf")}


def planted_resistance(D, view: pd.DataFrame, other_parts, noise_sd: float) -> dict:
    """The planted truth of Eq. 3 and Table 1 on the pairs of ``view`` (SEAL's data D): pre-D weights the mix of
    ``other_parts``' population weights, post-D weights the mix of those and D's (:func:`~pluralign.seal.planted.
    mixed_weights`, pair-count weighted, as the demo trains its two RMs). The reward gap of a pair is the planted
    utility gap plus logistic noise of scale ``s = √2 · noise_sd · √3 / π`` (the sd of two entries' noise), so
    P(δ = 1) = σ(gap / s) and Eq. 3 (outcome misaligned) has ρ^c(τ) = −w_τ / s and ρ^r(τ) = +w_τ / s, intercept 0.
    Returns the features ``ch`` / ``rj``, the gaps ``pre`` / ``post``, ``s``, the planted coefficients ``rho``
    (indexed by (entry, feature)) and the per-pair probabilities of Table 1's regimes ``regimes``."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal.planted import mixed_weights, planted_features
    from pluralign.seal.resistance import REGIMES

    parts = [(q.meta["weights"]["mean"], len(q)) for q in other_parts]
    w_pre = mixed_weights(*zip(*parts)).reindex(FEATURES).fillna(0.0)
    w_post = mixed_weights(*zip(*parts, (D.meta["weights"]["mean"], len(D)))).reindex(FEATURES).fillna(0.0)
    ch, rj = planted_features(D, view, FEATURES)
    dx = (ch - rj).to_numpy(float)
    s = np.sqrt(2) * noise_sd * np.sqrt(3) / np.pi
    pre, post = dx @ w_pre.to_numpy(), dx @ w_post.to_numpy()
    a, b = 1 / (1 + np.exp(-pre / s)), 1 / (1 + np.exp(-post / s))
    probs = np.column_stack([(1 - a) * b, a * b, (1 - a) * (1 - b), a * (1 - b)])
    rho = pd.concat({"c": -w_post / s, "r": w_post / s}, names=["entry", "feature"])
    return {
        "ch": ch,
        "rj": rj,
        "pre": pre,
        "post": post,
        "s": s,
        "rho": rho,
        "regimes": pd.DataFrame(probs, columns=REGIMES),
    }


def separated(y, ch: pd.DataFrame, rj: pd.DataFrame, index: pd.Index) -> np.ndarray:
    """Which coefficients of Eq. 3 (``index``: (entry, feature)) have no maximum-likelihood estimate in a draw:
    the 0/1 regressor is quasi-completely separated, i.e. every pair with the feature (or every pair without it)
    has the same outcome ``y`` (Albert & Anderson 1984, Biometrika 71:1). The logit then drives the coefficient
    without bound and its Wald interval means nothing, so the calibration leaves it out of that draw."""
    y = np.asarray(y, bool)
    out = []
    for entry, feature in index:
        x = (ch if entry == "c" else rj)[feature].to_numpy(float) != 0
        out.append(any(m.any() and (y[m].all() or not y[m].any()) for m in (x, ~x)))
    return np.array(out)


def resistance_judge(est, lo, hi, rho, counts, probs, n_draws: int, alpha=ALPHA) -> dict:
    """The criterion of the Eq. 3 row: (a) Eq. 3's intervals (arrays draws × coefficients) calibrated on both
    sides around the planted ρ (:func:`~pluralign.recovery.rows.calibration`, half the row's ``alpha``); (b) the
    regime counts summed over the ``n_draws`` draws match their planted expectation: for each of Table 1's four
    regimes |z| ≤ the normal quantile of the other half of ``alpha`` split two-sided over the four (z from the
    Poisson-binomial mean and variance of independent pairs)."""
    est, lo, hi, w = (np.asarray(v, float) for v in (est, lo, hi, rho))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (est - w) / ((hi - lo) / (2 * 1.959964))
    cal = calibration(z, alpha / 2)
    p = np.asarray(probs, float)
    zr = (np.asarray(counts, float) - n_draws * p.sum(0)) / np.sqrt(n_draws * (p * (1 - p)).sum(0))
    bound = normal_quantile(1 - alpha / 2 / (2 * p.shape[1]))
    return {"cal": cal, "z": zr, "bound": bound, "ok": bool(cal["ok"] and np.all(np.abs(zr) <= bound))}


#: the draws of the last designs :func:`resistance_draws` drew and the production fit of each draw, by their
#: arguments: the broken variants of the mutation table break the fits of the row they break (the same data and
#: the same fits, only the method's output differs), so no draw is fitted twice
_DRAWS: dict = {}


def resistance_draws(D, view, other_parts, noise_sd: float, seed: int, n_draws: int):
    """The planted truth (:func:`planted_resistance`) and ``n_draws`` draws of the pre-D and post-D oracle rewards'
    logistic noise (seeded by ``seed``), each ``(pre, post, separated)`` with :func:`separated`'s mask of the
    coefficients that have no estimate in that draw; the last four designs are kept in memory with their objects
    (so their ids stay their own), and with them the production fits of their draws (:func:`_production_fit`)."""
    key = (id(D), id(view), tuple(id(q) for q in other_parts), float(noise_sd), int(seed), int(n_draws))
    if key in _DRAWS:
        _DRAWS[key] = _DRAWS.pop(key)  # most recently used last
        return _DRAWS[key][0], _DRAWS[key][1]
    pt = planted_resistance(D, view, other_parts, noise_sd)
    rng = np.random.default_rng([seed, 3])
    drawn = []
    for _ in range(n_draws):
        pre, post = (pt[k] + rng.logistic(0.0, pt["s"], len(view)) for k in ("pre", "post"))
        drawn.append((pre, post, separated(post <= 0, pt["ch"], pt["rj"], pt["rho"].index)))
    while len(_DRAWS) >= 4:
        _DRAWS.pop(next(iter(_DRAWS)))
    _DRAWS[key] = (pt, drawn, {}, (D, view, list(other_parts)))
    return pt, drawn


def _production_fit(drawn: list, d: int, pt: dict, post: np.ndarray) -> pd.DataFrame:
    """SEAL Eq. 3 (:func:`pluralign.seal.resistance.misalignment_regression`, :data:`EQ3`) of draw ``d``'s post-D
    rewards ``post`` of the design ``drawn`` (from :func:`resistance_draws`, its planted truth ``pt``): the first
    draw fitted, every other through the fit's closed form (:func:`eq3_closed_form`) where that gives the first
    back, else fitted the first time it is asked for; the same table after."""
    from pluralign.seal.resistance import misalignment_regression

    fits = next((v[2] for v in _DRAWS.values() if v[1] is drawn), {})

    def fitted(post):
        cols = list(pt["ch"].columns)
        return misalignment_regression(post, np.zeros(len(post)), pt["ch"], pt["rj"], cols, **EQ3).table

    if not fits:
        fits[0] = fitted(drawn[0][1])
        fits.update(enumerate(eq3_closed_form(fits[0], pt, [p for _, p, _ in drawn]) or [fits[0]]))
    if d not in fits:
        fits[d] = fitted(post)
    return fits[d]


def eq3_closed_form(first: pd.DataFrame, pt: dict, posts: list, tol: float = 1e-6):
    """The production fit of Eq. 3 (:func:`pluralign.seal.resistance.misalignment_regression` with :data:`EQ3`: a
    logit fitted by statsmodels' Newton–Raphson) of every draw's post-D rewards ``posts`` at once, as statsmodels
    computes it: the outcome misaligned (post ≤ 0); the columns the first fit kept, after a constant; from β = 0,
    steps β ← β + (XᵀWX/n + 10⁻¹⁰ I)⁻¹ Xᵀ(y − p)/n (W = p(1 − p)) until no coefficient moves by more than 10⁻⁸,
    at most :data:`~pluralign.seal.resistance.LOGIT_MAXITER`; covariance (XᵀWX)⁻¹ at the last β; Wald intervals with
    the first fit's normal quantile (its level). ``first``: the production table of the first draw. Returns one table
    per draw (``first``, then the closed form's, laid out as ``first``), or None when the closed form does not give
    ``first`` back (the same estimates, standard errors and intervals to ``tol``, relative), no regressor was kept,
    or a feature or reward is missing."""
    from scipy.special import expit

    from pluralign.seal.imprint import bonferroni, fill_rows
    from pluralign.seal.resistance import LOGIT_MAXITER

    level_q = ((first["ci_high"] - first["estimate"]) / first["std_error"]).median()  # the production fit's quantile
    kept = [key for key, dropped in first["dropped_vif"].items() if not dropped]
    order = [k for e in ("c", "r") for k in kept if k[0] == e]  # the production design's column order
    frames = {"c": pt["ch"], "r": pt["rj"]}
    X = np.column_stack([np.ones(len(posts[0]))] + [frames[e][f].to_numpy(float) for e, f in order])
    finite = (
        np.isfinite(X).all() and np.isfinite(level_q) and all(np.isfinite(np.asarray(p, float)).all() for p in posts)
    )
    if not order or not finite:
        return None  # no regressor kept, a missing feature or reward: the production fit decides each draw
    n, k = X.shape
    Y = np.array([(np.asarray(p, float) <= 0).astype(float) for p in posts])  # draws × pairs

    def information(L):  # XᵀWX of each draw, W = p(1 − p)
        return ((L * (1 - L))[:, :, None] * X).transpose(0, 2, 1) @ X

    B = np.zeros((len(Y), k))
    old = np.full_like(B, np.inf)
    for _ in range(LOGIT_MAXITER):
        moving = np.any(np.abs(B - old) > 1e-8, axis=1)  # statsmodels' Newton tolerance
        if not moving.any():
            break
        L = expit(B[moving] @ X.T)
        old[moving] = B[moving]
        step = np.linalg.solve(information(L) / n + 1e-10 * np.eye(k), ((Y[moving] - L) @ X / n)[..., None])
        B[moving] = B[moving] + step[..., 0]  # statsmodels' ridge 1e-10 on the scaled Hessian
    se = np.sqrt(np.diagonal(np.linalg.inv(information(expit(B @ X.T))), axis1=1, axis2=2))
    rows = pd.MultiIndex.from_tuples(order, names=first.index.names)
    tables = []
    for b, s in zip(B[:, 1:], se[:, 1:]):
        t = first.copy()
        z = b / s
        cells = {"estimate": b, "std_error": s, "z": z, "p_value": 2 * st.norm.sf(np.abs(z))}
        fill_rows(t, rows, {**cells, "ci_low": b - level_q * s, "ci_high": b + level_q * s})
        t["p_bonferroni"] = bonferroni(t["p_value"].to_numpy())
        tables.append(t)
    t0 = tables[0].loc[rows]
    for c in ("estimate", "std_error", "ci_low", "ci_high"):
        a, b = t0[c].to_numpy(float), first.loc[rows, c].to_numpy(float)
        if not np.allclose(a, b, rtol=tol, atol=tol * max(float(np.abs(b).max()), 1e-12)):
            return None
    return [first, *tables[1:]]


def _eq3_estimates(drawn, pt, n_pairs: int, regression=None) -> list[np.ndarray]:
    """Eq. 3's coefficients of every draw of :func:`resistance_draws` as ``(estimate, ci_low, ci_high)`` rows over
    the planted features, a separated coefficient NaN: the production fit (:func:`_production_fit`), or
    ``regression`` in its place (a broken variant: its ``base`` fit, its ``breaks`` applied to the fit's table)."""
    from pluralign.seal.resistance import misalignment_regression

    base, breaks = getattr(regression, "base", regression), getattr(regression, "breaks", None)
    out = []
    for d, (_pre, post, sep) in enumerate(drawn):
        if base is None or base is misalignment_regression:
            t = _production_fit(drawn, d, pt, post)
        else:
            t = base(post, np.zeros(n_pairs), pt["ch"], pt["rj"], list(pt["ch"].columns), **EQ3).table
        t = breaks(t) if breaks is not None else t
        e = table_arrays(t, pt["rho"].index)
        e[:, sep] = np.nan
        out.append(e)
    return out


def _regime_counts(label, pre_rewards, posts) -> tuple[np.ndarray, np.ndarray]:
    """Table 1's regime counts of every draw (``label``, the labeller, on all draws' pairs at once) and the labels."""
    from pluralign.seal.resistance import REGIMES

    reg = np.asarray(label(pre_rewards, np.zeros(len(posts)), posts, np.zeros(len(posts))), dtype=object)
    first = [np.count_nonzero(reg == r) for r in REGIMES[:-1]]
    return np.array([*first, len(reg) - sum(first)], float), reg


def _pairing_blind(half: np.ndarray, n_draws: int, n_pairs: int, pres: np.ndarray, counts_of):
    """The null of ``resistance_regimes``: a method that ignores which pair is which, as a draw of ``(estimate,
    ci_low, ci_high, regime counts)`` from a generator. Eq. 3 fitted with the outcome permuted over the pairs has
    estimates centred on 0: drawn normal around 0 with the method's own interval half-widths ``half`` (the
    permuted fit's sampling distribution by its normal approximation, so that no logit is refitted 200 × ``n_draws``
    times). Table 1's labeller (``counts_of``: the production one, or the row's ``regimes``) is applied to each
    pair's pre-D rewards ``pres`` with another pair's post-D rewards (pairs permuted between the two RMs). Both keep
    what a pairing-blind method keeps (no imprint; each RM's own alignment rate), so the null passes where the
    planted ρ are within their standard errors of 0 and the pre-D and post-D alignments are independent."""

    def make(g):
        e = g.normal(0.0, 1.0, half.shape) * half / 1.959964
        perm = np.concatenate([d * n_pairs + g.permutation(n_pairs) for d in range(n_draws)])
        return e, e - half, e + half, counts_of(pres[perm])[0]

    return make


def oracle_resistance(
    D, view, other_parts, *, noise_sd: float, n_draws: int = 25, seed: int = 0, regression=None, regimes=None
) -> dict:
    """Row ``resistance_regimes``: SEAL Eq. 3 (:func:`pluralign.seal.resistance.misalignment_regression`, logit,
    outcome misaligned, or ``regression`` in its place) of the post-D oracle and Table 1's regimes
    (:func:`~pluralign.seal.resistance.alignment_regimes`, or ``regimes``) of the pre-D / post-D oracles over
    ``n_draws`` draws of the logistic noise, against :func:`planted_resistance`; judged by
    :func:`resistance_judge`. Estimate: the post-D alignment resistance a₋ (§ 2.2) as Table 1's classification
    gives it — the share of pairs the labeller puts in "stayed-misaligned" or "reversed" (δ = 0), mean over the
    draws — beside its planted value, the mean over D's pairs of P(δ = 0) = σ(−gap / s); a labeller that reads the
    wrong indicators moves it.

    Eq. 3 is fitted on every identifiable feature (``vif_threshold=inf``: only constant or exactly collinear
    columns dropped), since the planted ρ are those of the full model: SEAL's VIF screen (footnote 6) would drop
    a planted feature and bias the others (omitted variable), which is a different estimand. A coefficient whose
    regressor is separated in a draw (:func:`separated`) is left out of that draw's calibration. ``null_pass``:
    the criterion on :func:`_pairing_blind`."""
    from pluralign.seal.resistance import REGIMES, alignment_regimes

    label = regimes or alignment_regimes
    pt, drawn = resistance_draws(D, view, other_parts, noise_sd, int(seed), max(1, int(n_draws)))
    out = _eq3_estimates(drawn, pt, len(view), regression)
    pres = np.concatenate([pre for pre, _, _ in drawn])
    posts = np.concatenate([post for _, post, _ in drawn])

    def counts_of(pre_rewards):
        return _regime_counts(label, pre_rewards, posts)

    counts, labels = counts_of(pres)
    misaligned = (labels == "stayed-misaligned") | (labels == "reversed")
    resist = misaligned.reshape(len(drawn), -1).mean(axis=1)
    est, lo, hi = (np.array([o[k] for o in out]) for k in range(3))
    j = resistance_judge(est, lo, hi, pt["rho"], counts, pt["regimes"], len(out))
    planted_a = float(np.mean(1 / (1 + np.exp(pt["post"] / pt["s"]))))
    half = (hi - lo) / 2
    n_pairs = len(view)

    make = _pairing_blind(half, len(drawn), n_pairs, pres, counts_of)
    se = float(np.std(resist, ddof=1) / np.sqrt(len(resist))) if len(resist) > 1 else 0.0
    prev = counts / counts.sum()
    a = float(np.mean(resist))
    return {
        **row(
            "seal",
            "resistance_regimes",
            f"post-D alignment resistance a₋ from Table 1's regimes (stayed-misaligned + reversed) of a noisy oracle "
            f"(logistic noise of scale {pt['s']:.2g} on the gap) on D's {len(view)} pairs, {len(out)} draws; Eq. "
            f"3's coefficients, {np.isfinite(est).sum(1).mean():.1f} of {est.shape[1]} per draw not separated: "
            f"coverage 95% {j['cal']['share'][0.95]:.3f}, 50% {j['cal']['share'][0.5]:.3f}; regimes "
            + ", ".join(f"{r} {v:.3f} (planted {q:.3f})" for r, v, q in zip(REGIMES, prev, pt["regimes"].mean()))
            + " — the pre-D / post-D rewards of a planted pre-D and post-D mix of weights",
            planted_a,
            a,
            (a - 1.96 * se, a + 1.96 * se),
            f"Eq. 3: {calibration_text(j['cal'])}; regimes: every |z| ≤ {j['bound']:.2f}",
            j["ok"],
            interval="normal over noise draws (D's pairs fixed: the planted value is that of these pairs)",
            reads=f"Eq. 3: {calibration_reads(j['cal'])}; regimes: largest |z| {np.max(np.abs(j['z'])):.2f} "
            f"(at most {j['bound']:.2f})",
            null_pass=null_pass_rate(
                lambda o: resistance_judge(*o[:3], pt["rho"], o[3], pt["regimes"], len(out))["ok"], make, seed=seed
            ),
        ),
        "failing": ", ".join(
            k
            for k, bad in (("Eq. 3", not j["cal"]["ok"]), ("regimes", bool(np.any(np.abs(j["z"]) > j["bound"]))))
            if bad
        ),
    }

"""SEAL Eq. 1 (the feature imprint, Table 5) against its truth: the method on a noisy oracle reward, once on the
simulator's planted features (``imprint_weights``: the planted weights are the truth) and once on the features the
demo's featurizer reads from the texts (``imprint_text_weights``: :func:`pluralign.seal.design.entry_features`
with the rule featurizer; the truth is Eq. 1's probability limit under that measurement, :func:`pseudo_true`).

Eq. 1 on misread regressors estimates a projection, not the planted weights: a regressor read with error is
attenuated, and a regressor correlated with it takes up part of its weight (errors in variables). Its
pair-clustered standard errors measure the estimator's spread when the pairs are drawn afresh, not when they are
held fixed (White 1980, Econometrica 48:817; Buja et al. 2019, Statist. Sci. 34:523, "models as
approximations"), so every draw but the first (the demo's own pairs) resamples pairs: from the data set itself on
the planted features (any set of pairs has the planted weights as its projection there), from a population
:data:`POPULATION_MULTIPLE` times the demo's size on the featurizer's readings, whose projection is the truth.
Each coefficient is judged against its truth (:func:`imprint_judge`)."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
from scipy import stats as st

from pluralign.data.difficulty import PROMPT_EFFECT
from pluralign.recovery.eq1_fits import DEFINITION_TOL, eq1_closed_form, eq1_definition, seal_code_closed_form
from pluralign.recovery.rows import (
    ALPHA,
    calibration,
    calibration_reads,
    calibration_text,
    exact_share_ci,
    fmt3,
    null_pass_rate,
    row,
    table_arrays,
)

__all__ = [
    "N_DRAWS",
    "POPULATION_MULTIPLE",
    "CORRELATION",
    "imprint_judge",
    "pseudo_true",
    "imprint_draws",
    "oracle_imprint",
    "TEXT_WEIGHTS",
    "text_weights",
    "planted_text_weights",
    "text_population",
    "oracle_imprint_text",
]

#: draws of each Eq. 1 row: the demo's own pairs, then resampled pairs
N_DRAWS = 25

#: the population from which the text row's draws resample and whose projection is its truth, in multiples of the
#: demo's pairs. Each draw resamples from this population, so its projection is the exact estimand of the draws
#: whatever its size; its size sets how close that projection lies to the probability limit (within about
#: 1 / √10 ≈ 0.32 of one draw's standard error) and what the row costs: the rule featurizer reads every text of it
#: (≈ 0.35 ms per text on one core, ≈ 7 s at 10× the demo's 1,200 pairs; 50× would add ≈ 30 s to the page)
POPULATION_MULTIPLE = 10

#: the bar of the planning table's "the imprints rank the features as their truth does" (Pearson r over the
#: features of the first draw): with 8 features a noise method reaches it with probability ≈ 0.001 (t test of r,
#: 6 d.f.). Not a criterion of the rows: r over features is dominated by the large weights (−3, −4), so imprints
#: with every small weight's sign flipped still reach r ≈ 0.91
CORRELATION = 0.9

#: the row's three sub-tests, each at a third of its family-wise error :data:`~pluralign.recovery.rows.ALPHA` (a
#: correct method fails the row with probability at most that), fixed before any run: each imprint's mean over the
#: draws against its truth (one-sample t tests, Student 1908), each imprint's spread over the draws against its
#: standard errors (χ² tests of a normal variance), both Bonferroni over the row's features, and the pooled two-sided
#: calibration of the intervals (:func:`~pluralign.recovery.rows.calibration`, its two levels)
SUBTESTS = ("location", "spread", "calibration")


def imprint_judge(est, lo, hi, truth, *, alpha: float = ALPHA) -> dict:
    """The criterion of an Eq. 1 row from its fits over independent draws (``est`` / ``lo`` / ``hi`` arrays draws ×
    features, NaN where a feature has no truth or was dropped; ``truth`` per feature), each sub-test at ``alpha``
    / 3 (:data:`SUBTESTS`):

    - *location*, per feature: the mean of its imprints over the D draws that estimated it (all, for Eq. 1's own
      fit) against its truth, ``t = (mean − τ) / (s / √D)`` with ``s`` their sd, two-sided t test on D − 1 d.f.
      (Student; the bounds at the fewest D over the features), Bonferroni over the features: a biased imprint (a
      small weight's sign flipped, two columns swapped, a prompt effect not absorbed) fails it;
    - *spread*, per feature: the imprints' sd over the draws against the root mean square of their standard
      errors (SE: the half-width of the 95 % interval / 1.96), two-sided χ² test of a normal variance on D − 1
      d.f. (``(D − 1) s² / SE² ~ χ²``), Bonferroni over the features: standard errors too small or too large
      for the spread they claim fail it;
    - *calibration*: :func:`~pluralign.recovery.rows.calibration` of ``z = (β̂ − τ) / SE`` over draws ×
      features (95 % and 50 % coverage in their binomial bands).

    Returns ``t`` and ``t_bound``, ``ratio`` (s / SE per feature) and ``ratio_band``, ``cal``, ``features`` (the
    judged columns), ``failing`` (which sub-tests failed) and ``ok``."""
    est, lo, hi, tau = (np.asarray(v, float) for v in (est, lo, hi, truth))
    cols = np.isfinite(tau) & np.isfinite(est).any(axis=0)
    est, lo, hi, tau = est[:, cols], lo[:, cols], hi[:, cols], tau[cols]
    k = max(int(cols.sum()), 1)
    a = alpha / len(SUBTESTS) / k  # per feature, two-sided
    se = (hi - lo) / (2 * 1.959964)
    n = np.isfinite(est).sum(axis=0)  # the draws that estimated each feature (all, for Eq. 1's own fit)
    d = int(n.min()) if len(n) else 0
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a feature estimated in one draw only: NaN, a failure
        s = np.nanstd(est, axis=0, ddof=1)
        t = (np.nanmean(est, axis=0) - tau) / (s / np.sqrt(n))
        ratio = s / np.sqrt(np.nanmean(se * se, axis=0))
        z = (est - tau) / se
    t_bound, band = _bounds(d, a)
    cal = calibration(z, alpha / len(SUBTESTS))
    passed = {
        "location": bool(len(t) and np.all(np.abs(t) <= t_bound)),  # NaN (no spread, or no truth) fails
        "spread": bool(len(ratio) and np.all((ratio >= band[0]) & (ratio <= band[1]))),
        "calibration": bool(cal["ok"]),
    }
    return {
        "t": t,
        "t_bound": t_bound,
        "ratio": ratio,
        "ratio_band": band,
        "cal": cal,
        "features": np.flatnonzero(cols),
        "failing": [k for k, v in passed.items() if not v],
        "ok": all(passed.values()),
    }


@functools.lru_cache(maxsize=64)
def _bounds(d: int, a: float) -> tuple[float, tuple[float, float]]:
    """:func:`imprint_judge`'s bound on |t| and its band of sd / SE for ``d`` draws, each test two-sided at ``a``."""
    df = max(d - 1, 1)
    band = tuple(float(np.sqrt(st.chi2.ppf(p, df) / df)) for p in (a / 2, 1 - a / 2))
    return float(st.t.ppf(1 - a / 2, df)), band


def _null_pass(est, lo, hi, truth, seed: int) -> float:
    """:func:`~pluralign.recovery.rows.null_pass_rate` of :func:`imprint_judge`: noise imprints (normal, sd of the
    truth) with the method's own interval widths."""
    est, lo, hi, w = (np.asarray(v, float) for v in (est, lo, hi, truth))
    half, sd = (hi - lo) / 2, float(np.nanstd(w)) or 1.0

    def make(rng):
        e = np.where(np.isfinite(est), rng.normal(0.0, sd, est.shape), np.nan)
        return e, e - half, e + half

    return null_pass_rate(lambda o: imprint_judge(*o, w)["ok"], make, seed=seed)


def pseudo_true(util, X, features=None) -> pd.Series:
    """The least-squares projection of a noiseless reward onto the entries' features with pair fixed effects, over
    a population of pairs: what SEAL Eq. 1 (:func:`pluralign.seal.imprint.feature_imprint`) estimates there, its
    probability limit when the population is large. ``util``: the two entries' rewards (arrays, one value per
    pair), ``X``: their features (two frames, one row per pair), ``features``: the columns to project on (default
    all). Computed apart from the production fit and from :func:`eq1_closed_form`: the entries stacked, reward and
    features demeaned within each pair, ``numpy.linalg.lstsq``."""
    cols = list(X[0].columns if features is None else features)
    n = len(X[0])
    r = np.concatenate([np.asarray(u, float) for u in util])
    M = np.vstack([x[cols].to_numpy(float) for x in X])
    pair = np.tile(np.arange(n), len(X))
    size = np.bincount(pair, minlength=n).astype(float)
    r = r - (np.bincount(pair, r, minlength=n) / size)[pair]
    M = M - np.column_stack([np.bincount(pair, M[:, j], minlength=n) / size for j in range(M.shape[1])])[pair]
    beta = np.linalg.lstsq(M, r, rcond=None)[0]
    return pd.Series(beta, index=cols)


def _take(design, rows):
    """The pairs ``rows`` of a design ``((util_a, util_b), (X_a, X_b))``."""
    (ua, ub), X = design
    return (ua[rows], ub[rows]), tuple(pd.DataFrame(x.to_numpy(float)[rows], columns=x.columns) for x in X)


#: the last draws :func:`imprint_draws` made, by their inputs (a fingerprint of the design and the pool, the noise,
#: the number of draws, the seed): the first draw, the generator's state after it, and per fit and kept features
#: the draws and their tables, so that the row's broken variants (:mod:`~pluralign.recovery.mutations`) and a
#: planning step at the row's own design reuse the row's draws and fits (the same data; only the method's output
#: differs). The fits are keyed by the fit function itself, which the key keeps alive
_DRAWS: dict = {}


def _fingerprint(*designs) -> str:
    """A digest of designs ``((util_a, util_b), (X_a, X_b))``: their values and feature names."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for (ua, ub), X in designs:
        h.update(repr((len(ua), list(X[0].columns), list(X[1].columns))).encode())
        for a in (ua, ub, X[0].to_numpy(float), X[1].to_numpy(float)):
            h.update(np.ascontiguousarray(a, dtype=float).tobytes())
    return h.hexdigest()


def imprint_draws(design, pool, weights: pd.Series, *, noise_sd: float, n_draws: int, seed: int, fit=None):
    """Eq. 1 of a noisy oracle reward over ``n_draws`` independent draws, through the production fit
    (:func:`pluralign.seal.imprint.feature_imprint`, or ``fit`` in its place: the broken variants of
    :mod:`pluralign.recovery.mutations`). ``design``: the demo's pairs, ``((util_a, util_b), (X_a, X_b))`` (the
    noiseless rewards of the two entries and their feature frames, one row per pair): the first draw;
    ``pool``: the pairs the other draws resample from, as many as ``design`` each, with replacement (a pair drawn
    twice is two pairs). Each draw adds ``N(0, noise_sd²)`` per entry. Returns ``est``, ``lo``, ``hi`` arrays
    draws × ``weights.index`` and the features the fit kept on the first draw.

    The fit runs on the first draw, the others go through its closed form (:func:`eq1_closed_form`, one small
    solve per draw, on the features it kept there), which must give the fit's first draw back to 1e-8
    (otherwise every draw goes through the fit). A draw whose pairs leave a kept feature without variation is
    redrawn. A broken variant with a ``breaks`` method (:class:`~pluralign.recovery.mutations.BrokenFit`) breaks
    these draws' tables one by one, in order. The draws and the fits' tables of the last four inputs are kept
    (:data:`_DRAWS`): a second call with the same inputs and fit fits nothing. Last in the returned tuple: how far
    the (broken) fit's first table lies from Eq. 1 as defined on its draw (:func:`eq1_definition`)."""
    from pluralign.recovery.seal_checks import _imprint_fit
    from pluralign.seal import imprint as imp

    n = len(design[0][0])
    base, breaks = getattr(fit, "base", fit), getattr(fit, "breaks", None)
    base = imp.feature_imprint if base is None else base
    cols = ["estimate", "ci_low", "ci_high"]
    key = (_fingerprint(design, pool), float(noise_sd), int(n_draws), int(seed))
    entry = _DRAWS.pop(key, None)
    if entry is None:
        rng = np.random.default_rng([seed, 14])
        (ua, ub), X = design
        e = noise_sd * rng.standard_normal((2, n))
        entry = {"first": ((ua + e[0], ub + e[1]), X), "state": rng.bit_generator.state, "fits": {}, "draws": {}}
    while len(_DRAWS) >= 4:
        _DRAWS.pop(next(iter(_DRAWS)))
    _DRAWS[key] = entry  # most recently used last
    ids = pd.Index([f"draw-{j}" for j in range(n)])
    first_draw = entry["first"]
    if base not in entry["fits"]:
        entry["fits"][base] = _imprint_fit(*first_draw[0], None, ids, fit=base, X=first_draw[1]).table
    first = entry["fits"][base]
    kept = [f for f in first.index if np.isfinite(first.loc[f, "estimate"])]
    target = max(1, int(n_draws))
    if tuple(kept) not in entry["draws"]:
        draws = [first_draw, *_resampled(pool, kept, entry["state"], n, noise_sd, seed, target - 1)]
        entry["draws"][tuple(kept)] = (draws, {})
    draws, tables_of = entry["draws"][tuple(kept)]
    if base not in tables_of:
        tables = eq1_closed_form(first, draws)
        if tables is None and base is imp.feature_imprint_seal_code:
            tables = seal_code_closed_form(first, draws)
        tables = tables or [None] * len(draws)
        tables = [first] + [
            t if t is not None else _imprint_fit(*r, None, ids, fit=base, X=X).table
            for t, (r, X) in zip(tables[1:], draws[1:])
        ]
        tables_of[base] = tables
    tables = tables_of[base]
    if breaks is not None:
        tables = [breaks(t) for t in tables]
    out = [table_arrays(t, weights.index, cols) for t in tables]
    return (*(np.array([o[k] for o in out]) for k in range(3)), kept, eq1_definition(tables[0], first_draw))


def _resampled(pool, kept: list, state: dict, n: int, noise_sd: float, seed: int, count: int) -> list:
    """``count`` draws of :func:`imprint_draws` after its first: ``n`` pairs of ``pool`` drawn with replacement, a
    draw that leaves a kept feature without variation drawn again, each entry's reward plus ``N(0, noise_sd²)``
    (the noise generator continues from ``state``, where the first draw left it)."""
    rng = np.random.default_rng([seed, 14])
    rng.bit_generator.state = state
    pick = np.random.default_rng([seed, 15])
    m = len(pool[0][0])
    idx = pool[1][0].columns.get_indexer(kept)
    pool_dX = pool[1][0].to_numpy(float)[:, idx] - pool[1][1].to_numpy(float)[:, idx]
    draws = []
    for _ in range(100 * (count + 1)):
        if len(draws) >= count:
            break
        rows = pick.integers(0, m, n)
        dX = pool_dX[rows]
        if np.linalg.matrix_rank(dX.T @ dX) == len(kept):
            (ua, ub), X = _take(pool, rows)
            e = noise_sd * rng.standard_normal((2, n))
            draws.append(((ua + e[0], ub + e[1]), X))
    if len(draws) < count:
        raise ValueError(f"imprint_draws: the pool's pairs leave one of {kept} without variation in most draws")
    return draws


def _r_first(est, truth) -> float:
    """Pearson r of the first draw's imprints with their truth over the features (the planning table's reading)."""
    e, w = np.asarray(est[0], float), np.asarray(truth, float)
    ok = np.isfinite(e) & np.isfinite(w)
    return float(np.corrcoef(e[ok], w[ok])[0, 1]) if ok.sum() > 2 and np.ptp(e[ok]) > 0 else 0.0


def _row(quantity, what, est, lo, hi, truth: pd.Series, planted: pd.Series, seed: int, deviation: float) -> dict:
    """The Eq. 1 row: :func:`imprint_judge` of the draws, and the fit held to Eq. 1's definition on the first draw
    (``deviation``, :func:`~pluralign.recovery.eq1_fits.eq1_definition`, at most
    :data:`~pluralign.recovery.eq1_fits.DEFINITION_TOL`): the statistical tests cannot tell plain OLS standard
    errors from the pair-clustered ones where the oracle's noise has one variance for every entry, the definition
    can."""
    j = imprint_judge(est, lo, hi, truth.to_numpy())
    defined = deviation <= DEFINITION_TOL
    cal = j["cal"]
    feats = truth.index[j["features"]]
    n_eff = max(int(round(cal["n"] / cal["deff"][0.95])), 1)
    k, d = len(feats), len(est)
    lvl = f"α = {ALPHA / len(SUBTESTS):.2g}"
    means = np.nanmean(est[:, j["features"]], axis=0)
    per = "; ".join(
        f"{f} {fmt3(truth[f])}"
        + (f" (planted {fmt3(planted[f])})" if not np.isclose(truth[f], planted[f], atol=5e-4) else "")
        + f", mean imprint {fmt3(m)}"
        for f, m in zip(feats, means)
    )
    worst_t = int(np.nanargmax(np.abs(np.where(np.isfinite(j["t"]), j["t"], np.inf))))
    worst_s = int(np.nanargmax(np.abs(np.log(np.where(j["ratio"] > 0, j["ratio"], np.inf)))))
    lo_b, hi_b = j["ratio_band"]
    return {
        **row(
            "seal",
            quantity,
            f"{what}; per feature its truth, then the mean of its {d} imprints: {per}; 50% coverage "
            f"{cal['share'][0.5]:.3f}",
            0.95,
            cal["share"][0.95],
            exact_share_ci(int(round(cal["share"][0.95] * n_eff)), n_eff),
            f"per feature, the mean of its {d} imprints within {j['t_bound']:.2f} standard errors (sd / √{d}) of "
            f"its truth (t test, {d - 1} d.f.) and their sd over the draws within [{lo_b:.2f}, {hi_b:.2f}] × their "
            f"standard error (χ² test), each at {lvl} Bonferroni over the {k} features; "
            + calibration_text(cal)
            + f" at {lvl}; and on the first draw the fit is Eq. 1 as defined: its estimates, pair-clustered standard "
            f"errors and intervals equal a closed form written apart from pyfixest (least squares on the pairs' "
            f"differences, the CRV1 sandwich with fixest's small-sample factor, t(G − 1) intervals) to "
            f"{DEFINITION_TOL:.0e} relative",
            j["ok"] and defined,
            interval="exact binomial over the effective number of intervals",
            null_pass=_null_pass(est, lo, hi, truth.to_numpy(), seed),
            reads=f"largest |t| {fmt3(abs(j['t'][worst_t]))} ({feats[worst_t]}; at most {j['t_bound']:.2f}); "
            f"sd / SE {fmt3(j['ratio'][worst_s])} ({feats[worst_s]}) in [{lo_b:.2f}, {hi_b:.2f}]; "
            + calibration_reads(cal)
            + f"; Eq. 1's definition on the first draw: largest relative deviation {deviation:.1e}",
        ),
        "r_first": _r_first(est, truth.to_numpy()),
        "failing": ", ".join(j["failing"] + ([] if defined else [f"definition (deviation {deviation:.1e})"])),
        "tests_ok": j["ok"],
    }


def oracle_imprint(
    data, pair_ids, *, noise_sd: float, n_draws: int = N_DRAWS, seed: int = 0, prompt_effect=PROMPT_EFFECT, fit=None
) -> dict:
    """Row ``imprint_weights``: SEAL Eq. 1 on a noisy oracle ``r(t) = x(t) · w + c_pair + ε`` over the planted
    features (:func:`~pluralign.recovery.seal_checks.oracle_utilities`: ``w`` the population's mean weights,
    ``c_pair`` a prompt effect correlated with the pair's features that Eq. 1's α_i must absorb; ``ε ~ N(0,
    noise_sd²)``), over ``n_draws`` draws: the pairs ``pair_ids``, then as many resampled from them with replacement,
    each with fresh ε. The regressors are the planted features themselves, so the projection of the noiseless
    reward on any set of pairs is ``w``: the planted weights are the truth, judged by :func:`imprint_judge`."""
    from pluralign.data.simulate import FEATURES
    from pluralign.recovery.seal_checks import oracle_utilities

    ids = pd.Index(list(pair_ids))
    w = data.meta["weights"]["mean"].reindex(list(FEATURES))
    u = oracle_utilities(data, ids, prompt_effect=prompt_effect)
    t = data.truth.reindex(ids)
    X = tuple(pd.DataFrame({f: t[f"{s}_{f}"].to_numpy() for f in FEATURES}) for s in ("a", "b"))
    design = ((u["a"], u["b"]), X)
    est, lo, hi, _, dev = imprint_draws(design, design, w, noise_sd=noise_sd, n_draws=n_draws, seed=seed, fit=fit)
    what = (
        f"Eq. 1 (pair FE, clustered SEs) imprints of a noisy oracle reward (planted utility + a prompt effect of "
        f"{prompt_effect:g} per planted feature of the pair + N(0, {noise_sd:.2g}²) per entry) on the planted "
        f"features, against the planted weights (the truth: the regressors are the planted features); {len(est)} "
        f"draws: the {len(ids)} pairs, then {len(est) - 1} times {len(ids)} pairs resampled from them, fresh noise "
        "in each"
    )
    return _row("imprint_weights", what, est, lo, hi, w, w, seed, dev)


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
        while len(_FEATURES) >= 4:
            _FEATURES.pop(next(iter(_FEATURES)))
        _FEATURES[key] = (entry_features(data, view, "rules"), data, view)
    return _FEATURES[key][0]


def planted_text_weights(data, view) -> pd.Series:
    """The planted weights of the featurizer's regressors on ``view``'s texts (:func:`text_weights` of the
    population's mean weights)."""
    return text_weights(data.meta["weights"]["mean"], list(_text_features(data, view).regressors))


def _text_design(data, view, weights: pd.Series, prompt_effect: float):
    """The noiseless oracle of the text row on ``view``'s pairs and the featurizer's readings of their texts:
    ``((util_chosen, util_rejected), (X_chosen, X_rejected))``, the utility the planted features the featurizer can
    read (:data:`TEXT_WEIGHTS`) times ``weights`` plus a prompt effect (``prompt_effect`` times those features the
    pair's two entries carry on average)."""
    from pluralign.seal.planted import planted_features

    F = _text_features(data, view)
    regs = list(F.regressors)
    vis = [TEXT_WEIGHTS[f][0] for f in TEXT_WEIGHTS]
    planted = planted_features(data, view)
    offset = prompt_effect * sum(side[vis].to_numpy(float).sum(1) for side in planted) / 2
    util = tuple(side[vis].to_numpy(float) @ weights.reindex(vis).to_numpy(float) + offset for side in planted)
    X = (F.chosen[regs].reset_index(drop=True), F.rejected[regs].reset_index(drop=True))
    return util, X


#: the last populations :func:`text_population` drew, by their arguments (their data kept with them, so the ids
#: stay their own): the row, its broken variants and its planning steps resample the same population
_POPULATIONS: dict = {}


def text_population(data, view, seed: int, multiple: int = POPULATION_MULTIPLE):
    """The population of the text row: ``multiple`` times ``data``'s pairs drawn by the same simulator
    (:func:`pluralign.data.simulate.simulate` with the options and population weights recorded in ``data.meta``),
    its simulator seed derived from ``data``'s and the row's ``seed``; its chosen / rejected view
    (:func:`pluralign.seal.pairs.chosen_rejected`). Returns ``(population, view)``, drawn once per arguments
    (the last two kept)."""
    from pluralign.data.simulate import simulate
    from pluralign.seal.pairs import chosen_rejected

    key = (id(data), int(pd.util.hash_pandas_object(view["pair_id"], index=False).sum()), int(seed), int(multiple))
    if key not in _POPULATIONS:
        opts = dict(data.meta["options"])
        w = data.meta["weights"]
        sim_seed = int(np.random.SeedSequence([int(opts["seed"]), int(seed), 16]).generate_state(1)[0])
        pop = simulate(
            **{**opts, "n_pairs": int(multiple) * int(opts["n_pairs"]), "seed": sim_seed},
            weights={f: [float(w.loc[f, "mean"]), float(w.loc[f, "sd"])] for f in w.index},
        )
        if not pop.meta["weights"].equals(w):
            raise ValueError("text_population: the population's planted weights differ from the data's")
        while len(_POPULATIONS) >= 2:
            _POPULATIONS.pop(next(iter(_POPULATIONS)))
        _POPULATIONS[key] = (pop, chosen_rejected(pop).table, data)
    return _POPULATIONS[key][:2]


def oracle_imprint_text(
    data,
    view,
    *,
    noise_sd: float,
    n_draws: int = N_DRAWS,
    seed: int = 0,
    prompt_effect=PROMPT_EFFECT,
    fit=None,
    multiple: int = POPULATION_MULTIPLE,
) -> dict:
    """Row ``imprint_text_weights``: SEAL Eq. 1 on the features the demo's featurizer reads from the chosen and
    rejected texts (:func:`pluralign.seal.design.entry_features`, ``source="rules"``), for a noisy oracle whose
    utility is the planted features the featurizer can read (:data:`TEXT_WEIGHTS`) times the population's mean
    weights, plus a prompt effect and ``N(0, noise_sd²)`` per entry; over ``n_draws`` draws: ``view``'s pairs,
    then as many resampled from the population of :func:`text_population` (``multiple`` times the data's pairs).

    The truth per regressor is Eq. 1's pseudo-true value under this measurement: the projection of the noiseless
    oracle onto the readings over the population (:func:`pseudo_true`, on the regressors the production fit kept on
    the demo's pairs), which the draws estimate. It differs from the planted weight where the featurizer misreads
    a regressor (attenuated) or a regressor correlated with a misread one (it takes up part of that one's weight):
    a finding about the featurizer, shown beside each truth, not a failure of Eq. 1. Judged by
    :func:`imprint_judge`."""
    w = data.meta["weights"]["mean"]
    design = _text_design(data, view, w, prompt_effect)
    planted = planted_text_weights(data, view)
    pop, pop_view = text_population(data, view, seed, multiple)
    pool = _text_design(pop, pop_view, w, prompt_effect)
    est, lo, hi, kept, dev = imprint_draws(
        design, pool, planted, noise_sd=noise_sd, n_draws=n_draws, seed=seed, fit=fit
    )
    truth = pseudo_true(*pool, kept).reindex(planted.index)
    n, m = len(view), len(pop_view)
    gaps = [f for f in kept if not np.isclose(truth[f], planted[f], atol=0.05)]
    what = (
        f"Eq. 1 (pair FE, clustered SEs) imprints of a noisy oracle reward (planted utility of the readable "
        f"features + a prompt effect + N(0, {noise_sd:.2g}²) per entry) on the rule featurizer's readings of the "
        f"texts; {len(est)} draws: the demo's {n} pairs, then {len(est) - 1} times {n} pairs resampled from a "
        f"population of {m} pairs ({multiple}× the demo's, same simulator), fresh noise in each; the truth is Eq. "
        f"1's pseudo-true value under these readings (the least-squares projection of the oracle onto them, pair "
        f"effects within, over the population), not the planted weight: they differ by more than 0.05 on "
        + (", ".join(gaps) if gaps else "no regressor")
        + " (what the featurizer does: a misread regressor is attenuated and a correlated one takes up part of "
        "its weight, errors in variables; a finding about the featurizer, not about Eq. 1)"
    )
    return _row("imprint_text_weights", what, est, lo, hi, truth, planted, seed, dev)

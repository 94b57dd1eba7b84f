"""SEAL Eq. 4 (the robustness scores π) against the planted truth: the method on a noisy oracle reward whose
alignment probabilities are known, so each score's planted value is known too (:func:`planted_scores`), and its
intervals are checked on both sides (:func:`~pluralign.recovery.rows.calibration`).

Eq. 4 is a linear probability model of an event that is not linear in its regressors, so its scores estimate a
projection, and the pair-clustered (sandwich) standard errors measure the estimator's spread when the pairs and
their rewrites are drawn afresh, not when they are held fixed (White 1980, Econometrica 48:817; Buja et al.
2019, Statist. Sci. 34:523, "models as approximations"). The check therefore draws both in every draw — the pairs
resampled with replacement from the data set, each rewritten anew — and compares with the projection in that
population (:data:`POPULATION_ROUNDS` rewrites of every pair)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st
from scipy.special import ndtr

from pluralign.data.difficulty import REWRITE_FLIP
from pluralign.recovery.rows import (
    ALPHA,
    calibration,
    calibration_reads,
    calibration_text,
    exact_share_ci,
    null_pass_rate,
    row,
    table_arrays,
)

__all__ = [
    "EQ4",
    "POPULATION_ROUNDS",
    "rewrite_flips",
    "rewritten_oracle",
    "planted_scores",
    "eq4_closed_form",
    "robustness_judge",
    "oracle_design",
    "oracle_robustness",
]

#: Eq. 4 as the row fits it: the linear probability model of SEAL's code, and no § 2.3 filter on pairs whose
#: target labels flipped (``unchanged=()``: the simulated rewriter flips only style features); SEs are clustered
#: by the drawn pair
EQ4 = {"unchanged": (), "model": "linear"}

#: rewrites of every pair from which the planted projection is computed: 20 times a draw's 5, so the planted
#: value's own Monte Carlo error is about √(5/100) ≈ 0.22 of a draw's standard error (coverage 0.947 for 0.95)
POPULATION_ROUNDS = 100


#: the branch each text takes in the simulated rewriter, by text (:func:`_branches`): texts recur round after round
#: (at most 50,000 texts: a process that runs many populations, such as the recovery study, keeps the latest)
_BRANCHES: dict = {}


def _branches(texts) -> np.ndarray:
    """Per text, the flip :func:`~pluralign.seal.simulated_rewrites.simulated_rewrite` plants when it toggles each
    of its features (sentiment, format, verbosity: +1 the text loses it, −1 it gains it, 0 the text cannot be
    toggled): its flips at ``p_flip=1``, where every toggle is drawn; a row per text (each text rewritten once
    per process)."""
    from pluralign.seal.simulated_rewrites import SIMULATED_FLIP_FEATURES, simulated_rewrite

    new = list(dict.fromkeys(t for t in texts if t not in _BRANCHES))
    if len(_BRANCHES) + len(new) > 50_000:  # a process that runs many populations keeps the latest texts only
        _BRANCHES.clear()
        new = list(dict.fromkeys(texts))
    if new:
        full = simulated_rewrite(new, seed=0, p_flip=1.0)[list(SIMULATED_FLIP_FEATURES)].to_numpy(int).tolist()
        _BRANCHES.update(zip(new, map(tuple, full)))
    return np.array([_BRANCHES[t] for t in texts], dtype=float).reshape(-1, 3)


def _flips_of(branches, seed: int, p_flip: float) -> np.ndarray:
    """The planted flips of :func:`~pluralign.seal.simulated_rewrites.simulated_rewrite` (``seed``, ``p_flip``) of
    the texts whose branches (:func:`_branches`) are ``branches``, without writing the rewrites: each branch where
    the rewriter's uniform for it (:func:`~pluralign.seal.simulated_rewrites.toggle_draws`) is below ``p_flip``, none
    for a text it paraphrases only (format branch 0: not assembled from content sentences). Columns sentiment,
    format, verbosity."""
    from pluralign.seal.simulated_rewrites import toggle_draws

    toggled = (toggle_draws(len(branches), seed) < p_flip) & (branches[:, 1:2] != 0)
    return np.where(toggled, branches, 0.0)


def _flip_columns() -> list:
    """The flip columns of the simulated rewriter, in its order and SEAL's names."""
    from pluralign.seal.simulated_rewrites import PLANTED_FLIP_NAMES, SIMULATED_FLIP_FEATURES

    return [PLANTED_FLIP_NAMES[f] for f in SIMULATED_FLIP_FEATURES]


def _flip_arrays(branches):
    """:func:`rewrite_flips` for texts whose branches are known (``branches``: the chosen and the rejected
    texts'), as arrays (columns :func:`_flip_columns`)."""

    def flips(view, *, seed: int, p_flip: float):
        return tuple(_flips_of(b, seed + k, p_flip) for k, b in enumerate(branches))

    return flips


def rewrite_flips(view: pd.DataFrame, *, seed: int, p_flip: float, branches=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The planted label flips of the chosen and rejected entries of ``view`` that the demo's simulated rewriter
    gives (``simulated_rewrite_pairs(view, seed=seed, p_flip=p_flip).flips``, :mod:`pluralign.seal.simulated_rewrites`:
    the chosen replies rewritten with ``seed``, the rejected with ``seed + 1``; columns SEAL's names), without
    writing the rewritten texts (:func:`_flips_of`), which Eq. 4's oracle does not read. ``branches``: the
    chosen and rejected texts' branches (:func:`_branches`), when known. :func:`oracle_design` checks the flips
    against the rewriter itself on its population's first round."""
    if branches is None:
        branches = tuple(_branches(view[e].tolist()) for e in ("chosen", "rejected"))
    arrays = _flip_arrays(branches)(view, seed=seed, p_flip=p_flip)
    return tuple(pd.DataFrame(a, columns=_flip_columns()) for a in arrays)


def _rewriter_flips(view: pd.DataFrame, *, seed: int, p_flip: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The planted flips from the simulated rewriter itself
    (:func:`~pluralign.seal.simulated_rewrites.simulated_rewrite_pairs`), every pair kept."""
    from pluralign.seal.simulated_rewrites import simulated_rewrite_pairs

    rp = simulated_rewrite_pairs(view, seed=seed, p_flip=p_flip)
    if len(rp.kept) != len(view):
        raise ValueError("the simulated rewriter dropped pairs: rewritten_oracle expects every pair kept")
    return rp.flips["chosen"], rp.flips["rejected"]


def rewritten_oracle(data, view: pd.DataFrame, *, seed: int, p_flip: float, n_rounds: int, flips=None) -> dict:
    """Every pair of ``view`` rewritten ``n_rounds`` times by the demo's simulated rewriter
    (:func:`~pluralign.seal.simulated_rewrites.simulated_rewrite_pairs`, seeds ``seed``, ``seed + 2`` …; its flips
    by :func:`rewrite_flips`, or ``flips`` in its place) and the planted utility gap (chosen − rejected,
    population mean weights) before and after each rewrite: ``gap``, ``after`` (a flip is original − rewritten,
    so the rewritten entry's utility is the original's − Σ w_f flip_f), the flips ``fc`` / ``fr``, the pair ids
    ``groups`` and the row of ``view`` each comes from (``instance``: a pair drawn twice is two clusters), one row
    per rewritten pair."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal.simulated_rewrites import PLANTED_FLIP_NAMES

    flips = rewrite_flips if flips is None else flips
    w = data.meta["weights"]["mean"]
    t = data.truth.reindex(view["pair_id"])
    ua, ub = (
        np.column_stack([t[f"{s}_{f}"].to_numpy(float) for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
        for s in "ab"
    )
    gap = np.where((view["chosen_side"].astype(str) == "A").to_numpy(), ua - ub, ub - ua)
    ws = w.rename(PLANTED_FLIP_NAMES)
    rounds = max(1, int(n_rounds))
    parts = [flips(view, seed=seed + 2 * k, p_flip=p_flip) for k in range(rounds)]  # seeds seed and seed + 1
    cols = _flip_columns()
    if any(list(getattr(f, "columns", cols)) != cols for p in parts for f in p):
        raise ValueError(f"rewritten_oracle: the flips' columns are not {cols}")
    fc, fr = (pd.DataFrame(np.concatenate([np.asarray(p[e], float) for p in parts]), columns=cols) for e in (0, 1))
    before = np.tile(gap, rounds)
    after = before - fc.to_numpy() @ ws[fc.columns].to_numpy() + fr.to_numpy() @ ws[fr.columns].to_numpy()
    return {
        "gap": before,
        "after": after,
        "fc": fc,
        "fr": fr,
        "groups": np.tile(view["pair_id"].to_numpy(), rounds),
        "instance": np.tile(np.arange(len(view)), rounds),
        "weights": ws,
    }


def planted_scores(rw: dict, noise_sd: float) -> pd.Series:
    """The planted value of every score of Eq. 4's linear probability model (SEAL's code): the least-squares
    projection of the event's planted probability onto the model's regressors (an intercept and one 0/1 column
    per entry × feature × non-zero flip) over the rewritten pairs of ``rw``; over many rewrites of every pair
    (:data:`POPULATION_ROUNDS`) the projection that OLS estimates in that population. With independent
    ``N(0, noise_sd²)`` noise per entry before and after the rewrite, P(aligned before and not after) =
    Φ(gap / (√2 σ)) · Φ(−gap_after / (√2 σ)). Written from the definitions, not through the library's code;
    indexed by (entry, feature, flip)."""
    s = np.sqrt(2) * noise_sd
    p = ndtr(rw["gap"] / s) * ndtr(-rw["after"] / s)
    cols, keys = [np.ones(len(p))], []
    for entry, fl in (("c", rw["fc"]), ("r", rw["fr"])):
        for f in fl.columns:
            v = fl[f].to_numpy()
            for lv in sorted({int(x) for x in np.unique(v)} - {0}):
                cols.append((v == lv).astype(float))
                keys.append((entry, f, lv))
    beta = np.linalg.lstsq(np.column_stack(cols), p, rcond=None)[0]
    return pd.Series(beta[1:], index=pd.MultiIndex.from_tuples(keys, names=["entry", "feature", "flip"]))


def _lpm(rw: dict, before, after, level: float = 0.95):
    """SEAL Eq. 4 as the row fits it (:data:`EQ4`: the linear probability model of SEAL's code, every pair kept)
    in closed form on one draw: the event δ(1 − δ̂) regressed by least squares on an intercept and one 0/1
    column per (entry, feature, non-zero flip) present, in the order of
    :func:`~pluralign.seal.robustness.robustness_scores`; β = (XᵀX)⁻¹Xᵀy, CR1 variance by the draw's clusters
    ``instance`` (G/(G − 1)·(N − 1)/(N − K) (XᵀX)⁻¹ Σ_g u_g u_gᵀ (XᵀX)⁻¹, u_g = Σ_{i∈g} x_i e_i), t quantile on
    N − K d.f. Returns its table (index (entry, feature, flip); ``separated``, ``estimate``, ``std_error``,
    ``ci_low``, ``ci_high``), or None when XᵀX is singular."""
    y = (np.asarray(before, bool) & ~np.asarray(after, bool)).astype(float)
    cols, keys, separated = [np.ones(len(y))], [], []
    for entry, fl in (("c", rw["fc"]), ("r", rw["fr"])):
        for f in fl.columns:
            v = fl[f].to_numpy()
            for lv in sorted({int(x) for x in np.unique(v)} - {0}):
                m = v == lv
                k = int(y[m].sum())
                cols.append(m.astype(float))
                keys.append((entry, f, lv))
                separated.append(k == 0 or k == int(m.sum()))
    X = np.column_stack(cols)
    n, k = X.shape
    groups = np.unique(np.asarray(rw["instance"]), return_inverse=True)[1].reshape(-1)
    g = int(groups.max()) + 1
    xtx = X.T @ X
    if n <= k or g < 2 or np.linalg.matrix_rank(xtx) < k:
        return None
    ainv = np.linalg.inv(xtx)
    beta = ainv @ (X.T @ y)
    xe = X * (y - X @ beta)[:, None]
    u = np.column_stack([np.bincount(groups, xe[:, j], minlength=g) for j in range(k)])
    cov = ainv @ (u.T @ u) @ ainv * (g / (g - 1) * (n - 1) / (n - k))
    se = np.sqrt(np.diag(cov))
    q = st.t.ppf(0.5 + level / 2, n - k)
    index = pd.MultiIndex.from_tuples(keys, names=["entry", "feature", "flip"])
    return pd.DataFrame(
        {
            "separated": separated,
            "estimate": beta[1:],
            "std_error": se[1:],
            "ci_low": beta[1:] - q * se[1:],
            "ci_high": beta[1:] + q * se[1:],
        },
        index=index,
    )


def eq4_closed_form(first: pd.DataFrame, draws, tol: float = 1e-8):
    """The production fit of Eq. 4 (:func:`pluralign.seal.robustness.robustness_scores` with :data:`EQ4`) of every
    draw in closed form (:func:`_lpm`): ``draws`` as :func:`oracle_design` gives them, ``first`` the production
    table of the first. Returns one table per draw (``first`` itself, then the closed form's), or None when the
    closed form does not give ``first`` back (the same scores, separation flags, estimates and standard errors to
    ``tol``, relative) or a draw's XᵀX is singular."""
    tables = [_lpm(*d) for d in draws]
    t0 = tables[0]
    if any(t is None for t in tables) or not t0.index.equals(first.index):
        return None
    if not np.array_equal(t0["separated"].to_numpy(bool), first["separated"].to_numpy(bool)):
        return None
    for c in ("estimate", "std_error", "ci_low", "ci_high"):
        a, b = t0[c].to_numpy(float), first[c].to_numpy(float)
        if not np.allclose(a, b, rtol=tol, atol=tol * max(float(np.abs(b).max()), 1e-12)):
            return None
    return [first, *tables[1:]]


def robustness_judge(est, lo, hi, planted, alpha=ALPHA) -> dict:
    """The criterion of the Eq. 4 row: its intervals (arrays draws × scores) calibrated on both sides around the
    planted scores (:func:`~pluralign.recovery.rows.calibration`)."""
    est, lo, hi, w = (np.asarray(v, float) for v in (est, lo, hi, planted))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (est - w) / ((hi - lo) / (2 * 1.959964))
    cal = calibration(z, alpha)
    return {"cal": cal, "ok": cal["ok"]}


#: the last designs :func:`oracle_design` drew, by their arguments, with the production fits of their draws (the
#: broken variants of the mutation table reuse the draws and the fits of the row they break, as they must: the
#: same data, only the method's output differs; a sweep's or a plan's step at the table's design reuses both)
_DESIGNS: dict = {}


def oracle_design(data, view, noise_sd: float, seed: int, p_flip: float, n_rounds: int, n_draws: int):
    """The draws the Eq. 4 row fits, and their planted scores: the population's projection over
    :data:`POPULATION_ROUNDS` rewrites of every pair of ``view`` (:func:`planted_scores`), and ``n_draws`` draws,
    each the pairs resampled with replacement, rewritten ``n_rounds`` times afresh (:func:`rewritten_oracle`) and
    scored by the noisy oracle before and after (booleans: the chosen entry rewarded more). Seeded by ``seed``
    (rewrite seeds: the population's below ``base + 1000``, draw d's from ``base + 1000 (d + 1)``); the last four
    designs are kept in memory (the least recently used dropped first)."""
    key = (
        int(pd.util.hash_pandas_object(view["pair_id"], index=False).sum()),
        id(data),
        noise_sd,
        seed,
        p_flip,
        n_rounds,
        n_draws,
    )
    if key in _DESIGNS:
        _DESIGNS[key] = _DESIGNS.pop(key)  # most recently used last
        return _DESIGNS[key][:2]
    base = 10**6 * (seed + 1)
    population, same, bc, br, flips, rewrites = _rewrites(data, view, key[0], seed, p_flip, n_rounds)
    rng = np.random.default_rng([seed, 4])
    draws = []
    for d in range(max(1, n_draws)):
        rows = rng.integers(0, len(view), len(view))
        if d == len(rewrites):
            drawn = view.iloc[rows].reset_index(drop=True)
            if same:  # the drawn pairs' branches
                flips = _flip_arrays((bc[rows], br[rows]))
            rewrites.append(
                rewritten_oracle(data, drawn, seed=base + 1000 * (d + 1), p_flip=p_flip, n_rounds=n_rounds, flips=flips)
            )
        rw = rewrites[d]
        n = len(rw["gap"])
        before = rw["gap"] + noise_sd * (rng.standard_normal(n) - rng.standard_normal(n)) > 0
        after = rw["after"] + noise_sd * (rng.standard_normal(n) - rng.standard_normal(n)) > 0
        draws.append((rw, before, after))
    while len(_DESIGNS) >= 4:
        _DESIGNS.pop(next(iter(_DESIGNS)))
    # data kept: its id stays its own; the last: the production fits of the draws (oracle_robustness fills it)
    _DESIGNS[key] = (planted_scores(population, noise_sd), draws, data, {})
    return _DESIGNS[key][:2]


#: the rewrites of the last designs, by their arguments but the oracle's noise and the number of draws: the
#: population's and each draw's (a draw's pairs do not depend on the noise: the steps of a sweep over the noise, and
#: a plan's steps at the table's pairs, rewrite the same pairs alike and draw only the noise anew)
_REWRITES: dict = {}


def _rewrites(data, view, pairs_hash: int, seed: int, p_flip: float, n_rounds: int):
    """``(population, same, branches_chosen, branches_rejected, flips, rewrites)`` of :func:`oracle_design`'s
    arguments but the noise: the population's rewrites (:data:`POPULATION_ROUNDS` of every pair), whether the
    rewriter's flips are read from the texts' branches (``same``: they agree with the rewriter itself on the
    population's first round), and the list of the draws' rewrites so far (``oracle_design`` extends it)."""
    key = (pairs_hash, id(data), seed, p_flip, n_rounds)
    if key in _REWRITES:
        _REWRITES[key] = _REWRITES.pop(key)  # most recently used last
        return _REWRITES[key][:6]
    base = 10**6 * (seed + 1)
    # the rewriter's flips without its texts (each text's branch read once), unless they differ from the rewriter's
    # own on the population's first round (then the rewriter itself, for every round)
    bc, br = (_branches(view[e].tolist()) for e in ("chosen", "rejected"))
    fast = _flip_arrays((bc, br))
    got, want = fast(view, seed=base, p_flip=p_flip), _rewriter_flips(view, seed=base, p_flip=p_flip)
    same = all(np.array_equal(a, b.to_numpy(float)) for a, b in zip(got, want))
    flips = fast if same else _rewriter_flips
    population = rewritten_oracle(data, view, seed=base, p_flip=p_flip, n_rounds=POPULATION_ROUNDS, flips=flips)
    while len(_REWRITES) >= 4:
        _REWRITES.pop(next(iter(_REWRITES)))
    _REWRITES[key] = (population, same, bc, br, flips, [], data)  # data kept: its id stays its own
    return _REWRITES[key][:6]


def _draw_scores(draws: list, features: pd.Index, scores=None) -> tuple:
    """``est``, ``lo``, ``hi`` (draws × ``features``) of Eq. 4 on each of :func:`oracle_design`'s ``draws``: the
    production fit (:func:`pluralign.seal.robustness.robustness_scores`; its first draw fitted, the others through
    its closed form :func:`eq4_closed_form` where that reproduces it, and kept with the draws), or ``scores`` in its
    place (a broken variant; one with ``breaks`` breaks the production tables). Separated scores are left out."""
    from pluralign.seal.robustness import robustness_scores

    base, breaks = getattr(scores, "base", scores), getattr(scores, "breaks", None)
    fits = next((v[3] for v in _DESIGNS.values() if v[1] is draws), {})  # the production fits of these draws
    production = base is None or base is robustness_scores
    if production and len(fits) < len(draws):
        rw, before, after = draws[0]
        first = fits.get(0)
        if first is None:
            args = (before, after, rw["fc"], rw["fr"], list(rw["fc"].columns))
            first = robustness_scores(*args, **EQ4, groups=rw["instance"]).table
        fits.update(enumerate(eq4_closed_form(first, draws) or [first]))
    out = []
    for d, (rw, before, after) in enumerate(draws):
        args = (before, after, rw["fc"], rw["fr"], list(rw["fc"].columns))
        if production:
            if d not in fits:
                fits[d] = robustness_scores(*args, **EQ4, groups=rw["instance"]).table
            t = fits[d]
        else:
            t = base(*args, **EQ4, groups=rw["instance"]).table
        t = breaks(t) if breaks is not None else t
        a = table_arrays(t, features, ("estimate", "ci_low", "ci_high", "separated"))
        a[:3, a[3] == 1] = np.nan  # a separated score has no estimate
        out.append(a[:3])
    return tuple(np.array([o[k] for o in out]) for k in range(3))


def oracle_robustness(
    data,
    view: pd.DataFrame,
    *,
    noise_sd: float,
    seed: int = 0,
    p_flip: float = REWRITE_FLIP,
    n_rounds: int = 5,
    n_draws: int = 25,
    scores=None,
) -> dict:
    """Row ``robustness_scores``: SEAL Eq. 4 (the linear probability model of SEAL's code with pair-clustered SEs,
    :func:`pluralign.seal.robustness.robustness_scores`, or ``scores`` in its place) scored by a noisy oracle
    ``x · w + ε``, ``ε ~ N(0, noise_sd²)`` per entry and text, over ``n_draws`` draws; in each draw the pairs of
    ``view`` are resampled with replacement and rewritten ``n_rounds`` times afresh (:func:`rewritten_oracle`).
    Each estimable score against its planted value, the projection over :data:`POPULATION_ROUNDS` rewrites of
    every pair (:func:`planted_scores`), judged by :func:`robustness_judge`. Besides the table's columns the row
    holds ``score_half_width``, the median half-width of the scores' 95 % intervals (what planning reads)."""
    planted, draws = oracle_design(data, view, noise_sd, int(seed), float(p_flip), int(n_rounds), int(n_draws))
    est, lo, hi = _draw_scores(draws, planted.index, scores)
    j = robustness_judge(est, lo, hi, planted.to_numpy())
    cal = j["cal"]
    n_eff = max(int(round(cal["n"] / cal["deff"][0.95])), 1)  # the intervals' effective number (design effect)
    widths = (hi - lo) / 2

    def make(g):  # a noise method: scores drawn around 0 with the sd of the planted ones, the method's widths
        e = g.normal(0.0, float(np.std(planted)) or 1.0, est.shape)
        return e, e - widths, e + widths

    return {
        **row(
            "seal",
            "robustness_scores",
            f"share of the 95% intervals of Eq. 4's {len(planted)} scores π containing their planted value (the "
            f"least-squares projection of the planted event probability over {POPULATION_ROUNDS} rewrites of every "
            f"pair) for a noisy oracle reward (planted utility + N(0, {noise_sd:.2g}²) per entry); {len(est)} draws, "
            f"each of {len(view)} pairs resampled and rewritten {n_rounds} times afresh; 50% coverage "
            f"{cal['share'][0.5]:.3f}",
            0.95,
            cal["share"][0.95],
            exact_share_ci(int(round(cal["share"][0.95] * n_eff)), n_eff),
            calibration_text(cal),
            j["ok"],
            interval="exact binomial over the effective number of intervals",
            reads=calibration_reads(cal),
            null_pass=null_pass_rate(lambda o: robustness_judge(*o, planted.to_numpy())["ok"], make, seed=seed),
        ),
        "score_half_width": float(np.nanmedian(widths)) if np.isfinite(widths).any() else np.inf,
        "failing": "" if j["ok"] else "calibration",  # the row's one test
    }

"""Feature imprint (SEAL § 2.1, Eq. 1; Table 5, Fig. 3 left).

The reward of every entry ``t_i^*`` (chosen and rejected alike) is regressed on the entry's boolean
feature indicators with a fixed effect ``α_i`` per prompt / pair::

    r(t_i^*) = α_i + Σ_τ β_τ t_i^*(τ) + ε_i                                   (Eq. 1)

``β_τ`` is the *imprint* of feature τ: the point increase in reward of an entry that has τ over one
that does not, all other features held constant. Following the paper (footnote 6), features whose
variance inflation factor exceeds 5 are removed first (iteratively, worst first); p-values are
Bonferroni-corrected; standard errors are clustered by pair. The regression runs through pyfixest's
``feols("reward ~ f1 + ... | pair", vcov={"CRV1": "pair"})``.

With exactly two entries per pair the pair fixed effects difference out, so β equals ordinary least
squares of (chosen − rejected) reward differences on (chosen − rejected) feature differences without
an intercept; the tests use that as the oracle.

Note on SEAL's public code: ``analysis/angle.R`` fits Table 5 with ``lm(reward ~ .)`` on the pooled
entries (``row_id`` enters as a numeric covariate rather than a fixed effect) and ``coeftest(model,
cluster=...)`` without a ``vcov`` argument, i.e. classical standard errors, after a VIF filter whose
auxiliary regressions include the pair dummies (footnote 6: "all the other explanatory variables in
Equation (1)", α_i among them). :func:`feature_imprint` implements Eq. 1 as written (pair fixed effects,
pair-clustered errors; this project's estimate); :func:`feature_imprint_seal_code` is SEAL's code's variant
(plain OLS, no fixed effects, classical errors, VIF with pair dummies), the one Table 5's numbers come from.
Part II shows both beside Table 5.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "ImprintEntries",
    "ImprintFit",
    "feature_imprint",
    "feature_imprint_seal_code",
    "imprint_table",
    "vif_filter",
    "bonferroni",
    "fill_rows",
    "VIF_THRESHOLD",
    "vif_rule",
]

VIF_THRESHOLD = 5.0
"""Footnote 6: 'Features with VIF above 5 are removed from the regression, following standard practice.'"""


def vif_rule(threshold: float | None) -> str:
    """The VIF filter of footnote 6 at ``threshold`` as a page names it: "VIF > 5"; "no VIF filter" for None (or
    an infinite threshold, which only a constant or exactly collinear feature exceeds)."""
    if threshold is None or not np.isfinite(threshold):
        return "no VIF filter"
    return f"VIF > {threshold:g}"


@dataclass(frozen=True)
class ImprintEntries:
    """The entries ``t_i^*`` of D that Eq. 1 regresses (§ 2.1): ``table`` has two rows per pair (``entry``
    "chosen" then "rejected") with ``pair_id``, one column per reward model and the features
    (:func:`imprint_table`); ``n_pairs`` the pairs kept, ``n_pairs_dropped_missing`` the pairs dropped
    because a feature was missing on either entry."""

    table: pd.DataFrame
    n_pairs: int
    n_pairs_dropped_missing: int


@dataclass(frozen=True)
class ImprintFit:
    """Feature imprints β_τ of one reward model (SEAL Eq. 1; Table 5, Fig. 3 left), from
    :func:`feature_imprint`.

    ``table``: one row per feature (``estimate``, ``std_error``, ``t``, ``p_value``, ``p_bonferroni``,
    ``ci_low``, ``ci_high``, ``vif``, ``dropped_vif``, ``dropped_collinear``); ``dropped_vif`` the features
    removed by the VIF filter (footnote 6: VIF above the fit's ``vif_threshold``), in drop order; ``kept`` the
    features that entered the regression; ``n_obs`` entries and ``n_pairs`` pairs (fixed effects α_i) in it;
    ``reward`` the reward regressed; ``formula`` the regression as fitted; ``vcov`` its standard errors; ``level``
    the confidence level of ``ci_low`` / ``ci_high``."""

    table: pd.DataFrame
    dropped_vif: list[str]
    kept: list[str]
    n_obs: int
    n_pairs: int
    reward: str
    formula: str
    vcov: str = ""
    level: float = 0.95


def bonferroni(p_values) -> np.ndarray:
    """Bonferroni-adjusted p-values, ``min(1, k·p)`` with k the number of tests (statsmodels
    ``multipletests(method="bonferroni")``). NaN p-values stay NaN and do not count in k."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method="bonferroni")[1]
    return out


def _vifs(S: np.ndarray, cols: list[int], tss: np.ndarray | None = None) -> np.ndarray:
    """Centred VIFs of the columns ``cols`` from the centred cross-product matrix ``S`` (k × k):
    ``VIF_j = S_jj / RSS_j`` with ``RSS_j = S_jj − S_j,o S_o,o⁺ S_o,j`` the residual sum of squares of column
    j regressed (with an intercept) on the other columns o — i.e. 1 / (1 − R_j²). With ``tss`` (the centred
    total sums of squares) and ``S`` the cross-products of the columns demeaned within groups, the auxiliary
    regressions include the group dummies (Frisch–Waugh–Lovell): ``VIF_j = tss_j / RSS_j``."""
    out = np.empty(len(cols))
    for a, j in enumerate(cols):
        sjj = S[j, j]
        top = sjj if tss is None else tss[j]
        if sjj <= 0:
            out[a] = np.inf
            continue
        others = [c for c in cols if c != j]
        if not others:
            out[a] = top / sjj
            continue
        So = S[np.ix_(others, others)]
        sj = S[others, j]
        rss = sjj - sj @ np.linalg.pinv(So, rcond=1e-12, hermitian=True) @ sj
        out[a] = np.inf if rss <= sjj * 1e-12 else top / rss
    return out


def vif_filter(
    frame: pd.DataFrame, threshold: float | None = VIF_THRESHOLD, groups=None
) -> tuple[list[str], dict, pd.Series]:
    """Iteratively drop the column with the largest variance inflation factor while it exceeds
    ``threshold`` (SEAL footnote 6: ``V_τ = 1 / (1 − R_τ²)``, R_τ² from regressing feature τ on all the
    other explanatory variables, with an intercept).

    The VIFs equal statsmodels' ``variance_inflation_factor`` on the columns plus a constant (the
    centred VIF, as R's ``car::vif`` used by SEAL; the tests check the equality) but are computed from
    the k × k centred cross-product matrix instead of k regressions on the n rows, which at SEAL's
    321,600 rows is the difference between milliseconds and minutes. Columns without variation, or
    exact linear combinations of others, get an infinite VIF and are dropped first.

    ``groups`` (one label per row, e.g. the pair): the auxiliary regressions also include the group dummies,
    as in SEAL's code, where R_τ² comes from Eq. 1 with its pair fixed effects α_i (equal to statsmodels'
    ``variance_inflation_factor`` on the columns, the dummies and a constant; tested). A column constant
    within every group then has an infinite VIF.

    Returns ``(kept, dropped, vif)``: the kept column names, ``{dropped name: its VIF when dropped}``
    in drop order, and the final VIFs of the kept columns.
    """
    names = list(frame.columns)
    X = frame.to_numpy(dtype=float)
    if len(X) == 0:
        raise ValueError("vif_filter: no rows")
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc
    tss = None
    if groups is not None:
        g = pd.Series(np.asarray(groups))
        if len(g) != len(X):
            raise ValueError(f"vif_filter: {len(g)} group labels for {len(X)} rows")
        Xw = X - pd.DataFrame(X).groupby(g.to_numpy()).transform("mean").to_numpy()
        tss, S = np.diag(S).copy(), Xw.T @ Xw
    dropped: dict[str, float] = {}
    kept = []
    for j, name in enumerate(names):
        if S[j, j] <= 0 and threshold is not None:  # no variation: undefined R², dropped first
            dropped[name] = float("inf")
        else:
            kept.append(j)
    while kept:
        v = _vifs(S, kept, tss)
        worst = int(np.argmax(v))
        if threshold is None or v[worst] <= threshold:
            return [names[j] for j in kept], dropped, pd.Series(v, index=[names[j] for j in kept], name="vif")
        dropped[names[kept[worst]]] = float(v[worst])
        del kept[worst]
    return [], dropped, pd.Series(dtype=float, name="vif")


def imprint_table(
    pair_id, chosen_features: pd.DataFrame, rejected_features: pd.DataFrame, *, missing: str = "drop", **rewards
) -> ImprintEntries:
    """Long table for :func:`feature_imprint`: two rows per pair (``entry`` "chosen" then "rejected") with
    ``pair_id``, one column per reward model and the features.

    ``chosen_features`` / ``rejected_features``: one row per pair, in the order of ``pair_id``;
    ``rewards``: ``name=(chosen_rewards, rejected_rewards)``, e.g. ``pre=(...), post=(...)``.
    ``missing``: a pair with a missing feature (NaN, e.g. an entry the LM-labeller could not label) on
    either entry is ``"drop"``-ped — both of its rows, so every pair keeps its two entries — or raises
    (``"error"``). Returns :class:`ImprintEntries` (the table, ``n_pairs`` kept, ``n_pairs_dropped_missing``).
    """
    if missing not in ("drop", "error"):
        raise ValueError(f"imprint_table: missing must be 'drop' or 'error', got {missing!r}")
    ids = np.asarray(pair_id)
    n = len(ids)
    if len(chosen_features) != n or len(rejected_features) != n:
        raise ValueError(
            f"imprint_table: {n} pair ids, {len(chosen_features)} chosen and "
            f"{len(rejected_features)} rejected feature rows"
        )
    if list(chosen_features.columns) != list(rejected_features.columns):
        raise ValueError("imprint_table: chosen and rejected features must have the same columns")
    if not rewards:
        raise ValueError("imprint_table: give at least one reward, e.g. post=(chosen, rejected)")
    bad = chosen_features.isna().any(axis=1).to_numpy() | rejected_features.isna().any(axis=1).to_numpy()
    if bad.any() and missing == "error":
        raise ValueError(
            f"imprint_table: {int(bad.sum())} pair(s) with a missing feature (first: {ids[bad].tolist()[0]!r})"
        )
    keep = ~bad
    out = pd.DataFrame({"pair_id": np.repeat(ids[keep], 2), "entry": np.tile(["chosen", "rejected"], int(keep.sum()))})
    for name, (c, r) in rewards.items():
        c, r = np.asarray(c, dtype=float), np.asarray(r, dtype=float)
        if len(c) != n or len(r) != n:
            raise ValueError(f"imprint_table: reward {name!r} has {len(c)}/{len(r)} values for {n} pairs")
        out[name] = np.column_stack([c[keep], r[keep]]).reshape(-1)
    for f in chosen_features.columns:
        both = np.column_stack([chosen_features[f].to_numpy()[keep], rejected_features[f].to_numpy()[keep]])
        out[f] = both.reshape(-1)
    return ImprintEntries(table=out, n_pairs=int(keep.sum()), n_pairs_dropped_missing=int(bad.sum()))


def _check_table(table: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{what}: column(s) {missing} not in the table (columns: {list(table.columns)})")


def _table_and_features(table, features, reward: str, pair: str, who: str):
    """The entries table (from :class:`ImprintEntries` or as given) and the feature list: ``features``, or
    every numeric / boolean column but the reward and the pair id; none is an error naming ``who``."""
    if isinstance(table, ImprintEntries):
        table = table.table
    if features is None:
        features = [c for c in table.select_dtypes(include=["number", "bool"]).columns if c not in (reward, pair)]
    features = list(features)
    if not features:
        raise ValueError(f"{who}: no feature columns given")
    return table, features


def feature_imprint(
    table: pd.DataFrame | ImprintEntries,
    reward: str = "reward",
    features: Sequence[str] | None = None,
    pair: str = "pair_id",
    *,
    vif_threshold: float | None = VIF_THRESHOLD,
    cluster: str | None = None,
    level: float = 0.95,
    demeaner_backend: str | None = None,
) -> ImprintFit:
    """Feature imprint β_τ of SEAL Eq. 1 (Table 5; Fig. 3 left).

    Parameters
    ----------
    table: one row per entry (text): the ``reward`` column, the ``pair`` id column and the numeric
        feature columns (booleans as 0/1; sentiment as −1/0/1, see ``features.feature_matrix``); or the
        :class:`ImprintEntries` of :func:`imprint_table`.
    reward: reward column (``r(t_i^*)`` for the post-D imprint, ``r̲(t_i^*)`` for the pre-D one).
    features: feature columns (default: every numeric column other than ``reward`` and ``pair``).
    pair: the fixed-effect (prompt / pair) column; also the cluster unless ``cluster`` is given.
    vif_threshold: drop features with VIF above it, iteratively (None: keep all).
    level: confidence level of the (unadjusted) intervals ``ci_low``/``ci_high``.
    demeaner_backend: passed to pyfixest (None: its default; in pyfixest 0.60 the rust MAP demeaner).

    Returns
    -------
    :class:`ImprintFit`; its ``table`` is a DataFrame indexed by feature (every requested feature, in order)
    with ``estimate``, ``std_error``, ``t``, ``p_value`` (unadjusted), ``p_bonferroni`` (``min(1, k·p)``,
    k = number of estimated coefficients), ``ci_low``, ``ci_high``, ``vif`` (final VIF of kept features, VIF at drop
    time of dropped ones), ``dropped_vif`` (bool) and ``dropped_collinear`` (bool: absorbed by the pair
    fixed effects, e.g. constant within every pair). Dropped features have NaN estimates.
    The fit's ``dropped_vif`` (list), ``kept``, ``n_obs``, ``n_pairs``, ``reward`` and ``formula`` are fields.
    """
    table, features = _table_and_features(table, features, reward, pair, "feature_imprint")
    if len(set(features)) != len(features):
        raise ValueError(f"feature_imprint: duplicate feature names in {features}")
    cluster = cluster or pair
    _check_table(table, [reward, pair, cluster, *features], "feature_imprint")
    data, safe = _regression_data(table, reward, pair, cluster, features)
    kept, dropped, vif = vif_filter(data[[safe[f] for f in features]], vif_threshold)
    back = {v: k for k, v in safe.items()}
    out = _imprint_frame(features, vif, dropped, back)
    if kept:
        _fit_fixed_effects(out, data, kept, back, level, demeaner_backend)
    kept_names = [back[c] for c in kept]
    return ImprintFit(
        table=out,
        dropped_vif=[back[c] for c in dropped],
        kept=kept_names,
        n_obs=int(len(data)),
        n_pairs=int(data["pair"].nunique()),
        reward=reward,
        formula=f"{reward} ~ {' + '.join(kept_names) or '1'} | {pair}",
        vcov=f"CRV1 by {cluster}",
        level=level,
    )


def _imprint_frame(features: list, vif: pd.Series, dropped: dict, back: dict | None = None) -> pd.DataFrame:
    """:class:`ImprintFit`'s table before the fit: one row per feature with NaN estimates, ``vif`` (the final VIF of a
    kept feature, the VIF at drop time of a dropped one), ``dropped_vif`` and ``dropped_collinear`` (False). ``back``
    maps the regression's column names to the features (default: they are the features)."""
    name = (lambda c: c) if back is None else back.__getitem__
    out = pd.DataFrame(
        index=pd.Index(features, name="feature"),
        columns=["estimate", "std_error", "t", "p_value", "p_bonferroni", "ci_low", "ci_high"],
        dtype=float,
    )
    at = {name(c): v for c, v in {**vif.to_dict(), **dropped}.items()}
    out["vif"] = np.array([at.get(f, np.nan) for f in features], dtype=float)
    out["dropped_vif"] = [f in {name(c) for c in dropped} for f in features]
    out["dropped_collinear"] = False
    return out


def _no_missing(bad: pd.Series, table: pd.DataFrame, who: str) -> None:
    """A ValueError naming ``who``, the count and the first row of ``table`` if ``bad`` (per row: a missing or
    non-numeric reward or feature) holds anywhere."""
    if bad.any():
        first = table.index[np.flatnonzero(bad.to_numpy())[0]]
        raise ValueError(
            f"{who}: {int(bad.sum())} row(s) with missing or non-numeric reward/features "
            f"(first at index {first!r}); drop or impute them first"
        )


def _regression_data(table: pd.DataFrame, reward: str, pair: str, cluster: str, features: list):
    """The regression's data for pyfixest (``reward``, ``pair``, ``cluster`` and the features under safe names
    ``x0``, ``x1``, …; booleans as 0/1) and the map feature → safe name; a missing or non-numeric reward or feature,
    or a missing pair id, is an error naming the first row."""
    data = pd.DataFrame(
        {
            "reward": pd.to_numeric(table[reward], errors="coerce"),
            "pair": table[pair].to_numpy(),
            "cluster": table[cluster].to_numpy(),
        },
        index=table.index,
    )
    safe = {f: f"x{j}" for j, f in enumerate(features)}
    for f in features:
        col = table[f]
        if col.dtype == bool or str(col.dtype) == "boolean":
            col = col.astype("float64")
        data[safe[f]] = pd.to_numeric(col, errors="coerce")
    _no_missing(data[["reward", *safe.values()]].isna().any(axis=1), table, "feature_imprint")
    if data["pair"].isna().any():
        raise ValueError("feature_imprint: the pair column has missing values")
    return data, safe


def import_pyfixest():
    """pyfixest, the Eq. 1 fitter, imported without changing the caller's logging: pyfixest 0.x's
    ``feols_compressed_`` module calls ``logging.basicConfig(level=INFO)`` when imported, which gives the root logger
    a stderr handler at INFO, so every library's INFO record (openai's HTTP requests, one per LLM call) would then
    reach a notebook's stderr. ``import pyfixest`` alone defers that module to the first ``pyfixest.feols``, so its
    estimation package is imported here, and the root logger put back as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import pyfixest
        import pyfixest.estimation  # noqa: F401 - the module that configures logging, imported under the guard
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return pyfixest


def _fit_fixed_effects(out: pd.DataFrame, data: pd.DataFrame, kept: list, back: dict, level: float, backend) -> None:
    """Eq. 1 with pair fixed effects and standard errors clustered by ``cluster`` (pyfixest ``feols``, CRV1) on the
    ``kept`` features; fills ``out``'s estimates, intervals and Bonferroni p-values, and marks the features the fixed
    effects absorbed (``dropped_collinear``)."""
    pf = import_pyfixest()
    from scipy import stats as st

    kw = {} if backend is None else {"demeaner_backend": backend}
    formula = f"reward ~ {' + '.join(kept)} | pair"
    fit = pf.feols(formula, data=data, vcov={"CRV1": "cluster"}, copy_data=False, store_data=False, lean=True, **kw)
    coef, se, tstat, pval = fit.coef(), fit.se(), fit.tstat(), fit.pvalue()
    df_t = getattr(fit, "_df_t", None)
    q = st.t.ppf(0.5 + level / 2, df_t) if df_t else st.norm.ppf(0.5 + level / 2)
    fitted = [c for c in kept if c in coef.index]
    b, s = coef[fitted].to_numpy(float), se[fitted].to_numpy(float)
    cells = {"estimate": b, "std_error": s, "t": tstat[fitted], "p_value": pval[fitted]}
    fill_rows(out, [back[c] for c in fitted], {**cells, "ci_low": b - q * s, "ci_high": b + q * s})
    out.loc[[back[c] for c in kept if c not in coef.index], "dropped_collinear"] = True
    out["p_bonferroni"] = bonferroni(out["p_value"].to_numpy())


def fill_rows(out: pd.DataFrame, rows: list, values: dict) -> None:
    """Sets the cells of ``out``'s ``rows`` in each column of ``values`` ({column: one value per row, in rows'
    order}), a column at a time: a fit's table filled a cell at a time costs pandas one indexing pass per cell. Used
    by the Eq. 1 fits here and by the recovery's closed forms, which lay their draws out as a production table."""
    at = out.index.get_indexer(rows)
    if (at < 0).any():
        raise KeyError(f"fill_rows: rows {[r for r, k in zip(rows, at) if k < 0]} are not in the table")
    for col, v in values.items():
        column = out[col].to_numpy(dtype=float, copy=True)
        column[at] = np.asarray(v, dtype=float)
        out[col] = column


def feature_imprint_seal_code(
    table: pd.DataFrame | ImprintEntries,
    reward: str = "reward",
    features: Sequence[str] | None = None,
    pair: str = "pair_id",
    *,
    vif_threshold: float | None = VIF_THRESHOLD,
    row_covariate: bool = True,
    level: float = 0.95,
) -> ImprintFit:
    """Eq. 1 / Table 5 as SEAL's analysis code fits it (``analysis/angle.R``): the VIF filter (footnote 6: VIF
    above ``vif_threshold``) with the pair dummies in its auxiliary regressions (:func:`vif_filter` with
    ``groups``), then plain OLS of the reward on the kept features and an intercept over the pooled entries — no
    pair fixed effects, classical
    standard errors (``coeftest`` without a ``vcov``), t tests on the residual degrees of freedom, Bonferroni
    over the coefficients. With ``row_covariate`` (default, as ``lm(reward ~ .)`` on SEAL's table, whose
    ``row_id`` column enters as a number) the pair's position 1, 2, … in ``table`` is a numeric regressor too.

    Same arguments and :class:`ImprintFit` as :func:`feature_imprint` (``dropped_collinear`` marks a feature the
    OLS could not identify); ``vcov`` is "classical (OLS)". The paper's Table 5 comes from this fit; this
    project's :func:`feature_imprint` (pair fixed effects) is the better estimator of Eq. 1 as written.
    """
    table, features = _table_and_features(table, features, reward, pair, "feature_imprint_seal_code")
    _check_table(table, [reward, pair, *features], "feature_imprint_seal_code")
    X = table[features].apply(lambda c: pd.to_numeric(c.astype("float64") if c.dtype == bool else c, errors="coerce"))
    y = pd.to_numeric(table[reward], errors="coerce")
    _no_missing(X.isna().any(axis=1) | y.isna(), table, "feature_imprint_seal_code")
    pairs = table[pair].to_numpy()
    kept, dropped, vif = vif_filter(X, vif_threshold, groups=pairs)
    out = _imprint_frame(features, vif, dropped)
    terms = _fit_pooled_ols(out, X, y, pairs, kept, row_covariate, level)
    return ImprintFit(
        table=out,
        dropped_vif=list(dropped),
        kept=list(kept),
        n_obs=int(len(table)),
        n_pairs=int(pd.Series(pairs).nunique()),
        reward=reward,
        formula=f"{reward} ~ {' + '.join(terms) or '1'}",
        vcov="classical (OLS)",
        level=level,
    )


def _fit_pooled_ols(out: pd.DataFrame, X: pd.DataFrame, y: pd.Series, pairs, kept: list, row_covariate: bool, level):
    """Eq. 1 as SEAL's code fits it: OLS of the reward on the ``kept`` features and an intercept over the pooled
    entries (plus the pair's position 1, 2, … as a number with ``row_covariate``), classical standard errors, t
    intervals on the residual degrees of freedom; fills ``out``'s estimates, intervals and Bonferroni p-values,
    marks the features the OLS could not identify (``dropped_collinear``) and returns the regression's terms."""
    import statsmodels.api as sm
    from scipy import stats as st

    design = X[kept].astype(float).copy()
    terms = list(kept)
    if row_covariate:
        design["row_id"] = pd.factorize(pairs)[0] + 1.0
        terms.append("row_id")
    fit = sm.OLS(y.to_numpy(float), sm.add_constant(design, has_constant="add")).fit()
    q = st.t.ppf(0.5 + level / 2, fit.df_resid)
    se = fit.bse[kept].to_numpy(float)
    est = fit.params[kept].to_numpy(float)
    lost = ~np.isfinite(se) | (se == 0) & np.isclose(est, 0)
    ok = [c for c, x in zip(kept, lost) if not x]
    b, s = est[~lost], se[~lost]
    cells = {"estimate": b, "std_error": s, "t": fit.tvalues[ok], "p_value": fit.pvalues[ok]}
    fill_rows(out, ok, {**cells, "ci_low": b - q * s, "ci_high": b + q * s})
    out.loc[[c for c, x in zip(kept, lost) if x], "dropped_collinear"] = True
    out["p_bonferroni"] = bonferroni(out["p_value"].to_numpy())
    return terms

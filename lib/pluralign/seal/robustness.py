"""Alignment robustness (SEAL § 2.3, Eq. 4; Table 8 / Fig. 5).

A random subset of pairs is rewritten by an LM with the App. C.5 prompt (surface changes only,
:mod:`pluralign.seal.lm_rewrites`), both entries re-featurized and re-scored (:func:`score_entries`,
:func:`aligned_before_after`). For entry type * ∈ {c, r} and feature τ the *label flip* is
``t_i^*(τ) − t̂_i^*(τ)`` (original minus rewritten): +1 when the original has the feature and the rewrite
loses it, −1 when the rewrite gains it, 0 when unchanged (sentiment, coded −1/0/1, can also flip by ±2;
:mod:`pluralign.seal.flips`, with Fig. 12 and Table 3).

Robustness scores π (Eq. 4) are the coefficients of a logistic regression of the event
``δ_i(1 − δ̂_i) = 1`` — the post-D RM was aligned on the original pair and is not on the rewritten one —
on the flips entered as *categorical* regressors with "no flip" (0) as the baseline::

    log(p̂ / (1 − p̂)) = α₀ + Σ_τ π^*(τ) (t_i^*(τ) − t̂_i^*(τ))

so each (entry, feature) gets π₊ (flip = +1, the entry *loses* τ) and π₋ (flip = −1, the entry *gains* τ).
E.g. π^c₋(eloquent) > 0: a chosen entry becoming more eloquent raises the odds of misalignment by
exp(π^c₋). The outcome is binary, so the fit is statsmodels ``Logit`` (a multinomial ``MNLogit`` on a
two-level outcome gives the same coefficients); "categorical" in the paper refers to the regressors.

SEAL's code fits Eq. 4 as a *linear probability model* (OLS of the 0/1 event on the same flip categories,
standard errors clustered by pair), so Table 8's numbers are differences in the probability of becoming
misaligned, not log-odds (π^c_+(sentiment) = 0.117: 11.7 points). ``robustness_scores(..., model="linear")``
is that fit, the paper-comparable variant Part II shows by default beside Table 8; ``model="logit"`` is Eq. 4
as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.seal.imprint import bonferroni
from pluralign.seal.resistance import _fit_logit
from pluralign.seal.taxonomy import TARGET_FEATURES

__all__ = ["RobustnessFit", "score_entries", "aligned_before_after", "robustness_scores", "linear_probability"]


@dataclass(frozen=True)
class RobustnessFit:
    """Robustness scores π^*_±(τ) (SEAL Eq. 4; Table 8, Fig. 5), from :func:`robustness_scores`.

    ``table``: one row per (``entry`` c/r, ``feature``, ``flip``) with ``name`` (e.g. "π^c_+(sentiment)"),
    ``n_flipped``, ``n_misaligned``, ``separated``, ``estimate``, ``std_error``, ``z``, ``p_value``, ``ci_low``,
    ``ci_high``, ``odds_ratio``, ``p_bonferroni``; ``n_pairs`` pairs in the regression, ``n_filtered`` pairs
    dropped by the ``unchanged`` filter (§ 2.3: helpfulness or harmlessness flipped), ``n_missing`` pairs
    dropped for a missing flip, ``misalignment_rate`` the share with δ_i(1 − δ̂_i) = 1, ``intercept`` α₀,
    ``converged`` (False when the logit's maximum likelihood did not converge), ``unchanged`` the filter
    features and ``model`` ("logit": π in log-odds, Eq. 4; "linear": in probability, SEAL's code and Table 8)."""

    table: pd.DataFrame
    n_pairs: int
    n_filtered: int
    n_missing: int
    misalignment_rate: float
    intercept: float
    converged: bool
    unchanged: list[str]
    model: str = "logit"


def score_entries(
    rm, texts: Sequence[str], prompts: Sequence[str] | None = None, *, scoring_input: str = "seal"
) -> np.ndarray:
    """Rewards of entries under ``rm`` (``rm.score([(prompt, reply), ...])``). With ``prompts``, each text is
    a reply scored after its prompt (rewrites that change replies only, the demo); without, each text is a
    whole dialogue (:func:`~pluralign.seal.pairs.entry_texts`, or its LM rewrite) split into (history, last
    reply), as Part II's scoring input says (:func:`~pluralign.seal.scoring.scoring_inputs`): ``"seal"``, SEAL's
    code's :func:`~pluralign.seal.scoring.seal_split` (a reply after ``prompts`` is first written out as a
    dialogue), or ``"prompt_reply"``, :func:`~pluralign.seal.design.split_dialogue` (the loader's split). Score
    originals and rewrites through this one function, so that only the rewriting differs between δ_i and δ̂_i."""
    from pluralign.seal.design import split_dialogue
    from pluralign.seal.pairs import entry_texts
    from pluralign.seal.scoring import SCORING_INPUTS, seal_split

    if scoring_input not in SCORING_INPUTS:
        raise ValueError(f"score_entries: scoring_input must be one of {SCORING_INPUTS}, got {scoring_input!r}")
    texts = list(texts)
    if prompts is not None:
        prompts = list(prompts)
        if len(prompts) != len(texts):
            raise ValueError(f"score_entries: {len(prompts)} prompts for {len(texts)} texts")
    if prompts is None:
        pairs = [seal_split(t) if scoring_input == "seal" else split_dialogue(t) for t in texts]
    elif scoring_input == "prompt_reply":
        pairs = list(zip(prompts, texts))
    else:
        pairs = [seal_split(t) for t in entry_texts(pd.DataFrame({"prompt": prompts, "chosen": texts}), "chosen")]
    return np.asarray(rm.score(pairs, progress=False), dtype=float)


def aligned_before_after(
    rm, originals: dict, rewritten: dict, prompts: Sequence[str] | None = None, *, scoring_input: str = "seal"
) -> tuple[np.ndarray, np.ndarray]:
    """δ_i and δ̂_i of Eq. 4: whether ``rm`` rewards the chosen entry strictly more than the rejected one,
    on the original and on the rewritten pair. ``originals`` / ``rewritten``: ``{"chosen": texts,
    "rejected": texts}``, one text per pair, all four scored by :func:`score_entries` (same ``prompts`` and
    ``scoring_input``)."""
    from pluralign.seal.resistance import aligned

    def delta(t):
        return aligned(
            score_entries(rm, t["chosen"], prompts, scoring_input=scoring_input),
            score_entries(rm, t["rejected"], prompts, scoring_input=scoring_input),
        )

    return delta(originals), delta(rewritten)


def robustness_scores(
    aligned_before,
    aligned_after,
    flips_chosen: pd.DataFrame,
    flips_rejected: pd.DataFrame,
    features: Sequence[str] | None = None,
    *,
    unchanged: Sequence[str] = TARGET_FEATURES,
    level: float = 0.95,
    model: str = "logit",
    groups=None,
) -> RobustnessFit:
    """Robustness scores π^*_±(τ) of SEAL Eq. 4 (Table 8, Fig. 5).

    Parameters
    ----------
    aligned_before, aligned_after: δ_i and δ̂_i — whether the post-D RM rewards the chosen entry strictly
        more on the original and on the rewritten pair (``resistance.aligned``). The outcome is
        δ_i(1 − δ̂_i): aligned before rewriting and not after.
    flips_chosen, flips_rejected: :func:`label_flips` of the chosen and rejected entries, one row per pair.
    features: features whose flips enter the regression (default: the flip columns not in ``unchanged``;
        the paper: coherent, eloquent, sentiment).
    unchanged: § 2.3 keeps only pairs whose ``unchanged`` labels (default helpfulness and harmlessness)
        did not flip on either entry; ``()`` keeps every pair. Pairs with a missing flip are dropped too.
    model: ``"logit"`` (Eq. 4 as written: statsmodels ``Logit``, z tests, ``odds_ratio`` = exp(π)) or ``"linear"``
        (SEAL's code, Table 8's scale: a linear probability model, statsmodels ``OLS`` on the 0/1 event with
        cluster-robust (CR1) standard errors by ``groups``, t tests on the residual degrees of freedom as R's
        ``coeftest``; π is then a change in probability, ``odds_ratio`` NaN).
    groups: the cluster of each pair for ``model="linear"`` (default: the pair itself, one row per pair).

    Returns :class:`RobustnessFit`, whose ``table`` is indexed by (``entry`` c/r, ``feature``, ``flip``), one row
    per non-zero flip value present (π₊ ↔ flip = +1, π₋ ↔ flip = −1; sentiment may add ±2), with ``name``
    (e.g. "π^c_+(sentiment)"), ``estimate``, ``std_error``, ``z``, ``p_value``, ``p_bonferroni``, ``ci_low``,
    ``ci_high``, ``odds_ratio``
    ``n_flipped`` (pairs with that flip), ``n_misaligned`` (of them, pairs that became misaligned) and
    ``separated`` (True when none or all of them did: complete separation, no finite estimate; leave
    such rows out of plots); and the fields ``n_pairs``, ``n_filtered`` (dropped by the
    ``unchanged`` filter), ``n_missing``, ``misalignment_rate``, ``intercept``, ``converged``.
    """
    if model not in ("logit", "linear"):
        raise ValueError(f"robustness_scores: model must be 'logit' or 'linear', got {model!r}")
    before = np.asarray(aligned_before).astype(bool).reshape(-1)
    after = np.asarray(aligned_after).astype(bool).reshape(-1)
    n = len(before)
    if not (len(after) == len(flips_chosen) == len(flips_rejected) == n):
        raise ValueError(
            f"robustness_scores: lengths differ (aligned_before {n}, aligned_after {len(after)}, "
            f"flips_chosen {len(flips_chosen)}, flips_rejected {len(flips_rejected)})"
        )
    fc, fr = flips_chosen.reset_index(drop=True), flips_rejected.reset_index(drop=True)
    unchanged = list(unchanged)
    features = _flip_features(fc, fr, features, unchanged)
    keep, n_filtered, n_missing = _kept_pairs(fc, fr, features, unchanged)
    y = (before & ~after)[keep].astype(float)
    cols, meta = _flip_categories(fc, fr, features, keep, y)
    g = _cluster_groups(groups, n, keep) if model == "linear" else None
    fitted = _fit_scores(y, cols, model, level, g)
    return RobustnessFit(
        table=_score_table(meta, fitted, model),
        n_pairs=int(keep.sum()),
        n_filtered=n_filtered,
        n_missing=n_missing,
        misalignment_rate=float(y.mean()),
        intercept=fitted["intercept"],
        converged=fitted["converged"],
        unchanged=unchanged,
        model=model,
    )


def _flip_features(fc: pd.DataFrame, fr: pd.DataFrame, features, unchanged: list) -> list:
    """The features whose flips enter Eq. 4 (default: every flip column not in ``unchanged``); a feature or an
    ``unchanged`` filter feature missing from the flips is an error naming it."""
    for name, fl in (("flips_chosen", fc), ("flips_rejected", fr)):
        miss = [u for u in unchanged if u not in fl.columns]
        if miss:
            raise ValueError(
                f"robustness_scores: {name} lacks the 'unchanged' filter feature(s) {miss}; "
                f"pass unchanged=() to keep every pair"
            )
    features = list(features) if features is not None else [f for f in fc.columns if f not in unchanged]
    for name, fl in (("flips_chosen", fc), ("flips_rejected", fr)):
        miss = [f for f in features if f not in fl.columns]
        if miss:
            raise ValueError(f"robustness_scores: {name} lacks feature(s) {miss}")
    return features


def _kept_pairs(fc: pd.DataFrame, fr: pd.DataFrame, features: list, unchanged: list) -> tuple[np.ndarray, int, int]:
    """The pairs Eq. 4 is fitted on (§ 2.3): no ``unchanged`` label flipped on either entry and every flip of
    ``features`` present; returns the mask, the pairs the filter dropped and the pairs dropped for a missing flip.
    No pair left is an error."""
    keep = np.ones(len(fc), bool)
    for u in unchanged:
        keep &= (fc[u].to_numpy() == 0) & (fr[u].to_numpy() == 0)
    n_filtered = int((~keep).sum())
    complete = fc[features].notna().all(axis=1).to_numpy() & fr[features].notna().all(axis=1).to_numpy()
    n_missing = int((keep & ~complete).sum())
    keep &= complete
    if keep.sum() == 0:
        raise ValueError("robustness_scores: no pairs left after the 'unchanged' filter and missing flips")
    return keep, n_filtered, n_missing


def _cluster_groups(groups, n: int, keep: np.ndarray) -> np.ndarray:
    """The cluster of each kept pair for the linear probability model (default: the pair itself)."""
    g = np.arange(n) if groups is None else np.asarray(groups)
    if len(g) != n:
        raise ValueError(f"robustness_scores: {len(g)} groups for {n} pairs")
    return g[keep]


def _flip_categories(fc, fr, features, keep, y) -> tuple[dict, dict]:
    """Eq. 4's regressors: one 0/1 column per (entry, feature, non-zero flip value) present among the kept pairs
    ("no flip" is the baseline), and per column its name (π^c_+(τ), …), counts and whether it is separated (none or
    all of its pairs became misaligned: no finite logit estimate)."""
    cols, meta = {}, {}
    for entry, fl in (("c", fc), ("r", fr)):
        for f in features:
            v = fl.loc[keep, f].to_numpy()
            for lv in sorted({int(x) for x in np.unique(v)} - {0}):
                key = f"{f}|{entry}|{lv}"
                cols[key] = (v == lv).astype(float)
                sign = "+" if lv > 0 else "-"
                label = sign if abs(lv) == 1 else f"{sign}{abs(lv)}"
                n_mis = int(y[v == lv].sum())
                meta[key] = {
                    "entry": entry,
                    "feature": f,
                    "flip": lv,
                    "name": f"π^{entry}_{label}({f})",
                    "n_flipped": int((v == lv).sum()),
                    "n_misaligned": n_mis,
                    # every pair in the category misaligned, or none: no finite estimate
                    "separated": n_mis == 0 or n_mis == int((v == lv).sum()),
                }
    return cols, meta


def _fit_scores(y: np.ndarray, cols: dict, model: str, level: float, groups) -> dict:
    """Eq. 4 fitted: the linear probability model (cluster-robust SEs by ``groups``, t quantiles on the residual
    degrees of freedom) or the logit (z quantiles); ``params``, ``bse``, ``z``, ``p``, ``q`` (the interval's
    quantile), ``converged`` and ``intercept``."""
    import statsmodels.api as sm
    from scipy import stats as st

    X = sm.add_constant(pd.DataFrame(cols), has_constant="add")
    q = st.norm.ppf(0.5 + level / 2)
    if model == "linear":
        fit = linear_probability(y, X, groups)
        out = {"converged": True, "q": st.t.ppf(0.5 + level / 2, fit.df_resid)}
    elif len(cols):
        fit, converged = _fit_logit(sm.Logit(y, X))
        out = {"converged": converged, "q": q}
    else:
        empty = pd.Series(dtype=float)
        intercept = float(np.log(y.mean() / (1 - y.mean()))) if 0 < y.mean() < 1 else np.nan
        return {
            "params": empty,
            "bse": empty,
            "z": empty,
            "p": empty,
            "q": q,
            "converged": True,
            "intercept": intercept,
        }
    return {
        **out,
        "params": fit.params,
        "bse": fit.bse,
        "z": fit.tvalues,
        "p": fit.pvalues,
        "intercept": float(fit.params["const"]),
    }


_SCORE_COLUMNS = [
    "entry",
    "feature",
    "flip",
    "name",
    "n_flipped",
    "n_misaligned",
    "separated",
    "estimate",
    "std_error",
    "z",
    "p_value",
    "ci_low",
    "ci_high",
    "odds_ratio",
]


def _score_table(meta: dict, fitted: dict, model: str) -> pd.DataFrame:
    """:class:`RobustnessFit`'s table: one row per flip category, indexed by (entry, feature, flip)."""
    rows = []
    for key, m in meta.items():
        est, se = float(fitted["params"][key]), float(fitted["bse"][key])
        rows.append(
            {
                **m,
                "estimate": est,
                "std_error": se,
                "z": float(fitted["z"][key]),
                "p_value": float(fitted["p"][key]),
                "ci_low": est - fitted["q"] * se,
                "ci_high": est + fitted["q"] * se,
                "odds_ratio": float(np.exp(est)) if model == "logit" else np.nan,
            }
        )
    out = pd.DataFrame(rows, columns=_SCORE_COLUMNS)
    out["p_bonferroni"] = bonferroni(out["p_value"].to_numpy()) if len(out) else []
    return out.set_index(["entry", "feature", "flip"])


def linear_probability(y, X: pd.DataFrame, groups):
    """A linear probability model as SEAL's code fits Eq. 4 (Table 8): OLS of the 0/1 outcome ``y`` on ``X``
    (with its constant) with cluster-robust standard errors by ``groups`` (statsmodels ``cov_type="cluster"``,
    CR1: the small-sample factor G/(G − 1)·(N − 1)/(N − K)), t statistics with p-values on the residual degrees
    of freedom N − K (R's ``coeftest``). Returns a namespace: ``params``, ``bse``, ``tvalues``, ``pvalues``,
    ``df_resid`` and the statsmodels results ``fit``."""
    from types import SimpleNamespace

    import statsmodels.api as sm
    from scipy import stats as st

    fit = sm.OLS(np.asarray(y, float), X).fit(cov_type="cluster", cov_kwds={"groups": np.asarray(groups)})
    t = fit.params / fit.bse
    pv = pd.Series(2 * st.t.sf(np.abs(t), fit.df_resid), index=fit.params.index)
    return SimpleNamespace(params=fit.params, bse=fit.bse, tvalues=t, pvalues=pv, df_resid=fit.df_resid, fit=fit)

"""Alignment resistance (SEAL § 2.2; Table 1, Table 2 / App. D.4, Eq. 3 / Table 7, App. D.2, Fig. 4).

- δ_i = 1{r(t_i^c) > r(t_i^r)}: the RM is aligned with the human label on pair i (ties are misaligned).
- alignment score a₊ = Σ δ_i / N; alignment resistance a₋ = 1 − a₊.
- regimes (Table 1), from the pre-D δ̲_i and post-D δ_i: became aligned (1 − δ̲_i)δ_i, stayed aligned
  δ̲_iδ_i, stayed misaligned (1 − δ̲_i)(1 − δ_i), reversed alignment δ̲_i(1 − δ_i).
- LM-labeller preference profile γ_i ∈ {c, r, i} from the target features helpfulness and harmlessness, by
  one of the two rules of :data:`LABELLER_RULES` (App. D.4: SEAL's text and Table 2 decide helpfulness first, its
  code harmlessness first), and its agreement with the human label per regime (Table 1).
- misalignment logistic regression on chosen and rejected features (Eq. 3, Table 7, Fig. 3 right).
- reward quadrant shares (App. D.2, Fig. 9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.seal.imprint import VIF_THRESHOLD, vif_filter
from pluralign.seal.shifts import REWARD_COLUMNS, _as_rewards, _pair_design, _pre_post, _table

__all__ = [
    "MisalignmentFit",
    "REGIMES",
    "LABELLER_RULES",
    "RULE_NAMES",
    "aligned",
    "alignment_score",
    "alignment_resistance",
    "alignment_regimes",
    "regime_prevalence",
    "alignment_summary",
    "reward_quadrants",
    "labeller_preference",
    "labeller_agreement",
    "misalignment_regression",
]

REGIMES = ("became-aligned", "stayed-aligned", "stayed-misaligned", "reversed")
"""Table 1's four alignment regimes, in the paper's column order."""

LABELLER_RULES = {"harmless_first": "harmless", "helpful_first": "helpful"}
"""The LM-labeller's preference rule γ (App. D.4) by name: which target feature decides first
(:func:`labeller_preference`'s ``priority``). SEAL's code decides harmlessness first (its label vector is
[harmless, helpful]); its text and Table 2 decide helpfulness first."""

RULE_NAMES = {"harmless_first": "harmless first (SEAL's code)", "helpful_first": "helpful first (SEAL's text, Table 2)"}
"""How the pages name the two rules of :data:`LABELLER_RULES` (the settings' keys are code, not prose)."""


@dataclass(frozen=True)
class MisalignmentFit:
    """Which chosen / rejected features predict (mis)alignment of a reward model (SEAL Eq. 3; Table 7,
    Fig. 3 right), from :func:`misalignment_regression`.

    ``table``: one row per (``entry`` c/r, ``feature``) with ``estimate`` (ρ^c(τ) / ρ^r(τ)), ``std_error``,
    ``z``, ``p_value``, ``p_bonferroni``, ``ci_low``, ``ci_high``, ``vif``, ``dropped_vif``; ``n_obs`` pairs in
    the regression, ``n_dropped_missing`` pairs left out (a missing feature); ``outcome`` ("misaligned":
    1 − δ_i, as Table 7; "aligned": δ_i, Eq. 3 literally); ``model`` ("logit" or "linear"); ``intercept`` α₀;
    ``base_rate`` the outcome's share; ``dropped_vif`` the regressors removed by the VIF filter (VIF above
    ``vif_threshold``); ``converged`` False when the logit's maximum likelihood did not converge (estimates of separated
    features are then unbounded and should not be read)."""

    table: pd.DataFrame
    n_obs: int
    n_dropped_missing: int
    outcome: str
    model: str
    intercept: float
    base_rate: float
    dropped_vif: list[str]
    converged: bool


def aligned(chosen, rejected) -> np.ndarray:
    """δ_i = 1{r(t_i^c) > r(t_i^r)} (§ 2.2) as a boolean array; a tie counts as misaligned."""
    c, r = _as_rewards(chosen=chosen, rejected=rejected)
    return c > r


def alignment_score(chosen, rejected) -> float:
    """a₊ = Σ_i δ_i / N: share of pairs where the RM rewards the human-chosen entry strictly more (§ 2.2)."""
    d = aligned(chosen, rejected)
    if len(d) == 0:
        raise ValueError("alignment_score: no pairs")
    return float(d.mean())


def alignment_resistance(chosen, rejected) -> float:
    """a₋ = 1 − a₊ (§ 2.2)."""
    return 1.0 - alignment_score(chosen, rejected)


def alignment_regimes(*rewards) -> np.ndarray:
    """Alignment regime per pair (Table 1): "became-aligned" ((1 − δ̲)δ = 1), "stayed-aligned" (δ̲δ = 1),
    "stayed-misaligned" ((1 − δ̲)(1 − δ) = 1) or "reversed" (δ̲(1 − δ) = 1), where δ̲ / δ are the pre-D /
    post-D alignment indicators and a tie (chosen reward = rejected reward) is misaligned. ``rewards``: the
    rewards table of :func:`~pluralign.seal.design.alignment_rewards`, or its four columns as arrays."""
    pc, pr, qc, qr = _as_rewards(**dict(zip(REWARD_COLUMNS, _pre_post(rewards, "alignment_regimes"))))
    pre = pc > pr
    post = qc > qr
    out = np.empty(len(pre), dtype=object)
    out[~pre & post] = "became-aligned"
    out[pre & post] = "stayed-aligned"
    out[~pre & ~post] = "stayed-misaligned"
    out[pre & ~post] = "reversed"
    return out


def regime_prevalence(regimes) -> pd.Series:
    """Share of pairs in each regime (Table 1, 'Prevalence' row), in Table 1's order; sums to 1."""
    reg = pd.Series(np.asarray(regimes, dtype=object))
    unknown = set(reg.unique()) - set(REGIMES)
    if unknown:
        raise ValueError(f"regime_prevalence: unknown regime(s) {sorted(map(str, unknown))}; expected {REGIMES}")
    if len(reg) == 0:
        raise ValueError("regime_prevalence: no pairs")
    return reg.value_counts(normalize=True).reindex(list(REGIMES), fill_value=0.0).rename("prevalence")


def alignment_summary(*rewards) -> dict:
    """a₊ and a₋ of both RMs and the regime prevalences (§ 2.2, Table 1) as one dict. ``rewards``: the rewards
    table of :func:`~pluralign.seal.design.alignment_rewards`, or its four columns as arrays."""
    pre_chosen, pre_rejected, post_chosen, post_rejected = _pre_post(rewards, "alignment_summary")
    reg = alignment_regimes(pre_chosen, pre_rejected, post_chosen, post_rejected)
    prev = regime_prevalence(reg)
    a_pre = alignment_score(pre_chosen, pre_rejected)
    a_post = alignment_score(post_chosen, post_rejected)
    return {
        "n_pairs": int(len(reg)),
        "a_plus_pre": a_pre,
        "a_minus_pre": 1 - a_pre,
        "a_plus_post": a_post,
        "a_minus_post": 1 - a_post,
        **{k: float(v) for k, v in prev.items()},
    }


def reward_quadrants(chosen, rejected) -> pd.Series:
    """Shares of pairs by the signs of their rewards (App. D.2, Fig. 9): "both positive", "both
    negative", "chosen negative only", "rejected negative only". A reward is negative when < 0 (a
    reward of exactly 0 counts as positive). The paper reports 0.28 / 0.53 / 0.03 / 0.17 post-D."""
    c, r = _as_rewards(chosen=chosen, rejected=rejected)
    if len(c) == 0:
        raise ValueError("reward_quadrants: no pairs")
    cn, rn = c < 0, r < 0
    return pd.Series(
        {
            "both positive": float(np.mean(~cn & ~rn)),
            "both negative": float(np.mean(cn & rn)),
            "chosen negative only": float(np.mean(cn & ~rn)),
            "rejected negative only": float(np.mean(~cn & rn)),
        },
        name="share",
    )


def _as_bool(name: str, x) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.dtype == bool:
        return a
    s = pd.Series(a)
    if s.isna().any():
        raise ValueError(
            f"{name}: {int(s.isna().sum())} missing label(s) (first at position "
            f"{int(np.flatnonzero(s.isna().to_numpy())[0])}); γ needs all four labels"
        )
    vals = set(pd.unique(s))
    if not vals <= {0, 1}:
        raise ValueError(f"{name}: labels must be booleans or 0/1, got values {sorted(map(str, vals))}")
    return s.astype(bool).to_numpy()


def labeller_preference(
    chosen_helpful, chosen_harmless, rejected_helpful, rejected_harmless, *, priority: str = "helpful"
) -> np.ndarray:
    """LM-labeller preference profile γ_i (SEAL § 2.2, App. D.4, Table 2): "c" when the LM-labeller's
    features favour the human-chosen entry, "r" when they favour the rejected one, "i" when indifferent.

    ``priority="helpful"`` (default; the paper's rule and Table 2, after Bai et al. 2022): if exactly one
    entry is helpful, that entry is preferred whatever the harmlessness labels; if both or neither are
    helpful, the harmless entry is preferred if exactly one is harmless; otherwise γ_i = "i". This
    reproduces all 16 rows of Table 2.

    ``priority="harmless"`` swaps the two features. SEAL's public ``analysis/main_results.ipynb`` in
    effect does this (its label vector is ordered [harmless, helpful]): it differs from Table 2 on the two
    conflicting cases (helpful-but-harmful vs harmless-but-unhelpful), 296 of 160,800 pairs, and is what
    gives its reported 28,443 "c" / 10,840 "r" / 121,517 "i" (agreement 0.7241); Table 2's rule gives
    28,213 / 11,070 / 121,517 (0.7182) on the same labels.
    """
    if priority not in ("helpful", "harmless"):
        raise ValueError(f"labeller_preference: priority must be 'helpful' or 'harmless', got {priority!r}")
    ch = _as_bool("chosen_helpful", chosen_helpful)
    cs = _as_bool("chosen_harmless", chosen_harmless)
    rh = _as_bool("rejected_helpful", rejected_helpful)
    rs = _as_bool("rejected_harmless", rejected_harmless)
    if not (len(ch) == len(cs) == len(rh) == len(rs)):
        raise ValueError(
            f"labeller_preference: label arrays differ in length ({len(ch)}, {len(cs)}, {len(rh)}, {len(rs)})"
        )
    first_c, first_r, second_c, second_r = (ch, rh, cs, rs) if priority == "helpful" else (cs, rs, ch, rh)
    out = np.full(len(ch), "i", dtype=object)
    tie_first = first_c == first_r
    out[first_c & ~first_r] = "c"
    out[~first_c & first_r] = "r"
    out[tie_first & second_c & ~second_r] = "c"
    out[tie_first & ~second_c & second_r] = "r"
    return out


def labeller_agreement(regimes, gamma, *, exclude_indifferent: bool = True) -> pd.DataFrame:
    """Agreement of the LM-labeller with the human label per alignment regime (Table 1, last row; Fig. 4).

    The LM-labeller agrees on pair i when γ_i = "c". With ``exclude_indifferent`` (default, as Fig. 4
    which shows γ = c and γ = r only) the rate is n_c / (n_c + n_r); otherwise n_c / n (indifference
    counts as disagreement). Returns one row per regime (Table 1 order) plus "all", with the counts
    ``n``, ``n_c``, ``n_r``, ``n_i`` and ``agreement``.
    """
    reg = np.asarray(regimes, dtype=object)
    g = np.asarray(gamma, dtype=object)
    if len(reg) != len(g):
        raise ValueError(f"labeller_agreement: {len(reg)} regimes but {len(g)} γ labels")
    bad = set(pd.unique(g)) - {"c", "r", "i"}
    if bad:
        raise ValueError(f"labeller_agreement: γ must be 'c', 'r' or 'i', got {sorted(map(str, bad))}")
    rows = {}
    for name in (*REGIMES, "all"):
        m = np.ones(len(reg), bool) if name == "all" else reg == name
        n_c, n_r, n_i = int(np.sum(g[m] == "c")), int(np.sum(g[m] == "r")), int(np.sum(g[m] == "i"))
        den = n_c + n_r if exclude_indifferent else n_c + n_r + n_i
        rows[name] = {"n": int(m.sum()), "n_c": n_c, "n_r": n_r, "n_i": n_i, "agreement": n_c / den if den else np.nan}
    out = pd.DataFrame(rows).T
    out.index.name = "regime"
    for c in ("n", "n_c", "n_r", "n_i"):
        out[c] = out[c].astype(int)
    out["agreement"] = out["agreement"].astype(float)
    return out


#: the Newton–Raphson steps a logit fit of Eq. 3 / Eq. 4 may take (statsmodels' ``maxiter``)
LOGIT_MAXITER = 200


def _fit_logit(model, maxiter: int = LOGIT_MAXITER):
    """Fit a statsmodels ``Logit`` by maximum likelihood; returns ``(fit, converged)``. statsmodels'
    ConvergenceWarning (e.g. quasi-separation: a feature that is never or always misaligned) is not
    printed but returned as ``converged=False``, which the caller records in its result."""
    import warnings

    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = model.fit(disp=0, maxiter=maxiter)
    return fit, bool(fit.mle_retvals.get("converged", True))


def misalignment_regression(
    chosen_rewards,
    rejected_rewards,
    chosen: pd.DataFrame,
    rejected: pd.DataFrame,
    features: Sequence[str] | None = None,
    *,
    outcome: str = "misaligned",
    model: str = "logit",
    vif_threshold: float | None = VIF_THRESHOLD,
    level: float = 0.95,
) -> MisalignmentFit:
    """Which chosen / rejected features predict (mis)alignment (SEAL Eq. 3; Table 7; Fig. 3 right)::

        log(p / (1 − p)) = α₀ + Σ_τ ρ^c(τ) t_i^c(τ) + ρ^r(τ) t_i^r(τ)

    Eq. 3 defines p = Pr[δ_i = 1] (alignment), but Table 7 and Fig. 3 (right) are titled and read as
    the features responsible for *misalignment* (a helpful chosen entry has a negative coefficient). The
    default ``outcome="misaligned"`` models 1 − δ_i, as Table 7; ``outcome="aligned"`` gives Eq. 3
    literally (all coefficients change sign). ``model="logit"`` is Eq. 3 (statsmodels Logit);
    ``model="linear"`` fits a linear probability model (statsmodels OLS) — Table 7's magnitudes
    (e.g. a standard error of 0.0037 on 160,800 pairs) are of that order, so both are offered.

    ``chosen_rewards``/``rejected_rewards`` are the RM's rewards (δ_i computed from them, ties
    misaligned); ``chosen``/``rejected`` feature tables have one row per pair in the same order.
    Returns :class:`MisalignmentFit`: its ``table`` indexed by (entry, feature) as
    :func:`reward_shift_regression`'s, with ``n_obs``, ``base_rate``, ``dropped_vif`` and ``converged`` (False
    when the logit's maximum likelihood did not converge — estimates of separated features are then
    unbounded and should not be read).
    """
    import statsmodels.api as sm
    from scipy import stats as st

    if outcome not in ("misaligned", "aligned"):
        raise ValueError(f"misalignment_regression: outcome must be 'misaligned' or 'aligned', got {outcome!r}")
    if model not in ("logit", "linear"):
        raise ValueError(f"misalignment_regression: model must be 'logit' or 'linear', got {model!r}")
    delta = aligned(chosen_rewards, rejected_rewards)
    y = (~delta if outcome == "misaligned" else delta).astype(float)
    X, features = _pair_design(chosen, rejected, features, "misalignment_regression")
    if len(y) != len(X):
        raise ValueError(f"misalignment_regression: {len(y)} reward pairs but {len(X)} pairs of features")
    ok = X.notna().all(axis=1).to_numpy()
    kept, dropped, vif = vif_filter(X[ok], vif_threshold)
    design = sm.add_constant(X.loc[ok, kept], has_constant="add")
    if model == "logit":
        fit, converged = _fit_logit(sm.Logit(y[ok], design))
        q = st.norm.ppf(0.5 + level / 2)
    else:
        fit, converged = sm.OLS(y[ok], design).fit(), True
        q = st.t.ppf(0.5 + level / 2, fit.df_resid)
    out = _table(fit.params, fit.bse, fit.tvalues, fit.pvalues, kept, features, dropped, vif, q)
    return MisalignmentFit(
        table=out,
        n_obs=int(ok.sum()),
        n_dropped_missing=int((~ok).sum()),
        outcome=outcome,
        model=model,
        intercept=float(fit.params.get("const", np.nan)),
        base_rate=float(y[ok].mean()),
        dropped_vif=list(dropped),
        converged=converged,
    )

"""Part II (SEAL) against the planted truth: the shared pieces of the Eq. 1 checks (the regression on planted
features, the noisy oracle's utilities, the trained RM's residual noise), the demo's trained RMs through Eq. 1 and
Eq. 4 (stand-in rows) and the paper's reward-shift claim (§3). The method rows are in
:mod:`~pluralign.recovery.imprint_checks` (Eq. 1), :mod:`~pluralign.recovery.robustness_checks` (Eq. 4) and
:mod:`~pluralign.recovery.resistance_checks` (Eq. 3, Table 1)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pluralign.data.difficulty import PROMPT_EFFECT
from pluralign.recovery.rows import exact_share_ci, fisher_ci, row

__all__ = [
    "labelling_weights",
    "residual_sd",
    "oracle_utilities",
    "imprint_rm",
    "robustness_sign",
    "claim_seal_alignment_shift",
]


def labelling_weights(data) -> pd.Series:
    """The planted feature weights of the annotators who labelled ``data``: the simulator's pool weights
    (``meta["annotators"]``) averaged over the judgments each annotator gave — what a reward model trained on
    these judgments can learn. The simulator's pool is moment-matched to its population (``match_pool``), so these
    differ from the population's means (``meta["weights"]``) only by how unevenly the annotators' judgments are
    spread over the pool (a few hundredths); with ``match_pool=False`` by the pool's sampling error (up to ±0.6 on
    a style weight for 40 annotators)."""
    from pluralign.data.simulate import FEATURES

    pool = data.meta.get("annotators")
    if pool is None:
        return data.meta["weights"]["mean"]
    counts = data.annotations["annotator_id"].value_counts().reindex(pool.index).fillna(0)
    return pool[list(FEATURES)].mul(counts, axis=0).sum() / counts.sum()


def _imprint_fit(reward_a, reward_b, data, ids: pd.Index, *, seal_code: bool = False, fit=None, X=None):
    """SEAL Eq. 1 (pair fixed effects, pair-clustered SEs, VIF filter) of a reward on ``data``'s planted
    features over the pairs ``ids`` (:func:`pluralign.seal.imprint.feature_imprint`, or ``fit`` in its place);
    with ``seal_code`` the fit of SEAL's own code (:func:`~pluralign.seal.imprint.feature_imprint_seal_code`:
    pooled OLS, no pair effects). ``X``: the two entries' feature frames (default: the planted features of A, B)."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal import imprint as imp
    from pluralign.seal.imprint import imprint_table

    if X is None:
        t = data.truth.reindex(ids)
        X = tuple(pd.DataFrame({f: t[f"{s}_{f}"].to_numpy() for f in FEATURES}) for s in ("a", "b"))
    tab = imprint_table(ids.to_numpy(), *X, reward=(np.asarray(reward_a, float), np.asarray(reward_b, float)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit or (imp.feature_imprint_seal_code if seal_code else imp.feature_imprint)
        return fit(tab, "reward", list(X[0].columns))


def residual_sd(rewards_a, rewards_b, data, pair_ids, weights: pd.Series | None = None) -> float:
    """Per-entry residual sd of a reward model's rewards around its feature imprint (Eq. 1), on the planted
    utility's scale (divided by the least-squares scale from ``weights``, default the population means, to the
    imprints): ``sd(Δr − Δx·β) / (√2 · scale)`` — the noise a trained RM adds to the planted utility."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal.planted import imprint_recovery

    ids = pd.Index(list(pair_ids))
    fit = _imprint_fit(rewards_a, rewards_b, data, ids)
    w = data.meta["weights"]["mean"] if weights is None else weights
    rec = imprint_recovery(fit, w)
    beta = fit.table["estimate"].reindex(list(FEATURES)).fillna(0.0).to_numpy()
    t = data.truth.reindex(ids)
    dx = np.column_stack([t[f"a_{f}"].to_numpy(float) - t[f"b_{f}"].to_numpy(float) for f in FEATURES])
    res = np.asarray(rewards_a, float) - np.asarray(rewards_b, float) - dx @ beta
    return float(np.std(res) / np.sqrt(2) / abs(rec.scale))


def oracle_utilities(data, ids: pd.Index, *, prompt_effect: float = PROMPT_EFFECT) -> dict:
    """The oracle reward's noiseless part on ``data``'s pairs ``ids``: per side, the planted utility ``x · w``
    (``w`` the population's mean weights) plus a prompt effect shared by both entries of a pair,
    ``prompt_effect`` times the planted features its two entries carry on average — the offset a real reward
    model gives some prompts' answers, correlated with their features, that SEAL Eq. 1's pair fixed effects α_i
    absorb."""
    w = data.meta["weights"]["mean"]
    t = data.truth.reindex(ids)
    x = {side: np.column_stack([t[f"{side}_{f}"].to_numpy(float) for f in w.index]) for side in ("a", "b")}
    offset = prompt_effect * (x["a"] + x["b"]).sum(1) / 2
    return {side: x[side] @ w.to_numpy(float) + offset for side in ("a", "b")}


def imprint_rm(
    rewards_a, rewards_b, data, pair_ids, *, weights: pd.Series | None = None, correlation: float = 0.9
) -> dict:
    """The demo's *trained* RM (a stand-in, not a method) through SEAL Eq. 1: Pearson r of its feature imprints
    with the planted population weights (default ``meta["weights"]["mean"]``; the simulator's pool represents
    them), row ``imprint_rm_weight_correlation`` with a Fisher CI over features; signs and the share of rescaled
    weights inside the imprint's CI are reported in the description. A Bradley-Terry reward is the logit of
    P(A ≻ B), not a rescaled utility, so that share is not a test of the method (:func:`oracle_imprint` is)."""
    from pluralign.seal.planted import imprint_recovery

    ids = pd.Index(list(pair_ids))
    w = data.meta["weights"]["mean"] if weights is None else weights
    rec = imprint_recovery(_imprint_fit(rewards_a, rewards_b, data, ids), w)
    v = rec.table
    signed = v[v["weight"] != 0]
    wrong = list(signed.index[signed["same_sign"] != 1])
    return row(
        "seal",
        "imprint_rm_weight_correlation",
        f"Pearson r, feature imprints (Eq. 1) of the demo's trained RM (BT (All)) vs the {len(v)} planted "
        f"population weights on {len(ids)} pairs; {len(signed) - len(wrong)} of {len(signed)} signs right"
        + (f" (wrong: {', '.join(wrong)})" if wrong else "")
        + f"; {int(v['covered'].sum())} of {len(v)} "
        f"rescaled weights (×{rec.scale:.3g}) inside their CI",
        None,
        rec.pearson_r,
        fisher_ci(rec.pearson_r, len(v)),
        f"r ≥ {correlation:g}",
        rec.pearson_r >= correlation,
        kind="stand-in",
        interval="Fisher z over features",
    )


def robustness_sign(scores: pd.DataFrame, weights: pd.Series, *, what: str = "", kind: str = "method") -> dict:
    """SEAL Eq. 4: a robustness score π (the effect of a label flip of feature f on the probability that an
    aligned pair becomes misaligned) should have the sign the planted weight implies. A flip is original −
    rewritten (App. D.6: +1 the rewrite lost f, −1 it gained it), so the chosen entry losing f (π^c_+) or the
    rejected one gaining it (π^r_−) hurts the chosen side when w_f > 0: π has the sign of +w_f; the other two
    the sign of −w_f. ``weights`` indexed by the scores' feature names (SEAL's: rename the simulator's with
    :data:`~pluralign.seal.simulated_rewrites.PLANTED_FLIP_NAMES`). Share of estimable scores (not separated,
    weight ≠ 0) with that sign, with its exact binomial interval over the scores; passes when no score's 95 %
    interval (``ci_low`` / ``ci_high``) excludes 0 on the side opposite the expected sign (a score of a small
    weight whose interval straddles 0 may take either sign by chance)."""
    s = scores.reset_index() if "feature" not in scores.columns else scores.copy()
    s = s[~s["separated"].astype(bool)].copy()
    s["entry"] = s["entry"].astype(str).str[0]
    s["w"] = s["feature"].map(weights).astype(float)
    s = s[(s["w"].abs() > 0) & s["estimate"].notna()]
    hurts_chosen = ((s["entry"] == "c") & (s["flip"] > 0)) | ((s["entry"] == "r") & (s["flip"] < 0))
    expected = np.where(hurts_chosen, np.sign(s["w"]), -np.sign(s["w"]))
    ok = (np.sign(s["estimate"].to_numpy(float)) == expected).astype(float)
    est = float(ok.mean()) if len(ok) else np.nan
    # a sign the noise may flip is no miss; an interval that excludes 0 on the wrong side is
    lo, hi = (s[c].to_numpy(float) if c in s else np.full(len(s), np.nan) for c in ("ci_low", "ci_high"))
    wrong = int(((expected > 0) & (hi < 0)).sum() + ((expected < 0) & (lo > 0)).sum())
    return row(
        "seal",
        "robustness_sign",
        f"share of the {len(ok)} estimable robustness scores π (Eq. 4){what} with the sign of the flipped "
        f"feature's planted weight; {wrong} significantly of the wrong sign",
        None,
        est,
        exact_share_ci(int(ok.sum()), len(ok)),
        "no score significantly of the wrong sign (95% CI excluding 0)",
        len(ok) > 0 and wrong == 0,
        kind=kind,
        interval="exact binomial over the scores",
    )


def claim_seal_alignment_shift(pre: np.ndarray, post: np.ndarray, seed: int = 0) -> dict:
    """SEAL §3 (reward shift): training on the alignment data D raises the reward model's alignment with D's
    preferences — the share of D's pairs whose chosen entry the post-D RM rewards higher, minus the pre-D RM's
    (``pre`` / ``post``: per-pair 1 if aligned, else 0); verdict from the paired bootstrap CI (> 0)."""
    from pluralign.stats import paired_bootstrap_ci

    est, lo, hi = paired_bootstrap_ci(np.asarray(pre, float), np.asarray(post, float), seed=seed, n_boot=1000)
    return row(
        "seal",
        "claim_seal_alignment_shift",
        f"share of D's {len(pre)} pairs aligned with the post-D RM minus with the pre-D RM (Eq. 3's alignment)",
        None,
        est,
        (lo, hi),
        "paper: training on D aligns the RM with D (Δ > 0: CI above 0)",
        lo > 0,
        kind="claim",
        interval="paired bootstrap over D's pairs",
    )

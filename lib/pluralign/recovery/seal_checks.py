"""Part II (SEAL) against the planted truth: the feature-imprint method (Eq. 1) and the robustness scores (Eq. 4),
each on a noisy oracle reward whose truth is known, the demo's trained RM through the same regression (a stand-in
row), and the paper's reward-shift claim (§3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pluralign.data.difficulty import PROMPT_EFFECT, REWRITE_FLIP
from pluralign.recovery.rows import coverage_floor, exact_share_ci, fisher_ci, row
from pluralign.stats import bootstrap_ci

__all__ = [
    "labelling_weights",
    "residual_sd",
    "oracle_utilities",
    "oracle_imprint",
    "imprint_rm",
    "robustness_sign",
    "oracle_robustness",
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


def _imprint_fit(reward_a, reward_b, data, ids: pd.Index, *, seal_code: bool = False):
    """SEAL Eq. 1 (pair fixed effects, pair-clustered SEs, VIF filter) of a reward on ``data``'s planted
    features over the pairs ``ids`` (:func:`pluralign.seal.imprint.feature_imprint`); with ``seal_code`` the fit
    of SEAL's own code (:func:`~pluralign.seal.imprint.feature_imprint_seal_code`: pooled OLS, no pair effects)."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal import imprint as imp
    from pluralign.seal.imprint import imprint_table

    t = data.truth.reindex(ids)
    fa = pd.DataFrame({f: t[f"a_{f}"].to_numpy() for f in FEATURES})
    fb = pd.DataFrame({f: t[f"b_{f}"].to_numpy() for f in FEATURES})
    tab = imprint_table(ids.to_numpy(), fa, fb, reward=(np.asarray(reward_a, float), np.asarray(reward_b, float)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = imp.feature_imprint_seal_code if seal_code else imp.feature_imprint
        return fit(tab, "reward", list(FEATURES))


def residual_sd(rewards_a, rewards_b, data, pair_ids, weights: pd.Series | None = None) -> float:
    """Per-entry residual sd of a reward model's rewards around its feature imprint (Eq. 1), on the planted
    utility's scale (divided by the least-squares scale from ``weights``, default the population means, to the
    imprints): ``sd(Δr − Δx·β) / (√2 · scale)`` — the noise a trained RM adds to the planted utility."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal.design import imprint_recovery

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


def _seal_code_signs(seal: pd.DataFrame | None) -> str:
    if seal is None:
        return ""
    signed = seal[seal["weight"] != 0]
    return (
        f" (SEAL's code, no pair effects, on the same reward: {int((signed['same_sign'] == 1).sum())} of {len(signed)})"
    )


def _seal_code_coverage(seal: pd.DataFrame | None) -> str:
    if seal is None:
        return ""
    inside = int(((seal["ci_low"] <= seal["weight"]) & (seal["weight"] <= seal["ci_high"])).sum())
    return f"; SEAL's code on the first draw: {inside} of {len(seal)}"


def oracle_imprint(
    data,
    pair_ids,
    *,
    noise_sd: float,
    n_draws: int = 25,
    seed: int = 0,
    correlation: float = 0.9,
    prompt_effect: float = PROMPT_EFFECT,
    seal_code: bool = True,
) -> list[dict]:
    """The feature-imprint *method* (SEAL Eq. 1 with pair fixed effects, pair-clustered SEs and the VIF filter,
    :func:`pluralign.seal.imprint.feature_imprint`) checked on a reward whose truth is known and that has noise: a
    noisy oracle ``r(t) = x(t) · w + c_pair + ε`` (:func:`oracle_utilities`: ``w`` the population's mean weights,
    ``c_pair`` a prompt effect correlated with the pair's features; ``ε ~ N(0, noise_sd²)`` per entry). Its imprint
    must give back ``w`` itself (scale 1, nothing rescaled): two rows, ``imprint_weight_correlation`` (Pearson r of
    imprints and weights ≥ ``correlation`` and no imprint whose 95 % interval excludes 0 on the side opposite its
    weight's, on the first draw; Fisher CI over features; SEAL's own code, without pair effects, on the same reward
    in the description) and ``imprint_weight_coverage`` (share of the 95 % intervals that contain their planted
    weight over ``n_draws`` draws of ε, against the nominal 0.95 with a binomial tolerance,
    :func:`~pluralign.recovery.rows.coverage_floor`; CI by bootstrap over draws). ``seal_code`` False leaves out the
    comparison fit."""
    from pluralign.seal.planted import imprint_recovery

    ids = pd.Index(list(pair_ids))
    w = data.meta["weights"]["mean"]
    util = oracle_utilities(data, ids, prompt_effect=prompt_effect)
    rng = np.random.default_rng([seed, 14])
    recs, draws = [], []
    for _ in range(max(1, int(n_draws))):
        ea, eb = noise_sd * rng.standard_normal(len(ids)), noise_sd * rng.standard_normal(len(ids))
        draws.append((util["a"] + ea, util["b"] + eb))
        recs.append(imprint_recovery(_imprint_fit(*draws[-1], data, ids), w))
    v = recs[0].table
    signed = v[v["weight"] != 0]
    # a sign the noise may flip is no miss; an interval that excludes 0 on the wrong side is
    wrong = int(
        (((signed["ci_high"] < 0) & (signed["weight"] > 0)) | ((signed["ci_low"] > 0) & (signed["weight"] < 0))).sum()
    )
    seal = imprint_recovery(_imprint_fit(*draws[0], data, ids, seal_code=True), w).table if seal_code else None
    cov = np.array(
        [
            ((r.table["ci_low"] <= r.table["weight"]) & (r.table["weight"] <= r.table["ci_high"])).to_numpy(float)
            for r in recs
        ]
    )  # draws × features: the planted weight itself inside
    share, floor = float(cov.mean()), coverage_floor(cov.size)
    _, clo, chi = bootstrap_ci(cov, lambda m: m.mean(), seed=seed, n_boot=1000)
    reward = (
        f"a noisy oracle reward (planted utility + a prompt effect of {prompt_effect:g} per planted feature of the "
        f"pair + N(0, {noise_sd:.2g}²) per entry)"
    )
    return [
        row(
            "seal",
            "imprint_weight_correlation",
            f"Pearson r, feature imprints (Eq. 1, pair FE) of {reward} vs the {len(v)} planted population weights "
            f"on {len(ids)} pairs; {int((signed['same_sign'] == 1).sum())} of {len(signed)} signs right, {wrong} "
            f"significantly wrong{_seal_code_signs(seal)}",
            None,
            recs[0].pearson_r,
            fisher_ci(recs[0].pearson_r, len(v)),
            f"r ≥ {correlation:g} and no imprint significantly of the wrong sign (95% CI excluding 0)",
            recs[0].pearson_r >= correlation and wrong == 0,
            interval="Fisher z over features",
        ),
        row(
            "seal",
            "imprint_weight_coverage",
            f"share of the 95% imprint intervals of {reward} containing their planted weight ({int(cov.sum())} of "
            f"{cov.size}: {len(v)} features × {len(recs)} noise draws{_seal_code_coverage(seal)})",
            0.95,
            share,
            (clo, chi),
            f"share ≥ {floor:.3f} (nominal 0.95; binomial 1% floor over {cov.size} intervals)",
            share >= floor,
            interval="bootstrap over noise draws",
        ),
    ]


def imprint_rm(
    rewards_a, rewards_b, data, pair_ids, *, weights: pd.Series | None = None, correlation: float = 0.9
) -> dict:
    """The demo's *trained* RM (a stand-in, not a method) through SEAL Eq. 1: Pearson r of its feature imprints
    with the planted population weights (default ``meta["weights"]["mean"]``; the simulator's pool represents
    them), row ``imprint_rm_weight_correlation`` with a Fisher CI over features; signs and the share of rescaled
    weights inside the imprint's CI are reported in the description. A Bradley-Terry reward is the logit of
    P(A ≻ B), not a rescaled utility, so that share is not a test of the method (:func:`oracle_imprint` is)."""
    from pluralign.seal.design import imprint_recovery

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


def oracle_robustness(
    data, view: pd.DataFrame, *, noise_sd: float, seed: int = 0, p_flip: float = REWRITE_FLIP, n_rounds: int = 5
) -> dict:
    """The robustness-score *method* (SEAL Eq. 4, the linear probability model of SEAL's code with pair-clustered
    SEs, :func:`pluralign.seal.robustness.robustness_scores`) checked on a reward whose truth is known: every pair
    of ``view`` (:func:`pluralign.seal.design.chosen_rejected` of simulated data) rewritten ``n_rounds`` times by
    the demo's simulated rewriter (:func:`~pluralign.seal.simulated_rewrites.simulated_rewrite_pairs`, seeds
    ``seed`` …, planted flips of sentiment, format, verbosity), scored by a noisy oracle ``r(t) = x(t) · w + ε``
    (``w`` the population's mean weights; ε ~ N(0, ``noise_sd``²) per entry, drawn afresh for each rewritten
    text). Row ``robustness_sign`` (:func:`robustness_sign`): no estimable π significantly of the sign opposite
    its feature's planted weight's."""
    from pluralign.data.simulate import FEATURES
    from pluralign.seal.robustness import robustness_scores
    from pluralign.seal.simulated_rewrites import PLANTED_FLIP_NAMES, simulated_rewrite_pairs

    w = data.meta["weights"]["mean"]
    t = data.truth.reindex(view["pair_id"])
    ua, ub = (
        np.column_stack([t[f"{s}_{f}"].to_numpy(float) for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
        for s in ("a", "b")
    )
    a_chosen = (view["chosen_side"].astype(str) == "A").to_numpy()
    gap = np.where(a_chosen, ua - ub, ub - ua)  # planted utility, chosen minus rejected
    ws = w.rename(PLANTED_FLIP_NAMES)
    rng = np.random.default_rng([seed, 4])
    before = gap + noise_sd * (rng.standard_normal(len(gap)) - rng.standard_normal(len(gap)))
    parts = []
    for k in range(max(1, int(n_rounds))):
        rp = simulated_rewrite_pairs(view, seed=seed + 2 * k, p_flip=p_flip)  # it uses seed and seed + 1
        fc, fr = rp.flips["chosen"], rp.flips["rejected"]
        # a flip is original − rewritten: the rewritten entry's utility is the original's − Σ_f w_f · flip_f
        after = (
            gap[rp.kept]
            - fc.to_numpy() @ ws[fc.columns].to_numpy()
            + fr.to_numpy() @ ws[fr.columns].to_numpy()
            + noise_sd * (rng.standard_normal(len(rp.kept)) - rng.standard_normal(len(rp.kept)))
        )
        parts.append((before[rp.kept] > 0, after > 0, fc, fr, view["pair_id"].to_numpy()[rp.kept]))
    b, a, fc, fr, g = (
        np.concatenate([q[0] for q in parts]),
        np.concatenate([q[1] for q in parts]),
        pd.concat([q[2] for q in parts], ignore_index=True),
        pd.concat([q[3] for q in parts], ignore_index=True),
        np.concatenate([q[4] for q in parts]),
    )
    fit = robustness_scores(b, a, fc, fr, list(fc.columns), unchanged=(), model="linear", groups=g)
    return robustness_sign(
        fit.table,
        ws,
        what=f" of a noisy oracle reward (planted utility + N(0, {noise_sd:.2g}²) "
        f"per entry) on {len(b)} simulated rewrites ({len(view)} pairs × {len(parts)})",
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

"""Part I (Diverging Preferences) against the planted truth: the agreement classes (§2), the cause labeller
(§2.1), the demo's reward models (Table 2) and the mean-variance RM (§4), and two of the paper's claims."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from pluralign.recovery.rows import (
    ALPHA,
    HIGH_AGREEMENT,
    interval_reads,
    level_text,
    null_pass_rate,
    pearson_ci,
    row,
    two_way_weights,
)
from pluralign.stats import bootstrap_ci

__all__ = [
    "VISIBLE_CAUSES",
    "PAPER_CAUSE_KAPPA",
    "expected_agreement",
    "diverging_judge",
    "diverging_share",
    "diverging_taste_driven",
    "cause_agreement",
    "meanvar_auroc_diverging",
    "rm_accuracy_high_agreement",
    "rm_utility_correlation",
    "claim_mv_identifies_diverging",
    "claim_bt_decisive_on_diverging",
]


def _stand_in_reaches(
    quantity: str, description: str, ci: tuple, what: str, threshold: float, source: str = ""
) -> dict:
    """A Part I stand-in row (``ci``: estimate, low, high) that passes when its estimate reaches ``threshold``,
    the bar named ``what`` ("κ", "accuracy", …) with its ``source`` if any."""
    est, lo, hi = ci
    bar = f"{what} ≥ {threshold:g}" + (f" ({source})" if source else "")
    return row("diverging", quantity, description, None, est, (lo, hi), bar, est >= threshold, kind="stand-in")


def expected_agreement(data) -> pd.DataFrame:
    """Per pair, the probability under the *planted population* that its annotators make it diverging
    (:func:`pluralign.diverging.agreement.planted_divergence`) and whether it was planted taste-driven:
    ``p_diverging`` and ``taste_driven`` indexed by pair_id."""
    from pluralign.diverging.agreement import planted_divergence

    p = planted_divergence(data)
    if p is None:
        raise ValueError("expected_agreement needs simulated MultiPref-format data (pluralign.data.simulate)")
    return pd.DataFrame(
        {"p_diverging": p.to_numpy(), "taste_driven": data.truth["taste_driven"].reindex(p.index).to_numpy(bool)},
        index=p.index,
    )


def _moments(W: np.ndarray, p: np.ndarray, x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The weighted sums of 1, p, x, p², p·x, x·t and t over the pairs: row 0 the sample's, then one row per
    replicate of the two-way bootstrap weights ``W`` (one matrix product for every test of
    :func:`diverging_judge`)."""
    vs = np.column_stack([np.ones(len(p)), p, x, p * p, p * x, x * t, t])
    return np.vstack([vs.sum(0), W @ vs])


def _estimate_sd(v: np.ndarray) -> tuple[float, float]:
    """A statistic on the sample (``v[0]``) and the sd of its bootstrap replicates (``v[1:]``)."""
    return float(v[0]), float(np.nanstd(v[1:]))


def diverging_judge(is_div, p, taste, W, alpha: float = ALPHA) -> dict:
    """The criteria of the two agreement-class rows (Diverging Preferences § 2), each two z tests against the
    planted population, sd from the two-way bootstrap replicates ``W``, |z| ≤ the normal quantile of ``alpha``
    split two-sided over the row's two tests. ``share``: the share of pairs classified diverging vs the planted
    mean P(diverging) and ``slope``: the slope of the classification on each pair's planted P(diverging) vs 1 (a
    correct method is calibrated pair by pair: E[diverging | p] = p; a method that marks the right number of
    pairs at random has slope 0). ``taste``: the taste-driven share of the diverging pairs vs Σ p·taste / Σ p and
    ``rate``: the share of taste-driven pairs classified diverging vs their mean p. Returns each test's
    (estimate, planted, z), their bootstrap sds ``sd``, the bound and ``ok_share`` / ``ok_taste``."""
    x, p, t = (np.asarray(v, float) for v in (is_div, p, taste))
    q = float(st.norm.ppf(1 - alpha / 4))
    S0, Sp, Sx, Spp, Spx, Sxt, St = _moments(W, p, x, t).T
    with np.errstate(invalid="ignore", divide="ignore"):
        tests = {
            "share": (*_estimate_sd(Sx / S0), p.mean()),
            "slope": (*_estimate_sd((S0 * Spx - Sp * Sx) / (S0 * Spp - Sp**2)), 1.0),
            "taste": (*_estimate_sd(Sxt / Sx), (p * t).sum() / p.sum()),
            "rate": (*_estimate_sd(Sxt / St), (p * t).sum() / t.sum()),
        }
    out = {k: (e, pl, (e - pl) / sd if sd > 0 else (0.0 if e == pl else np.inf)) for k, (e, sd, pl) in tests.items()}
    ok = {k: bool(np.isfinite(v[2]) and abs(v[2]) <= q) for k, v in out.items()}
    sd = {k: v[1] for k, v in tests.items()}
    return {
        **out,
        "sd": sd,
        "bound": q,
        "ok_share": ok["share"] and ok["slope"],
        "ok_taste": ok["taste"] and ok["rate"],
    }


def _diverging_inputs(classified: pd.DataFrame, data, seed: int):
    exp = expected_agreement(data)
    is_div = (classified["agreement"].reindex(exp.index) == "diverging").to_numpy(float)
    W = two_way_weights(exp.index, data.annotations, seed=seed)
    return exp, is_div, exp["p_diverging"].to_numpy(float), exp["taste_driven"].to_numpy(float), W


def _diverging_row(quantity, description, classified, data, seed, which, first, second) -> dict:
    exp, x, p, t, W = _diverging_inputs(classified, data, seed)
    j = diverging_judge(x, p, t, W)
    (est, planted, _), (e2, p2, _) = j[first], j[second]
    lo, hi = np.nanquantile(_boots(W, x, t, first), [0.025, 0.975])
    null = null_pass_rate(
        lambda v: diverging_judge(v, p, t, W)[which], lambda g: (g.random(len(p)) < p.mean()).astype(float), seed=seed
    )
    q, level = j["bound"], level_text(ALPHA, 2)
    reads = f"{level} intervals: " + ", ".join(
        interval_reads(TESTS[k], j[k][0], j[k][0] - q * j["sd"][k], j[k][0] + q * j["sd"][k], j[k][1])
        for k in (first, second)
    )
    return row(
        "diverging",
        quantity,
        f"{description}; {second}: {e2:.3f} (planted {p2:.3f}); z {j[first][2]:+.2f}, {j[second][2]:+.2f}",
        planted,
        est,
        (lo, hi),
        f"|z| ≤ {j['bound']:.2f} for the {first} and the {second} (z from the bootstrap over pairs and annotators)",
        j[which],
        interval="bootstrap over pairs and annotators",
        null_pass=null,
        reads=reads,
    )


#: the tests of :func:`diverging_judge` as the page names them
TESTS = {"share": "share", "slope": "slope", "taste": "taste-driven share", "rate": "rate among taste-driven pairs"}


def _boots(W, x, t, which: str) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (W @ x) / W.sum(1) if which == "share" else (W @ (x * t)) / (W @ x)


def diverging_share(classified: pd.DataFrame, data, seed: int = 0) -> dict:
    """Row ``diverging_share``: the § 2 agreement classes (``classified``, :func:`pluralign.diverging.agreement.
    agreement_classes` of ``data``) against the planted population (:func:`expected_agreement`): the share of
    pairs classified diverging and the per-pair calibration slope (:func:`diverging_judge`)."""
    return _diverging_row(
        "diverging_share",
        f"share of {data.name}'s pairs classified diverging (§2) vs the share the planted population makes "
        "diverging with their annotators; slope of the class on each pair's planted P(diverging)",
        classified,
        data,
        seed,
        "ok_share",
        "share",
        "slope",
    )


def diverging_taste_driven(classified: pd.DataFrame, data, seed: int = 0) -> dict:
    """Row ``diverging_taste_driven``: the share of diverging pairs that were planted taste-driven vs its planted
    expectation Σ P(diverging)·taste / Σ P(diverging), and the share of taste-driven pairs classified diverging
    vs their mean P(diverging) (:func:`diverging_judge`)."""
    return _diverging_row(
        "diverging_taste_driven",
        "share of the diverging pairs that were planted taste-driven (a cause of Table 1, not an objective pair); "
        "rate: the share of taste-driven pairs classified diverging",
        classified,
        data,
        seed,
        "ok_taste",
        "taste",
        "rate",
    )


#: the causes a reader of surface features can see (:func:`pluralign.diverging.causes.rule_causes`)
VISIBLE_CAUSES = ("verbosity", "format", "comply-vs-refuse", "refuse-vs-refuse")


#: Diverging Preferences § 2.1: Cohen's κ between the paper's three authors labelling causes (MultiPref 0.59,
#: HelpSteer2 0.58) — the bar a cause labeller is held to (as good as the paper's own annotators agree)
PAPER_CAUSE_KAPPA = 0.59


def kappas(stack: np.ndarray) -> np.ndarray:
    """Cohen's κ (unweighted, as :func:`sklearn.metrics.cohen_kappa_score`) of each resample in ``stack``
    (resamples × pairs × 2 integer label codes): (p_o − p_e) / (1 − p_e), p_o the share of pairs labelled alike,
    p_e the agreement expected from the two labellers' label shares (Cohen 1960)."""
    a, b = stack[..., 0], stack[..., 1]
    p_o = (a == b).mean(axis=1)
    p_e = sum((a == c).mean(axis=1) * (b == c).mean(axis=1) for c in np.unique(stack))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (p_o - p_e) / (1 - p_e)


def cause_agreement(data, pair_ids, labeller=None, seed: int = 0, threshold: float = PAPER_CAUSE_KAPPA) -> dict:
    """Cohen's κ between a cause labeller (default the demo's stand-in,
    :func:`~pluralign.diverging.causes.rule_causes`) and the planted causes on ``pair_ids`` (§2.1 measures
    agreement with κ). Each pair gets one label: its cause if it is one of :data:`VISIBLE_CAUSES` (a
    labeller's set of exactly one of them), else "other"; passes when κ ≥ ``threshold`` (the paper's
    inter-annotator κ, :data:`PAPER_CAUSE_KAPPA`). A stand-in row: it checks the labeller, not a method."""
    from sklearn.metrics import cohen_kappa_score

    from pluralign.diverging import causes as cz

    ids = pd.Index(list(pair_ids))
    labels = (labeller or cz.rule_causes)(data, ids)
    got = (
        pd.Series(
            {r.pair_id: next(iter(r.causes)) if len(r.causes) == 1 else "other" for r in labels.itertuples()},
            dtype=object,
        )
        .reindex(ids)
        .fillna("other")
    )
    got = got.where(got.isin(VISIBLE_CAUSES), "other")
    planted = data.truth["cause"].reindex(ids)
    planted = planted.where(planted.isin(VISIBLE_CAUSES), "other")
    codes = pd.factorize(pd.concat([planted, got]))[0]
    x = np.column_stack([codes[: len(ids)], codes[len(ids) :]])
    return _stand_in_reaches(
        "cause_agreement",
        f"Cohen's κ, the demo's cause labeller (surface rules) vs the planted causes on {len(ids)} diverging "
        f"pairs ({', '.join(VISIBLE_CAUSES)} or other)",
        bootstrap_ci(x, lambda v: cohen_kappa_score(v[:, 0], v[:, 1]), seed=seed, n_boot=1000, many=kappas),
        "κ",
        threshold,
        "the paper's κ between its annotators, § 2.1",
    )


def meanvar_auroc_diverging(mv: pd.DataFrame, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.7) -> dict:
    """AUROC of the mean-variance RM's σ (σ_A + σ_B; Diverging Preferences §4) for telling planted taste-driven
    held-out pairs from planted single-answer ones (objective pairs with one correct answer)."""
    t = truth.reindex(mv.index)
    taste, single = t["taste_driven"].astype(bool), (~t["taste_driven"].astype(bool)) & (t["kind"] == "single")
    keep = taste | single
    sigma = (mv["sigma_a"] + mv["sigma_b"])[keep]
    from pluralign.diverging.knowing import disagreement_auroc

    return _stand_in_reaches(
        "meanvar_auroc_diverging",
        f"AUROC of the mean-variance RM's σ_A + σ_B, planted taste-driven ({int(taste.sum())}) vs single-answer "
        f"({int(single.sum())}) held-out pairs",
        disagreement_auroc(sigma.to_numpy(), taste[keep].to_numpy(), n_boot=1000, seed=seed),
        "AUROC",
        threshold,
    )


def _high_agreement(truth: pd.DataFrame, ids) -> pd.Series:
    s = truth["share_a"].reindex(ids)
    return (s >= HIGH_AGREEMENT) | (s <= 1 - HIGH_AGREEMENT)


def rm_accuracy_high_agreement(gap: pd.Series, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.85) -> dict:
    """Accuracy of a reward model's held-out reward gap r_A − r_B against the population majority, on the
    held-out pairs where the simulated population agrees (≥ 80 % on one side)."""
    hi = _high_agreement(truth, gap.index)
    right = ((gap[hi] > 0) == (truth["share_a"].reindex(gap.index)[hi] > 0.5)).to_numpy(float)
    return _stand_in_reaches(
        "rm_accuracy_high_agreement",
        f"accuracy of the demo RM (BT (All)) vs the population majority on {len(right)} held-out pairs where "
        f"≥ {HIGH_AGREEMENT:.0%} of the population agree",
        bootstrap_ci(right, seed=seed),
        "accuracy",
        threshold,
    )


def rm_utility_correlation(gap: pd.Series, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.7) -> dict:
    """Pearson r of a reward model's held-out reward gap with the planted utility difference (the population's
    mean utility gap ``truth.mean_gap``)."""
    return _stand_in_reaches(
        "rm_utility_correlation",
        f"Pearson r, the demo RM's reward gap vs the planted utility difference on {len(gap)} held-out pairs",
        pearson_ci(gap.to_numpy(), truth["mean_gap"].reindex(gap.index).to_numpy(), seed=seed),
        "r",
        threshold,
    )


def claim_mv_identifies_diverging(summary) -> dict:
    """Diverging Preferences §4: the mean-variance RM's predicted disagreement tells diverging from
    high-agreement pairs (AUROC above chance; verdict from the CI)."""
    a = summary.auc
    return row(
        "diverging",
        "claim_mv_identifies_diverging",
        "AUROC of the mean-variance RM's predicted disagreement, diverging vs high-agreement held-out pairs (§4)",
        None,
        a.estimate,
        (a.lo, a.hi),
        "paper: the mean-variance RM identifies diverging pairs (AUROC > 0.5: CI above 0.5)",
        a.lo > 0.5,
        kind="claim",
    )


def claim_bt_decisive_on_diverging(p_a: pd.Series, classified: pd.DataFrame, seed: int = 0) -> dict:
    """Diverging Preferences §3: a Bradley-Terry RM is about as decisive on diverging pairs as on high-agreement
    ones — the difference of mean |P(A) − ½| (high-agreement minus diverging) is small (CI within ±0.05)."""
    from pluralign.cross.training import decisiveness_gaps

    # Table 2's measure max(p, 1 − p) = ½ + |p − ½|: its gap is the gap of |P(A) − ½| (Part IV's bootstrap)
    g = decisiveness_gaps(classified, {"BT (All)": p_a}, {}, n_boot=1000, seed=seed).loc["BT (All)"]
    cls = classified["agreement"].reindex(p_a.index)
    n_a, n_b = int((cls == "high-agreement-pref").sum()), int((cls == "diverging").sum())
    lo, hi = float(g["lo"]), float(g["hi"])
    return row(
        "diverging",
        "claim_bt_decisive_on_diverging",
        f"BT (All): mean |P(A) − ½| on high-agreement ({n_a}) minus diverging ({n_b}) held-out pairs (§3)",
        None,
        float(g["gap"]),
        (lo, hi),
        "paper: BT RMs are as decisive on diverging as on high-agreement pairs (CI inside ±0.05)",
        -0.05 <= lo and hi <= 0.05,
        kind="claim",
    )

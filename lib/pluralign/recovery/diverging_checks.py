"""Part I (Diverging Preferences) against the planted truth: the agreement classes (§2), the cause labeller
(§2.1), the demo's reward models (Table 2) and the mean-variance RM (§4), and two of the paper's claims."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.recovery.rows import HIGH_AGREEMENT, pearson_ci, row, two_way_share_ci
from pluralign.stats import bootstrap_ci

__all__ = [
    "VISIBLE_CAUSES",
    "PAPER_CAUSE_KAPPA",
    "expected_agreement",
    "diverging_share",
    "diverging_taste_driven",
    "cause_agreement",
    "meanvar_auroc_diverging",
    "rm_accuracy_high_agreement",
    "rm_utility_correlation",
    "claim_mv_identifies_diverging",
    "claim_bt_decisive_on_diverging",
]


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


def _pairs_only(x: np.ndarray, seed: int) -> str:
    """The pairs-only bootstrap interval of a share, for the description (beside the two-way one)."""
    _, lo, hi = bootstrap_ci(x, seed=seed, n_boot=1000)
    return f"[{lo:.3f}, {hi:.3f}]"


def diverging_share(classified: pd.DataFrame, data, seed: int = 0) -> dict:
    """Share of pairs classified diverging (§2) vs the share the planted population makes diverging
    (:func:`expected_agreement`); passes when the planted share lies in the 95 % CI, which resamples pairs and
    annotators (:func:`~pluralign.recovery.rows.two_way_share_ci`; the pairs-only interval is in the
    description)."""
    exp = expected_agreement(data)
    is_div = (classified["agreement"].reindex(exp.index) == "diverging").astype(float)
    est, lo, hi = two_way_share_ci(is_div, data.annotations, seed=seed)
    planted = float(exp["p_diverging"].mean())
    return row(
        "diverging",
        "diverging_share",
        f"share of {data.name}'s pairs classified diverging (§2) vs the share the planted population makes "
        f"diverging with their annotators (planted taste-driven share: {exp['taste_driven'].mean():.1%}); "
        f"resampling pairs only: {_pairs_only(is_div.to_numpy(), seed)}",
        planted,
        est,
        (lo, hi),
        "planted share inside the 95% CI",
        lo <= planted <= hi,
        interval="bootstrap over pairs and annotators",
    )


def diverging_taste_driven(classified: pd.DataFrame, data, seed: int = 0) -> dict:
    """Share of diverging pairs that were planted taste-driven vs its planted expectation
    (Σ P(diverging)·taste / Σ P(diverging)); passes when the planted value lies in the 95 % CI."""
    exp = expected_agreement(data)
    div = (classified["agreement"].reindex(exp.index) == "diverging").astype(float)
    taste = exp["taste_driven"].astype(float)
    est, lo, hi = two_way_share_ci(taste, data.annotations, within=div, seed=seed)
    planted = float((exp["p_diverging"] * exp["taste_driven"]).sum() / exp["p_diverging"].sum())
    return row(
        "diverging",
        "diverging_taste_driven",
        "share of the diverging pairs that were planted taste-driven (a cause of Table 1, not an objective pair); "
        f"resampling pairs only: {_pairs_only(taste[div > 0].to_numpy(), seed)}",
        planted,
        est,
        (lo, hi),
        "planted share inside the 95% CI",
        lo <= planted <= hi,
        interval="bootstrap over pairs and annotators",
    )


#: the causes a reader of surface features can see (:func:`pluralign.diverging.causes.rule_causes`)
VISIBLE_CAUSES = ("verbosity", "format", "comply-vs-refuse", "refuse-vs-refuse")


#: Diverging Preferences § 2.1: Cohen's κ between the paper's three authors labelling causes (MultiPref 0.59,
#: HelpSteer2 0.58) — the bar a cause labeller is held to (as good as the paper's own annotators agree)
PAPER_CAUSE_KAPPA = 0.59


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
    est, lo, hi = bootstrap_ci(x, lambda v: cohen_kappa_score(v[:, 0], v[:, 1]), seed=seed, n_boot=1000)
    return row(
        "diverging",
        "cause_agreement",
        f"Cohen's κ, the demo's cause labeller (surface rules) vs the planted causes on {len(ids)} diverging "
        f"pairs ({', '.join(VISIBLE_CAUSES)} or other)",
        None,
        est,
        (lo, hi),
        f"κ ≥ {threshold:g} (the paper's κ between its annotators, § 2.1)",
        est >= threshold,
        kind="stand-in",
    )


def meanvar_auroc_diverging(mv: pd.DataFrame, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.7) -> dict:
    """AUROC of the mean-variance RM's σ (σ_A + σ_B; Diverging Preferences §4) for telling planted taste-driven
    held-out pairs from planted single-answer ones (objective pairs with one correct answer)."""
    t = truth.reindex(mv.index)
    taste, single = t["taste_driven"].astype(bool), (~t["taste_driven"].astype(bool)) & (t["kind"] == "single")
    keep = taste | single
    sigma = (mv["sigma_a"] + mv["sigma_b"])[keep]
    from pluralign.diverging.knowing import disagreement_auroc

    est, lo, hi = disagreement_auroc(sigma.to_numpy(), taste[keep].to_numpy(), n_boot=1000, seed=seed)
    return row(
        "diverging",
        "meanvar_auroc_diverging",
        f"AUROC of the mean-variance RM's σ_A + σ_B, planted taste-driven ({int(taste.sum())}) vs single-answer "
        f"({int(single.sum())}) held-out pairs",
        None,
        est,
        (lo, hi),
        f"AUROC ≥ {threshold:g}",
        est >= threshold,
        kind="stand-in",
    )


def _high_agreement(truth: pd.DataFrame, ids) -> pd.Series:
    s = truth["share_a"].reindex(ids)
    return (s >= HIGH_AGREEMENT) | (s <= 1 - HIGH_AGREEMENT)


def rm_accuracy_high_agreement(gap: pd.Series, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.85) -> dict:
    """Accuracy of a reward model's held-out reward gap r_A − r_B against the population majority, on the
    held-out pairs where the simulated population agrees (≥ 80 % on one side)."""
    hi = _high_agreement(truth, gap.index)
    right = ((gap[hi] > 0) == (truth["share_a"].reindex(gap.index)[hi] > 0.5)).to_numpy(float)
    est, lo, hi_ = bootstrap_ci(right, seed=seed)
    return row(
        "diverging",
        "rm_accuracy_high_agreement",
        f"accuracy of the demo RM (BT (All)) vs the population majority on {len(right)} held-out pairs where "
        f"≥ {HIGH_AGREEMENT:.0%} of the population agree",
        None,
        est,
        (lo, hi_),
        f"accuracy ≥ {threshold:g}",
        est >= threshold,
        kind="stand-in",
    )


def rm_utility_correlation(gap: pd.Series, truth: pd.DataFrame, seed: int = 0, threshold: float = 0.7) -> dict:
    """Pearson r of a reward model's held-out reward gap with the planted utility difference (the population's
    mean utility gap ``truth.mean_gap``)."""
    est, lo, hi = pearson_ci(gap.to_numpy(), truth["mean_gap"].reindex(gap.index).to_numpy(), seed=seed)
    return row(
        "diverging",
        "rm_utility_correlation",
        f"Pearson r, the demo RM's reward gap vs the planted utility difference on {len(gap)} held-out pairs",
        None,
        est,
        (lo, hi),
        f"r ≥ {threshold:g}",
        est >= threshold,
        kind="stand-in",
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

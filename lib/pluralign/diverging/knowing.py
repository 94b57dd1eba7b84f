"""Do models know when annotators disagree? (Diverging Preferences, the title's second question and §4).

:func:`predicted_disagreement` turns a mean-variance reward model's Gaussian rewards into the probability
that annotators split, :func:`observed_disagreement` is its counterpart among a pair's annotators,
:func:`disagreement_auroc` measures how well a score separates diverging from high-agreement pairs (AUROC
with a bootstrap CI) and :func:`disagreement_summary` puts these together for one model; :func:`judge_decisiveness`
compares an LLM judge's confidence on diverging and high-agreement pairs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata, spearmanr

from pluralign.data.core import PreferenceData
from pluralign.diverging.agreement import agreement_classes
from pluralign.diverging.reward_models import SUBSETS, subset_masks
from pluralign.stats import N_BOOT, bootstrap_ci

__all__ = [
    "MEAN_VARIANCE_MODEL",
    "predicted_disagreement",
    "observed_disagreement",
    "split_probability",
    "diverging_labels",
    "disagreement_auroc",
    "Interval",
    "DisagreementSummary",
    "disagreement_correlation",
    "disagreement_summary",
    "mean_variance_disagreement",
    "judge_confidence",
    "judge_decisiveness",
    "JudgeDecisiveness",
    "judge_verdicts",
    "read_verdicts",
    "judge_filters",
]


@dataclass
class JudgeDecisiveness:
    """An LLM judge's confidence per agreement subset (:func:`judge_decisiveness`): ``table`` (rows: the
    Table 2 subsets and "Diverging − High-Agreement Prefs."; columns n, confidence, lo, hi, agrees with
    majority, agrees lo, agrees hi), the pair counts (``n_classified``, ``n_judged``, ``n_without_verdict``,
    ``n_unreadable``), the CI ``level`` and the judgment ``kind`` ("verdict" or "prob")."""

    table: pd.DataFrame
    n_classified: int
    n_judged: int
    n_without_verdict: int
    n_unreadable: int
    level: float
    kind: str


#: The "do models know?" model: a mean-variance (Gaussian) RM fitted on every annotator judgment.
MEAN_VARIANCE_MODEL = {"Mean-Var (All)": ("mean-variance", "all")}


def predicted_disagreement(mu_a, mu_b, sigma_a, sigma_b, n_annotators=2) -> np.ndarray:
    """Probability that annotators split on a pair, from a mean-variance reward model.

    The model gives each response a Gaussian reward over the annotator population, r_A ~ N(μ_A, σ_A²),
    r_B ~ N(μ_B, σ_B²) (independent). A random annotator prefers A with
    ``p = P(r_A > r_B) = Φ((μ_A − μ_B) / sqrt(σ_A² + σ_B²))``, and ``k`` independent annotators do not all
    pick the same response with probability ``1 − p^k − (1 − p)^k`` (``k = 2``: 2p(1 − p); maximal, 1 − 2^{1−k},
    at p = ½). It is a decreasing function of |p − ½|, so its AUROC does not depend on a constant ``k``;
    ``n_annotators`` may be per pair (array)."""
    mu_a, mu_b = np.asarray(mu_a, float), np.asarray(mu_b, float)
    s = np.sqrt(np.asarray(sigma_a, float) ** 2 + np.asarray(sigma_b, float) ** 2)
    if np.any(s <= 0):
        raise ValueError("sigma_a and sigma_b must not both be 0")
    return split_probability(norm.cdf((mu_a - mu_b) / s), n_annotators)


def diverging_labels(classified: pd.DataFrame, against=("high-agreement-pref", "high-agreement-tie")) -> pd.Series:
    """``is_diverging`` (bool, indexed by pair_id) on the diverging pairs and the ``against`` classes only
    (default: both high-agreement classes — "other" pairs are left out of the comparison)."""
    a = classified["agreement"]
    keep = (a == "diverging") | a.isin(list(against))
    return (a[keep] == "diverging").rename("is_diverging")


class Interval(NamedTuple):
    """An estimate with its percentile bootstrap confidence interval."""

    estimate: float
    lo: float
    hi: float


def disagreement_auroc(
    predicted_disagreement, is_diverging, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0
) -> Interval:
    """AUROC of a predicted-disagreement score for separating diverging from high-agreement pairs
    (``sklearn.metrics.roc_auc_score``) with a percentile bootstrap CI: ``(auc, lo, hi)``.

    Two Series are aligned on their index (``is_diverging`` as from :func:`diverging_labels`, whose index
    selects the pairs); arrays must have equal length. The estimate is ``roc_auc_score``; the bootstrap
    replicates use its Mann-Whitney form (identical value, mid-ranks for ties); resamples with a single
    class are skipped."""
    from sklearn.metrics import roc_auc_score

    if isinstance(is_diverging, pd.Series) and isinstance(predicted_disagreement, pd.Series):
        missing = is_diverging.index.difference(predicted_disagreement.index)
        if len(missing):
            raise ValueError(f"{len(missing)} labelled pairs have no prediction, e.g. {missing[0]!r}")
        predicted_disagreement = predicted_disagreement.loc[is_diverging.index]
    x = np.asarray(predicted_disagreement, float)
    y = np.asarray(is_diverging, bool)
    if len(x) != len(y):
        raise ValueError(f"{len(x)} predictions for {len(y)} labels")
    if y.all() or not y.any():
        raise ValueError("AUROC needs both diverging and high-agreement pairs")

    xy = np.column_stack([x, y.astype(float)])
    _, lo, hi = bootstrap_ci(xy, lambda m: _auc_many(m[None])[0], n_boot=n_boot, level=level, seed=seed, many=_auc_many)
    return Interval(float(roc_auc_score(y, x)), lo, hi)


def _auc_many(ms: np.ndarray) -> np.ndarray:
    """The AUROC of each resample of a stack ``ms`` (k × n × 2: score, label) in its Mann-Whitney form (mid-ranks
    for ties; equal to ``roc_auc_score``), NaN for a resample with a single class: one rank computation for the
    whole stack of bootstrap resamples rather than a Python loop over them."""
    y = ms[:, :, 1] > 0.5
    n1 = y.sum(axis=1)
    n0 = ms.shape[1] - n1
    ranks = rankdata(ms[:, :, 0], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = ((ranks * y).sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)
    return np.where((n1 == 0) | (n0 == 0), np.nan, out)


_VERDICTS = {
    "1": "A",
    "a": "A",
    "response1": "A",
    "2": "B",
    "b": "B",
    "response2": "B",
    "0": "tie",
    "tie": "tie",
    "3": "tie",
}


def _verdict(v):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return np.nan
    s = str(v).strip().lower()
    if s.endswith(".0"):
        s = s[:-2]
    return _VERDICTS.get(s, np.nan)


def judge_verdicts(data, annotator_id: str) -> pd.Series:
    """One judge's verdicts from a PreferenceData whose annotators include it (e.g.
    ``pluralign.data.load("pandalm-judges")``, annotators ``gpt-3.5-turbo`` / ``pandalm-7b``): a Series
    indexed by pair_id with "A" (preference < 0), "B" (> 0) or "tie" (0)."""
    ann = data.annotations[data.annotations["annotator_id"] == annotator_id]
    if ann.empty:
        raise KeyError(
            f"no judgments by {annotator_id!r}; annotators: {sorted(data.annotations['annotator_id'].unique())}"
        )
    p = pd.to_numeric(ann["preference"])
    return pd.Series(
        np.where(p < 0, "A", np.where(p > 0, "B", "tie")),
        index=pd.Index(ann["pair_id"], name="pair_id"),
        name=annotator_id,
        dtype=object,
    )


def judge_filters(data, annotator_id: str) -> list[dict]:
    """The loader's records (``data.meta["filters"]``) of verdicts of judge ``annotator_id`` it dropped,
    e.g. the 25 GPT-3.5 verdicts of ``pluralign.data.load("pandalm-judges")`` that are not a label
    ("garbage"): the records whose ``filter`` text starts with the judge's id."""
    return [f for f in data.meta.get("filters", []) if str(f.get("filter", "")).startswith(f"{annotator_id} ")]


def read_verdicts(path, key: str | None = None, pair_id: Callable[[int], str] | str = "pandalm:{idx}") -> pd.Series:
    """An LLM judge's verdicts from a PandaLM-format JSON list (``{"idx", "<judge>_result", ...}``):
    a Series indexed by pair_id with "A" (response1 better), "B" (response2 better), "tie" (0 / "Tie") or
    NaN for an unreadable verdict (e.g. GPT-3.5's "garbage").

    ``key``: the verdict field (default: the one field ending in ``_result``); ``pair_id``: a format string
    on ``idx`` or a callable, to match the pair ids of the loader used for the human labels (default: those
    of ``pluralign.data.load("pandalm")``). :func:`judge_verdicts` does the same from a loaded data set."""
    recs = json.loads(Path(path).read_text())
    if key is None:
        keys = [k for k in recs[0] if k.endswith("_result")]
        if len(keys) != 1:
            raise ValueError(f"{path}: cannot tell the verdict field among {list(recs[0])}; pass key=")
        key = keys[0]
    make = pair_id if callable(pair_id) else (lambda i, f=pair_id: f.format(idx=i))
    s = pd.Series(
        [_verdict(r.get(key)) for r in recs],
        index=pd.Index([make(r["idx"]) for r in recs], name="pair_id"),
        name=key,
        dtype=object,
    )
    return s


def _judge(judge) -> tuple[str, pd.Series]:
    """("prob", P(A) floats) or ("verdict", "A"/"B"/"tie"/NaN). Float dtype = probabilities; strings, integers
    (PandaLM's 1 / 2 / 0) and objects = verdicts."""
    s = pd.Series(judge)
    if pd.api.types.is_float_dtype(s.dtype):
        if ((s < 0) | (s > 1)).any():
            raise ValueError("judge probabilities must lie in [0, 1] (pass verdicts as strings or integers)")
        return "prob", s
    return "verdict", s.map(lambda x: x if x in ("A", "B", "tie") else _verdict(x))


def judge_confidence(judge) -> pd.Series:
    """Per-pair decisiveness of a judge in [0, 1]: for probabilities P(A) (a float Series), ``|2 P(A) − 1|``
    (0 = undecided, 1 = certain); for verdicts ("A" / "B" / "tie", or integers 1 / 2 / 0 as in PandaLM's
    files), 1 for a preference and 0 for a tie. Unreadable judgments are NaN."""
    kind, s = _judge(judge)
    if kind == "prob":
        return (2 * s - 1).abs()
    return s.map({"A": 1.0, "B": 1.0, "tie": 0.0}).astype(float)


def judge_decisiveness(
    judge, classified: pd.DataFrame, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0
) -> JudgeDecisiveness:
    """An LLM judge's confidence on diverging vs high-agreement pairs (Diverging Preferences §3's question
    for reward models, asked of a judge).

    ``judge``: per pair (Series indexed by pair_id) a probability P(A ≻ B) (float dtype, e.g.
    ``LLM.judge_ab``) or a verdict ("A" / "B" / "tie", or PandaLM's 1 / 2 / 0; :func:`read_verdicts`,
    :func:`judge_verdicts`). Rows: the Table 2 subsets plus "Diverging − High-Agreement Prefs." (difference of
    means, independent bootstrap of the two groups). Columns: ``n`` (pairs with a readable judgment),
    ``confidence`` (mean :func:`judge_confidence`; for verdicts the share of non-tie verdicts) with ``lo`` /
    ``hi``, and ``agrees with majority`` (on pairs whose annotator majority chose A or B, the share where the
    judge picks it: P(A) > ½ or verdict "A" for "A") with ``agrees lo`` / ``agrees hi``.

    Only pairs of ``classified`` with a readable judgment enter; a judged pair that is not in ``classified``
    raises ``ValueError``. Returns a :class:`JudgeDecisiveness`: that ``table`` with ``n_classified``,
    ``n_judged`` (pairs with a readable judgment), ``n_without_verdict`` (= ``n_classified − n_judged``: pairs
    the judge has no readable judgment for — absent from ``judge``, e.g. verdicts a loader dropped, see
    :func:`judge_filters`, or unreadable in it), ``n_unreadable`` (the NaN / unreadable entries of ``judge``
    itself), ``level``, ``kind``."""
    conf = judge_confidence(judge)
    kind, s = _judge(judge)
    if kind == "prob":
        pick = pd.Series(np.where(s > 0.5, "A", np.where(s < 0.5, "B", "tie")), index=s.index, dtype=object)
    else:
        pick = s
    outside = conf.index.difference(classified.index)
    if len(outside):
        raise ValueError(
            f"{len(outside)} judged pairs are not in `classified` (pair ids of another loader?), e.g. {outside[0]!r}"
        )
    ids = classified.index.intersection(conf.index[conf.notna()])
    cl = classified.loc[ids]
    masks = subset_masks(cl)
    rows = {}
    for k, (name, m) in enumerate(masks.items()):
        sel = ids[m.to_numpy()]
        c, lo, hi = bootstrap_ci(conf.loc[sel].to_numpy(), np.mean, n_boot=n_boot, level=level, seed=seed + k)
        maj = cl.loc[sel, "majority"]
        has = maj.isin(["A", "B"])
        agree = (pick.loc[sel][has.to_numpy()] == maj[has]).astype(float).to_numpy()
        a, alo, ahi = bootstrap_ci(agree, np.mean, n_boot=n_boot, level=level, seed=seed + 100 + k)
        rows[name] = {
            "n": len(sel),
            "confidence": c,
            "lo": lo,
            "hi": hi,
            "agrees with majority": a,
            "agrees lo": alo,
            "agrees hi": ahi,
        }
    div = conf.loc[ids[masks[SUBSETS[2]].to_numpy()]].to_numpy()
    hap = conf.loc[ids[masks[SUBSETS[0]].to_numpy()]].to_numpy()
    rows["Diverging − High-Agreement Prefs."] = {
        "n": len(div) + len(hap),
        **dict(zip(("confidence", "lo", "hi"), _diff_ci(div, hap, n_boot=n_boot, level=level, seed=seed))),
    }
    return JudgeDecisiveness(
        table=pd.DataFrame.from_dict(rows, orient="index"),
        n_classified=len(classified),
        n_judged=len(ids),
        n_without_verdict=len(classified) - len(ids),
        n_unreadable=int(conf.isna().sum()),
        level=level,
        kind=kind,
    )


def _diff_ci(a, b, *, n_boot, level, seed) -> tuple[float, float, float]:
    """mean(a) − mean(b) with a percentile bootstrap resampling a and b independently."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if not len(a) or not len(b):
        return (np.nan,) * 3
    rng = np.random.default_rng(seed)
    boots = a[rng.integers(0, len(a), (n_boot, len(a)))].mean(1) - b[rng.integers(0, len(b), (n_boot, len(b)))].mean(1)
    q = (1 - level) / 2
    lo, hi = np.quantile(boots, [q, 1 - q])
    return float(a.mean() - b.mean()), float(lo), float(hi)


def observed_disagreement(classified, n_annotators=2) -> pd.Series:
    """Observed counterpart of :func:`predicted_disagreement`: the probability that ``k`` of a pair's
    annotators, drawn with replacement, *strictly* disagree — at least one prefers A and at least one
    prefers B. With ``a = n_A / n`` and ``b = n_B / n`` (``n``: all judgments of the pair, ties included),
    that is :func:`split_probability` ``(a, k, share_b=b)``; for k = 2, ``2 · n_A · n_B / n²``.

    **Ties** agree with nobody and disagree with nobody (as in
    :func:`pluralign.diverging.agreement.agreement_classes`, where a tie does not disagree on *which* response
    is better, §2): an all-tie pair scores 0, like a unanimous one, while a 2–2 A/B split scores ½. (Counting
    ties as half votes, as :meth:`PreferenceData.share_a` does, would give the all-tie pair ½ as well.) Pairs
    without a judgment are NaN.

    ``classified``: :func:`pluralign.diverging.agreement.agreement_classes`'s table (its ``n_a``, ``n_b``,
    ``n_annotators`` columns; on HelpSteer2-format data the judgments re-derived from the Likert scores), or a
    PreferenceData, which is classified first."""
    cl = agreement_classes(classified) if isinstance(classified, PreferenceData) else classified
    n = cl["n_annotators"].where(cl["n_annotators"] > 0)
    return split_probability(cl["n_a"] / n, n_annotators, share_b=cl["n_b"] / n).rename("observed disagreement")


def mean_variance_disagreement(
    model, data, classified: pd.DataFrame | None = None, *, progress: bool = False
) -> pd.DataFrame:
    """A mean-variance RM's Gaussian rewards on ``data`` with its :func:`predicted_disagreement` (k = 2) and
    the :func:`observed_disagreement` of the pair's annotators (from ``classified``, the agreement classes of
    ``data`` or of a data set containing it; ``None``: ``data`` is classified): indexed by pair_id, columns
    ``mu_a, mu_b, sigma_a, sigma_b, p_a, predicted disagreement, observed disagreement``."""
    pr = model.predict(data, progress=progress).set_index("pair_id")
    pr["predicted disagreement"] = predicted_disagreement(pr["mu_a"], pr["mu_b"], pr["sigma_a"], pr["sigma_b"])
    pr["observed disagreement"] = observed_disagreement(data if classified is None else classified).reindex(pr.index)
    return pr


def disagreement_correlation(predicted, observed) -> dict:
    """Spearman rank correlation between predicted and observed disagreement (aligned Series), with n."""
    both = pd.concat([pd.Series(predicted, name="p"), pd.Series(observed, name="o")], axis=1).dropna()
    if len(both) < 3:
        raise ValueError("need at least 3 pairs with both a prediction and an observation")
    r = spearmanr(both["p"], both["o"])
    return {"spearman": float(r.statistic), "p_value": float(r.pvalue), "n": int(len(both))}


@dataclass
class DisagreementSummary:
    """ "Do models know?" for one mean-variance RM (:func:`disagreement_summary`): ``auc`` and ``auc_prefs``
    (:class:`Interval`), ``corr`` (:func:`disagreement_correlation`), ``labels`` (diverging or not, per compared
    pair) and ``tested`` (pairs entering each statistic)."""

    auc: Interval
    auc_prefs: Interval
    corr: dict
    labels: pd.Series
    tested: dict


def disagreement_summary(
    mv: pd.DataFrame, classified: pd.DataFrame, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0
) -> DisagreementSummary:
    """ "Do models know?" for one mean-variance RM on its held-out pairs (``mv`` from
    :func:`mean_variance_disagreement`, ``classified`` the agreement classes of those pairs or a superset):
    ``auc`` — :func:`disagreement_auroc` ``(auc, lo, hi)`` of the predicted disagreement for diverging vs both
    high-agreement classes; ``auc_prefs`` — the same against high-agreement preferences only (ties left out);
    ``corr`` — :func:`disagreement_correlation` of predicted with observed disagreement; ``labels`` — the
    :func:`diverging_labels` of the first comparison; ``tested`` — how many pairs entered each statistic
    (``{"auc": …, "auc_prefs": …, "corr": …}``)."""
    cl = classified.loc[mv.index]
    score = mv["predicted disagreement"]
    labels = diverging_labels(cl)
    labels_prefs = diverging_labels(cl, against=("high-agreement-pref",))
    auc = disagreement_auroc(score, labels, n_boot=n_boot, level=level, seed=seed)
    auc_prefs = disagreement_auroc(score, labels_prefs, n_boot=n_boot, level=level, seed=seed)
    corr = disagreement_correlation(score, mv["observed disagreement"])
    tested = {"auc": len(labels), "auc_prefs": len(labels_prefs), "corr": corr["n"]}
    return DisagreementSummary(auc=auc, auc_prefs=auc_prefs, corr=corr, labels=labels, tested=tested)


def split_probability(share_a, n_annotators=2, *, share_b=None):
    """The probability that ``k`` independent annotators include one who prefers A and one who prefers B,
    each preferring A with probability ``a`` (``share_a``), B with ``b`` (``share_b``) and calling a tie with
    ``t = 1 − a − b``: by inclusion–exclusion ``1 − (1 − a)^k − (1 − b)^k + t^k`` (k = 2: ``2ab``).

    Without ``share_b`` there is no tie outcome (``b = 1 − a``) and this is ``1 − a^k − (1 − a)^k``, the
    split probability of :func:`predicted_disagreement`. **Ties**: :func:`observed_disagreement` passes
    ``share_b``, so a tie agrees with nobody. The simulator's population ``truth["share_a"]`` counts a tie as
    half a vote for each side and has no separate tie share, so the planted disagreement is
    ``split_probability(truth["share_a"])`` — the same reading of ties as the mean-variance model, which is
    trained with a tie as half a vote for each side (``rewards.objectives``); it is therefore the right
    reference for the model's *predicted* disagreement, while the observed one leaves ties out."""
    conv = (lambda x: x.astype(float)) if isinstance(share_a, pd.Series) else (lambda x: np.asarray(x, float))
    a = conv(share_a)
    k = np.asarray(n_annotators, float)  # may be per pair
    if share_b is None:
        return 1 - a**k - (1 - a) ** k
    b = conv(share_b)
    t = 1 - a - b
    if share_b is not None and np.any(np.asarray(t) < -1e-12):
        raise ValueError("share_a + share_b must not exceed 1")
    return 1 - (1 - a) ** k - (1 - b) ** k + np.clip(t, 0, None) ** k


def simulated_judge(truth: pd.DataFrame, pair_ids, *, noise: float = 1.0, seed: int = 0) -> pd.Series:
    """The demo profile's stand-in for an LLM judge: P(A ≻ B) per pair drawn around the simulated population's
    share preferring A (``truth["share_a"]``, planted): ``logistic(logit(share_a) + N(0, noise²))``, clipped away
    from 0 and 1 (``noise`` 1.0: a stated round value, :mod:`pluralign.data.difficulty`). It knows how the
    population splits, by construction, so on the demo
    :func:`judge_decisiveness` must find it less decisive on diverging pairs — a check of the measure against
    planted truth, not a finding about LLM judges (the page names it as a stand-in)."""
    ids = pd.Index(pair_ids)
    if "share_a" not in truth.columns:
        raise ValueError(
            "simulated_judge needs the simulator's planted truth (column 'share_a'); this data set has "
            "none — use a real judge (judge_llm: {load: ...}) or published verdicts (judges)"
        )
    missing = ids.difference(truth.index)
    if len(missing):
        raise ValueError(f"simulated_judge: {len(missing)} pairs have no planted truth (e.g. {missing[0]!r})")
    p = truth.loc[ids, "share_a"].astype(float).clip(1e-3, 1 - 1e-3).to_numpy()
    z = np.log(p / (1 - p)) + np.random.default_rng(seed).normal(0.0, float(noise), len(p))
    return pd.Series(1.0 / (1.0 + np.exp(-z)), index=ids, name="p_a", dtype=float)

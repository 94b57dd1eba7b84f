"""Reward models on divided preferences — Table 2 and "do models know?" (Diverging Preferences §3).

Table 2 ("Reward Models make Decisive Decisions over Divisive Preferences") reports, per agreement subset,
how heavily a reward model favours one response: "we track how heavily reward models favor a single
response by computing P(C > R) where C and R are the reward model's chosen and rejected responses" for
Bradley-Terry models, and "the distance in predicted rewards given by |r_a − r_b|" for MSE-regression
models. **Chosen / rejected** (decision): the paper's text makes C the *reward model's* chosen response, so
the paper's statistic is a decisiveness, ``P(C ≻ R) = max(P(A ≻ B), 1 − P(A ≻ B))`` and
``r_C − r_R = |r_A − r_B|`` — defined on every subset, ties included (``chosen="model"``, the default,
which is how we reproduce Table 2). ``chosen="majority"`` makes C the annotators' majority choice
(:func:`pluralign.agreement.classify`'s ``majority`` column) where there is one, so the value can fall below
0.5 (or 0) when the model sides with the minority; pairs without a majority choice (high-agreement ties,
and pairs with no majority) fall back to the model's choice, which is the paper's reading of ties.

Subsets (rows, in the paper's names): "High-Agreement Prefs.", "High-Agreement Ties", "Diverging Prefs.
(All)", "Diverging Prefs. (Subst.)", "All Examples" — "All Examples" includes the "other" class, so the
first three counts do not add up to it (in the paper either: 127 + 141 + 178 < 500).

"Do models know?": :func:`predicted_disagreement` turns a mean-variance reward model's Gaussian rewards
into the probability that annotators split, :func:`disagreement_auroc` measures how well a score separates
diverging from high-agreement pairs (AUROC with a bootstrap CI), and :func:`judge_decisiveness` compares an
LLM judge's confidence on diverging and high-agreement pairs.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata

from pluralign.agreement import is_stand_in, paper_dataset, paper_label
from pluralign.data.core import PreferenceData
from pluralign.stats import bootstrap_ci

__all__ = [
    "SUBSETS", "PAPER_TABLE2", "subset_masks", "table2", "paper_table2", "predicted_disagreement",
    "diverging_labels", "disagreement_auroc", "judge_confidence", "judge_decisiveness", "judge_verdicts",
    "read_verdicts", "judge_filters", "label_paper_columns",
]

SUBSETS = ("High-Agreement Prefs.", "High-Agreement Ties", "Diverging Prefs. (All)", "Diverging Prefs. (Subst.)",
           "All Examples")

#: Table 2 of the paper: per data set, {column: {subset: value}} plus "# Ex.". BT = mean P(chosen ≻ rejected),
#: MSE = mean r_chosen − r_rejected (HelpSteer2 only); Agg = trained on majority labels, All = on every judgment.
PAPER_TABLE2 = {
    "multipref": pd.DataFrame({
        "# Ex.": [127, 141, 178, 74, 500],
        "BT (Agg)": [0.786, 0.663, 0.798, 0.820, 0.762],
        "BT (All)": [0.669, 0.580, 0.663, 0.690, 0.647],
    }, index=list(SUBSETS)),
    "helpsteer2": pd.DataFrame({
        "# Ex.": [298, 117, 147, 69, 576],
        "BT (Agg)": [0.751, 0.673, 0.722, 0.731, 0.725],
        "BT (All)": [0.718, 0.631, 0.678, 0.694, 0.688],
        "MSE (Agg)": [0.811, 0.412, 0.706, 0.834, 0.683],
        "MSE (All)": [0.676, 0.340, 0.573, 0.692, 0.565],
    }, index=list(SUBSETS)),
}


def paper_table2(dataset: str, paper_reference=None) -> pd.DataFrame:
    """The paper's Table 2 block for ``dataset``: the block of ``paper_reference[dataset]`` when given (an
    explicit ``{data-set name: "multipref" | "helpsteer2"}`` lookup, e.g. ``{"pandalm": "multipref"}``), else
    of the paper data set the name contains (case and dashes ignored; :func:`pluralign.agreement.paper_dataset`).
    ``KeyError`` when there is none."""
    key = paper_dataset(dataset, paper_reference)
    if key is None:
        raise KeyError(f"the paper's Table 2 has no block for {dataset!r} (only {list(PAPER_TABLE2)}; "
                       "pass paper_reference={name: 'multipref'} to compare a stand-in data set)")
    return PAPER_TABLE2[key].copy()


def subset_masks(classified: pd.DataFrame) -> dict[str, pd.Series]:
    """Boolean masks (indexed like ``classified``) for the five rows of Table 2."""
    a = classified["agreement"]
    div = a == "diverging"
    return {
        SUBSETS[0]: a == "high-agreement-pref",
        SUBSETS[1]: a == "high-agreement-tie",
        SUBSETS[2]: div,
        SUBSETS[3]: div & classified["substantial"].astype(bool),
        SUBSETS[4]: pd.Series(True, index=classified.index),
    }


def _as_models(x, default: str) -> dict[str, pd.Series]:
    if x is None:
        return {}
    if isinstance(x, Mapping):
        return {str(k): pd.Series(v) for k, v in x.items()}
    return {default: pd.Series(x)}


def _chosen_sign(classified: pd.DataFrame, signed: pd.Series, chosen: str) -> pd.Series:
    """+1 where the chosen response is A, −1 where B; ``signed`` > 0 means the model favours A."""
    model = np.where(signed.to_numpy() >= 0, 1.0, -1.0)
    if chosen == "model":
        return pd.Series(model, index=signed.index)
    if chosen != "majority":
        raise ValueError(f"chosen must be 'model' or 'majority', not {chosen!r}")
    maj = classified["majority"].reindex(signed.index)
    out = np.where(maj == "A", 1.0, np.where(maj == "B", -1.0, model))
    return pd.Series(out, index=signed.index)


def _chosen_value(classified: pd.DataFrame, s: pd.Series, kind: str, chosen: str) -> np.ndarray:
    """Per pair, what :func:`table2` averages: P(C ≻ R) from P(A ≻ B) (``kind="bt"``) or r_C − r_R from
    r_A − r_B (``kind="mse"``), C being the chosen response of :func:`_chosen_sign`."""
    if kind == "bt":
        sign = _chosen_sign(classified, s - 0.5, chosen)
        return np.where(sign > 0, s, 1 - s)
    return np.asarray(_chosen_sign(classified, s, chosen) * s, float)


def table2(classified: pd.DataFrame, p_a=None, reward_gap=None, *, chosen: str = "model", n_boot: int = 2000,
           level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Table 2 of Diverging Preferences for one data set: per subset, the count and, per reward model, the
    mean P(chosen ≻ rejected) (``p_a``: Bradley-Terry models) or mean r_chosen − r_rejected
    (``reward_gap``: MSE-regression models) with a percentile bootstrap CI (:func:`pluralign.stats.bootstrap_ci`).

    ``p_a``: P(A ≻ B) per pair (a Series indexed by pair_id, or ``{column name: Series}``, e.g.
    ``{"BT (Agg)": ..., "BT (All)": ...}``); ``reward_gap``: r_A − r_B per pair, likewise. The evaluated
    pairs are those the model outputs cover (the held-out set); every model must cover the same pairs and
    all of them must be in ``classified``. ``chosen``: see the module docstring.

    Returns a DataFrame indexed by :data:`SUBSETS` with ``# Ex.`` and, per model, ``<name>``,
    ``<name> lo``, ``<name> hi``."""
    models = {**{k: ("bt", v) for k, v in _as_models(p_a, "BT").items()},
              **{k: ("mse", v) for k, v in _as_models(reward_gap, "MSE").items()}}
    if not models:
        raise ValueError("table2 needs p_a (Bradley-Terry P(A ≻ B)) and/or reward_gap (r_A − r_B)")
    ids = None
    for name, (_, s) in models.items():
        if s.isna().any():
            raise ValueError(f"model {name!r}: {int(s.isna().sum())} missing values")
        if ids is None:
            ids = s.index
        elif not s.index.sort_values().equals(ids.sort_values()):
            raise ValueError(f"model {name!r} covers different pairs from {next(iter(models))!r}")
    missing = ids.difference(classified.index)
    if len(missing):
        raise ValueError(f"{len(missing)} evaluated pairs are not in `classified`, e.g. {missing[0]!r}")
    cl = classified.loc[ids]
    masks = subset_masks(cl)
    out = pd.DataFrame(index=list(SUBSETS))
    out["# Ex."] = [int(m.sum()) for m in masks.values()]
    for name, (kind, s) in models.items():
        s = s.loc[ids].astype(float)
        if kind == "bt":
            if ((s < 0) | (s > 1)).any():
                raise ValueError(f"model {name!r}: p_a must be probabilities in [0, 1]")
        value = pd.Series(_chosen_value(cl, s, kind, chosen), index=ids)   # P(C ≻ R) or r_C − r_R
        est, lo, hi = [], [], []
        for k, m in enumerate(masks.values()):
            e, l, h = bootstrap_ci(value[m.to_numpy()].to_numpy(), np.mean, n_boot=n_boot, level=level,
                                   seed=seed + k)
            est.append(e), lo.append(l), hi.append(h)
        out[name], out[f"{name} lo"], out[f"{name} hi"] = est, lo, hi
    out.attrs.update(chosen=chosen, level=level, n_boot=n_boot)
    return out


# ---- do models know? -----------------------------------------------------------------------------------
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


def diverging_labels(classified: pd.DataFrame,
                     against=("high-agreement-pref", "high-agreement-tie")) -> pd.Series:
    """``is_diverging`` (bool, indexed by pair_id) on the diverging pairs and the ``against`` classes only
    (default: both high-agreement classes — "other" pairs are left out of the comparison)."""
    a = classified["agreement"]
    keep = (a == "diverging") | a.isin(list(against))
    return (a[keep] == "diverging").rename("is_diverging")


def disagreement_auroc(predicted_disagreement, is_diverging, *, n_boot: int = 2000, level: float = 0.95,
                       seed: int = 0) -> tuple[float, float, float]:
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

    def auc(m):  # Mann-Whitney form of the AUROC (mid-ranks for ties): equal to roc_auc_score, faster
        yy = m[:, 1] > 0.5
        n1 = int(yy.sum())
        if n1 == 0 or n1 == len(yy):
            return np.nan
        r = rankdata(m[:, 0])
        return (r[yy].sum() - n1 * (n1 + 1) / 2) / (n1 * (len(yy) - n1))

    _, lo, hi = bootstrap_ci(np.column_stack([x, y.astype(float)]), auc, n_boot=n_boot, level=level, seed=seed)
    return float(roc_auc_score(y, x)), lo, hi


_VERDICTS = {"1": "A", "a": "A", "response1": "A",
             "2": "B", "b": "B", "response2": "B",
             "0": "tie", "tie": "tie", "3": "tie"}


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
        raise KeyError(f"no judgments by {annotator_id!r}; annotators: {sorted(data.annotations['annotator_id'].unique())}")
    p = pd.to_numeric(ann["preference"])
    return pd.Series(np.where(p < 0, "A", np.where(p > 0, "B", "tie")), index=pd.Index(ann["pair_id"], name="pair_id"),
                     name=annotator_id, dtype=object)


def judge_filters(data, annotator_id: str) -> list[dict]:
    """The loader's records (``data.meta["filters"]``) of verdicts of judge ``annotator_id`` it dropped,
    e.g. the 25 GPT-3.5 verdicts of ``pluralign.data.load("pandalm-judges")`` that are not a label
    ("garbage"): the records whose ``filter`` text starts with the judge's id."""
    return [f for f in data.meta.get("filters", []) if str(f.get("filter", "")).startswith(f"{annotator_id} ")]


def read_verdicts(path, key: str | None = None, pair_id: Callable[[int], str] | str = "pandalm:{idx}") -> pd.Series:
    """An LLM judge's verdicts from a PandaLM-format JSON list (``{"idx", "<judge>_result", ...}``):
    a Series indexed by pair_id with "A" (response1 better), "B" (response2 better), "tie" (0 / "Tie") or
    NaN for an unreadable verdict (e.g. GPT-3.5's "garbage"; the count is in ``attrs["invalid"]``).

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
    s = pd.Series([_verdict(r.get(key)) for r in recs], index=pd.Index([make(r["idx"]) for r in recs],
                                                                        name="pair_id"), name=key, dtype=object)
    s.attrs["invalid"] = int(s.isna().sum())
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


def judge_decisiveness(judge, classified: pd.DataFrame, *, n_boot: int = 2000, level: float = 0.95,
                       seed: int = 0) -> pd.DataFrame:
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
    raises ``ValueError``. ``attrs``: ``n_classified``, ``n_judged`` (pairs with a readable judgment),
    ``n_without_verdict`` (= ``n_classified − n_judged``: pairs the judge has no readable judgment for —
    absent from ``judge``, e.g. verdicts a loader dropped, see :func:`judge_filters`, or unreadable in it),
    ``n_unreadable`` (the NaN / unreadable entries of ``judge`` itself), ``level``, ``kind``."""
    conf = judge_confidence(judge)
    kind, s = _judge(judge)
    if kind == "prob":
        pick = pd.Series(np.where(s > 0.5, "A", np.where(s < 0.5, "B", "tie")), index=s.index, dtype=object)
    else:
        pick = s
    outside = conf.index.difference(classified.index)
    if len(outside):
        raise ValueError(f"{len(outside)} judged pairs are not in `classified` (pair ids of another loader?), "
                         f"e.g. {outside[0]!r}")
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
        rows[name] = {"n": len(sel), "confidence": c, "lo": lo, "hi": hi, "agrees with majority": a,
                      "agrees lo": alo, "agrees hi": ahi}
    div = conf.loc[ids[masks[SUBSETS[2]].to_numpy()]].to_numpy()
    hap = conf.loc[ids[masks[SUBSETS[0]].to_numpy()]].to_numpy()
    rows["Diverging − High-Agreement Prefs."] = {"n": len(div) + len(hap), **dict(zip(
        ("confidence", "lo", "hi"), _diff_ci(div, hap, n_boot=n_boot, level=level, seed=seed)))}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.attrs.update(n_classified=len(classified), n_judged=len(ids),
                     n_without_verdict=len(classified) - len(ids), n_unreadable=int(conf.isna().sum()),
                     level=level, kind=kind)
    return out


def _diff_ci(a, b, *, n_boot, level, seed) -> tuple[float, float, float]:
    """mean(a) − mean(b) with a percentile bootstrap resampling a and b independently."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if not len(a) or not len(b):
        return (np.nan,) * 3
    rng = np.random.default_rng(seed)
    boots = (a[rng.integers(0, len(a), (n_boot, len(a)))].mean(1) - b[rng.integers(0, len(b), (n_boot, len(b)))]
             .mean(1))
    q = (1 - level) / 2
    lo, hi = np.quantile(boots, [q, 1 - q])
    return float(a.mean() - b.mean()), float(lo), float(hi)


# ---- Table 2 end to end: train the reward models, collect their outputs, compare with the paper ----------
#: The reward models of Table 2 (Diverging Preferences §3): name → (objective, labels). "Agg" = trained on
#: the aggregated label of each pair, "All" = "treating each annotator label as its own training instance".
#: **Which majority**: the Agg label is :meth:`pluralign.data.core.PreferenceData.majority`, a *plurality*
#: (A when A outnumbers both B and ties; pairs whose label is a tie are dropped for BT —
#: :mod:`pluralign.rewards.objectives`), whereas the agreement classes that split the evaluation rows
#: (:func:`pluralign.agreement.classify`, its ``majority`` column and ``chosen="majority"`` above) ask for
#: *more than half* of the judgments. {A, A, B, tie} trains Agg towards A but has no majority choice in
#: the classes (it is a diverging or "other" pair); the two agree on every high-agreement pair.
TABLE2_MODELS = {"BT (Agg)": ("bt", "aggregate"), "BT (All)": ("bt", "all"),
                 "MSE (Agg)": ("mse", "aggregate"), "MSE (All)": ("mse", "all")}

#: The "do models know?" model: a mean-variance (Gaussian) RM fitted on every annotator judgment.
MEAN_VARIANCE_MODEL = {"Mean-Var (All)": ("mean-variance", "all")}


def has_likert(data) -> bool:
    """True when every judgment carries per-response Likert scores (what the MSE-regression RM needs)."""
    ann = data.annotations
    return {"likert_a", "likert_b"} <= set(ann.columns) and bool(ann[["likert_a", "likert_b"]].notna().all().all())


def reward_model_study(rm, data, *, test, validation, seed: int = 0, models: Mapping | None = None,
                       progress: bool = False, **train_kw) -> dict:
    """§3's experiment on one data set: agreement classes, a held-out test split (``test`` pairs, 500 in the
    paper; :func:`pluralign.data.spec.split`, deterministic in ``seed`` and the pair ids), a validation split
    off the training side (``validation`` pairs, for the best checkpoint), one trained copy of ``rm`` per entry
    of ``models`` (:func:`fit_reward_models`, default :data:`TABLE2_MODELS`; trained models are cached, so a
    second page asking for the same model on the same split reuses it) and their outputs on the test split
    (:func:`model_outputs`). Returns a dict with ``data, classified, train, validation, heldout, models,
    skipped, p_a, gap``."""
    from pluralign.agreement import classify
    from pluralign.data.spec import split
    from pluralign.rewards import embed_all

    classified = classify(data)
    train_side, heldout = split(data, test, seed=seed)
    train_set, val_set = split(train_side, validation, seed=seed + 1)
    embed_all(rm, data)  # frozen-encoder RMs: one embedding pass over the data set, cached on disk
    trained, skipped = fit_reward_models(rm, train_set, val_set, models=models, progress=progress, **train_kw)
    p_a, gap = model_outputs(trained, heldout, progress=progress)
    return dict(data=data, classified=classified, train=train_set, validation=val_set, heldout=heldout,
                models=trained, skipped=skipped, p_a=p_a, gap=gap)


def fit_reward_models(rm, train, eval_data=None, models: Mapping | None = None, **train_kw) -> tuple[dict, dict]:
    """Train one copy of the base reward model ``rm`` per entry of ``models`` (default :data:`TABLE2_MODELS`;
    name → (objective, labels)) with ``rm.train(train, objective=, labels=, eval_data=, **train_kw)``.

    ``eval_data`` selects the best checkpoint (App. A: "selecting the best performing checkpoint evaluated
    after every 0.25 epochs") — pass a validation split, not the held-out test set. MSE-regression models
    need per-response Likert scores (HelpSteer2); on data without them they are skipped, not faked.

    Returns ``(trained, skipped)``: ``{name: RewardModel}`` and ``{name: reason}``."""
    models = dict(TABLE2_MODELS if models is None else models)
    trained, skipped = {}, {}
    likert = has_likert(train)
    for name, (objective, labels) in models.items():
        if objective == "mse" and not likert:
            skipped[name] = "no per-response Likert scores in this data set (MSE regression needs them)"
            continue
        trained[name] = rm.train(train, objective=objective, labels=labels, eval_data=eval_data, **train_kw)
    return trained, skipped


def model_outputs(models: Mapping, data, *, progress: bool = False) -> tuple[dict, dict]:
    """What :func:`table2` takes from trained models on the evaluation pairs ``data``: ``(p_a, reward_gap)``,
    ``{name: P(A ≻ B) Series}`` for Bradley-Terry and mean-variance models and ``{name: r_A − r_B Series}``
    for MSE-regression models (by the model's ``objective``), both indexed by pair_id."""
    p_a, gap = {}, {}
    for name, m in models.items():
        if getattr(m, "objective", None) == "mse":
            s = m.score(data, progress=progress).set_index("pair_id")
            gap[name] = (s["reward_a"] - s["reward_b"]).rename(name)
        else:
            p_a[name] = m.prob_a(data, progress=progress).rename(name)
    return p_a, gap


def chosen_values(classified: pd.DataFrame, p_a=None, reward_gap=None, *, chosen: str = "model") -> pd.DataFrame:
    """Per pair and model, the quantity :func:`table2` averages — P(C ≻ R) for Bradley-Terry, r_C − r_R for
    MSE — in long form for plots: ``pair_id, model, measure ("P(chosen ≻ rejected)" / "r_chosen − r_rejected"),
    value, agreement, substantial``."""
    rows = []
    for kind, src in (("bt", _as_models(p_a, "BT")), ("mse", _as_models(reward_gap, "MSE"))):
        for name, s in src.items():
            s = s.astype(float)
            cl = classified.loc[s.index]
            v = _chosen_value(cl, s, kind, chosen)
            rows.append(pd.DataFrame({
                "pair_id": s.index, "model": name,
                "measure": "P(chosen ≻ rejected)" if kind == "bt" else "r_chosen − r_rejected",
                "value": np.asarray(v, float), "agreement": cl["agreement"].to_numpy(),
                "substantial": cl["substantial"].to_numpy()}))
    if not rows:
        raise ValueError("chosen_values needs p_a and/or reward_gap")
    return pd.concat(rows, ignore_index=True)


def table2_vs_paper(ours: pd.DataFrame, dataset: str | None, *, also=(), digits: int = 3,
                    paper_reference=None, paper_only_models: bool = True) -> pd.DataFrame:
    """Our :func:`table2` beside the paper's block for ``dataset`` (``None`` or a data set the paper has no
    block for → paper columns "n/a"): per model ``<name>`` as "est [lo, hi]" and ``<name> paper``; counts as
    ``# Ex.`` and ``# Ex. paper``. Models the paper did not train on that data set (e.g. MSE on MultiPref) get
    "n/a" in their paper column; models in the paper's block that we could not train get "n/a" in ours, and so do
    the model names in ``also`` (e.g. the MSE models skipped on data without Likert scores).

    ``paper_reference``: the explicit lookup of :func:`paper_table2` (e.g. ``{"pandalm": "multipref"}``).
    ``attrs["paper"]`` says what the "paper" columns are (:func:`pluralign.agreement.paper_label`, e.g.
    "paper (MultiPref, stand-in reference)"; ``None`` without a block) — show it with the table, e.g. with
    :func:`label_paper_columns`; ``attrs["stand_in"]`` is True when that block is of a paper data set that
    ``dataset`` only stands in for (:func:`pluralign.agreement.is_stand_in`). ``paper_only_models=False``
    leaves out the models that only the paper's block has (for a page that trains just some of Table 2's)."""
    try:
        paper = paper_table2(dataset, paper_reference) if dataset is not None else None
    except KeyError:
        paper = None
    names = [c for c in ours.columns if c != "# Ex." and not c.endswith((" lo", " hi"))]
    if paper is not None and paper_only_models:
        names += [c for c in paper.columns if c != "# Ex." and c not in names]
    names += [c for c in also if c not in names]
    out = pd.DataFrame(index=ours.index)
    out["# Ex."] = ours["# Ex."].astype(int).astype(str)
    out["# Ex. paper"] = paper["# Ex."].reindex(ours.index).map(lambda v: f"{int(v)}") if paper is not None else "n/a"
    for n in names:
        if n in ours.columns:
            out[n] = [f"{e:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]" if np.isfinite(e) else "n/a"
                      for e, lo, hi in zip(ours[n], ours[f"{n} lo"], ours[f"{n} hi"])]
        else:
            out[n] = "n/a"
        if paper is not None and n in paper.columns:
            out[f"{n} paper"] = paper[n].reindex(ours.index).map(lambda v: f"{v:.{digits}f}")
        else:
            out[f"{n} paper"] = "n/a"
    out.attrs["paper"] = paper_label(dataset, paper_reference) if paper is not None else None
    out.attrs["stand_in"] = paper is not None and is_stand_in(dataset, paper_reference)
    return out


def label_paper_columns(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (from :func:`table2_vs_paper`) with every "<name> paper" column renamed to "<name>
    <attrs['paper']>", e.g. "BT (Agg) paper (MultiPref, stand-in reference)", for display."""
    label = table.attrs.get("paper")
    if not label:
        return table
    return table.rename(columns={c: c[: -len("paper")] + label for c in table.columns if c.endswith(" paper")})


def observed_disagreement(classified, n_annotators=2) -> pd.Series:
    """Observed counterpart of :func:`predicted_disagreement`: the probability that ``k`` of a pair's
    annotators, drawn with replacement, *strictly* disagree — at least one prefers A and at least one
    prefers B. With ``a = n_A / n`` and ``b = n_B / n`` (``n``: all judgments of the pair, ties included),
    that is :func:`split_probability` ``(a, k, share_b=b)``; for k = 2, ``2 · n_A · n_B / n²``.

    **Ties** agree with nobody and disagree with nobody (as in :func:`pluralign.agreement.classify`, where a
    tie does not disagree on *which* response is better, §2): an all-tie pair scores 0, like a unanimous one,
    while a 2–2 A/B split scores ½. (Counting ties as half votes, as :meth:`PreferenceData.share_a` does,
    would give the all-tie pair ½ as well.) Pairs without a judgment are NaN.

    ``classified``: :func:`pluralign.agreement.classify`'s table (its ``n_a``, ``n_b``, ``n_annotators``
    columns; on HelpSteer2-format data the judgments re-derived from the Likert scores), or a PreferenceData,
    which is classified first."""
    from pluralign.agreement import classify
    cl = classify(classified) if isinstance(classified, PreferenceData) else classified
    n = cl["n_annotators"].where(cl["n_annotators"] > 0)
    return split_probability(cl["n_a"] / n, n_annotators, share_b=cl["n_b"] / n).rename("observed disagreement")


def mean_variance_disagreement(model, data, classified: pd.DataFrame | None = None, *,
                               progress: bool = False) -> pd.DataFrame:
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
    from scipy.stats import spearmanr
    both = pd.concat([pd.Series(predicted, name="p"), pd.Series(observed, name="o")], axis=1).dropna()
    if len(both) < 3:
        raise ValueError("need at least 3 pairs with both a prediction and an observation")
    r = spearmanr(both["p"], both["o"])
    return {"spearman": float(r.statistic), "p_value": float(r.pvalue), "n": int(len(both))}


def disagreement_summary(mv: pd.DataFrame, classified: pd.DataFrame, *, n_boot: int = 2000, level: float = 0.95,
                         seed: int = 0) -> dict:
    """"Do models know?" for one mean-variance RM on its held-out pairs (``mv`` from
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
    return dict(auc=auc, auc_prefs=auc_prefs, corr=corr, labels=labels, tested=tested)


__all__ += ["TABLE2_MODELS", "MEAN_VARIANCE_MODEL", "has_likert", "reward_model_study", "fit_reward_models", "model_outputs",
            "chosen_values", "table2_vs_paper", "observed_disagreement", "mean_variance_disagreement",
            "disagreement_correlation", "disagreement_summary"]


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
        return 1 - a ** k - (1 - a) ** k
    b = conv(share_b)
    t = 1 - a - b
    if share_b is not None and np.any(np.asarray(t) < -1e-12):
        raise ValueError("share_a + share_b must not exceed 1")
    return 1 - (1 - a) ** k - (1 - b) ** k + np.clip(t, 0, None) ** k


__all__ += ["split_probability"]

"""Question 4 — which training handles disagreement?

Five reward models trained on the same pairs (:mod:`pluralign.rewards.objectives`, the only home of the
losses): Bradley-Terry on the majority label and on every annotation (Diverging Preferences Table 2, "Agg" /
"All"), Bradley-Terry with Beyond the Binary's margin (Eq. 4), the MSE regression on Likert scores and the
mean-variance RM (Diverging Preferences §4). Each is evaluated on the held-out pairs, split by agreement class,
on two measures:

* Table 2's reward-gap measure of Diverging Preferences: the mean ``P(chosen ≻ rejected)`` (BT-type models, the
  model's own chosen response) or ``r(chosen) − r(rejected)`` (MSE), :func:`pluralign.diverging.reward_models.table2`;
  a model that "handles" disagreement is less decisive on diverging pairs than on high-agreement ones — the
  *decisiveness gap* (high-agreement − diverging, :func:`decisiveness_gaps`) is positive;
* Pearson r with the population preference p* (Beyond the Binary Table 1, :func:`pluralign.btb.evaluate`).

Differences to the reference model (BT on majority labels) use paired bootstrap CIs (the same resampled pairs
for both models, :func:`pluralign.stats.paired_bootstrap_ci` / :func:`pluralign.btb.compare`). The MSE model's
P(A ≻ B) for Pearson is ``σ(r_A − r_B)`` (its rewards read through the Bradley-Terry link); its Table 2 measure
is on the Likert scale and is not differenced against the probability-scale models.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.cross.common import class_masks, intervals, read_against_planted, short_verdict, verdict
from pluralign.diverging import reward_models as rmod
from pluralign.stats import N_BOOT, bootstrap_ci, paired_bootstrap_ci
from pluralign.train_options import TrainOptions

__all__ = [
    "MODELS",
    "REFERENCE",
    "model_probabilities",
    "measure_by_class",
    "decisiveness_gaps",
    "pearson_by_class",
    "display_measure",
    "display_gaps",
    "train_models",
    "fill_missing_margins",
    "missing_margin_sentence",
]

#: The five reward models of question 4: name → (objective, labels).
MODELS = {
    "BT (majority)": ("bt", "aggregate"),
    "BT (all annotations)": ("bt", "all"),
    "BT + margin (Eq. 4)": ("bt-margin", "aggregate"),
    "MSE (Likert)": ("mse", "aggregate"),
    "Mean-variance": ("mean-variance", "all"),
}
REFERENCE = "BT (majority)"
#: The column of the decisiveness gap with its CI as :func:`display_gaps` labels it (the page says what it is).
GAP_COLUMN = "gap [95% CI]"
CLASSES = ("high-agreement-pref", "diverging", "all")


def fill_missing_margins(margins: pd.Series | None, pair_ids) -> tuple[pd.Series | None, int]:
    """The margin of Beyond the Binary Eq. 4 for each training pair (``pair_ids``): ``margins`` (by ``pair_id``,
    e.g. Eq. 3 on synthetic judgments) with 0 for a pair that has none — the judge gave it no parseable verdict —
    so Eq. 4 is the plain Bradley-Terry loss (Eq. 1) for that pair; and how many pairs got 0 that way.
    ``margins`` None (the pairs' gold margins, every pair has one): ``(None, 0)``."""
    if margins is None:
        return None, 0
    m = margins.reindex(pd.Index(pair_ids)).astype(float)
    return m.fillna(0.0), int(m.isna().sum())


def missing_margin_sentence(n_missing: int, n_train: int, synthetic: bool) -> str:
    """The sentence the training page states about Eq. 4's training pairs without a margin: how many of the
    ``n_train`` had no ``synthetic`` one (:func:`fill_missing_margins`; gold margins: every pair has one) and that
    they trained with margin 0."""
    if not synthetic:
        return (
            f"There is no synthetic margin here: all {n_train} training pairs have a gold margin, so none trained "
            "with margin 0."
        )
    if not n_missing:
        return (
            f"All {n_train} training pairs have a synthetic margin: 0 lacked one, so none trained with margin 0 (the "
            "plain Bradley–Terry loss a pair without a margin gets)."
        )
    return (
        f"{n_missing} of the {n_train} training pairs have no synthetic margin (the judge gave no parseable verdict "
        "on them); they trained with margin 0, i.e. the plain Bradley–Terry loss (Eq. 1) for those pairs."
    )


def train_models(rm, data, classified, *, split, seed: int, options: TrainOptions, margins: pd.Series | None):
    """The five reward models of :data:`MODELS` trained with ``options`` on one split: four through
    :func:`pluralign.diverging.reward_models.reward_model_study`, the margin-regularized one (Beyond the Binary
    Eq. 4) on the same training pairs with ``margins`` (None: the pairs' gold margins; a pair without one trains
    with margin 0, :func:`fill_missing_margins`); ``split``: a :class:`pluralign.diverging.settings.Split`;
    the run with the held-out outputs ``p_a`` and ``gap`` of every
    model."""
    plain = {k: v for k, v in MODELS.items() if v[0] != "bt-margin"}
    r = rmod.reward_model_study(
        rm,
        data,
        test=split.test,
        validation=split.validation,
        seed=seed,
        models=plain,
        classified=classified,
        options=options,
    )
    name = next(k for k, v in MODELS.items() if v[0] == "bt-margin")
    m = rm.train(
        r.train,
        eval_data=r.validation,
        margins=fill_missing_margins(margins, r.train.pairs["pair_id"])[0],
        options=options,
        objective="bt-margin",
        labels="aggregate",
        progress=False,
    )
    r.models = {k: (m if k == name else r.models[k]) for k in MODELS if k == name or k in r.models}
    outs = rmod.model_outputs(r.models, r.heldout)
    r.p_a, r.gap = outs.p_a, outs.gap
    return r


def model_probabilities(p_a: dict, gap: dict) -> dict:
    """Every model's P(A ≻ B): ``p_a`` as is, an MSE model's ``σ(r_A − r_B)`` (``gap``)."""
    from pluralign.rewards.objectives import logistic

    return {
        **{k: pd.Series(v, dtype=float) for k, v in p_a.items()},
        **{k: pd.Series(logistic(v), index=v.index, dtype=float) for k, v in gap.items()},
    }


def _values(classified, p_a, gap) -> pd.DataFrame:
    v = rmod.chosen_values(classified, p_a=p_a or None, reward_gap=gap or None)
    return v.pivot(index="pair_id", columns="model", values="value")[[*p_a, *gap]]


def measure_by_class(
    classified: pd.DataFrame,
    p_a: dict,
    gap: dict,
    *,
    p_star: pd.Series | None = None,
    reference: str = REFERENCE,
    classes=CLASSES,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> pd.DataFrame:
    """Table 2's measure per model and agreement class with its bootstrap CI, and its paired Δ to ``reference``
    (same measure scale only). With ``p_star`` the measure of the population itself (``max(p*, 1 − p*)``: how
    decisive a model that knew p* would be) stands beside. Rows: ``model, class, pairs, measure, value, lo,
    hi, delta, delta_lo, delta_hi, planted``."""
    vals = _values(classified, p_a, gap)
    kinds = {**{k: "P(chosen ≻ rejected)" for k in p_a}, **{k: "r(chosen) − r(rejected)" for k in gap}}
    masks = class_masks(classified, vals.index, classes)
    planted = (
        None
        if p_star is None
        else np.maximum(p_star.reindex(vals.index), 1 - p_star.reindex(vals.index)).to_numpy(float)
    )
    rows = []
    for k, model in enumerate(vals.columns):
        for cls, mask in masks.items():
            x = vals[model].to_numpy(float)[mask]
            row = {"model": model, "class": cls, "pairs": int(mask.sum()), "measure": kinds[model]}
            row.update(zip(("value", "lo", "hi"), bootstrap_ci(x, np.mean, n_boot=n_boot, seed=seed + k)))
            if model != reference and reference in vals and kinds[model] == kinds[reference] and len(x):
                ref = vals[reference].to_numpy(float)[mask]
                row.update(
                    zip(
                        ("delta", "delta_lo", "delta_hi"),
                        paired_bootstrap_ci(ref, x, np.mean, n_boot=n_boot, seed=seed),
                    )
                )
            else:
                row.update(delta=np.nan, delta_lo=np.nan, delta_hi=np.nan)
            row["planted"] = (
                float(planted[mask].mean())
                if planted is not None and kinds[model].startswith("P") and mask.any()
                else np.nan
            )
            rows.append(row)
    return pd.DataFrame(rows)


def _gap(m: np.ndarray) -> float:
    """mean(value | high-agreement) − mean(value | diverging) of ``m``'s first column (last column: 1 = diverging)."""
    d = m[:, -1] > 0.5
    if d.all() or not d.any():
        return np.nan
    return float(m[~d, 0].mean() - m[d, 0].mean())


def _planted_gap(p_star: pd.Series | None, ids: pd.Index, masks: dict) -> float:
    """The population's own decisiveness gap: mean ``max(p*, 1 − p*)`` on high-agreement prefs. minus on diverging
    pairs; NaN without ``p_star`` or without pairs of either class."""
    if p_star is None or not (masks["diverging"].any() and masks["high-agreement-pref"].any()):
        return np.nan
    q = p_star.reindex(ids).to_numpy(float)
    q = np.maximum(q, 1 - q)
    return float(q[masks["high-agreement-pref"]].mean() - q[masks["diverging"]].mean())


def _gap_delta(x: np.ndarray, ref: np.ndarray, div: np.ndarray, reference: str, *, n_boot: int, seed: int) -> dict:
    """The paired Δ of a model's decisiveness gap to the ``reference`` model's (values ``x`` and ``ref`` on the same
    pairs, ``div`` 1 = diverging), with its bootstrap CI (the same resampled pairs for both) and verdict against 0."""
    d, dlo, dhi = bootstrap_ci(
        np.column_stack([x, ref, div]), lambda m: _gap(m[:, [0, 2]]) - _gap(m[:, [1, 2]]), n_boot=n_boot, seed=seed
    )
    return {
        "delta": d,
        "delta_lo": dlo,
        "delta_hi": dhi,
        "delta_verdict": verdict(
            d,
            dlo,
            dhi,
            above=f"a larger gap than {reference}: less decisive on diverging pairs relative to high-agreement ones",
            below=f"a smaller gap than {reference}: more decisive on diverging pairs relative to high-agreement ones",
        ),
        "delta_short": short_verdict(d, dlo, dhi, above="larger gap", below="smaller gap"),
    }


#: What a model's decisiveness gap means against the population's own gap (Table 2's measure of a model that knew
#: p*: mean max(p*, 1 − p*) on high-agreement prefs. minus on diverging pairs), where the CI sits against it
#: (:func:`pluralign.cross.common.read_against_planted`).
PLANTED_READING = {
    "covers": "its CI covers the population's own gap ({p}): as much as a model that knew the population",
    "below": "its CI lies below the population's own gap ({p}): less than a model that knew the population",
    "above": (
        "its CI lies above the population's own gap ({p}): more than a model that knew the population, an "
        "over-correction rather than calibration"
    ),
}


def decisiveness_gaps(
    classified: pd.DataFrame,
    p_a: dict,
    gap: dict,
    *,
    p_star: pd.Series | None = None,
    reference: str = REFERENCE,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> pd.DataFrame:
    """Per model, the decisiveness gap: Table 2's measure on high-agreement prefs. minus on diverging pairs,
    with a bootstrap CI (pairs of both classes resampled together), the verdict against 0, and the paired Δ
    of the gap to ``reference`` (same scale only). With ``p_star``, the planted gap of the population
    (``max(p*, 1 − p*)``), and the verdict read against it too (:data:`PLANTED_READING`). Index ``model``;
    ``verdict`` / ``delta_verdict`` the long readings, ``short`` / ``delta_short`` a table cell's words."""
    vals = _values(classified, p_a, gap)
    kinds = {**{k: "p" for k in p_a}, **{k: "r" for k in gap}}
    masks = class_masks(classified, vals.index, ("high-agreement-pref", "diverging"))
    keep = masks["high-agreement-pref"] | masks["diverging"]
    div = masks["diverging"][keep].astype(float)
    planted = _planted_gap(p_star, vals.index, masks)
    rows = []
    for model in vals.columns:
        x = vals[model].to_numpy(float)[keep]
        est, lo, hi = bootstrap_ci(np.column_stack([x, div]), _gap, n_boot=n_boot, seed=seed)
        planted_here = planted if kinds[model] == "p" else np.nan
        reading = read_against_planted(
            est,
            lo,
            hi,
            planted=planted_here,
            above="less decisive on diverging pairs",
            below="more decisive on diverging pairs",
            planted_reading=PLANTED_READING,
            why_missing="no diverging or no high-agreement pairs",
        )
        row = {
            "model": model,
            "high-agreement pairs": int(masks["high-agreement-pref"].sum()),
            "diverging pairs": int(masks["diverging"].sum()),
            "gap": est,
            "lo": lo,
            "hi": hi,
            "verdict": reading.long,
            "short": reading.short,
            "planted gap": planted_here,
        }
        if model != reference and reference in vals and kinds[model] == kinds[reference]:
            row.update(_gap_delta(x, vals[reference].to_numpy(float)[keep], div, reference, n_boot=n_boot, seed=seed))
        else:
            why = "reference model" if model == reference else "a different scale"
            row.update(delta=np.nan, delta_lo=np.nan, delta_hi=np.nan, delta_verdict=f"— ({why})", delta_short=why)
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


def pearson_by_class(
    p_star: pd.Series,
    probs: dict,
    classified: pd.DataFrame,
    *,
    reference: str = REFERENCE,
    classes=CLASSES,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> pd.DataFrame:
    """Pearson r between each model's P(A ≻ B) (``probs``, :func:`model_probabilities`) and ``p_star`` per
    agreement class with its bootstrap CI, and the paired Δ to ``reference`` with the verdict
    (:func:`pluralign.btb.compare`). Rows: ``model, class, pairs, r, lo, hi, delta, delta_lo, delta_hi, verdict``."""
    from pluralign.btb.evaluation import compare, evaluate

    ids = pd.Index(p_star.dropna().index)
    by = classified["agreement"].reindex(ids).where(lambda a: a.isin(classes)).rename("class")
    rows = []
    for model, p in probs.items():
        if model == reference:
            ev = evaluate(p_star.loc[ids], p.reindex(ids), by=by, n_boot=n_boot, seed=seed)
            ev = ev[ev.metric == "pearson"].assign(delta=np.nan, delta_lo=np.nan, delta_hi=np.nan)
            ev = ev.rename(columns={"value": "r"})
        else:
            cmp = compare(
                p_star.loc[ids], probs[reference].reindex(ids), p.reindex(ids), by=by, n_boot=n_boot, seed=seed
            )
            ev = cmp[cmp.metric == "pearson"].rename(
                columns={"regularized": "r", "regularized_lo": "lo", "regularized_hi": "hi"}
            )
        for _, e in ev.iterrows():
            rows.append(
                {
                    "model": model,
                    "class": e["category"],
                    "pairs": int(e["n"]),
                    "r": e["r"],
                    "lo": e["lo"],
                    "hi": e["hi"],
                    "delta": e["delta"],
                    "delta_lo": e["delta_lo"],
                    "delta_hi": e["delta_hi"],
                    "short": "reference model"
                    if model == reference
                    else short_verdict(e["delta"], e["delta_lo"], e["delta_hi"], above="higher r", below="lower r"),
                    "verdict": "— (reference model)"
                    if model == reference
                    else verdict(
                        e["delta"],
                        e["delta_lo"],
                        e["delta_hi"],
                        above=f"correlates more with p* than {reference}",
                        below=f"correlates less with p* than {reference}",
                        why_missing="too few pairs or constant p*",
                    ),
                }
            )
    out = pd.DataFrame(rows)
    out["model"] = pd.Categorical(out["model"], categories=list(probs), ordered=True)
    out["class"] = pd.Categorical(out["class"], categories=[c for c in classes if c in set(out["class"])], ordered=True)
    return out.sort_values(["model", "class"]).astype({"model": str, "class": str}).reset_index(drop=True)


def display_measure(measure: pd.DataFrame, pearson: pd.DataFrame) -> pd.DataFrame:
    """Both measures per model and class, as the page shows them (estimate [95% CI], "—" where undefined; the
    class's number of pairs in a column of its own, an integer; a Δ to :data:`REFERENCE` with its paired 95% CI;
    the Pearson verdicts are the page's note, so the table fits the text column)."""
    m = measure.set_index(["model", "class"])
    p = pearson.set_index(["model", "class"])
    out = pd.DataFrame(index=m.index)
    out["pairs"] = m["pairs"].astype(int)
    shown, planted = intervals(m[["value", "lo", "hi"]], m["planted"])
    out["Table 2 measure [95% CI]"] = shown
    out["Δ vs " + REFERENCE] = intervals(m[["delta", "delta_lo", "delta_hi"]])[0]
    if m["planted"].notna().any():
        out["planted p*"] = planted
    out["Pearson r with p* [95% CI]"] = intervals(p.reindex(m.index)[["r", "lo", "hi"]])[0]
    out["Δr vs " + REFERENCE] = intervals(p.reindex(m.index)[["delta", "delta_lo", "delta_hi"]])[0]
    return out


def display_gaps(gaps: pd.DataFrame) -> pd.DataFrame:
    """:func:`decisiveness_gaps` as the page shows it (the pairs of the two classes, the same for every model, are
    counted in the page's note, not in a column)."""
    out = pd.DataFrame(index=gaps.index)
    shown, planted = intervals(gaps[["gap", "lo", "hi"]], gaps["planted gap"])
    out[GAP_COLUMN] = shown
    if gaps["planted gap"].notna().any():
        out["planted gap (population p*)"] = planted
    out["verdict"] = gaps["short"]
    out[f"Δ gap vs {REFERENCE}"] = intervals(gaps[["delta", "delta_lo", "delta_hi"]])[0]
    out["Δ verdict"] = gaps["delta_short"]
    return out

"""Reward models on divided preferences — Table 2 of Diverging Preferences (§3, "Reward Models make
Decisive Decisions over Divisive Preferences").

Table 2 reports, per agreement subset,
how heavily a reward model favours one response: "we track how heavily reward models favor a single
response by computing P(C > R) where C and R are the reward model's chosen and rejected responses" for
Bradley-Terry models, and "the distance in predicted rewards given by |r_a − r_b|" for MSE-regression
models. **Chosen / rejected** (decision): the paper's text makes C the *reward model's* chosen response, so
the paper's statistic is a decisiveness, ``P(C ≻ R) = max(P(A ≻ B), 1 − P(A ≻ B))`` and
``r_C − r_R = |r_A − r_B|`` — defined on every subset, ties included (``chosen="model"``, the default,
which is how we reproduce Table 2). ``chosen="majority"`` makes C the annotators' majority choice
(:func:`pluralign.diverging.agreement.agreement_classes`'s ``majority`` column) where there is one, so the
value can fall below 0.5 (or 0) when the model sides with the minority; pairs without a majority choice
(high-agreement ties, and pairs with no majority) fall back to the model's choice, which is the paper's
reading of ties.

Subsets (rows, in the paper's names): "High-Agreement Prefs.", "High-Agreement Ties", "Diverging Prefs.
(All)", "Diverging Prefs. (Subst.)", "All Examples" — "All Examples" includes the "other" class, so the
first three counts do not add up to it (in the paper either: 127 + 141 + 178 < 500).

The models (App. A): one copy of a base reward model per entry of :data:`TABLE2_MODELS`, trained on the
aggregated labels ("Agg") or on every annotator's label ("All") with :mod:`pluralign.rewards`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from pluralign import paper
from pluralign.data.spec import split
from pluralign.diverging.agreement import PAPER_DATASETS, agreement_classes, paper_dataset
from pluralign.stats import N_BOOT, bootstrap_ci
from pluralign.train_options import TrainOptions

__all__ = [
    "SUBSETS",
    "TABLE2_MODELS",
    "MSE_AGGREGATES",
    "table2_models",
    "paper_table2",
    "subset_masks",
    "table2",
    "has_likert",
    "reward_model_study",
    "fit_reward_models",
    "model_outputs",
    "RewardModelRun",
    "FittedModels",
    "ModelOutputs",
    "chosen_values",
]

SUBSETS = (
    "High-Agreement Prefs.",
    "High-Agreement Ties",
    "Diverging Prefs. (All)",
    "Diverging Prefs. (Subst.)",
    "All Examples",
)


def paper_table2(dataset: str, paper_reference=None, *, printed: bool = False) -> pd.DataFrame:
    """The paper's Table 2 block for ``dataset`` (from :mod:`pluralign.paper.diverging`), indexed by
    :data:`SUBSETS` with ``# Ex.`` and one column per model the paper trained on it (BT = mean P(chosen ≻
    rejected), MSE = mean r_chosen − r_rejected, HelpSteer2 only): the block of ``paper_reference[dataset]``
    when given (an explicit ``{data-set name: "multipref" | "helpsteer2"}`` lookup, e.g. ``{"pandalm":
    "multipref"}``), else of the paper data set the name contains (case and dashes ignored;
    :func:`pluralign.diverging.agreement.paper_dataset`). ``KeyError`` when there is none. ``printed``: the
    numbers as the paper prints them (texts such as "0.786", :func:`pluralign.paper.numbers`' ``printed``)."""
    key = paper_dataset(dataset, paper_reference)
    if key is None:
        raise KeyError(
            f"the paper's Table 2 has no block for {dataset!r} (only {list(PAPER_DATASETS)}; "
            "pass paper_reference={name: 'multipref'} to compare a stand-in data set)"
        )
    t = paper.numbers("diverging", "Table 2")
    prefix = f"{PAPER_DATASETS[key]} / "
    t = t[t["row"].str.startswith(prefix)].assign(row=lambda d: d["row"].str.slice(len(prefix)))
    cols = list(dict.fromkeys(t["column"]))
    return (
        t.pivot(index="row", columns="column", values="printed" if printed else "value")
        .reindex(index=list(SUBSETS), columns=cols)
        .rename_axis(index=None, columns=None)
    )


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


def table2(
    classified: pd.DataFrame,
    p_a=None,
    reward_gap=None,
    *,
    chosen: str = "model",
    n_boot: int = N_BOOT,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Table 2 of Diverging Preferences for one data set: per subset, the count and, per reward model, the
    mean P(chosen ≻ rejected) (``p_a``: Bradley-Terry models) or mean r_chosen − r_rejected
    (``reward_gap``: MSE-regression models) with a percentile bootstrap CI (:func:`pluralign.stats.bootstrap_ci`).

    ``p_a``: P(A ≻ B) per pair (a Series indexed by pair_id, or ``{column name: Series}``, e.g.
    ``{"BT (Agg)": ..., "BT (All)": ...}``); ``reward_gap``: r_A − r_B per pair, likewise. The evaluated
    pairs are those the model outputs cover (the held-out set); every model must cover the same pairs and
    all of them must be in ``classified``. ``chosen``: see the module docstring.

    Returns a DataFrame indexed by :data:`SUBSETS` with ``# Ex.`` and, per model, ``<name>``,
    ``<name> lo``, ``<name> hi``."""
    models = {
        **{k: ("bt", v) for k, v in _as_models(p_a, "BT").items()},
        **{k: ("mse", v) for k, v in _as_models(reward_gap, "MSE").items()},
    }
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
        value = pd.Series(_chosen_value(cl, s, kind, chosen), index=ids)  # P(C ≻ R) or r_C − r_R
        est, lo, hi = [], [], []
        for k, m in enumerate(masks.values()):
            ci = bootstrap_ci(value[m.to_numpy()].to_numpy(), np.mean, n_boot=n_boot, level=level, seed=seed + k)
            est.append(ci[0]), lo.append(ci[1]), hi.append(ci[2])
        out[name], out[f"{name} lo"], out[f"{name} hi"] = est, lo, hi
    return out


# ---- Table 2 end to end: train the reward models, collect their outputs, compare with the paper ----------
#: The reward models of Table 2 (Diverging Preferences §3): name → (objective, labels). "Agg" = trained on
#: the aggregated label of each pair, "All" = "treating each annotator label as its own training instance".
#: **Which majority**: the Agg label is :meth:`pluralign.data.core.PreferenceData.majority`, a *plurality*
#: (A when A outnumbers B and has at least as many votes as tie; "split" when A and B draw; pairs whose label is a
#: tie or a split are dropped for BT —
#: :mod:`pluralign.rewards.objectives`), whereas the agreement classes that split the evaluation rows
#: (:func:`pluralign.diverging.agreement.agreement_classes`, its ``majority`` column and ``chosen="majority"``
#: above) ask for *more than half* of the judgments. {A, A, B, tie} trains Agg towards A but has no majority choice in
#: the classes (it is a diverging or "other" pair); the two agree on every high-agreement pair.
TABLE2_MODELS = {
    "BT (Agg)": ("bt", "aggregate"),
    "BT (All)": ("bt", "all"),
    "MSE (Agg)": ("mse", "aggregate"),
    "MSE (All)": ("mse", "all"),
}

#: The variants of the MSE (Agg) model's aggregated label → (the ``labels`` value
#: :func:`pluralign.rewards.objectives.build_instances` takes, how a page names it). ``"majority"`` (the default)
#: is the paper's: "prior work aggregate labels across multiple annotators by taking the majority vote [...] We
#: train each model on both the aggregated labels as well as over all annotations" (§3); ``"mean"`` (the mean
#: Likert score of all annotators) is the project's earlier default, kept as an option.
MSE_AGGREGATES = {
    "majority": (
        "aggregate",
        "the majority-vote label (the Likert scores of the annotators who voted with the "
        "pair's majority; split pairs dropped), the paper's aggregation",
    ),
    "mean": (
        "aggregate-mean",
        "the mean Likert score of all annotators, not the paper's aggregation (the majority vote)",
    ),
}


def table2_models(mse_aggregate: str = "majority") -> dict:
    """:data:`TABLE2_MODELS` with the MSE (Agg) model trained on the ``mse_aggregate`` variant of its label
    (:data:`MSE_AGGREGATES`: ``"majority"``, the paper's, or ``"mean"``)."""
    if mse_aggregate not in MSE_AGGREGATES:
        raise ValueError(f"mse_aggregate must be one of {list(MSE_AGGREGATES)}, not {mse_aggregate!r}")
    return {**TABLE2_MODELS, "MSE (Agg)": ("mse", MSE_AGGREGATES[mse_aggregate][0])}


def has_likert(data) -> bool:
    """True when every judgment carries per-response Likert scores (what the MSE-regression RM needs)."""
    ann = data.annotations
    return {"likert_a", "likert_b"} <= set(ann.columns) and bool(ann[["likert_a", "likert_b"]].notna().all().all())


class FittedModels(NamedTuple):
    """What :func:`fit_reward_models` returns: ``trained`` ``{name: RewardModel}`` and ``skipped``
    ``{name: why it was not trained}``."""

    trained: dict
    skipped: dict


class ModelOutputs(NamedTuple):
    """What :func:`model_outputs` returns: ``p_a`` ``{name: P(A ≻ B) Series}`` (Bradley-Terry and mean-variance
    models) and ``gap`` ``{name: r_A − r_B Series}`` (MSE-regression models), indexed by pair_id."""

    p_a: dict
    gap: dict


@dataclass
class RewardModelRun:
    """§3's experiment on one data set (:func:`reward_model_study`): the data and its agreement classes, the
    training / validation / held-out splits, the trained models (and those skipped, with why), and the models'
    held-out outputs ``p_a`` (P(A ≻ B)) and ``gap`` (r_A − r_B), the inputs of :func:`table2`."""

    data: object
    classified: pd.DataFrame
    train: object
    validation: object
    heldout: object
    models: dict
    skipped: dict
    p_a: dict
    gap: dict


def reward_model_study(
    rm,
    data,
    *,
    test,
    validation,
    seed: int = 0,
    models: Mapping | None = None,
    classified: pd.DataFrame | None = None,
    options: TrainOptions | None = None,
    progress: bool = False,
) -> RewardModelRun:
    """§3's experiment on one data set: agreement classes, a held-out test split (``test`` pairs, 500 in the
    paper; :func:`pluralign.data.spec.split`, deterministic in ``seed`` and the pair ids), a validation split
    off the training side (``validation`` pairs, for the best checkpoint), one trained copy of ``rm`` per entry
    of ``models`` (:func:`fit_reward_models` with ``options``, default :data:`TABLE2_MODELS`; trained models are
    cached, so a second page asking for the same model on the same split reuses it) and their outputs on the test
    split (:func:`model_outputs`), as a :class:`RewardModelRun`; ``progress`` shows the training's and the scoring's
    progress bars. ``classified``: the data's agreement classes when the
    caller has them (with its own reading of ties), else :func:`agreement_classes` with the default."""
    from pluralign.rewards import embed_all  # imports torch: only when models are trained

    classified = agreement_classes(data) if classified is None else classified
    train_side, heldout = split(data, test, seed=seed)
    train_set, val_set = split(train_side, validation, seed=seed + 1)
    embed_all(rm, data)  # frozen-encoder RMs: one embedding pass over the data set, cached on disk
    options = TrainOptions.create(options, progress=progress)
    trained, skipped = fit_reward_models(rm, train_set, val_set, models=models, options=options)
    p_a, gap = model_outputs(trained, heldout, progress=progress)
    return RewardModelRun(
        data=data,
        classified=classified,
        train=train_set,
        validation=val_set,
        heldout=heldout,
        models=trained,
        skipped=skipped,
        p_a=p_a,
        gap=gap,
    )


def fit_reward_models(
    rm, train, eval_data=None, models: Mapping | None = None, options: TrainOptions | None = None
) -> FittedModels:
    """Train one copy of the base reward model ``rm`` per entry of ``models`` (default :data:`TABLE2_MODELS`;
    name → (objective, labels)) with ``rm.train(train, eval_data=eval_data, options=options, objective=, labels=)``.

    ``eval_data`` selects the best checkpoint (App. A: "selecting the best performing checkpoint evaluated
    after every 0.25 epochs") — pass a validation split, not the held-out test set. MSE-regression models
    need per-response Likert scores (HelpSteer2); on data without them they are skipped, not faked.

    Returns :class:`FittedModels` ``(trained, skipped)``: ``{name: RewardModel}`` and ``{name: reason}``."""
    models = dict(TABLE2_MODELS if models is None else models)
    trained, skipped = {}, {}
    likert = has_likert(train)
    for name, (objective, labels) in models.items():
        if objective == "mse" and not likert:
            skipped[name] = "no per-response Likert scores in this data set (MSE regression needs them)"
            continue
        trained[name] = rm.train(train, eval_data=eval_data, options=options, objective=objective, labels=labels)
    return FittedModels(trained, skipped)


def model_outputs(models: Mapping, data, *, progress: bool = False) -> ModelOutputs:
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
    return ModelOutputs(p_a, gap)


def chosen_values(classified: pd.DataFrame, p_a=None, reward_gap=None, *, chosen: str = "model") -> pd.DataFrame:
    """Per pair and model, the quantity :func:`table2` averages — P(C ≻ R) for Bradley-Terry, r_C − r_R for
    MSE — in long form for plots: ``pair_id, model, measure ("P(chosen ≻ rejected)" / "r(chosen) − r(rejected)"),
    value, agreement, substantial``."""
    rows = []
    for kind, src in (("bt", _as_models(p_a, "BT")), ("mse", _as_models(reward_gap, "MSE"))):
        for name, s in src.items():
            s = s.astype(float)
            cl = classified.loc[s.index]
            v = _chosen_value(cl, s, kind, chosen)
            rows.append(
                pd.DataFrame(
                    {
                        "pair_id": s.index,
                        "model": name,
                        "measure": "P(chosen ≻ rejected)" if kind == "bt" else "r(chosen) − r(rejected)",
                        "value": np.asarray(v, float),
                        "agreement": cl["agreement"].to_numpy(),
                        "substantial": cl["substantial"].to_numpy(),
                    }
                )
            )
    if not rows:
        raise ValueError("chosen_values needs p_a and/or reward_gap")
    return pd.concat(rows, ignore_index=True)

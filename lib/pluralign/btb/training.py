"""Training the reward models of Beyond the Binary (Padmakumar et al. 2024, §2–3.3, footnote 6): one binary
judgment per pair (Eq. 1), train / validation / test splits (out-of-domain data sets only tested on), and
the learning-rate sweep with the model selected on validation data, for the Bradley–Terry loss (Eq. 1)
and the margin-regularized loss (Eq. 4). The losses themselves live in :mod:`pluralign.rewards.objectives`
(objectives ``"bt"`` and ``"bt-margin"``); models are trained through :mod:`pluralign.rewards`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pluralign.cache import fingerprint
from pluralign.data import combine
from pluralign.data.core import PreferenceData, member
from pluralign.data.spec import OodBy, load_specs, split
from pluralign.train_options import TrainOptions

__all__ = [
    "LR_SWEEP",
    "lr_grid",
    "select_lr",
    "binary_judgments",
    "splits",
    "training_splits",
    "Splits",
    "evaluation_splits",
    "validation_scores",
    "sweep",
]

# ---------------------------------------------------------------------------------------------
# Footnote 6: learning-rate sweep 1e-4 … 1e-6, best model on the validation data
# ---------------------------------------------------------------------------------------------
#: The paper's learning-rate sweep, a hyper-parameter (not a reported result) — footnote 6: "We run a
#: hyperparameter sweep of learning rates from 1e-04 to 1e-06 and select the best-performing model on the
#: validation data". The paper names the two ends, not the grid; this is the project's ONE definition of it:
#: one point per decade (the coarsest grid that holds both named ends, written as the paper writes them).
#: A page's parameters name it as ``lr_sweep: paper`` (:func:`lr_grid`) instead of repeating the numbers.
LR_SWEEP = (1e-4, 1e-5, 1e-6)


def lr_grid(value) -> list[float]:
    """The learning rates of a sweep from a page parameter: ``"paper"`` = footnote 6's grid :data:`LR_SWEEP`
    (the one place it is written), or an explicit list of positive numbers (e.g. the larger steps a linear
    head on frozen embeddings needs)."""
    if isinstance(value, str):
        if value != "paper":
            raise ValueError(f"lr_sweep must be 'paper' (footnote 6's grid) or a list of learning rates, not {value!r}")
        return list(LR_SWEEP)
    lrs = [float(v) for v in value]
    if not lrs or any(not v > 0 for v in lrs):
        raise ValueError(f"lr_sweep must be 'paper' or a non-empty list of positive learning rates, not {value!r}")
    return lrs


_LOWER_BETTER = ("loss", "l1", "error", "mse", "mae")


def select_lr(
    results: pd.DataFrame, metric: str | None = None, *, split: str = "validation", higher_is_better: bool | None = None
) -> float:
    """Footnote 6: "select the best-performing model on the validation data".

    The paper does not name the metric. Its validation data are the *binary* held-out pairs of the
    training sets (no ``p*`` there — ``p*`` exists only for the 150 test pairs, which must not be used
    for selection), so the natural reading is held-out pairwise accuracy; ``metric=None`` uses
    ``"accuracy"`` if the column exists, else ``"loss"``. Names containing loss / l1 / error / mse / mae
    are minimised, others maximised, unless ``higher_is_better`` says otherwise.

    ``results``: one row per (lr[, split]) with a ``lr`` column and metric columns; when a ``split``
    column exists only rows with ``split == "validation"`` are used (an error if there are none).
    Ties go to the first best row in the order given."""
    if "lr" not in results.columns:
        raise ValueError("results need an 'lr' column")
    r = results
    if "split" in r.columns:
        r = r[r["split"] == split]
        if r.empty:
            raise ValueError(f"no rows with split == {split!r}: select on the validation data, never the test set")
    if metric is None:
        metric = "accuracy" if "accuracy" in r.columns else "loss" if "loss" in r.columns else None
        if metric is None:
            raise ValueError("results have neither 'accuracy' nor 'loss'; pass metric=")
    if metric not in r.columns:
        raise ValueError(f"results lack the metric column {metric!r}")
    if r[metric].isna().all():
        raise ValueError(f"metric {metric!r} is missing for every learning rate")
    if higher_is_better is None:
        higher_is_better = not any(t in metric.lower() for t in _LOWER_BETTER)
    vals = r[metric].to_numpy(dtype=float)
    vals = np.where(np.isnan(vals), -np.inf if higher_is_better else np.inf, vals)
    i = int(np.argmax(vals) if higher_is_better else np.argmin(vals))
    return float(r["lr"].iloc[i])


def binary_judgments(data, seed: int = 0):
    """The paper's training data (§2, Eq. 1): **one** binary judgment ``j`` per pair.

    From a multi-annotator :class:`~pluralign.data.PreferenceData`, keep one annotator's non-tie
    judgment per pair, drawn with a NumPy generator seeded by ``(seed, pair_id)`` (reproducible and
    independent of the other pairs). Pairs on which every annotator tied have no binary judgment and
    are dropped — the count is recorded in ``meta['filters']``. Single-annotator data passes through
    (minus its ties). ``truth`` is kept."""
    ann = data.annotations
    nz = ann[ann["preference"] != 0]
    codes, uniques = pd.factorize(nz["pair_id"])  # pairs in order of first appearance, rows in their order
    rows = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(uniques))
    pick, names = np.zeros(len(uniques), dtype=int), [str(u) for u in uniques]
    for g in np.flatnonzero(counts > 1):
        rng = np.random.default_rng([int(seed), int(fingerprint(names[g])[:15], 16)])
        pick[g] = int(rng.integers(counts[g]))
    chosen = ann.loc[nz.index[rows[np.cumsum(counts) - counts + pick]]]
    ids = set(chosen["pair_id"])
    pairs = data.pairs[member(data.pairs["pair_id"], ids)].reset_index(drop=True)
    order = {p: i for i, p in enumerate(pairs["pair_id"])}
    chosen = chosen.sort_values("pair_id", key=lambda s: s.map(order)).reset_index(drop=True)
    meta = {**data.meta, "filters": list(data.meta.get("filters", []))}
    meta["filters"].append(
        {
            "filter": f"one binary judgment per pair (Beyond the Binary Eq. 1; seed {seed}): "
            "pairs where every annotator tied dropped",
            "removed": len(data.pairs) - len(pairs),
            "kept": len(pairs),
        }
    )
    truth = None if data.truth is None else data.truth[member(data.truth.index, ids)]
    return PreferenceData(pairs, chosen, meta, truth)


def splits(data, test: int | float, validation: int | float, seed: int = 0, out_of_domain=None) -> dict:
    """``{"train", "validation", "test"}`` :class:`~pluralign.data.PreferenceData` for §3.3.

    ``out_of_domain``: boolean Series indexed by ``pair_id`` (or a collection of pair ids): those
    pairs are *only* tested on, never trained or validated on (the paper's PRISM / UltraFeedback).
    The other (in-domain) pairs are split by :func:`pluralign.data.spec.split` into ``test`` held-out
    pairs, then ``validation`` pairs (footnote 6: the learning rate is chosen on validation data)
    and the training rest. The test set is the in-domain test pairs plus every out-of-domain pair.
    Every step is recorded in ``meta['filters']``."""
    ids = data.pairs["pair_id"]
    if out_of_domain is None:
        ood = pd.Series(False, index=ids.values)
    elif isinstance(out_of_domain, pd.Series) and out_of_domain.dtype == bool:
        ood = out_of_domain.reindex(ids.values).fillna(False).astype(bool)
    else:
        ood = pd.Series(ids.isin(set(out_of_domain)).values, index=ids.values)
    in_dom = data.subset(ids[~ood.values], reason="in-domain pairs") if ood.any() else data
    rest, test_id = split(in_dom, test, seed)
    train, val = split(rest, validation, seed + 1)
    test_ids = list(test_id.pairs["pair_id"]) + list(ids[ood.values])
    test_set = data.subset(test_ids, reason=f"test: {len(test_id)} in-domain held-out + {int(ood.sum())} out-of-domain")
    return {"train": train, "validation": val, "test": test_set}


def training_splits(data, test: int | float, validation: int | float, seed: int = 0, out_of_domain=None) -> dict:
    """:func:`splits` of the *full* data, then :func:`binary_judgments` on train and validation only.

    The order matters: the test pairs keep all their annotators, so pairs where every annotator tied
    (p* = ½, where margins matter most) stay testable; only the training and validation pairs need
    one binary judgment (Eq. 1), and only they lose all-tie pairs. ``test=0``: no test split (the
    test pairs come from elsewhere); ``{"train", "validation"}`` are then split from ``data`` alone.
    Returns ``{"train", "validation", "test"}`` (binary, binary, full; ``test`` None when
    ``test=0``) plus ``"train_full"``: the training pairs with all their annotators."""
    if test:
        sp = splits(data, test=test, validation=validation, seed=seed, out_of_domain=out_of_domain)
    else:
        tr, va = split(data, validation, seed + 1)
        sp = {"train": tr, "validation": va, "test": None}
    train = binary_judgments(sp["train"], seed=seed)
    return {
        "train": train,
        "validation": binary_judgments(sp["validation"], seed=seed),
        "test": sp["test"],
        "train_full": sp["train"].subset(list(train.pairs["pair_id"]), reason="pairs with a binary judgment"),
    }


def validation_scores(p_a: pd.Series, data) -> dict:
    """Footnote 6's validation data are binary held-out pairs: a reward model's pairwise
    ``accuracy`` on them (its P(A ≻ B) > ½ when the label is A; ½ counts half) and ``loss`` (the
    Bradley–Terry log-loss of Eq. 1 on those labels). The label of a pair is its majority
    (:meth:`PreferenceData.majority`); pairs whose majority is a tie (``n_tie``) or split evenly between A
    and B (``n_split``) are left out."""
    maj = data.majority()
    lab = maj[maj.isin(["A", "B"])]
    p = pd.Series(p_a).astype(float).reindex(lab.index)
    if p.isna().any():
        raise ValueError(f"p_a lacks {int(p.isna().sum())} validation pairs")
    a = (lab == "A").to_numpy()
    pv = p.to_numpy()
    acc = np.where(np.isclose(pv, 0.5), 0.5, (pv > 0.5) == a).astype(float).mean()
    q = np.clip(np.where(a, pv, 1 - pv), 1e-12, 1.0)
    return {
        "accuracy": float(acc),
        "loss": float(-np.log(q).mean()),
        "n": int(len(lab)),
        "n_tie": int((maj == "tie").sum()),
        "n_split": int((maj == "split").sum()),
    }


def sweep(
    rm,
    train,
    validation,
    lrs: Iterable[float] = LR_SWEEP,
    *,
    objective: str = "bt",
    margins=None,
    metric: str | None = "accuracy",
    options: TrainOptions | None = None,
):
    """Footnote 6: train ``rm`` with ``options`` once per learning rate in ``lrs`` (objective ``"bt"`` = Eq. 1, or
    ``"bt-margin"`` = Eq. 4 with ``margins`` from :func:`training_margins`), score each model on the
    binary ``validation`` pairs (:func:`validation_scores`) and keep the best by ``metric``
    (:func:`select_lr`). Every trained model is cached by :meth:`RewardModel.train`.

    Returns ``(best_model, results)``; ``results`` has one row per learning rate: ``objective, lr,
    split ("validation"), accuracy, loss, n, selected``."""
    models, rows = {}, []
    lrs = [float(v) for v in lrs]
    if not lrs:
        raise ValueError("lrs is empty")
    for lr in lrs:
        m = rm.train(
            train, margins=margins if objective == "bt-margin" else None, options=options, lr=lr, objective=objective
        )
        sc = validation_scores(m.prob_a(validation, progress=False), validation)
        models[lr] = m
        rows.append({"objective": objective, "lr": lr, "split": "validation", **sc})
    res = pd.DataFrame(rows)
    best = select_lr(res, metric)
    res["selected"] = res["lr"] == best
    return models[best], res


@dataclass
class Splits:
    """The data of the reward-model comparison (§3.3–3.4): ``train`` and ``validation`` with one binary
    judgment per pair (Eq. 1), ``train_full`` (the training pairs with all their annotators, for margins
    from real annotators), ``test`` (held-out in-domain pairs with all their annotators, every out-of-domain
    pair and the evaluation-only data sets) and ``everything`` (the training data and the evaluation-only
    data sets combined: where p* and the categories are looked up)."""

    train: PreferenceData
    validation: PreferenceData
    train_full: PreferenceData
    test: PreferenceData
    everything: PreferenceData
    filters: list = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """Pairs per split."""
        return pd.DataFrame(
            [
                {"split": k, "pairs": len(v)}
                for k, v in {"train": self.train, "validation": self.validation, "test": self.test}.items()
            ]
        )


def evaluation_splits(
    full: PreferenceData,
    *,
    test_only=(),
    test_per_dataset=0,
    ood_by: OodBy | None = None,
    test_size: int | float = 0,
    validation_size: int | float = 0.1,
    seed: int = 0,
) -> Splits:
    """The paper's setting for Tables 1–2 from the training data ``full`` and the evaluation-only data specs
    ``test_only`` (each sub-sampled to ``test_per_dataset`` pairs, an int or ``{data set: n}``; the paper:
    25 per data set). A test pair that also occurs in ``full`` is never trained on (recorded as a filter).
    ``ood_by`` (:class:`pluralign.btb.settings.OodBy`) holds the pairs whose truth (or pairs) column ``column``
    takes one of ``values`` out as out-of-domain: tested on only. Then :func:`training_splits` with ``test_size``
    in-domain test pairs and ``validation_size`` validation pairs."""
    extra = load_specs(list(test_only), per_dataset=test_per_dataset, seed=seed)[1] if test_only else []
    held = set().union(*[set(x.pairs["pair_id"]) for x in extra]) if extra else set()
    if held & set(full.pairs["pair_id"]):
        full = full.subset(
            [i for i in full.pairs["pair_id"] if i not in held], reason="test pairs held out of training"
        )
    everything = combine(full, *extra) if extra else full
    ood_ids = []
    if ood_by:
        col = (
            full.truth[ood_by.column]
            if full.truth is not None and ood_by.column in full.truth
            else full.pairs.set_index("pair_id")[ood_by.column]
        )
        ood_ids = list(col.index[col.isin(ood_by.values)])
    sp = training_splits(full, test=test_size, validation=validation_size, seed=seed, out_of_domain=set(ood_ids))
    tests = [x for x in (sp["test"], *extra) if x is not None]
    test = combine(*tests) if len(tests) > 1 else tests[0]
    return Splits(
        sp["train"], sp["validation"], sp["train_full"], test, everything, list(sp["train"].meta.get("filters", []))
    )

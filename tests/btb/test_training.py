"""Beyond the Binary (004) Eq. 1's one binary judgment per pair, the ID/OOD splits (§3.2), validation scores and the
footnote-6 learning-rate sweep (pluralign.btb.training)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb import training as T
from pluralign.data.core import PreferenceData
from pluralign.data.spec import OodBy
from pluralign.train_options import TrainOptions


def _prefs_data(prefs: dict[str, list[int]]) -> PreferenceData:
    ids = list(prefs)
    pairs = pd.DataFrame(
        {
            "pair_id": ids,
            "dataset": "t",
            "split": "test",
            "prompt": [f"q{i}" for i in ids],
            "response_a": [f"a{i}" for i in ids],
            "response_b": [f"b{i}" for i in ids],
        }
    )
    rows = [(pid, f"h{k}", v) for pid, vs in prefs.items() for k, v in enumerate(vs)]
    ann = pd.DataFrame(rows, columns=["pair_id", "annotator_id", "preference"])
    return PreferenceData(pairs, ann, {"name": "t"})


def test_binary_judgments_one_non_tie_judgment_per_pair():
    d = _prefs_data({"p1": [-2, 0, 1], "p2": [0, 0], "p3": [1], "p4": [-1, -2, -1]})
    b = T.binary_judgments(d, seed=0)
    assert list(b.pairs["pair_id"]) == ["p1", "p3", "p4"]  # p2: every annotator tied → dropped
    assert b.n_annotators().tolist() == [1, 1, 1]
    assert (b.annotations["preference"] != 0).all()
    got = dict(zip(b.annotations["pair_id"], b.annotations["preference"]))
    assert got["p1"] in (-2, 1) and got["p3"] == 1 and got["p4"] < 0
    f = b.meta["filters"][-1]
    assert (f["removed"], f["kept"]) == (1, 3)
    # reproducible, and a pair's draw does not depend on the other pairs present
    assert T.binary_judgments(d, seed=0).annotations.equals(b.annotations)
    alone = T.binary_judgments(d.subset(["p1"]), seed=0)
    assert alone.annotations["preference"].iloc[0] == got["p1"]
    # across seeds both of p1's non-tie judgments get drawn
    drawn = {int(T.binary_judgments(d.subset(["p1"]), seed=s).annotations["preference"].iloc[0]) for s in range(20)}
    assert drawn == {-2, 1}


def test_binary_judgments_keeps_population_share_on_simulator():
    from pluralign.data import simulate

    d = simulate(n_pairs=600, seed=3)
    b = T.binary_judgments(d, seed=0)
    assert b.truth is not None and set(b.truth.index) == set(b.pairs["pair_id"])
    # the kept judgment is one random annotator's vote: P(j = A) tracks the planted share among non-ties
    lab_a = (b.annotations.set_index("pair_id")["preference"] < 0).astype(float)
    p = b.truth["share_a"].reindex(lab_a.index)
    assert np.corrcoef(lab_a, p)[0, 1] > 0.5


def test_splits_keep_out_of_domain_pairs_out_of_training():
    from pluralign.data import simulate

    d = simulate(n_pairs=300, seed=2)
    ood = d.truth["prompt_type"] == "creative"
    s = T.splits(d, test=60, validation=40, seed=0, out_of_domain=ood)
    ids = {k: set(v.pairs["pair_id"]) for k, v in s.items()}
    assert not (ids["train"] & ids["validation"] or ids["train"] & ids["test"] or ids["validation"] & ids["test"])
    assert ids["train"] | ids["validation"] | ids["test"] == set(d.pairs["pair_id"])
    ood_ids = set(ood.index[ood])
    assert ood_ids and ood_ids <= ids["test"]
    assert len(ids["test"]) == 60 + len(ood_ids) and len(ids["validation"]) == 40
    # without OOD: plain three-way split; the same seed gives the same split
    s2 = T.splits(d, test=0.2, validation=0.1, seed=0)
    assert len(s2["test"]) == 60 and len(s2["validation"]) == 24
    assert set(T.splits(d, test=0.2, validation=0.1, seed=0)["test"].pairs["pair_id"]) == set(
        s2["test"].pairs["pair_id"]
    )


def test_validation_scores_hand_values():
    d = _prefs_data({"p1": [-2], "p2": [1, 2], "p3": [0], "p4": [-1, 1]})  # majorities A, B, tie, split
    p = pd.Series({"p1": 0.8, "p2": 0.3, "p3": 0.9, "p4": 0.1})
    s = T.validation_scores(p, d)
    assert s["accuracy"] == pytest.approx(1.0) and (s["n"], s["n_tie"], s["n_split"]) == (2, 1, 1)
    assert s["loss"] == pytest.approx(-(math.log(0.8) + math.log(0.7)) / 2)
    s = T.validation_scores(pd.Series({"p1": 0.5, "p2": 0.9, "p3": 0.0, "p4": 0.0}), d)
    assert s["accuracy"] == pytest.approx(0.25)  # ½ counts half, p2 wrong
    with pytest.raises(ValueError, match="lacks 1"):
        T.validation_scores(p.drop("p2"), d)


class _LRModel:
    """A reward model double whose quality depends on the learning rate (best at 1e-5)."""

    def __init__(self, calls):
        self.calls = calls

    def train(self, data, *, lr, objective, margins=None, options=None):
        self.calls.append((lr, objective, margins is not None, options))
        good = {1e-4: 0.6, 1e-5: 0.9, 1e-6: 0.7}[lr]
        return _Fitted(good)


class _Fitted:
    def __init__(self, good):
        self.good = good

    def prob_a(self, data, progress=True):
        maj = data.majority()
        right = np.arange(len(maj)) < int(round(self.good * len(maj)))  # the first share of pairs right
        a = (maj == "A").to_numpy()
        return pd.Series(np.where(right == a, 0.8, 0.2), index=maj.index)


def test_sweep_selects_on_validation_and_passes_margins():
    d = _prefs_data({f"p{i}": [-1 if i % 2 else 1] for i in range(10)})
    calls = []
    best, res = T.sweep(
        _LRModel(calls),
        d,
        d,
        objective="bt-margin",
        margins=pd.Series(0.5, index=d.pairs["pair_id"]),
        options=TrainOptions(epochs=3),
    )
    assert best.good == 0.9
    assert res["lr"].tolist() == [1e-4, 1e-5, 1e-6] and res["selected"].tolist() == [False, True, False]
    assert (res["split"] == "validation").all() and res["accuracy"].tolist() == pytest.approx([0.6, 0.9, 0.7])
    assert res.loc[res["selected"], "loss"].iloc[0] == pytest.approx(-(9 * math.log(0.8) + math.log(0.2)) / 10)
    assert all(c[1] == "bt-margin" and c[2] and c[3] == TrainOptions(epochs=3) for c in calls)
    best, res = T.sweep(_LRModel([]), d, d, metric="loss")  # minimised
    assert res.loc[res["selected"], "lr"].iloc[0] == 1e-5 and res["loss"].idxmin() == 1
    with pytest.raises(ValueError, match="empty"):
        T.sweep(_LRModel([]), d, d, lrs=[])


@pytest.mark.slow
def test_baseline_vs_regularized_on_simulator_measured_with_cis():
    """On the simulator the regularized RM's correlation with the known p* is
    reported against the baseline's with CIs (whatever the sign)."""
    from pluralign import rewards
    from pluralign.data import simulate

    d = simulate(n_pairs=300, seed=5)
    s = T.splits(T.binary_judgments(d, seed=0), test=100, validation=50, seed=0)
    p_star = d.truth["share_a"]
    judge = M.SimulatedJudge(d, p_star, noise=1.0, seed=0)
    margins = M.training_margins(M.synthetic_judgments(judge, s["train"], n=10, method="logprob"))
    rm = rewards.load(None)
    base, r_b = T.sweep(
        rm, s["train"], s["validation"], lrs=(1e-1, 1e-2), objective="bt", options=TrainOptions(epochs=10)
    )
    reg, r_r = T.sweep(
        rm,
        s["train"],
        s["validation"],
        lrs=(1e-1, 1e-2),
        objective="bt-margin",
        margins=margins,
        options=TrainOptions(epochs=10),
    )
    test = s["test"]
    cmp = E.compare(p_star.reindex(test.pairs["pair_id"]), base.prob_a(test), reg.prob_a(test), n_boot=300)
    row = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    assert row["n"] == 100
    for c in ("baseline", "regularized"):
        assert row[f"{c}_lo"] <= row[c] <= row[f"{c}_hi"]
        assert row[c] > 0.2  # both RMs learn the population's leaning
    assert row["delta_lo"] <= row["delta"] <= row["delta_hi"]
    # the table's r are the RMs' own correlations with p* on the test pairs (recomputed independently)
    ids = list(test.pairs["pair_id"])
    ps = p_star.reindex(ids).to_numpy()
    for c, model in (("baseline", base), ("regularized", reg)):
        assert row[c] == pytest.approx(np.corrcoef(ps, model.prob_a(test).reindex(ids).to_numpy())[0, 1])


def test_training_splits_keep_all_tie_pairs_testable():
    """Split the full data first, binary judgments for train / validation only: pairs where every
    annotator tied (p* = ½) can land in the test set (they could not when splitting binary data)."""
    prefs = {f"p{i:02d}": ([0, 0, 0] if i % 4 == 0 else [-1, 1, -2]) for i in range(40)}
    d = _prefs_data(prefs)
    ties = {k for k, v in prefs.items() if v == [0, 0, 0]}
    s = T.training_splits(d, test=20, validation=8, seed=0)
    test_ids = set(s["test"].pairs["pair_id"])
    assert test_ids == set(T.splits(d, test=20, validation=8, seed=0)["test"].pairs["pair_id"])
    assert test_ids & ties  # p* = ½ pairs are tested
    assert s["test"].n_annotators().eq(3).all()  # with every annotator
    assert s["test"].share_a().reindex(list(test_ids & ties)).eq(0.5).all()
    for k in ("train", "validation"):
        assert not set(s[k].pairs["pair_id"]) & ties  # no binary judgment there: dropped
        assert s[k].n_annotators().eq(1).all() and (s[k].annotations["preference"] != 0).all()
        assert not set(s[k].pairs["pair_id"]) & test_ids
    assert list(s["train_full"].pairs["pair_id"]) == list(s["train"].pairs["pair_id"])
    assert s["train_full"].n_annotators().eq(3).all()
    s0 = T.training_splits(d, test=0, validation=8, seed=0)  # no test split: test pairs come from elsewhere
    assert s0["test"] is None
    assert len(s0["validation"]) <= 8
    assert set(s0["train"].pairs["pair_id"]) | set(s0["validation"].pairs["pair_id"]) == set(prefs) - ties


def test_select_lr_on_validation():
    res = pd.DataFrame(
        {
            "lr": [1e-4, 1e-5, 1e-6] * 2,
            "split": ["validation"] * 3 + ["test"] * 3,
            "accuracy": [0.61, 0.68, 0.64, 0.9, 0.5, 0.5],
            "loss": [0.7, 0.6, 0.65, 0.1, 0.9, 0.9],
        }
    )
    assert T.select_lr(res) == 1e-5  # accuracy, validation rows only
    assert T.select_lr(res, "loss") == 1e-5  # minimised
    assert T.select_lr(res, "accuracy", split="test") == 1e-4
    assert T.select_lr(res.drop(columns="accuracy")) == 1e-5
    with pytest.raises(ValueError, match="never the test set"):
        T.select_lr(res[res["split"] == "test"])
    with pytest.raises(ValueError, match="lack the metric"):
        T.select_lr(res, "pearson")


def test_the_learning_rate_grid_is_written_once():
    """Footnote 6 ("from 1e-04 to 1e-06"): the library's grid lives in btb.training.LR_SWEEP only; parameters name
    it ("paper") and no file of the library, the notebooks or the parameter files writes it again — but the paper's
    recipe: its transcription (pluralign.paper.recipe) and the paper profile's file, which tests/test_paper_recipe.py
    checks against each other and against LR_SWEEP."""
    import re
    from pathlib import Path

    assert T.LR_SWEEP == (1e-4, 1e-5, 1e-6) and not hasattr(T, "lr_sweep")
    assert T.lr_grid("paper") == list(T.LR_SWEEP) and T.lr_grid([0.1, 1e-2]) == [0.1, 0.01]
    for bad in ("1e-4..1e-6", [], [1e-4, 0]):
        with pytest.raises(ValueError, match="lr_sweep must be 'paper'"):
            T.lr_grid(bad)
    root = Path(__file__).resolve().parents[2]
    # a list, tuple or logspace that starts at 1e-4 (however written) is a second copy of the grid
    again = re.compile(r"[\[(]\s*1(\.0*)?e-0*4\s*,|logspace\(\s*-4")
    hits = [
        f"{f.relative_to(root)}:{i}"
        for folder in ("lib", "notebooks", "params")
        for f in (root / folder).rglob("*")
        if f.suffix in (".py", ".yml", ".yaml")
        for i, line in enumerate(f.read_text().splitlines(), 1)
        if again.search(line)
        and not line.lstrip().startswith("assert")
        and not f.is_relative_to(root / "params" / "paper")
        and f != root / "lib" / "pluralign" / "paper" / "recipe.py"
    ]
    assert hits == [
        "lib/pluralign/btb/training.py:"
        + str(
            next(
                i
                for i, line in enumerate((root / "lib/pluralign/btb/training.py").read_text().splitlines(), 1)
                if line.startswith("LR_SWEEP = ")
            )
        )
    ], hits
    from pluralign import btb
    from pluralign.params import read_params

    paper = read_params(root / "params" / "paper" / "btb-rewards.yml")
    assert paper["training"]["lr_sweep"] == list(T.LR_SWEEP)  # the paper profile writes footnote 6's grid
    assert btb.setup().settings.training.lr_sweep == list(T.LR_SWEEP)
    assert btb.setup(training={"lr_sweep": "paper"}).settings.training.lr_sweep == list(T.LR_SWEEP)


def test_evaluation_splits_hold_out_ood_and_test_only():
    from pluralign.data import simulate

    d = simulate(n_pairs=200, seed=4)
    sp = T.evaluation_splits(
        d, ood_by=OodBy(column="prompt_type", values=["creative"]), test_size=40, validation_size=30, seed=0
    )
    creative = set(d.truth.index[d.truth["prompt_type"] == "creative"])
    train_ids = set(sp.train.pairs["pair_id"]) | set(sp.validation.pairs["pair_id"])
    assert creative and not creative & train_ids and creative <= set(sp.test.pairs["pair_id"])
    assert len(sp.test) == 40 + len(creative)
    assert sp.table()["pairs"].tolist() == [len(sp.train), len(sp.validation), len(sp.test)]
    assert sp.everything is d

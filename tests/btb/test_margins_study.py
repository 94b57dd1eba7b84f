"""Beyond the Binary (004) Part III helpers in pluralign.btb: the paper's one-binary-judgment
training data (Eq. 1), ID/OOD splits (§3.2), the offline simulated judge (§3.3 stand-in), side
agreement, validation scores and the footnote-6 learning-rate sweep."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb import training as T
from pluralign.data.core import PreferenceData


def _data(prefs: dict[str, list[int]]) -> PreferenceData:
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
    d = _data({"p1": [-2, 0, 1], "p2": [0, 0], "p3": [1], "p4": [-1, -2, -1]})
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


def test_simulated_judge_is_p_star_plus_seeded_log_odds_noise():
    d = _data({"p1": [-1], "p2": [1], "p3": [0]})
    p_star = pd.Series({"p1": 0.8, "p2": 0.0, "p3": 0.5})
    exact = M.SimulatedJudge(d, p_star, noise=0.0)
    assert exact.judge_ab("qp1", "ap1", "bp1") == pytest.approx(0.8)
    assert exact.judge_ab("qp2", "ap2", "bp2") == pytest.approx(1e-3)  # clipped away from 0
    noisy = M.SimulatedJudge(d, p_star, noise=1.0, seed=7)
    z = math.log(noisy.judge_ab("qp1", "ap1", "bp1") / (1 - noisy.judge_ab("qp1", "ap1", "bp1")))
    # logit(p*) + noise · ε, ε from the judge's own salted stream (seed, 1, pair)
    key = int(M._item_key("qp1", "ap1", "bp1")[:15], 16)
    eps = np.random.default_rng([7, 1, key]).standard_normal()
    assert z == pytest.approx(math.log(4) + eps)
    louder = M.SimulatedJudge(d, p_star, noise=2.5, seed=7).judge_ab("qp1", "ap1", "bp1")
    assert math.log(louder / (1 - louder)) == pytest.approx(math.log(4) + 2.5 * eps)  # noise scales ε
    # not the stream synthetic_judgments(method="logprob", seed=7) draws the pair's n votes from
    assert eps != np.random.default_rng([7, key]).standard_normal()
    # the noise of a pair does not depend on the other pairs, only on (seed, texts)
    again = M.SimulatedJudge(d.subset(["p1"]), p_star, noise=1.0, seed=7)
    assert again.judge_ab("qp1", "ap1", "bp1") == noisy.judge_ab("qp1", "ap1", "bp1")
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.0, seed=8).fingerprint()
    # fingerprint = (noise, seed, clip) and the p* it serves: the same inputs → the same fingerprint,
    # any of them changed → a different one
    assert noisy.fingerprint() == M.SimulatedJudge(d, p_star.copy(), noise=1.0, seed=7).fingerprint()
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.5, seed=7).fingerprint()
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.0, seed=7, clip=0.01).fingerprint()
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star.replace(0.8, 0.6), noise=1.0, seed=7).fingerprint()
    with pytest.raises(KeyError, match="only for the pairs"):
        noisy.judge_ab("other", "a", "b")
    with pytest.raises(ValueError, match="lacks 1"):
        M.SimulatedJudge(d, p_star.drop("p3"))


def test_simulated_judge_through_synthetic_judgments_and_side_agreement():
    from pluralign.data import simulate

    d = simulate(n_pairs=500, seed=4)
    p_star = d.truth["share_a"]
    acc = []
    for noise in (0.0, 1.0, 3.0):
        judge = M.SimulatedJudge(d, p_star, noise=noise, seed=0)
        sj = M.synthetic_judgments(judge, d, n=10, method="logprob", seed=0).set_index("pair_id")
        acc.append(E.side_agreement(p_star, sj["p_a"], n_boot=200)["value"])
        if noise == 0.0:  # n = 10 Bernoulli(p*) votes: the margin tracks |2p* − 1|
            assert np.corrcoef(sj["margin"], (2 * p_star - 1).abs().reindex(sj.index))[0, 1] > 0.8
    assert acc[0] == pytest.approx(1.0)
    assert acc[0] > acc[1] > acc[2] > 0.5  # a noisier judge sides with the population less often


def test_side_agreement_hand_values():
    p_star = pd.Series({"a": 0.9, "b": 0.2, "c": 0.5, "d": 0.7})
    p = pd.Series({"a": 0.6, "b": 0.7, "c": 0.1, "d": 0.5})
    r = E.side_agreement(p_star, p, n_boot=200)
    assert r["value"] == pytest.approx((1 + 0 + 0.5) / 3)  # c has p* = 1/2: left out; d: p = 1/2 counts half
    assert (r["n"], r["n_even"]) == (3, 1)
    assert r["lo"] <= r["value"] <= r["hi"]
    with pytest.raises(ValueError, match="no side"):
        E.side_agreement(pd.Series({"a": 0.5}), pd.Series({"a": 0.3}))


def test_validation_scores_hand_values():
    d = _data({"p1": [-2], "p2": [1, 2], "p3": [0], "p4": [-1, 1]})  # majorities A, B, tie, split
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

    def train(self, data, *, lr, objective, margins=None, **kw):
        self.calls.append((lr, objective, margins is not None, kw))
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
    d = _data({f"p{i}": [-1 if i % 2 else 1] for i in range(10)})
    calls = []
    best, res = T.sweep(
        _LRModel(calls), d, d, objective="bt-margin", margins=pd.Series(0.5, index=d.pairs["pair_id"]), epochs=3
    )
    assert best.good == 0.9
    assert res["lr"].tolist() == [1e-4, 1e-5, 1e-6] and res["selected"].tolist() == [False, True, False]
    assert (res["split"] == "validation").all() and res["accuracy"].tolist() == pytest.approx([0.6, 0.9, 0.7])
    assert res.loc[res["selected"], "loss"].iloc[0] == pytest.approx(-(9 * math.log(0.8) + math.log(0.2)) / 10)
    assert all(c[1] == "bt-margin" and c[2] and c[3] == {"epochs": 3} for c in calls)
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
    base, r_b = T.sweep(rm, s["train"], s["validation"], lrs=(1e-1, 1e-2), objective="bt", epochs=10)
    reg, r_r = T.sweep(
        rm, s["train"], s["validation"], lrs=(1e-1, 1e-2), objective="bt-margin", margins=margins, epochs=10
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
    d = _data(prefs)
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


def test_judgments_from_dispatches_the_margin_source():
    from pluralign.data import simulate

    d = simulate(n_pairs=60, seed=1)
    got = M.judgments_from("simulated", d, n=10, seed=3, noise=0.5)
    want = M.synthetic_judgments(
        M.SimulatedJudge(d, d.truth["share_a"], noise=0.5, seed=3), d, n=10, method="logprob", seed=3
    )
    pd.testing.assert_frame_equal(got, want)
    ann = M.judgments_from("annotators", d)
    pd.testing.assert_frame_equal(ann, M.margins_from_annotators(d))
    with pytest.raises(ValueError, match="needs judge"):
        M.judgments_from("llm", d)
    with pytest.raises(ValueError, match="simulated, llm or annotators"):
        M.judgments_from("oracle", d)

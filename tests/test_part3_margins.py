"""Beyond the Binary (004) book Part III helpers in pluralign.margins: the paper's one-binary-judgment
training data (Eq. 1), ID/OOD splits (§3.2), the offline simulated judge (§3.3 stand-in), side
agreement, validation scores and the footnote-6 learning-rate sweep."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pluralign import margins as M
from pluralign.data.core import PreferenceData


def _data(prefs: dict[str, list[int]]) -> PreferenceData:
    ids = list(prefs)
    pairs = pd.DataFrame({"pair_id": ids, "dataset": "t", "split": "test", "prompt": [f"q{i}" for i in ids],
                          "response_a": [f"a{i}" for i in ids], "response_b": [f"b{i}" for i in ids]})
    rows = [(pid, f"h{k}", v) for pid, vs in prefs.items() for k, v in enumerate(vs)]
    ann = pd.DataFrame(rows, columns=["pair_id", "annotator_id", "preference"])
    return PreferenceData(pairs, ann, {"name": "t"})


def test_binary_judgments_one_non_tie_judgment_per_pair():
    d = _data({"p1": [-2, 0, 1], "p2": [0, 0], "p3": [1], "p4": [-1, -2, -1]})
    b = M.binary_judgments(d, seed=0)
    assert list(b.pairs["pair_id"]) == ["p1", "p3", "p4"]          # p2: every annotator tied → dropped
    assert b.n_annotators().tolist() == [1, 1, 1]
    assert (b.annotations["preference"] != 0).all()
    got = dict(zip(b.annotations["pair_id"], b.annotations["preference"]))
    assert got["p1"] in (-2, 1) and got["p3"] == 1 and got["p4"] < 0
    f = b.meta["filters"][-1]
    assert (f["removed"], f["kept"]) == (1, 3)
    # reproducible, and a pair's draw does not depend on the other pairs present
    assert M.binary_judgments(d, seed=0).annotations.equals(b.annotations)
    alone = M.binary_judgments(d.subset(["p1"]), seed=0)
    assert alone.annotations["preference"].iloc[0] == got["p1"]
    # across seeds both of p1's non-tie judgments get drawn
    drawn = {int(M.binary_judgments(d.subset(["p1"]), seed=s).annotations["preference"].iloc[0]) for s in range(20)}
    assert drawn == {-2, 1}


def test_binary_judgments_keeps_population_share_on_simulator():
    from pluralign.data import simulate
    d = simulate(n_pairs=600, seed=3)
    b = M.binary_judgments(d, seed=0)
    assert b.truth is not None and set(b.truth.index) == set(b.pairs["pair_id"])
    # the kept judgment is one random annotator's vote: P(j = A) tracks the planted share among non-ties
    lab_a = (b.annotations.set_index("pair_id")["preference"] < 0).astype(float)
    p = b.truth["share_a"].reindex(lab_a.index)
    assert np.corrcoef(lab_a, p)[0, 1] > 0.5


def test_splits_keep_out_of_domain_pairs_out_of_training():
    from pluralign.data import simulate
    d = simulate(n_pairs=300, seed=2)
    ood = d.truth["prompt_type"] == "creative"
    s = M.splits(d, test=60, validation=40, seed=0, out_of_domain=ood)
    ids = {k: set(v.pairs["pair_id"]) for k, v in s.items()}
    assert not (ids["train"] & ids["validation"] or ids["train"] & ids["test"] or ids["validation"] & ids["test"])
    assert ids["train"] | ids["validation"] | ids["test"] == set(d.pairs["pair_id"])
    ood_ids = set(ood.index[ood])
    assert ood_ids and ood_ids <= ids["test"]
    assert len(ids["test"]) == 60 + len(ood_ids) and len(ids["validation"]) == 40
    # without OOD: plain three-way split; the same seed gives the same split
    s2 = M.splits(d, test=0.2, validation=0.1, seed=0)
    assert len(s2["test"]) == 60 and len(s2["validation"]) == 24
    assert set(M.splits(d, test=0.2, validation=0.1, seed=0)["test"].pairs["pair_id"]) == set(s2["test"].pairs["pair_id"])


def test_simulated_judge_is_p_star_plus_seeded_log_odds_noise():
    d = _data({"p1": [-1], "p2": [1], "p3": [0]})
    p_star = pd.Series({"p1": 0.8, "p2": 0.0, "p3": 0.5})
    exact = M.SimulatedJudge(d, p_star, noise=0.0)
    assert exact.judge_ab("qp1", "ap1", "bp1") == pytest.approx(0.8)
    assert exact.judge_ab("qp2", "ap2", "bp2") == pytest.approx(1e-3)          # clipped away from 0
    noisy = M.SimulatedJudge(d, p_star, noise=1.0, seed=7)
    z = math.log(noisy.judge_ab("qp1", "ap1", "bp1") / (1 - noisy.judge_ab("qp1", "ap1", "bp1")))
    assert z != pytest.approx(math.log(4))
    # the noise of a pair does not depend on the other pairs, only on (seed, texts)
    again = M.SimulatedJudge(d.subset(["p1"]), p_star, noise=1.0, seed=7)
    assert again.judge_ab("qp1", "ap1", "bp1") == noisy.judge_ab("qp1", "ap1", "bp1")
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.0, seed=8).fingerprint()
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
        acc.append(M.side_agreement(p_star, sj["p_a"], n_boot=200)["value"])
        if noise == 0.0:   # n = 10 Bernoulli(p*) votes: the margin tracks |2p* − 1|
            assert np.corrcoef(sj["margin"], (2 * p_star - 1).abs().reindex(sj.index))[0, 1] > 0.8
    assert acc[0] == pytest.approx(1.0)
    assert acc[0] > acc[1] > acc[2] > 0.5          # a noisier judge sides with the population less often


def test_side_agreement_hand_values():
    p_star = pd.Series({"a": 0.9, "b": 0.2, "c": 0.5, "d": 0.7})
    p = pd.Series({"a": 0.6, "b": 0.7, "c": 0.1, "d": 0.5})
    r = M.side_agreement(p_star, p, n_boot=200)
    assert r["value"] == pytest.approx((1 + 0 + 0.5) / 3)       # c has p* = 1/2: left out; d: p = 1/2 counts half
    assert (r["n"], r["n_even"]) == (3, 1)
    assert r["lo"] <= r["value"] <= r["hi"]
    with pytest.raises(ValueError, match="no side"):
        M.side_agreement(pd.Series({"a": 0.5}), pd.Series({"a": 0.3}))


def test_validation_scores_hand_values():
    d = _data({"p1": [-2], "p2": [1, 2], "p3": [0], "p4": [-1, 1]})   # majorities A, B, tie, tie
    p = pd.Series({"p1": 0.8, "p2": 0.3, "p3": 0.9, "p4": 0.1})
    s = M.validation_scores(p, d)
    assert s["accuracy"] == pytest.approx(1.0) and (s["n"], s["n_tie"]) == (2, 2)
    assert s["loss"] == pytest.approx(-(math.log(0.8) + math.log(0.7)) / 2)
    s = M.validation_scores(pd.Series({"p1": 0.5, "p2": 0.9, "p3": 0.0, "p4": 0.0}), d)
    assert s["accuracy"] == pytest.approx(0.25)                         # ½ counts half, p2 wrong
    with pytest.raises(ValueError, match="lacks 1"):
        M.validation_scores(p.drop("p2"), d)


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
        right = np.arange(len(maj)) < int(round(self.good * len(maj)))    # the first share of pairs right
        a = (maj == "A").to_numpy()
        return pd.Series(np.where(right == a, 0.8, 0.2), index=maj.index)


def test_sweep_selects_on_validation_and_passes_margins():
    d = _data({f"p{i}": [-1 if i % 2 else 1] for i in range(10)})
    calls = []
    best, res = M.sweep(_LRModel(calls), d, d, objective="bt-margin", margins=pd.Series(0.5, index=d.pairs["pair_id"]),
                        epochs=3)
    assert best.good == 0.9
    assert res["lr"].tolist() == [1e-4, 1e-5, 1e-6] and res["selected"].tolist() == [False, True, False]
    assert (res["split"] == "validation").all() and res["accuracy"].tolist() == pytest.approx([0.6, 0.9, 0.7])
    assert res.loc[res["selected"], "loss"].iloc[0] == pytest.approx(-(9 * math.log(0.8) + math.log(0.2)) / 10)
    assert all(c[1] == "bt-margin" and c[2] and c[3] == {"epochs": 3} for c in calls)
    best, res = M.sweep(_LRModel([]), d, d, metric="loss")        # minimised
    assert res.loc[res["selected"], "lr"].iloc[0] == 1e-5 and res["loss"].idxmin() == 1
    with pytest.raises(ValueError, match="empty"):
        M.sweep(_LRModel([]), d, d, lrs=[])


@pytest.mark.slow
def test_baseline_vs_regularized_on_simulator_measured_with_cis():
    """Issue 7's done-when: on the simulator the regularized RM's correlation with the known p* is
    reported against the baseline's with CIs (whatever the sign)."""
    from pluralign import rewards
    from pluralign.data import simulate
    d = simulate(n_pairs=300, seed=5)
    s = M.splits(M.binary_judgments(d, seed=0), test=100, validation=50, seed=0)
    p_star = d.truth["share_a"]
    judge = M.SimulatedJudge(d, p_star, noise=1.0, seed=0)
    margins = M.training_margins(M.synthetic_judgments(judge, s["train"], n=10, method="logprob"))
    rm = rewards.load(None)
    base, r_b = M.sweep(rm, s["train"], s["validation"], lrs=(1e-1, 1e-2), objective="bt", epochs=10)
    reg, r_r = M.sweep(rm, s["train"], s["validation"], lrs=(1e-1, 1e-2), objective="bt-margin",
                       margins=margins, epochs=10)
    test = s["test"]
    cmp = M.compare(p_star.reindex(test.pairs["pair_id"]), base.prob_a(test), reg.prob_a(test), n_boot=300)
    row = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    assert row["n"] == 100
    for c in ("baseline", "regularized"):
        assert row[f"{c}_lo"] <= row[c] <= row[f"{c}_hi"]
        assert row[c] > 0.2                                   # both RMs learn the population's leaning
    assert row["delta_lo"] <= row["delta"] <= row["delta_hi"]
    assert row["delta"] == pytest.approx(row["regularized"] - row["baseline"])


def test_category_summary_hand_values():
    from pluralign.subjectivity import category_summary
    kind = pd.Series({"a": "single", "b": "multiple", "c": "multiple", "d": None})
    dist = pd.Series({"a": True, "b": False, "c": True, "d": True})
    p = pd.Series({"a": 1.0, "b": 0.5, "c": 0.7, "d": 0.2})
    t = category_summary(kind, dist, p).set_index(["dimension", "category"])
    assert t.loc[("plurality of responses", "Multiple Correct"), "n"] == 2
    assert t.loc[("plurality of responses", "unassigned"), "n"] == 1          # counted, not dropped
    assert t.loc[("plurality of responses", "Multiple Correct"), "mean_p_star"] == pytest.approx(0.6)
    assert t.loc[("plurality of responses", "Multiple Correct"), "mean_agreement"] == pytest.approx((0 + 0.4) / 2)
    assert t.loc[("distinguishability", "Distinguishable"), "share"] == pytest.approx(0.75)
    assert t.loc[("distinguishability", "Indistinguishable"), "mean_agreement"] == pytest.approx(0.0)
    assert "mean_p_star" not in category_summary(kind).columns
    with pytest.raises(ValueError, match="'single' or 'multiple'"):
        category_summary(pd.Series({"a": "both"}))
    with pytest.raises(ValueError, match="lacks 1"):
        category_summary(kind, p_star=p.drop("d"))

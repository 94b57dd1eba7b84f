"""Reward-model objectives against hand-computed values (Beyond the Binary Eq. 3-4; Bradley-Terry;
Thurstone mean-variance RM; MSE) and the label sets of Diverging Preferences §4."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from pluralign.data.core import PreferenceData
from pluralign.rewards import objectives as O


def _phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def _data(likert=False):
    pairs = pd.DataFrame(
        {
            "pair_id": ["p1", "p2", "p3"],
            "dataset": "t",
            "split": "train",
            "prompt": ["q1", "q2", "q3"],
            "response_a": ["a1", "a2", "a3"],
            "response_b": ["b1", "b2", "b3"],
        }
    )
    # p1: 3 of 4 prefer A (one tie) ; p2: 2 A vs 2 B (majority tie) ; p3: all 4 prefer B
    pref = {"p1": [-2, -1, -2, 0], "p2": [-2, 2, -1, 1], "p3": [2, 2, 1, 2]}
    rows = [
        {"pair_id": k, "annotator_id": f"a{i}", "preference": v} for k, vs in pref.items() for i, v in enumerate(vs)
    ]
    ann = pd.DataFrame(rows)
    if likert:
        ann["likert_a"] = [5, 4, 5, 3, 4, 1, 3, 2, 1, 1, 2, 1]
        ann["likert_b"] = [2, 3, 1, 3, 2, 4, 2, 4, 5, 4, 4, 5]
    return PreferenceData(pairs, ann, {"name": "t"})


def test_bt_and_margin_loss_equal_hand_computed_values():
    rc, rr = torch.tensor([2.0, 0.5, -1.0]), torch.tensor([1.0, 0.5, 1.0])
    m = torch.tensor([0.8, 0.0, 0.3])
    expected_bt = [-math.log(1 / (1 + math.exp(-(c - r)))) for c, r in zip([2.0, 0.5, -1.0], [1.0, 0.5, 1.0])]
    expected_margin = [
        -math.log(1 / (1 + math.exp(-(c - r - mm))))
        for c, r, mm in zip([2.0, 0.5, -1.0], [1.0, 0.5, 1.0], [0.8, 0.0, 0.3])
    ]
    assert O.bt_loss(rc, rr).tolist() == pytest.approx(expected_bt, abs=1e-6)
    assert O.bt_loss(rc, rr, m).tolist() == pytest.approx(expected_margin, abs=1e-6)
    # a margin makes the loss larger whenever it is positive (Eq. 4 demands a wider gap)
    assert (O.bt_loss(rc, rr, m) >= O.bt_loss(rc, rr)).all()
    # batch loss as the Trainer computes it: first half chosen, second half rejected, mean
    out1, out2 = rc[:, None], rr[:, None]
    loss = O.instance_loss("bt-margin", out1, out2, torch.ones(3), m)
    assert float(loss) == pytest.approx(np.mean(expected_margin), abs=1e-6)
    assert float(O.instance_loss("bt", out1, out2, torch.ones(3), m)) == pytest.approx(np.mean(expected_bt), abs=1e-6)


def test_margin_eq3_from_judgments():
    assert O.margin_from_judgments([1] * 10) == 1.0
    assert O.margin_from_judgments([0] * 10) == 1.0
    assert O.margin_from_judgments([1] * 5 + [0] * 5) == 0.0
    assert O.margin_from_judgments([1] * 7 + [0] * 3) == pytest.approx(abs(7 - 5) / 5)
    with pytest.raises(ValueError, match="at least one"):
        O.margin_from_judgments([])


def test_mean_variance_probability_and_nll_hand_computed():
    mu_a, mu_b, s_a, s_b = 1.0, 0.2, 0.5, 1.2
    z = (mu_a - mu_b) / math.sqrt(s_a**2 + s_b**2)
    p = _phi(z)
    t = lambda x: torch.tensor([x], dtype=torch.float64)  # noqa: E731
    assert float(O.mean_variance_prob_a(t(mu_a), t(mu_b), t(s_a), t(s_b))) == pytest.approx(p, abs=1e-9)
    assert float(O.mean_variance_prob_a(mu_a, mu_b, s_a, s_b)) == pytest.approx(p, abs=1e-9)  # numpy path
    # A preferred, B preferred, tie (half / half)
    for y, expected in [
        (1.0, -math.log(p)),
        (0.0, -math.log(1 - p)),
        (0.5, -0.5 * math.log(p) - 0.5 * math.log(1 - p)),
    ]:
        got = float(O.mean_variance_nll(t(mu_a), t(mu_b), t(s_a), t(s_b), t(y)))
        assert got == pytest.approx(expected, abs=1e-9)
    # larger variance pulls P(A > B) towards 1/2 (more expected disagreement)
    assert 0.5 < O.mean_variance_prob_a(mu_a, mu_b, 3 * s_a, 3 * s_b) < p
    # sigma head: softplus(raw) + 1e-3, always positive
    raw = torch.tensor([-20.0, 0.0, 3.0])
    sig = O.sigma_from_raw(raw)
    assert (sig > 0).all()
    assert float(sig[1]) == pytest.approx(math.log(2) + 1e-3, abs=1e-6)
    # through instance_loss: outputs (mu, raw_sigma) per response
    first = torch.tensor([[mu_a, float(torch.log(torch.expm1(torch.tensor(s_a - 1e-3))))]], dtype=torch.float64)
    second = torch.tensor([[mu_b, float(torch.log(torch.expm1(torch.tensor(s_b - 1e-3))))]], dtype=torch.float64)
    got = float(O.instance_loss("mean-variance", first, second, t(1.0), None))
    assert got == pytest.approx(-math.log(p), abs=1e-6)


def test_mse_loss():
    r, y = torch.tensor([1.0, 3.0]), torch.tensor([2.0, 3.5])
    assert O.mse_loss(r, y).tolist() == pytest.approx([1.0, 0.25])
    assert float(O.instance_loss("mse", r[:, None], None, y, None)) == pytest.approx(0.625)


def test_instances_aggregate_drops_majority_ties_and_records_them():
    d = _data()
    inst = O.build_instances(d, "bt", "aggregate")
    # p2 (A, B, A, B) is a split, not a tie (data.core.majority)
    assert inst.dropped == {
        "pairs whose majority label is a tie": 0,
        "pairs split evenly between A and B (no majority)": 1,
    }
    t = inst.table.set_index("pair_id")
    assert list(t.index) == ["p1", "p3"]
    assert t.loc["p1", "first"] == "a1" and t.loc["p1", "second"] == "b1"  # A won p1
    assert t.loc["p3", "first"] == "b3" and t.loc["p3", "second"] == "a3"  # B won p3
    assert (t["margin"] == 0).all()


def test_instances_all_keeps_every_judgment_and_counts_ties():
    d = _data()
    inst = O.build_instances(d, "bt", "all")
    assert inst.dropped == {"tie judgments": 1}
    assert len(inst) == 11
    t = inst.table
    assert (t[t.pair_id == "p2"]["first"] == "a2").sum() == 2 and (t[t.pair_id == "p2"]["first"] == "b2").sum() == 2


def test_bt_margin_defaults_to_eq3_on_the_pairs_own_annotators_or_takes_given_margins():
    d = _data()
    t = O.build_instances(d, "bt-margin", "aggregate").table.set_index("pair_id")
    # p1: share_a = (1 + 1 + 1 + 0.5) / 4 = 0.875 -> m = |2*0.875 - 1| = 0.75 ; p3: unanimous -> 1
    assert t.loc["p1", "margin"] == pytest.approx(0.75)
    assert t.loc["p3", "margin"] == pytest.approx(1.0)
    given = pd.Series({"p1": 0.2, "p2": 0.0, "p3": 0.6})
    t2 = O.build_instances(d, "bt-margin", "all", margins=given).table
    assert set(t2[t2.pair_id == "p1"]["margin"]) == {0.2}
    assert set(t2[t2.pair_id == "p3"]["margin"]) == {0.6}
    with pytest.raises(ValueError, match="3 pairs"):
        O.build_instances(d, "bt-margin", margins=[0.1, 0.2])
    with pytest.raises(ValueError, match="only used by objective='bt-margin'"):
        O.build_instances(d, "bt", margins=given)


def test_bt_margin_series_must_be_aligned_by_pair_id():
    d = _data()
    # a Series indexed 0..2 (e.g. after reset_index) is never assigned by position
    with pytest.raises(ValueError, match="shares no pair_id"):
        O.build_instances(d, "bt-margin", margins=pd.Series([0.2, 0.0, 0.6]))
    # a Series missing some pairs is named, not filled
    with pytest.raises(ValueError, match=r"missing for pair_id\(s\) \['p3'\]"):
        O.build_instances(d, "bt-margin", margins=pd.Series({"p1": 0.2, "p2": 0.0}))
    # a plain array of the data's length is taken in pair order; a shuffled Series by pair_id
    t = O.build_instances(d, "bt-margin", margins=np.array([0.2, 0.0, 0.6])).table.set_index("pair_id")
    t2 = O.build_instances(d, "bt-margin", margins=pd.Series({"p3": 0.6, "p1": 0.2, "p2": 0.0})).table
    assert t["margin"].to_dict() == t2.set_index("pair_id")["margin"].to_dict() == {"p1": 0.2, "p3": 0.6}


def test_mean_variance_instances_ties_count_half():
    d = _data()
    t = O.build_instances(d, "mean-variance", "all").table
    assert len(t) == 12
    assert sorted(t[t.pair_id == "p1"]["target"]) == [0.5, 1.0, 1.0, 1.0]
    agg = O.build_instances(d, "mean-variance", "aggregate").table.set_index("pair_id")
    assert agg.loc["p1", "target"] == pytest.approx(0.875)
    assert agg.loc["p2", "target"] == pytest.approx(0.5)


def test_mse_instances_need_likert_and_use_them_per_response():
    with pytest.raises(ValueError, match="Likert"):
        O.build_instances(_data(), "mse")
    d = _data(likert=True)
    mean = O.build_instances(d, "mse", "aggregate", mse_aggregate="mean").table
    assert len(mean) == 6
    row = mean[(mean.pair_id == "p1") & (mean.response == "a1")]
    assert float(row["target"].iloc[0]) == pytest.approx(np.mean([5, 4, 5, 3]))
    assert len(O.build_instances(d, "mse", "all")) == 24


def test_mse_aggregate_is_the_majority_vote_by_default_and_mean_on_request():
    """Diverging Preferences §3: "Agg" = the majority-vote label. p1 (A, A, A, tie): majority A, so the targets
    are the three A voters' scores; p2 (A, B, A, B): split, no majority, dropped; p3 (B ×4): all four."""
    d = _data(likert=True)
    inst = O.build_instances(d, "mse", "aggregate")
    t = inst.table.set_index(["pair_id", "response"])["target"]
    assert t.to_dict() == pytest.approx(
        {
            ("p1", "a1"): (5 + 4 + 5) / 3,
            ("p1", "b1"): (2 + 3 + 1) / 3,
            ("p3", "a3"): (1 + 1 + 2 + 1) / 4,
            ("p3", "b3"): (5 + 4 + 4 + 5) / 4,
        }
    )
    assert inst.dropped["pairs split evenly between A and B (no majority)"] == 1
    # the mean variant keeps p2 with every annotator's mean; labels="aggregate-mean" is the same thing
    mean = O.build_instances(d, "mse", "aggregate-mean")
    assert mean.table.equals(O.build_instances(d, "mse", "aggregate", mse_aggregate="mean").table)
    m = mean.table.set_index(["pair_id", "response"])["target"]
    assert m[("p2", "a2")] == pytest.approx((4 + 1 + 3 + 2) / 4) and m[("p1", "a1")] == pytest.approx(17 / 4)
    with pytest.raises(ValueError, match="mse_aggregate must be one of"):
        O.build_instances(d, "mse", "aggregate", mse_aggregate="median")
    with pytest.raises(ValueError, match="objective='mse' only"):
        O.build_instances(d, "bt", "aggregate-mean")


def test_mse_majority_target_follows_the_one_majority_rule_on_a_tie_draw():
    """{A, A, tie, tie} → A (data.core.majority): the two A voters' scores, not the ties'; {tie, tie, A} → tie:
    the tie voters' (equal) scores."""
    pairs = pd.DataFrame(
        {
            "pair_id": ["q1", "q2"],
            "dataset": "t",
            "split": "train",
            "prompt": ["x", "y"],
            "response_a": ["a", "c"],
            "response_b": ["b", "d"],
        }
    )
    ann = pd.DataFrame(
        {
            "pair_id": ["q1"] * 4 + ["q2"] * 3,
            "annotator_id": list("wxyzwxy"),
            "preference": [-1, -2, 0, 0, 0, 0, -1],
            "likert_a": [4, 5, 3, 2, 3, 4, 5],
            "likert_b": [3, 3, 3, 2, 3, 4, 4],
        }
    )
    d = PreferenceData(pairs, ann, {"name": "t"})
    assert d.majority().tolist() == ["A", "tie"]
    t = O.build_instances(d, "mse", "aggregate").table.set_index(["pair_id", "response"])["target"]
    assert t.to_dict() == pytest.approx({("q1", "a"): 4.5, ("q1", "b"): 3.0, ("q2", "c"): 3.5, ("q2", "d"): 3.5})


def test_bad_objective_and_labels_are_refused():
    with pytest.raises(ValueError, match="objective must be one of"):
        O.build_instances(_data(), "dpo")
    with pytest.raises(ValueError, match="labels must be one of"):
        O.build_instances(_data(), "bt", labels="some")

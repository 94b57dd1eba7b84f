"""Table 2 of Diverging Preferences (§3): decisiveness per agreement subset by hand, beside the paper's block, and
the reward models trained for it (:mod:`pluralign.diverging.reward_models`)."""

from __future__ import annotations

import pandas as pd
import pytest

from pluralign import rewards
from pluralign.diverging import agreement, reward_models, table2_paper
from pluralign.diverging.agreement import agreement_classes as classify
from pluralign.diverging.reward_models import SUBSETS, paper_table2, table2
from pluralign.train_options import TrainOptions

# P(A ≻ B) per pair and the model's P(C ≻ R) = max(p, 1 − p)
P_A = pd.Series({"hp1": 0.9, "hp2": 0.3, "ht1": 0.6, "ht2": 0.45, "d1": 0.2, "d2": 0.8, "d3": 0.1, "o1": 0.5})
GAP = pd.Series({"hp1": 1.0, "hp2": -2.0, "ht1": 0.5, "ht2": -0.1, "d1": 3.0, "d2": 1.5, "d3": -1.0, "o1": 0.0})


# P(A ≻ B) and r_A − r_B for the six pairs of the ``hand_data`` fixture
P_A6 = pd.Series({"hp1": 0.9, "hp2": 0.3, "ht1": 0.6, "d1": 0.2, "d2": 0.8, "o1": 0.5})
GAP6 = pd.Series({"hp1": 1.0, "hp2": -2.0, "ht1": 0.5, "d1": 3.0, "d2": 1.5, "o1": 0.0})


def test_table2_by_hand_model_chosen(classified_by_hand):
    cl = classified_by_hand()
    t = table2(cl, p_a={"BT (Agg)": P_A}, reward_gap={"MSE (Agg)": GAP}, n_boot=200)
    assert list(t.index) == list(SUBSETS)
    assert t["# Ex."].tolist() == [2, 2, 3, 1, 8]
    expect_bt = [
        (0.9 + 0.7) / 2,
        (0.6 + 0.55) / 2,
        (0.8 + 0.8 + 0.9) / 3,
        0.8,
        (0.9 + 0.7 + 0.6 + 0.55 + 0.8 + 0.8 + 0.9 + 0.5) / 8,
    ]
    assert t["BT (Agg)"].tolist() == pytest.approx(expect_bt)
    expect_mse = [1.5, 0.3, 5.5 / 3, 3.0, 9.1 / 8]  # |r_A − r_B|
    assert t["MSE (Agg)"].tolist() == pytest.approx(expect_mse)
    assert (t["BT (Agg) lo"] <= t["BT (Agg)"] + 1e-12).all() and (t["BT (Agg)"] <= t["BT (Agg) hi"] + 1e-12).all()
    assert t.loc["Diverging Prefs. (Subst.)", "BT (Agg) lo"] == pytest.approx(0.8)  # one pair: no spread


def test_table2_majority_chosen(classified_by_hand):
    cl = classified_by_hand()
    t = table2(cl, p_a=P_A, reward_gap=GAP, chosen="majority", n_boot=50)
    # majority: hp1 A, hp2 B (2 of 3), d1 B, d2 A, d3 none (1 A, 1 B, 1 tie), ties → the model's choice
    # P(C≻R): hp1 .9, hp2 .7 | ht1 .6, ht2 .55 | d1 .8, d2 .8, d3 .9 (fallback)
    assert t["BT"].tolist()[:3] == pytest.approx([0.8, 0.575, 2.5 / 3])
    # siding with the minority gives values below ½ / below 0
    flipped = table2(cl, p_a=1 - P_A, reward_gap=-GAP, chosen="majority", n_boot=50)
    assert flipped.loc["High-Agreement Prefs.", "BT"] == pytest.approx(0.2)
    assert flipped.loc["High-Agreement Prefs.", "MSE"] == pytest.approx(-1.5)
    assert flipped.loc["High-Agreement Ties", "MSE"] == pytest.approx(0.3)  # ties: model's choice


def test_table2_refuses_bad_inputs(classified_by_hand):
    cl = classified_by_hand()
    with pytest.raises(ValueError, match="needs p_a"):
        table2(cl)
    with pytest.raises(ValueError, match="covers different pairs"):
        table2(cl, p_a={"a": P_A, "b": P_A.drop("d1")})
    with pytest.raises(ValueError, match="not in `classified`"):
        table2(cl, p_a=pd.concat([P_A, pd.Series({"zz": 0.5})]))
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        table2(cl, p_a=P_A * 2)
    with pytest.raises(ValueError, match="chosen must be"):
        table2(cl, p_a=P_A, chosen="gold")
    # a subset of pairs (the held-out set) is fine
    assert table2(cl, p_a=P_A.drop(["o1", "d3"]), n_boot=20)["# Ex."].tolist() == [2, 2, 2, 1, 6]


def test_paper_table2_constant():
    mp = paper_table2("MultiPref")
    assert mp.loc["All Examples", "# Ex."] == 500 and mp.loc["Diverging Prefs. (All)", "BT (Agg)"] == 0.798
    hs = paper_table2("helpsteer2-disagreements")
    assert hs.loc["High-Agreement Ties", "MSE (All)"] == 0.340 and hs.loc["All Examples", "# Ex."] == 576
    assert list(hs.index) == list(SUBSETS) and list(hs.columns) == [
        "# Ex.",
        "BT (Agg)",
        "BT (All)",
        "MSE (Agg)",
        "MSE (All)",
    ]
    with pytest.raises(KeyError, match="no block"):
        paper_table2("pandalm")
    # an explicit stand-in reference: PandaLM compared with MultiPref's block
    assert paper_table2("pandalm", {"pandalm": "multipref"}).equals(mp)


def test_chosen_values_are_what_table2_averages(hand_data):
    cl = classify(hand_data())
    long = reward_models.chosen_values(cl, p_a={"BT": P_A6}, reward_gap={"MSE": GAP6})
    bt = long[long["model"] == "BT"].set_index("pair_id")["value"]
    assert bt.to_dict() == pytest.approx({"hp1": 0.9, "hp2": 0.7, "ht1": 0.6, "d1": 0.8, "d2": 0.8, "o1": 0.5})
    mse = long[long["model"] == "MSE"].set_index("pair_id")["value"]
    assert mse.to_dict() == pytest.approx(GAP6.abs().to_dict())
    assert set(long["measure"]) == {"P(chosen ≻ rejected)", "r(chosen) − r(rejected)"}
    t = reward_models.table2(cl, p_a={"BT": P_A6}, reward_gap={"MSE": GAP6}, n_boot=50)
    for subset, mask in reward_models.subset_masks(cl).items():
        ids = cl.index[mask.to_numpy()]
        assert t.loc[subset, "BT"] == pytest.approx(bt.loc[ids].mean())
        assert t.loc[subset, "MSE"] == pytest.approx(mse.loc[ids].mean())
    # majority-chosen: d1's majority is B; a model with P(A) = 0.2 sides with it
    maj = reward_models.chosen_values(cl, p_a=1 - P_A6, chosen="majority").set_index("pair_id")["value"]
    assert maj["d1"] == pytest.approx(0.2) and maj["hp1"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="p_a and/or reward_gap"):
        reward_models.chosen_values(cl)


def test_table2_vs_paper_side_by_side(hand_data):
    cl = classify(hand_data())
    ours = reward_models.table2(cl, p_a={"BT (Agg)": P_A6, "BT (All)": P_A6}, n_boot=50)
    mp = table2_paper.table2_vs_paper(ours, "simulated-multipref")
    assert mp.loc["All Examples", "# Ex."] == "6" and mp.loc["All Examples", "# Ex. paper"] == "500"
    assert mp.loc["High-Agreement Prefs.", "BT (Agg) paper"] == "0.786"
    assert mp.loc["High-Agreement Prefs.", "BT (Agg)"].startswith("0.800 [")
    assert "MSE (Agg)" not in mp.columns  # the paper trained no MSE model on MultiPref
    hs = table2_paper.table2_vs_paper(ours, "helpsteer2")
    assert (hs["MSE (All)"] == "n/a").all() and hs.loc["All Examples", "MSE (All) paper"] == "0.565"
    assert agreement.paper_label("simulated-multipref") == "paper (MultiPref, stand-in reference)"  # simulated data
    assert agreement.paper_label("helpsteer2") == "paper (HelpSteer2)"
    other = table2_paper.table2_vs_paper(ours, "pandalm")
    assert (other["BT (Agg) paper"] == "n/a").all() and (other["# Ex. paper"] == "n/a").all()
    assert agreement.paper_label("pandalm") is None
    assert table2_paper.label_paper_columns(other, None).columns.equals(other.columns)
    # PandaLM compared with MultiPref only when asked, and labelled as a stand-in
    ref = table2_paper.table2_vs_paper(ours, "pandalm", paper_reference={"pandalm": "multipref"})
    assert (
        ref.loc["All Examples", "# Ex. paper"] == "500"
        and ref.loc["High-Agreement Prefs.", "BT (Agg) paper"] == "0.786"
    )
    label = agreement.paper_label("pandalm", {"pandalm": "multipref"})
    assert label == "paper (MultiPref, stand-in reference)"
    shown = table2_paper.label_paper_columns(ref, label)
    assert "BT (Agg) paper (MultiPref, stand-in reference)" in shown.columns and "BT (Agg)" in shown.columns
    assert "# Ex. paper (MultiPref, stand-in reference)" in shown.columns
    with pytest.raises(ValueError, match=r"paper_reference\['pandalm'\] = 'pandalm'"):
        table2_paper.table2_vs_paper(ours, "pandalm", paper_reference={"pandalm": "pandalm"})
    skipped = table2_paper.table2_vs_paper(ours, "pandalm", also=["MSE (Agg)"])
    assert (skipped["MSE (Agg)"] == "n/a").all() and (skipped["MSE (Agg) paper"] == "n/a").all()


class RecordingRM:
    """A base model whose .train records what it was asked (the orchestration is what is tested here)."""

    backend = "recording"

    def __init__(self):
        self.calls = []
        self.prepared = []

    def prepare(self, data, progress=False):
        self.prepared.append(data)

    def train(self, data, *, eval_data=None, options=None, objective, labels):
        self.calls.append((objective, labels, eval_data is not None, options))
        return f"{objective}/{labels}"


def test_fit_reward_models_skips_mse_without_likert_and_passes_settings(hand_data):
    rm = RecordingRM()
    trained, skipped = reward_models.fit_reward_models(
        rm, hand_data(), hand_data(), options=TrainOptions(lr=0.01, epochs=2)
    )
    assert trained == {"BT (Agg)": "bt/aggregate", "BT (All)": "bt/all"}
    assert set(skipped) == {"MSE (Agg)", "MSE (All)"} and "Likert" in skipped["MSE (Agg)"]
    assert rm.calls[0] == ("bt", "aggregate", True, TrainOptions(lr=0.01, epochs=2))
    rm = RecordingRM()
    trained, skipped = reward_models.fit_reward_models(rm, hand_data(likert=True))
    assert list(trained) == list(reward_models.TABLE2_MODELS) and not skipped
    assert reward_models.has_likert(hand_data(likert=True)) and not reward_models.has_likert(hand_data())
    d = hand_data()
    rewards.embed_all(rm, d)  # the one precompute pass is the model's own: embed_all hands it the data set once
    assert rm.prepared == [d]


def test_stand_in_flags_and_omitting_paper_only_models(hand_data):
    assert agreement.is_stand_in("simulated-multipref") and agreement.is_stand_in("pandalm", {"pandalm": "multipref"})
    assert not agreement.is_stand_in("helpsteer2-disagreements") and not agreement.is_stand_in("pandalm")
    cl = classify(hand_data())
    assert agreement.shares(cl, paper_reference={"hand": "multipref"})["paper stand-in"].tolist() == [True]
    ours = reward_models.table2(cl, p_a={"BT (All)": P_A6}, n_boot=20)
    full = table2_paper.table2_vs_paper(ours, "simulated-multipref")
    assert "BT (Agg) paper" in full.columns
    mine = table2_paper.table2_vs_paper(ours, "simulated-multipref", paper_only_models=False)
    assert [c for c in mine.columns if not c.startswith("#")] == ["BT (All)", "BT (All) paper"]
    assert not agreement.is_stand_in("multipref") and not agreement.is_stand_in("pandalm")

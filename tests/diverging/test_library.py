"""Part I library (Diverging Preferences): Table 2 end to end, the spreadsheet round-trip with a written-in
annotator, the surface-feature cause labeller, observed vs predicted disagreement."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign import rewards
from pluralign.data.core import PreferenceData
from pluralign.diverging import agreement, knowing, reward_models
from pluralign.diverging import causes as taxonomy
from pluralign.diverging.agreement import agreement_classes as classify


def hand_data(likert: bool = False) -> PreferenceData:
    """Six pairs, three annotators: 2 high-agreement prefs, 1 tie, 2 diverging (1 substantial), 1 other."""
    cases = {
        "hp1": [-2, -2, -1],
        "hp2": [2, 1, 0],
        "ht1": [0, 0, 0],
        "d1": [-2, 2, 2],
        "d2": [-2, -2, 1],
        "o1": [-1, 1, 0],
    }
    pairs = pd.DataFrame(
        {
            "pair_id": list(cases),
            "dataset": "hand",
            "split": "test",
            "prompt": "p",
            "response_a": [f"a {k}" for k in cases],
            "response_b": [f"b {k}" for k in cases],
        }
    )
    rows = []
    for k, vs in cases.items():
        for j, v in enumerate(vs):
            r = {"pair_id": k, "annotator_id": f"w{j}", "preference": v}
            if likert:
                r.update(likert_a=3, likert_b=3 + v)
            rows.append(r)
    return PreferenceData(pairs, pd.DataFrame(rows), {"name": "hand"})


P_A = pd.Series({"hp1": 0.9, "hp2": 0.3, "ht1": 0.6, "d1": 0.2, "d2": 0.8, "o1": 0.5})
GAP = pd.Series({"hp1": 1.0, "hp2": -2.0, "ht1": 0.5, "d1": 3.0, "d2": 1.5, "o1": 0.0})


def test_chosen_values_are_what_table2_averages():
    cl = classify(hand_data())
    long = reward_models.chosen_values(cl, p_a={"BT": P_A}, reward_gap={"MSE": GAP})
    bt = long[long["model"] == "BT"].set_index("pair_id")["value"]
    assert bt.to_dict() == pytest.approx({"hp1": 0.9, "hp2": 0.7, "ht1": 0.6, "d1": 0.8, "d2": 0.8, "o1": 0.5})
    mse = long[long["model"] == "MSE"].set_index("pair_id")["value"]
    assert mse.to_dict() == pytest.approx(GAP.abs().to_dict())
    assert set(long["measure"]) == {"P(chosen ≻ rejected)", "r_chosen − r_rejected"}
    t = reward_models.table2(cl, p_a={"BT": P_A}, reward_gap={"MSE": GAP}, n_boot=50)
    for subset, mask in reward_models.subset_masks(cl).items():
        ids = cl.index[mask.to_numpy()]
        assert t.loc[subset, "BT"] == pytest.approx(bt.loc[ids].mean())
        assert t.loc[subset, "MSE"] == pytest.approx(mse.loc[ids].mean())
    # majority-chosen: d1's majority is B; a model with P(A) = 0.2 sides with it
    maj = reward_models.chosen_values(cl, p_a=1 - P_A, chosen="majority").set_index("pair_id")["value"]
    assert maj["d1"] == pytest.approx(0.2) and maj["hp1"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="p_a and/or reward_gap"):
        reward_models.chosen_values(cl)


def test_table2_vs_paper_side_by_side():
    cl = classify(hand_data())
    ours = reward_models.table2(cl, p_a={"BT (Agg)": P_A, "BT (All)": P_A}, n_boot=50)
    mp = reward_models.table2_vs_paper(ours, "simulated-multipref")
    assert mp.loc["All Examples", "# Ex."] == "6" and mp.loc["All Examples", "# Ex. paper"] == "500"
    assert mp.loc["High-Agreement Prefs.", "BT (Agg) paper"] == "0.786"
    assert mp.loc["High-Agreement Prefs.", "BT (Agg)"].startswith("0.800 [")
    assert "MSE (Agg)" not in mp.columns  # the paper trained no MSE model on MultiPref
    hs = reward_models.table2_vs_paper(ours, "helpsteer2")
    assert (hs["MSE (All)"] == "n/a").all() and hs.loc["All Examples", "MSE (All) paper"] == "0.565"
    assert agreement.paper_label("simulated-multipref") == "paper (MultiPref, stand-in reference)"  # simulated data
    assert agreement.paper_label("helpsteer2") == "paper (HelpSteer2)"
    other = reward_models.table2_vs_paper(ours, "pandalm")
    assert (other["BT (Agg) paper"] == "n/a").all() and (other["# Ex. paper"] == "n/a").all()
    assert agreement.paper_label("pandalm") is None
    assert reward_models.label_paper_columns(other, None).columns.equals(other.columns)
    # PandaLM compared with MultiPref only when asked, and labelled as a stand-in
    ref = reward_models.table2_vs_paper(ours, "pandalm", paper_reference={"pandalm": "multipref"})
    assert (
        ref.loc["All Examples", "# Ex. paper"] == "500"
        and ref.loc["High-Agreement Prefs.", "BT (Agg) paper"] == "0.786"
    )
    label = agreement.paper_label("pandalm", {"pandalm": "multipref"})
    assert label == "paper (MultiPref, stand-in reference)"
    shown = reward_models.label_paper_columns(ref, label)
    assert "BT (Agg) paper (MultiPref, stand-in reference)" in shown.columns and "BT (Agg)" in shown.columns
    assert "# Ex. paper (MultiPref, stand-in reference)" in shown.columns
    with pytest.raises(ValueError, match=r"paper_reference\['pandalm'\] = 'pandalm'"):
        reward_models.table2_vs_paper(ours, "pandalm", paper_reference={"pandalm": "pandalm"})
    skipped = reward_models.table2_vs_paper(ours, "pandalm", also=["MSE (Agg)"])
    assert (skipped["MSE (Agg)"] == "n/a").all() and (skipped["MSE (Agg) paper"] == "n/a").all()


def test_observed_disagreement_by_hand():
    d = hand_data()
    obs = knowing.observed_disagreement(d)
    # two annotators drawn with replacement strictly disagree with probability 2·n_A·n_B / n² (ties in n):
    # hp1 (3 A) 0, hp2 (2 B + tie) 0, ht1 (all ties) 0 — not ½ —, d1 (1 A, 2 B) 4/9, d2 4/9, o1 (A, B, tie) 2/9
    assert obs.to_dict() == pytest.approx({"hp1": 0.0, "hp2": 0.0, "ht1": 0.0, "d1": 4 / 9, "d2": 4 / 9, "o1": 2 / 9})
    three = knowing.observed_disagreement(d, n_annotators=3)
    assert three["d1"] == pytest.approx(1 - (1 / 3) ** 3 - (2 / 3) ** 3)
    # with a tie among three draws: 1 − P(no A) − P(no B) + P(ties only) = 1 − 2·(2/3)³ + (1/3)³
    assert three["o1"] == pytest.approx(1 - 2 * (2 / 3) ** 3 + (1 / 3) ** 3)
    # an all-tie pair is not a split, a 2–2 split is ½
    pairs = pd.DataFrame(
        {"pair_id": ["t", "s"], "dataset": "x", "split": "test", "prompt": "p", "response_a": "a", "response_b": "b"}
    )
    ann = pd.DataFrame(
        {
            "pair_id": ["t"] * 4 + ["s"] * 4,
            "annotator_id": [f"w{j}" for j in range(4)] * 2,
            "preference": [0, 0, 0, 0, -2, -1, 2, 1],
        }
    )
    assert knowing.observed_disagreement(PreferenceData(pairs, ann, {"name": "x"})).tolist() == [0.0, 0.5]
    c = knowing.disagreement_correlation(obs, obs)
    assert c["spearman"] == pytest.approx(1.0) and c["n"] == 6


class RecordingRM:
    """A base model whose .train records what it was asked (the orchestration is what is tested here)."""

    backend = "recording"

    def __init__(self):
        self.calls = []
        self.prepared = []

    def prepare(self, data, progress=False):
        self.prepared.append(data)

    def train(self, data, objective, labels, eval_data=None, **kw):
        self.calls.append((objective, labels, eval_data is not None, kw))
        return f"{objective}/{labels}"


def test_fit_reward_models_skips_mse_without_likert_and_passes_settings():
    rm = RecordingRM()
    trained, skipped = reward_models.fit_reward_models(rm, hand_data(), hand_data(), lr=0.01, epochs=2)
    assert trained == {"BT (Agg)": "bt/aggregate", "BT (All)": "bt/all"}
    assert set(skipped) == {"MSE (Agg)", "MSE (All)"} and "Likert" in skipped["MSE (Agg)"]
    assert rm.calls[0] == ("bt", "aggregate", True, {"lr": 0.01, "epochs": 2})
    rm = RecordingRM()
    trained, skipped = reward_models.fit_reward_models(rm, hand_data(likert=True))
    assert list(trained) == list(reward_models.TABLE2_MODELS) and not skipped
    assert reward_models.has_likert(hand_data(likert=True)) and not reward_models.has_likert(hand_data())
    d = hand_data()
    rewards.embed_all(rm, d)  # the one precompute pass is the model's own: embed_all hands it the data set once
    assert rm.prepared == [d]


def test_write_annotations_round_trip_with_two_annotators(tmp_path):
    d = hand_data()
    cl = classify(d)
    sheet = taxonomy.export_for_annotation(d, cl, 2, tmp_path / "s.xlsx", seed=0)
    ids = sheet["pair_id"].tolist()
    labels = pd.DataFrame(
        [
            {"pair_id": ids[0], "annotator": "ann1", "causes": frozenset({"verbosity", "format"})},
            {"pair_id": ids[0], "annotator": "ann2", "causes": frozenset({"verbosity"})},
            {"pair_id": ids[1], "annotator": "ann2", "causes": frozenset({"errors"})},
        ]
    )
    out = taxonomy.write_annotations(tmp_path / "s.xlsx", labels, tmp_path / "filled.xlsx")
    back = taxonomy.import_annotations(out)
    got = {(r.pair_id, r.annotator): r.causes for r in back.itertuples()}
    want = {(r.pair_id, r.annotator): r.causes for r in labels.itertuples()}
    assert got == want  # the second annotator's row does not inherit the first one's marks
    assert taxonomy.import_annotations(tmp_path / "s.xlsx").empty  # the original sheet is untouched
    with pytest.raises(ValueError, match="not in the sheet"):
        taxonomy.write_annotations(
            out, pd.DataFrame([{"pair_id": "nope", "annotator": "a", "causes": frozenset({"format"})}])
        )
    with pytest.raises(ValueError, match="CAUSE_IDS"):
        taxonomy.write_annotations(
            out, pd.DataFrame([{"pair_id": ids[0], "annotator": "a", "causes": frozenset({"rudeness"})}])
        )


def test_rule_causes_reads_surface_features():
    long = " ".join(["word"] * 60)
    texts = {  # pair: (A, B, expected causes)
        "v": ("Short answer here.", f"A long answer. {long}", {"verbosity"}),
        "f": ("Use flour and water.", "Steps:\n1. Use flour.\n2. Use water.", {"format"}),
        "h": ("Paris.", "## Answer\nParis.", {"format"}),
        "c": ("I'm sorry, but I can't help with that.", "Sure, here is how you do it.", {"comply-vs-refuse"}),
        "r": ("I'm sorry, but I can't help with that.", "I cannot assist with that request.", {"refuse-vs-refuse"}),
        "n": ("The capital is Paris.", "Paris is the capital.", None),
    }
    pairs = pd.DataFrame(
        {
            "pair_id": list(texts),
            "dataset": "hand",
            "split": "test",
            "prompt": "q",
            "response_a": [v[0] for v in texts.values()],
            "response_b": [v[1] for v in texts.values()],
        }
    )
    ann = pd.DataFrame({"pair_id": list(texts), "annotator_id": "w", "preference": -2})
    out = taxonomy.rule_causes(PreferenceData(pairs, ann, {"name": "hand"}))
    got = dict(zip(out["pair_id"], out["causes"]))
    assert got == {k: frozenset(v[2]) for k, v in texts.items() if v[2] is not None}
    assert "n" not in set(out["pair_id"]) and set(out["annotator"]) == {"rules"}


def test_rule_causes_agree_with_planted_causes_where_the_text_shows_them():
    from pluralign.data import simulate

    d = simulate(n_pairs=400, seed=3)
    t = d.truth
    ids = t.index[t["cause"].isin(["verbosity", "comply-vs-refuse", "refuse-vs-refuse"])]
    rules = taxonomy.rule_causes(d, ids).set_index("pair_id")["causes"]
    hit = [t.at[i, "cause"] in rules.get(i, frozenset()) for i in ids]
    assert np.mean(hit) > 0.7  # the surface features the simulator plants for these causes are visible


@pytest.mark.slow
def test_table2_and_mean_variance_auroc_on_the_simulator():
    """End to end on a small simulated HelpSteer2-format set with the demo RM (frozen MiniLM + linear head):
    every Table 2 model trains, Table 2 has all subsets, and the mean-variance RM's predicted disagreement
    tracks the held-out annotators' observed disagreement; its AUROC (diverging vs high-agreement) comes
    with a bootstrap CI."""
    from pluralign import rewards
    from pluralign.data import simulate
    from pluralign.data.spec import split

    d = simulate(n_pairs=1000, seed=1, annotation_format="helpsteer2")
    cl = classify(d)
    train, held = split(d, 250, seed=0)
    train, val = split(train, 100, seed=1)
    rm = rewards.load(None)
    rewards.embed_all(rm, d)
    models, skipped = reward_models.fit_reward_models(
        rm, train, val, models={**reward_models.TABLE2_MODELS, **knowing.MEAN_VARIANCE_MODEL}, progress=False
    )
    assert not skipped and len(models) == 5
    p_a, gap = reward_models.model_outputs(models, held)
    assert set(p_a) == {"BT (Agg)", "BT (All)", "Mean-Var (All)"} and set(gap) == {"MSE (Agg)", "MSE (All)"}
    t = reward_models.table2(cl, p_a=p_a, reward_gap=gap, n_boot=200)
    assert t.loc["All Examples", "# Ex."] == 250 and t.notna().all().all()
    mv = knowing.mean_variance_disagreement(models["Mean-Var (All)"], held)
    auc, lo, hi = knowing.disagreement_auroc(
        mv["predicted disagreement"], knowing.diverging_labels(cl.loc[mv.index]), n_boot=300
    )
    # measured (seed 1, 650 training pairs, frozen MiniLM + linear head): AUROC 0.58 [0.50, 0.67] — reported with
    # its CI; the rank correlation of predicted with observed disagreement is the sharper check
    assert auc > 0.5 and lo < auc < hi and hi - lo < 0.3
    # observed disagreement counts a tie as siding with nobody (2·n_A·n_B / n²), the model a tie as half a vote
    # for each side, so on this tie-heavy HelpSteer2-format set they part on tie pairs (measured: ρ 0.10 over
    # all 250 pairs); on the 83 pairs without a tie judgment the two readings coincide (measured ρ 0.41)
    corr = knowing.disagreement_correlation(mv["predicted disagreement"], mv["observed disagreement"])
    assert corr["n"] == 250 and -0.1 < corr["spearman"] < 0.3
    no_tie = cl.loc[mv.index, "n_tie"] == 0
    corr = knowing.disagreement_correlation(mv["predicted disagreement"][no_tie], mv["observed disagreement"][no_tie])
    assert corr["spearman"] > 0.25 and corr["p_value"] < 1e-2 and corr["n"] == 83
    # read with ties as half votes — the model's own reading — the split tracks the prediction (measured ρ 0.47)
    halves = knowing.split_probability(held.share_a().reindex(mv.index))
    corr = knowing.disagreement_correlation(mv["predicted disagreement"], halves)
    assert corr["spearman"] > 0.25 and corr["p_value"] < 1e-3


def test_split_probability_and_planted_recovery_by_hand():
    assert knowing.split_probability(np.array([0.5, 1.0, 0.25])).tolist() == pytest.approx([0.5, 0.0, 0.375])
    # with a tie share: k = 2 → 2ab; all ties → 0
    got = knowing.split_probability(np.array([0.25, 0.0, 0.5]), share_b=np.array([0.25, 0.0, 0.5]))
    assert got.tolist() == pytest.approx([0.125, 0.0, 0.5])
    with pytest.raises(ValueError, match="must not exceed 1"):
        knowing.split_probability(np.array([0.7]), share_b=np.array([0.6]))
    planted_recovery = agreement.planted_recovery
    d = hand_data()
    cl = classify(d)
    truth = pd.DataFrame(
        {"taste_driven": [False, False, False, True, True, True]}, index=["hp1", "hp2", "ht1", "d1", "d2", "o1"]
    )
    rec = planted_recovery(cl, truth)
    r = rec.table
    assert r.loc["taste-driven", "n"] == 3 and r.loc["taste-driven", "diverging"] == pytest.approx(2 / 3)
    assert r.loc["objective", "high-agreement-pref"] == pytest.approx(2 / 3)
    assert rec.precision == pytest.approx(1.0) and rec.recall == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="taste_driven"):
        planted_recovery(cl, truth.rename(columns={"taste_driven": "x"}))


def test_agreement_table_beside_the_paper():
    lab = pd.DataFrame(
        [
            {"pair_id": "p1", "annotator": "x", "causes": frozenset({"verbosity"})},
            {"pair_id": "p1", "annotator": "y", "causes": frozenset({"verbosity"})},
            {"pair_id": "p2", "annotator": "x", "causes": frozenset({"format"})},
            {"pair_id": "p2", "annotator": "y", "causes": frozenset({"format"})},
        ]
    )
    single = lab[lab["annotator"] == "x"]
    t = taxonomy.agreement_table({"simulated-multipref": lab, "pandalm": lab, "one annotator": single})
    assert list(t.index) == ["simulated-multipref", "pandalm"]
    assert t.loc["simulated-multipref", "κ"] == pytest.approx(1.0) and t.loc["pandalm", "α (MASI)"] == pytest.approx(
        1.0
    )
    assert t.loc["simulated-multipref", "paper κ"] == 0.59 and t.loc["simulated-multipref", "paper α"] == 0.68
    assert np.isnan(t.loc["pandalm", "paper κ"]) and t.loc["pandalm", "pairs labelled by ≥ 2"] == 2
    assert pd.isna(t.loc["pandalm", "paper reference"]) and "one annotator" not in t.index
    assert t.loc["simulated-multipref", "paper reference"] == "paper (MultiPref, stand-in reference)"
    r = taxonomy.agreement_table({"pandalm": lab}, paper_reference={"pandalm": "helpsteer2"})
    assert r.loc["pandalm", "paper κ"] == 0.58 and r.loc["pandalm", "paper α"] == 0.62
    assert r.loc["pandalm", "paper reference"] == "paper (HelpSteer2, stand-in reference)"


def test_observed_disagreement_from_the_classified_table_reads_likert():
    d = hand_data()
    cl = classify(d)
    assert knowing.observed_disagreement(cl).equals(knowing.observed_disagreement(d))
    # HelpSteer2-style judgments: the preference column says A, the Likert scores say B — classify (and so the
    # observed disagreement) follows the Likert difference, as §2 does
    lk = hand_data(likert=True)
    lk.annotations["preference"] = -lk.annotations["preference"]
    assert knowing.observed_disagreement(lk).to_dict() == pytest.approx(knowing.observed_disagreement(d).to_dict())


def test_split_probability_takes_per_pair_annotator_counts():
    p = np.array([0.5, 0.5, 0.9])
    k = np.array([2, 4, 3])
    assert knowing.split_probability(p, k) == pytest.approx(1 - p**k - (1 - p) ** k)
    assert knowing.predicted_disagreement([0, 0], [0, 0], [1, 1], [1, 1], n_annotators=[2, 4]) == pytest.approx(
        [0.5, 1 - 2**-3]
    )


def test_disagreement_summary_runs_the_three_statistics():
    cl = classify(hand_data())
    mv = pd.DataFrame(
        {
            "predicted disagreement": [0.1, 0.2, 0.45, 0.5, 0.4, 0.3],
            "observed disagreement": knowing.observed_disagreement(cl).to_numpy(),
        },
        index=cl.index,
    )
    s = knowing.disagreement_summary(mv, cl, n_boot=50, seed=0)
    assert s.labels.to_dict() == {"hp1": False, "hp2": False, "ht1": False, "d1": True, "d2": True}
    assert s.auc.estimate == pytest.approx(5 / 6)  # ht1 (0.45) outranks d2 (0.4)
    assert s.auc_prefs.estimate == pytest.approx(1.0)  # without the tie, every diverging pair ranks higher
    assert s.corr["n"] == 6 and s.tested == {"auc": 5, "auc_prefs": 4, "corr": 6}
    assert s.auc.lo <= s.auc.estimate <= s.auc.hi


def test_stand_in_flags_and_omitting_paper_only_models():
    assert agreement.is_stand_in("simulated-multipref") and agreement.is_stand_in("pandalm", {"pandalm": "multipref"})
    assert not agreement.is_stand_in("helpsteer2-disagreements") and not agreement.is_stand_in("pandalm")
    cl = classify(hand_data())
    assert agreement.shares(cl, paper_reference={"hand": "multipref"})["paper stand-in"].tolist() == [True]
    ours = reward_models.table2(cl, p_a={"BT (All)": P_A}, n_boot=20)
    full = reward_models.table2_vs_paper(ours, "simulated-multipref")
    assert "BT (Agg) paper" in full.columns
    mine = reward_models.table2_vs_paper(ours, "simulated-multipref", paper_only_models=False)
    assert [c for c in mine.columns if not c.startswith("#")] == ["BT (All)", "BT (All) paper"]
    assert not agreement.is_stand_in("multipref") and not agreement.is_stand_in("pandalm")


def test_votes_text_is_the_sheets_votes_column(tmp_path):
    d = hand_data()
    assert agreement.votes_text(d).to_dict()["hp2"] == "+2 +1 0"
    sheet = taxonomy.export_for_annotation(d, classify(d), 2, tmp_path / "s.xlsx", seed=0)
    assert sheet["votes"].tolist() == agreement.votes_text(d).reindex(sheet["pair_id"]).tolist()


def test_rule_causes_verbosity_thresholds_are_the_module_constants():
    import inspect

    sig = inspect.signature(taxonomy.rule_causes).parameters
    assert sig["verbosity_ratio"].default == taxonomy.VERBOSITY_RATIO
    assert sig["min_extra_words"].default == taxonomy.MIN_EXTRA_WORDS

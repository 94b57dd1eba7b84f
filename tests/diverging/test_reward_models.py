"""Table 2 and "do models know?" (Diverging Preferences §3) on hand-built numbers and real PandaLM verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from pluralign.data.core import PreferenceData
from pluralign.diverging.agreement import agreement_classes as classify
from pluralign.diverging.knowing import (
    disagreement_auroc,
    diverging_labels,
    judge_confidence,
    judge_decisiveness,
    judge_filters,
    judge_verdicts,
    predicted_disagreement,
    read_verdicts,
)
from pluralign.diverging.reward_models import SUBSETS, paper_table2, table2


def classified_by_hand() -> pd.DataFrame:
    """Eight pairs: 2 high-agreement prefs (majority A, B), 2 ties, 3 diverging (1 substantial), 1 other."""
    cases = {
        "hp1": [-2, -2, -1],
        "hp2": [2, 1, 0],
        "ht1": [0, 0, 0],
        "ht2": [0, 0, 2],
        "d1": [-2, 2, 2],
        "d2": [-2, -2, 1],
        "d3": [-1, 2, 0],
        "o1": [-1, 1, 0],
    }
    pairs = pd.DataFrame(
        {
            "pair_id": list(cases),
            "dataset": "hand",
            "split": "test",
            "prompt": "p",
            "response_a": "a",
            "response_b": "b",
        }
    )
    ann = pd.DataFrame(
        [{"pair_id": k, "annotator_id": f"w{j}", "preference": v} for k, vs in cases.items() for j, v in enumerate(vs)]
    )
    cl = classify(PreferenceData(pairs, ann, {"name": "hand"}))
    assert cl["agreement"].to_dict() == {
        "hp1": "high-agreement-pref",
        "hp2": "high-agreement-pref",
        "ht1": "high-agreement-tie",
        "ht2": "high-agreement-tie",
        "d1": "diverging",
        "d2": "diverging",
        "d3": "diverging",
        "o1": "other",
    }
    assert cl.loc[["d1", "d2", "d3"], "substantial"].tolist() == [True, False, False]
    return cl


# P(A ≻ B) per pair and the model's P(C ≻ R) = max(p, 1 − p)
P_A = pd.Series({"hp1": 0.9, "hp2": 0.3, "ht1": 0.6, "ht2": 0.45, "d1": 0.2, "d2": 0.8, "d3": 0.1, "o1": 0.5})
GAP = pd.Series({"hp1": 1.0, "hp2": -2.0, "ht1": 0.5, "ht2": -0.1, "d1": 3.0, "d2": 1.5, "d3": -1.0, "o1": 0.0})


def test_table2_by_hand_model_chosen():
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


def test_table2_majority_chosen():
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


def test_table2_refuses_bad_inputs():
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


def test_predicted_disagreement_from_mean_variance_rewards():
    # equal means → p = ½ → two annotators split with probability ½ (k annotators: 1 − 2^{1−k})
    assert predicted_disagreement(1.0, 1.0, 1.0, 1.0) == pytest.approx(0.5)
    assert predicted_disagreement(0.0, 0.0, 2.0, 1.0, n_annotators=4) == pytest.approx(1 - 2**-3)
    # p = Φ(Δμ / sqrt(σa² + σb²)); Δμ = 1, σ² sum = 0.25 + 0.75 = 1 → p = Φ(1)
    p = norm.cdf(1.0)
    assert predicted_disagreement(1.0, 0.0, 0.5, np.sqrt(0.75)) == pytest.approx(2 * p * (1 - p))
    # larger spread → more predicted disagreement; symmetric in A and B
    assert predicted_disagreement(1, 0, 3, 3) > predicted_disagreement(1, 0, 0.3, 0.3)
    assert predicted_disagreement(0, 1, 1, 1) == pytest.approx(predicted_disagreement(1, 0, 1, 1))
    with pytest.raises(ValueError, match="must not both be 0"):
        predicted_disagreement(1, 0, 0, 0)


def test_disagreement_auroc_sanity():
    cl = classified_by_hand()
    y = diverging_labels(cl)
    assert set(y.index) == {"hp1", "hp2", "ht1", "ht2", "d1", "d2", "d3"}  # "other" left out
    perfect = y.astype(float) + 0.01 * np.arange(len(y))
    auc, lo, hi = disagreement_auroc(perfect, y, n_boot=200)
    assert (auc, lo, hi) == (1.0, 1.0, 1.0)
    auc, lo, hi = disagreement_auroc(-perfect, y, n_boot=200)
    assert auc == 0.0
    rng = np.random.default_rng(0)
    yy = rng.random(2000) < 0.3
    auc, lo, hi = disagreement_auroc(rng.normal(size=2000), yy, n_boot=200)
    assert lo < 0.5 < hi and abs(auc - 0.5) < 0.05
    # the Mann-Whitney bootstrap replicates equal sklearn's AUROC, ties included
    from sklearn.metrics import roc_auc_score

    x = np.round(rng.normal(size=300), 1)
    y3 = rng.random(300) < 0.4
    est, lo3, hi3 = disagreement_auroc(x, y3, n_boot=1, level=0.0)
    assert lo3 == pytest.approx(hi3) and est == roc_auc_score(y3, x)
    idx = np.random.default_rng(0).integers(0, 300, 300)  # bootstrap_ci's first resample with seed 0
    assert lo3 == pytest.approx(roc_auc_score(y3[idx], x[idx]))
    # shifted by 1 SD: AUROC = Φ(1/√2) ≈ 0.76
    auc, lo, hi = disagreement_auroc(rng.normal(size=2000) + 1.0 * yy, yy, n_boot=200)
    assert auc == pytest.approx(norm.cdf(1 / np.sqrt(2)), abs=0.04) and lo < auc < hi
    with pytest.raises(ValueError, match="both diverging and high-agreement"):
        disagreement_auroc([0.1, 0.2], [True, True])
    with pytest.raises(ValueError, match="no prediction"):
        disagreement_auroc(perfect.drop("d1"), y)


def test_judge_decisiveness_by_hand():
    cl = classified_by_hand()
    verdicts = pd.Series(
        {"hp1": "A", "hp2": "B", "ht1": "tie", "ht2": "A", "d1": "tie", "d2": "tie", "d3": "A", "o1": "B"}
    )
    d = judge_decisiveness(verdicts, cl, n_boot=100)
    t = d.table
    assert t.loc["High-Agreement Prefs.", "confidence"] == 1.0
    assert t.loc["Diverging Prefs. (All)", "confidence"] == pytest.approx(1 / 3)
    assert t.loc["High-Agreement Ties", "confidence"] == 0.5
    assert t.loc["Diverging − High-Agreement Prefs.", "confidence"] == pytest.approx(1 / 3 - 1)
    assert t.loc["High-Agreement Prefs.", "agrees with majority"] == 1.0
    assert t.loc["Diverging Prefs. (All)", "agrees with majority"] == 0.0  # d1 B / d2 A judged tie
    probs = pd.Series({"hp1": 0.95, "hp2": 0.1, "ht1": 0.5, "ht2": 0.6, "d1": 0.5, "d2": 0.7, "d3": 0.5, "o1": 0.5})
    assert judge_confidence(probs).tolist() == pytest.approx([0.9, 0.8, 0, 0.2, 0, 0.4, 0, 0])
    tp = judge_decisiveness(probs, cl, n_boot=100).table
    assert tp.loc["High-Agreement Prefs.", "confidence"] == pytest.approx(0.85)
    assert tp.loc["Diverging Prefs. (All)", "agrees with majority"] == 0.5  # d1 (B) judged ½, d2 (A) 0.7
    # PandaLM-style integer verdicts (1 = response1 = A, 2 = B, 0 = tie) are verdicts, not probabilities
    ints = verdicts.map({"A": 1, "B": 2, "tie": 0}).astype(int)
    assert judge_decisiveness(ints, cl, n_boot=100).table["confidence"].equals(t["confidence"])
    assert d.n_without_verdict == 0 and d.n_judged == d.n_classified == 8 and d.kind == "verdict"
    # pairs without a verdict — absent (e.g. dropped by the loader) or unreadable — are counted
    partial = judge_decisiveness(
        verdicts.drop(["hp1", "d1"]).astype(object).mask(lambda v: v.index == "o1"), cl, n_boot=20
    )
    assert partial.n_without_verdict == 3 and partial.n_unreadable == 1
    assert partial.table.loc["All Examples", "n"] == 5
    with pytest.raises(ValueError, match="1 judged pairs are not in `classified`"):
        judge_decisiveness(pd.concat([verdicts, pd.Series({"zz": "A"})]), cl, n_boot=20)
    with pytest.raises(ValueError, match=r"probabilities must lie in \[0, 1\]"):
        judge_confidence(probs * 2)


def test_pandalm_judges_against_three_humans(shared_data):
    """GPT-3.5 and PandaLM-7B verdicts on PandaLM's test set vs its three human annotators: verdict files
    read (directly and through the data loader), unreadable verdicts counted, judges agree with humans on
    high-agreement pairs far more than chance."""
    from pluralign.data import load

    d = shared_data / "pandalm"
    humans = load("pandalm", source=d / "testset-v1.json")
    cl = classify(humans)
    assert cl["agreement"].value_counts().to_dict() == {
        "high-agreement-pref": 825,
        "high-agreement-tie": 105,
        "diverging": 69,
    }
    gpt = read_verdicts(d / "gpt-3.5-turbo-testset-v1.json")
    assert gpt.isna().sum() == 25 and (gpt == "tie").sum() == 38
    panda = read_verdicts(d / "pandalm-7b-testset-v1.json")
    assert panda.isna().sum() == 0 and panda.value_counts().to_dict() == {"B": 459, "A": 433, "tie": 107}
    judges = load("pandalm-judges", source=d)
    assert judge_verdicts(judges, "gpt-3.5-turbo").equals(gpt.dropna().rename("gpt-3.5-turbo"))
    assert judge_verdicts(judges, "pandalm-7b").equals(panda.rename("pandalm-7b"))
    with pytest.raises(KeyError, match="no judgments by 'gpt-4'"):
        judge_verdicts(judges, "gpt-4")
    # the loader drops GPT-3.5's 25 "garbage" verdicts and records it; the page must count those pairs
    assert [f["removed"] for f in judge_filters(judges, "gpt-3.5-turbo")] == [25]
    assert judge_filters(judges, "pandalm-7b") == []
    d = judge_decisiveness(judge_verdicts(judges, "gpt-3.5-turbo"), cl, n_boot=50)
    assert d.n_without_verdict == 25 and d.n_unreadable == 0 and d.n_judged == 974
    for v in (gpt, panda):
        d = judge_decisiveness(v, cl, n_boot=300)
        t = d.table
        assert t.loc["All Examples", "n"] == v.notna().sum()
        assert d.n_without_verdict == v.isna().sum()
        assert t.loc["High-Agreement Prefs.", "agrees with majority"] > 0.6
        assert t.loc["Diverging Prefs. (All)", "n"] <= 69


def test_planted_population_split_separates_diverging_pairs_on_the_simulator():
    """An oracle mean-variance model — the simulator's population P(A ≻ B) — put through the same
    split probability: its AUROC for diverging vs high-agreement pairs is far above chance, with a CI."""
    from pluralign.data import simulate

    data = simulate(n_pairs=800, seed=4)
    cl = classify(data)
    p = data.truth["share_a"].reindex(cl.index)
    # a Gaussian model with Δμ/σ = Φ⁻¹(p) gives back the same p
    z = norm.ppf(p.clip(1e-6, 1 - 1e-6))
    pred = pd.Series(predicted_disagreement(z, 0.0, np.sqrt(0.5), np.sqrt(0.5), n_annotators=4), index=cl.index)
    auc, lo, hi = disagreement_auroc(pred, diverging_labels(cl), n_boot=300)
    assert auc > 0.72 and lo > 0.68 and lo < auc < hi  # measured: 0.78 (seed 4, 800 pairs)

"""Agreement classes (Diverging Preferences §2, §3 "Results") on hand-built cases quoting the paper."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

from pluralign.data.core import DataError, PreferenceData
from pluralign.diverging.agreement import (
    CLASSES,
    agreement_classes,
    check_paper_reference,
    paper_dataset,
    paper_diverging_share,
    paper_label,
    preferences,
    shares,
)

classify = agreement_classes


def make(cases: dict[str, list[int]], dataset: str = "multipref") -> PreferenceData:
    """MultiPref format: pair_id -> list of signed judgments (−2 … 2; negative prefers A)."""
    pairs = pd.DataFrame(
        {
            "pair_id": list(cases),
            "dataset": dataset,
            "split": "test",
            "prompt": "p",
            "response_a": "a",
            "response_b": "b",
        }
    )
    ann = pd.DataFrame(
        [{"pair_id": k, "annotator_id": f"w{j}", "preference": v} for k, vs in cases.items() for j, v in enumerate(vs)]
    )
    return PreferenceData(pairs, ann, {"name": dataset})


def make_likert(cases: dict[str, list[tuple[int, int]]]) -> PreferenceData:
    """HelpSteer2 format: pair_id -> list of (likert_a, likert_b). ``preference`` is deliberately set to 0
    so that the test fails unless the class is derived from the Likert difference."""
    pairs = pd.DataFrame(
        {
            "pair_id": list(cases),
            "dataset": "helpsteer2",
            "split": "test",
            "prompt": "p",
            "response_a": "a",
            "response_b": "b",
        }
    )
    ann = pd.DataFrame(
        [
            {"pair_id": k, "annotator_id": f"w{j}", "preference": 0, "likert_a": a, "likert_b": b}
            for k, vs in cases.items()
            for j, (a, b) in enumerate(vs)
        ]
    )
    return PreferenceData(pairs, ann, {"name": "helpsteer2"})


A2, A1, T, B1, B2 = -2, -1, 0, 1, 2

# (judgments, expected class, expected substantial, the paper's words the case tests)
MULTIPREF_CASES = {
    # "annotators disagreed on which response was preferred" + a significant preference
    "div_sig_both": (
        [A2, B2, A2, B2],
        "diverging",
        True,
        "Diverging Prefs (Substantial): annotators significantly preferred both responses",
    ),
    "div_sig_one_side": (
        [A2, A1, B1, B1],
        "diverging",
        False,
        "filtering out instances where all annotators responses were ties or only slight",
    ),
    "div_sig_majority_vs_slight": ([A2, A2, A2, B1], "diverging", False, "not all slight → kept"),
    "div_with_ties": ([A2, T, T, B1], "diverging", False, "disagreed on which response was preferred"),
    "div_beats_tie_majority": (
        [T, T, T, A2, B2],
        "diverging",
        True,
        "diverging = ALL instances where annotators disagreed (precedence over ties)",
    ),
    # "ignoring instances where annotators only had slight preferences for either response"
    "slight_only_disagreement": (
        [A1, B1, A1, B1],
        "other",
        False,
        "ignoring instances where annotators only had slight preferences",
    ),
    "slight_only_with_tie": ([A1, B1, T], "other", False, "all ties or only slight → filtered out"),
    # "High-Agreement Prefs.: where no annotators rejected the majority's chosen response"
    "ha_pref_unanimous": ([A2, A2, A1, A2], "high-agreement-pref", False, "no annotators rejected"),
    "ha_pref_with_tie": ([B2, B1, T, B2], "high-agreement-pref", False, "a tie does not reject the chosen"),
    "ha_pref_single": ([A1], "high-agreement-pref", False, "one judgment"),
    "no_majority_choice": ([A2, A2, T, T], "other", False, "no majority's chosen response (2 of 4)"),
    # "High-Agreement Ties: where the majority of annotators labeled the instance as a tie"
    "ha_tie_unanimous": ([T, T, T, T], "high-agreement-tie", False, "majority ... labeled ... a tie"),
    "ha_tie_majority": ([T, T, T, A2], "high-agreement-tie", False, "3 of 4 ties"),
    "ha_tie_majority_slight_split": ([T, T, T, A1, B1], "high-agreement-tie", False, "3 of 5 ties, slight"),
    "tie_plurality_only": ([T, T, A1, B1], "other", False, "2 of 4 ties is not a majority"),
}


def test_every_class_on_the_papers_wording_multipref():
    data = make({k: v[0] for k, v in MULTIPREF_CASES.items()})
    got = classify(data)
    assert list(got.index) == list(MULTIPREF_CASES)
    for k, (_, cls, subst, words) in MULTIPREF_CASES.items():
        assert got.at[k, "agreement"] == cls, (k, words)
        assert got.at[k, "substantial"] == subst, (k, words)
    assert set(got["agreement"]) == set(CLASSES)
    # substantial is only ever set on diverging pairs
    assert not (got["substantial"] & (got["agreement"] != "diverging")).any()
    assert got.at["ha_pref_with_tie", "majority"] == "B"
    assert got.at["ha_tie_majority", "majority"] == "tie"
    assert got.at["no_majority_choice", "majority"] == "none"
    assert got.loc["div_beats_tie_majority", ["n_a", "n_b", "n_tie", "n_significant"]].tolist() == [1, 1, 3, 2]


def test_plurality_tie_rule_is_a_documented_alternative():
    data = make(
        {
            "tie_plurality_only": [T, T, A1, B1],
            "three_way": [T, A1, B1],
            "ab": [A1, A1, B1, B1],
            "div": [T, T, T, A2, B2],
        }
    )
    strict = classify(data)
    plural = classify(data, ties="plurality")
    assert strict.loc[["tie_plurality_only", "three_way", "ab"], "agreement"].tolist() == ["other"] * 3
    assert plural.loc[["tie_plurality_only", "three_way", "ab"], "agreement"].tolist() == [
        "high-agreement-tie",
        "high-agreement-tie",
        "other",
    ]
    assert plural.at["div", "agreement"] == "diverging"
    with pytest.raises(ValueError, match="ties must be"):
        classify(data, ties="most")


def test_helpsteer2_likert_differences():
    """§2: "treat differences in overall scores of 1 as instances of slight preference and differences of
    at least 2 as significant preferences"."""
    cases = {
        "div_subst": ([(5, 3), (2, 4), (4, 4)], "diverging", True),  # A by 2, B by 2, tie
        "div_one_sig": ([(5, 2), (3, 4), (3, 3)], "diverging", False),  # A by 3 (significant), B by 1
        "slight_only": ([(4, 3), (3, 4), (2, 3)], "other", False),  # differences of 1 only
        "ha_pref": ([(1, 4), (2, 3), (3, 3)], "high-agreement-pref", False),
        "ha_tie": ([(3, 3), (4, 4), (5, 4)], "high-agreement-tie", False),
    }
    data = make_likert({k: v[0] for k, v in cases.items()})
    pref = preferences(data)
    assert pref.tolist()[:3] == [-2, 2, 0] and pref.tolist()[3] == -2 and pref.tolist()[4] == 1
    got = classify(data)
    for k, (_, cls, subst) in cases.items():
        assert (got.at[k, "agreement"], got.at[k, "substantial"]) == (cls, subst), k
    # likert=False ignores the scores: every stored preference is 0 here → all high-agreement ties
    assert set(classify(data, likert=False)["agreement"]) == {"high-agreement-tie"}


def test_likert_missing_falls_back_to_preference_and_strict_mode_errors():
    data = make_likert({"x": [(5, 3), (2, 4)]})
    ann = data.annotations.copy()
    ann.loc[1, ["likert_a", "likert_b"]] = np.nan
    ann.loc[1, "preference"] = 1
    d2 = PreferenceData(data.pairs, ann, {"name": "hs2", "source": "hs2.jsonl"})
    assert preferences(d2).tolist() == [-2, 1]
    assert classify(d2).at["x", "agreement"] == "diverging"
    with pytest.raises(DataError, match=r"hs2.jsonl.*row 1.*likert_a"):
        classify(d2, likert=True)
    with pytest.raises(DataError, match="no likert_a"):
        classify(make({"y": [A1]}), likert=True)


def test_shares_and_paper_reference():
    d1 = make({"a": [A2, B2], "b": [A2, A2], "c": [T, T], "d": [A1, B1]}, dataset="multipref")
    d2 = make({"e": [A2, B1], "f": [A2, A2]}, dataset="my-data")
    cl = pd.concat([classify(d1), classify(d2)])
    s = shares(cl)
    assert s.loc["multipref", "n"] == 4
    assert s.loc["multipref", "diverging share"] == 0.25
    assert s.loc["multipref", "other"] == 1
    assert s.loc["multipref", "diverging-substantial"] == 1
    assert s.loc["multipref", "paper diverging share"] == paper_diverging_share("multipref") == 0.39
    assert paper_diverging_share("helpsteer2") == 0.24
    assert np.isnan(s.loc["my-data", "paper diverging share"])
    assert pd.isna(s.loc["my-data", "paper reference"])
    assert s.loc["multipref", "paper reference"] == "paper (MultiPref)"
    assert s.loc["my-data", "diverging share"] == 0.5
    shares_cols = [f"{c} share" for c in CLASSES]
    assert np.allclose(s[shares_cols].sum(axis=1), 1.0)
    # an explicit stand-in: the paper's share beside ours, labelled as a stand-in reference
    r = shares(cl, paper_reference={"my-data": "HelpSteer2"})
    assert r.loc["my-data", "paper diverging share"] == 0.24
    assert r.loc["my-data", "paper reference"] == "paper (HelpSteer2, stand-in reference)"
    assert r.loc["multipref", "paper reference"] == "paper (MultiPref)"  # name matching still works


def test_paper_reference_lookup_and_labels():
    assert paper_dataset("simulated-multipref") == "multipref"
    assert paper_dataset("helpsteer2-disagreements") == "helpsteer2"
    assert paper_dataset("pandalm") is None
    assert paper_dataset("pandalm", {"pandalm": "multipref"}) == "multipref"
    assert paper_label("helpsteer2-disagreements") == "paper (HelpSteer2)"
    assert paper_label("simulated-helpsteer2") == "paper (HelpSteer2, stand-in reference)"
    assert paper_label("pandalm", {"pandalm": "multipref"}) == "paper (MultiPref, stand-in reference)"
    assert paper_label("pandalm") is None
    with pytest.raises(ValueError, match=r"paper_reference\['pandalm'\] = 'alpacaeval'.*multipref"):
        paper_dataset("pandalm", {"pandalm": "alpacaeval"})
    assert check_paper_reference(None, ["pandalm"]) == {}
    assert check_paper_reference({"pandalm": "multipref"}, ["pandalm"]) == {"pandalm": "multipref"}
    with pytest.raises(ValueError, match=r"not loaded: \['panda'\]"):
        check_paper_reference({"panda": "multipref"}, ["pandalm"])


def test_pair_without_judgment_is_other():
    """Decision 10: a pair with no judgment (n = 0) is "other", with no majority."""
    pairs = pd.DataFrame(
        {
            "pair_id": ["judged", "empty"],
            "dataset": "multipref",
            "split": "test",
            "prompt": "p",
            "response_a": "a",
            "response_b": "b",
        }
    )
    ann = pd.DataFrame({"pair_id": ["judged"] * 2, "annotator_id": ["w0", "w1"], "preference": [A2, A2]})
    got = classify(PreferenceData(pairs, ann, {"name": "multipref"}))
    assert got.at["empty", "agreement"] == "other" and got.at["empty", "majority"] == "none"
    assert got.at["empty", "n_annotators"] == 0 and not got.at["empty", "substantial"]
    assert got.at["judged", "agreement"] == "high-agreement-pref"


def test_majority_is_more_than_half_unlike_the_plurality_training_label():
    """Decision 4: classify's "majority" is more than half of the judgments; PreferenceData.majority (the Agg
    training label) is a plurality. They differ only outside the high-agreement classes."""
    d = make({"a_plural": [A2, A2, B2, T], "tie_plural": [A2, A2, T, T], "a_major": [A2, A2, B2]})
    got = classify(d)
    plural = d.majority()
    assert got.at["a_plural", "majority"] == "none" and plural["a_plural"] == "A"
    assert got.at["tie_plural", "majority"] == "none" and plural["tie_plural"] == "A"  # a side drawing with ties wins
    assert got.at["a_major", "majority"] == plural["a_major"] == "A"
    assert set(got["agreement"]) <= {"diverging", "other"}


def test_pandalm_three_annotators_real_file(shared_data):
    """PandaLM's test set: 3 annotators, labels 0 tie / 1 response1 / 2 response2 without strength (±2 in
    the canonical form). Expected counts follow by hand from the label patterns in the file:
    (2,2,2) 426 + (1,1,1) 368 + (0,1,1) 21 + (0,2,2) 10 high-agreement prefs; (0,0,0) 85 + (0,0,1) 7 +
    (0,0,2) 13 high-agreement ties; (1,2,2) 36 + (1,1,2) 33 diverging (all substantial); no "other"."""
    recs = json.loads((shared_data / "pandalm" / "testset-v1.json").read_text())
    pairs = pd.DataFrame(
        {
            "pair_id": [str(r["idx"]) for r in recs],
            "dataset": "pandalm",
            "split": "test",
            "prompt": [r["instruction"] + "\n" + r["input"] for r in recs],
            "response_a": [str(r["response1"]).strip() or "(empty)" for r in recs],
            "response_b": [str(r["response2"]).strip() or "(empty)" for r in recs],
        }
    )
    to_pref = {0: 0, 1: -2, 2: 2}
    ann = pd.DataFrame(
        [
            {"pair_id": str(r["idx"]), "annotator_id": f"annotator{j}", "preference": to_pref[r[f"annotator{j}"]]}
            for r in recs
            for j in (1, 2, 3)
        ]
    )
    cl = classify(PreferenceData(pairs, ann, {"name": "pandalm"}))
    counts = cl["agreement"].value_counts().to_dict()
    assert counts == {"high-agreement-pref": 825, "high-agreement-tie": 105, "diverging": 69}
    assert cl.loc[cl["agreement"] == "diverging", "substantial"].all()
    assert shares(cl).loc["pandalm", "diverging share"] == pytest.approx(69 / 999)


@pytest.mark.parametrize("fmt", ["multipref", "helpsteer2"])
def test_simulator_diverging_pairs_are_the_planted_taste_driven_ones(fmt):
    """The demo's design: diverging pairs are the ones planted as taste-driven. The simulator plants a cause per
    pair; taste-driven causes (Table 1 minus errors) make annotators with different tastes split."""
    from pluralign.data import simulate

    data = simulate(n_pairs=1200, seed=5, annotation_format=fmt)
    cl = classify(data)
    taste = data.truth["taste_driven"].reindex(cl.index).astype(bool)
    div = cl["agreement"] == "diverging"
    base = taste.mean()
    precision = taste[div].mean()  # share of recovered diverging pairs that were planted taste-driven
    table = pd.crosstab(div, taste).to_numpy()
    odds_ratio, p = fisher_exact(table, alternative="greater")
    assert div.sum() > 100
    assert precision > base + 0.1 and precision > 0.65, (precision, base)
    # MultiPref format: odds ratio ≈ 8; HelpSteer2 (coarse Likert differences: many taste pairs tie) ≈ 2-5
    assert odds_ratio > (5 if fmt == "multipref" else 1.8) and p < 1e-4, (odds_ratio, p)
    # high-agreement preferences are mostly the objective ("none"/errors) pairs
    hap = cl["agreement"] == "high-agreement-pref"
    assert (~taste[hap]).mean() > 0.6
    if fmt == "helpsteer2":  # classes come from the Likert columns: identical with likert=True
        assert classify(data, likert=True)["agreement"].equals(cl["agreement"])


def test_planted_recovery_by_hand(hand_data):
    from pluralign.diverging import agreement

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

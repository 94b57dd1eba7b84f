"""Question 1 (pluralign.cross.margins_by_class): margin AUROCs and distributions on hand cases with exact answers
and on the simulator, where the planted truth is known."""

import pandas as pd
import pytest

from pluralign.cross import margins_by_class as q1
from pluralign.data.spec import from_spec
from pluralign.diverging import agreement_classes


def test_margin_auroc_exact_on_hand_cases(classes):
    cl = classes(["diverging"] * 3 + ["high-agreement-pref"] * 3 + ["other"])
    small_on_div = pd.Series([0.1, 0.2, 0.0, 0.8, 1.0, 0.6, 0.0], index=cl.index)
    assert q1.margin_auroc(small_on_div, cl, n_boot=50).estimate == 1.0
    assert q1.margin_auroc(1 - small_on_div, cl, n_boot=50).estimate == 0.0
    sep = q1.margin_separation({"m": small_on_div}, cl, n_boot=50)
    assert sep.loc["m", "diverging pairs"] == 3 and sep.loc["m", "high-agreement pairs"] == 3  # "other" left out
    assert q1.margin_auroc(small_on_div[3:], cl) is None  # no diverging pair
    with pytest.raises(ValueError, match="no margin"):
        q1.margin_auroc(small_on_div.where(small_on_div > 0.05), cl)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        q1.margin_auroc(small_on_div + 1, cl)


def test_margin_distribution_counts_and_means(classes):
    cl = classes(["diverging", "diverging", "high-agreement-pref"])
    d = q1.margin_distribution({"m": pd.Series([0.0, 0.5, 1.0], index=cl.index)}, cl, n_boot=20).set_index("class")
    assert d.loc["diverging", "pairs"] == 2 and d.loc["diverging", "mean"] == 0.25
    assert d.loc["high-agreement-pref", "unanimous (m = 1)"] == 1.0 and d.loc["all", "pairs"] == 3
    assert "high-agreement-tie" not in d.index  # a class without pairs is left out, not shown empty


@pytest.fixture(scope="module")
def sim():
    return from_spec({"simulate": {"n_pairs": 600, "seed": 3, "annotation_format": "helpsteer2"}})


def test_planted_margin_is_smaller_on_diverging_pairs_and_a_good_judge_recovers_it(sim, classes):
    """On the simulator the population margin |2p*−1| separates diverging from high-agreement pairs, and Eq. 3
    over a nearly noiseless simulated judge's 50 judgments recovers that AUROC (its CI covers the planted one)."""
    from pluralign.btb.margins import judgments_from

    cl = agreement_classes(sim)
    planted = (2 * sim.truth["share_a"] - 1).abs()
    j = judgments_from("simulated", sim, n=50, noise=0.05, seed=0).set_index("pair_id")
    sep = q1.margin_separation({"judge": j["margin"]}, cl, planted=planted, n_boot=300)
    row = sep.loc["judge"]
    assert row["planted AUROC (|2p*−1|)"] > 0.6
    assert row["lo"] <= row["planted AUROC (|2p*−1|)"] <= row["hi"] + 0.02
    assert row["verdict"].startswith("margins are smaller on diverging pairs")

"""Question 4 (pluralign.cross.training): decisiveness gaps, Table 2's measure and Pearson r with p* on hand cases."""

import numpy as np
import pandas as pd
import pytest

from pluralign.cross import training as q4


def _toy_models(classes):
    cl = classes(["high-agreement-pref"] * 20 + ["diverging"] * 20)
    cl["majority"] = "A"
    hedging = pd.Series([0.9] * 20 + [0.5] * 20, index=cl.index)  # decisive only where people agree
    flat = pd.Series([0.8] * 40, index=cl.index)  # equally decisive everywhere
    gap = pd.Series([2.0] * 20 + [0.0] * 20, index=cl.index)  # an MSE model's r_A − r_B
    return cl, {"flat": flat, "hedging": hedging}, {"mse": gap}


def test_decisiveness_gap_exact_and_paired_against_the_reference(classes):
    cl, p_a, gap = _toy_models(classes)
    g = q4.decisiveness_gaps(cl, p_a, gap, reference="flat", n_boot=100)
    assert g.loc["hedging", "gap"] == pytest.approx(0.4) and g.loc["flat", "gap"] == pytest.approx(0.0)
    assert g.loc["hedging", "verdict"] == "less decisive on diverging pairs"
    assert g.loc["hedging", "delta"] == pytest.approx(0.4)
    assert g.loc["hedging", "delta_verdict"].startswith("a larger gap than flat")
    assert g.loc["hedging", "delta_short"] == "larger gap" and g.loc["flat", "delta_short"] == "reference model"
    assert g.loc["mse", "delta_verdict"] == "— (a different scale)" and g.loc["mse", "gap"] == pytest.approx(2.0)
    m = q4.measure_by_class(cl, p_a, gap, reference="flat", n_boot=50).set_index(["model", "class"])
    assert m.loc[("hedging", "diverging"), "value"] == pytest.approx(0.5)
    assert m.loc[("hedging", "diverging"), "delta"] == pytest.approx(-0.3)
    assert np.isnan(m.loc[("mse", "all"), "delta"])


def test_decisiveness_gap_read_against_the_population_gap(classes):
    """The population's own gap (max(p*, 1 − p*): 0.9 on high-agreement, 0.8 on diverging pairs) is 0.1: the
    hedging model's gap 0.4 lies above it (over-correction), the flat model's 0 below it."""
    cl, p_a, gap = _toy_models(classes)
    p_star = pd.Series([0.9] * 20 + [0.2] * 20, index=cl.index)
    g = q4.decisiveness_gaps(cl, p_a, gap, p_star=p_star, reference="flat", n_boot=100)
    assert g.loc["hedging", "planted gap"] == pytest.approx(0.1)
    assert g.loc["hedging", "short"] == "above 0; above planted"
    assert g.loc["hedging", "verdict"].startswith("less decisive on diverging pairs; its CI lies above the population")
    assert "over-correction" in g.loc["hedging", "verdict"]
    assert g.loc["flat", "short"].endswith("below planted")  # a CI of one point, 0, below 0.1
    assert np.isnan(g.loc["mse", "planted gap"]) and g.loc["mse", "short"] == "above 0"  # the Likert scale: none
    shown = q4.display_gaps(g)
    assert set(shown["verdict"]) == set(g["short"]) and shown.loc["hedging", "Δ verdict"] == "larger gap"


def test_pearson_with_p_star_per_class(classes):
    rng = np.random.default_rng(1)
    cl = classes(["high-agreement-pref"] * 30 + ["diverging"] * 30)
    p_star = pd.Series(rng.uniform(0.05, 0.95, 60), index=cl.index)
    noisy = (p_star + rng.normal(0, 0.3, 60)).clip(0, 1)
    out = q4.pearson_by_class(p_star, {"noisy": noisy, "exact": p_star}, cl, reference="noisy", n_boot=200)
    ex = out[out.model == "exact"].set_index("class")
    assert ex.loc["all", "r"] == pytest.approx(1.0) and ex.loc["all", "delta_lo"] > 0
    assert ex.loc["all", "verdict"].startswith("correlates more") and ex.loc["all", "short"] == "higher r"
    assert list(out["model"].unique()) == ["noisy", "exact"]


def test_training_pairs_without_a_synthetic_margin_train_with_margin_0_and_are_counted():
    """Beyond the Binary Eq. 4 on pairs the judge gave no parseable verdict (margin NaN) or never judged (absent):
    margin 0, the plain Bradley-Terry loss; a pair outside the training split is not counted."""
    margins = pd.Series({"p0": 0.4, "p1": np.nan, "p2": 1.0, "p9": np.nan})
    m, n = q4.fill_missing_margins(margins, ["p0", "p1", "p2", "p3"])
    assert n == 2 and m.to_dict() == {"p0": 0.4, "p1": 0.0, "p2": 1.0, "p3": 0.0}
    assert q4.fill_missing_margins(None, ["p0"]) == (None, 0)  # gold margins: every pair has one
    said = q4.missing_margin_sentence(2, 4, synthetic=True)
    assert said.startswith("2 of the 4 training pairs have no synthetic margin") and "margin 0" in said
    assert q4.missing_margin_sentence(0, 4, synthetic=True).startswith("All 4 training pairs have a synthetic margin")
    assert "no synthetic margin here" in q4.missing_margin_sentence(0, 4, synthetic=False)

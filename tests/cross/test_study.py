"""Part IV (pluralign.cross): each question's functions on hand cases with exact answers and on the simulator,
where the planted truth is known."""

import numpy as np
import pandas as pd
import pytest

from pluralign import cross
from pluralign.cross import common
from pluralign.cross import margins_by_class as q1
from pluralign.cross import regimes as q3
from pluralign.cross import training as q4
from pluralign.cross import uncertainty as q2
from pluralign.data.spec import from_spec
from pluralign.diverging import agreement_classes


def _classes(labels):
    ids = [f"p{i}" for i in range(len(labels))]
    return pd.DataFrame({"agreement": labels, "substantial": False}, index=pd.Index(ids, name="pair_id"))


# ---- common ------------------------------------------------------------------------------------
def test_verdict_reads_the_ci():
    kw = dict(above="up", below="down")
    assert common.verdict(0.3, 0.1, 0.5, **kw) == "up"
    assert common.verdict(-0.3, -0.5, -0.1, **kw) == "down"
    assert "inconclusive" in common.verdict(0.1, -0.1, 0.3, **kw)
    assert common.verdict(0.7, 0.6, 0.8, null=0.5, **kw) == "up"
    assert common.verdict(np.nan, np.nan, np.nan, why_missing="no pairs", **kw) == "— (no pairs)"
    assert common.interval(0.61234, 0.55, 0.671) == "0.612 [0.55, 0.671]" and common.interval(np.nan, 0, 1) == "—"


def test_class_masks_refuse_unclassified_pairs():
    cl = _classes(["diverging", "high-agreement-pref"])
    m = common.class_masks(cl)
    assert m["diverging"].tolist() == [True, False] and m["all"].all()
    with pytest.raises(ValueError, match="no agreement class"):
        common.class_masks(cl, ["p0", "zz"])


# ---- question 1 --------------------------------------------------------------------------------
def test_margin_auroc_exact_on_hand_cases():
    cl = _classes(["diverging"] * 3 + ["high-agreement-pref"] * 3 + ["other"])
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


def test_margin_distribution_counts_and_means():
    cl = _classes(["diverging", "diverging", "high-agreement-pref"])
    d = q1.margin_distribution({"m": pd.Series([0.0, 0.5, 1.0], index=cl.index)}, cl, n_boot=20).set_index("class")
    assert d.loc["diverging", "pairs"] == 2 and d.loc["diverging", "mean"] == 0.25
    assert d.loc["high-agreement-pref", "unanimous (m = 1)"] == 1.0 and d.loc["all", "pairs"] == 3
    assert "high-agreement-tie" not in d.index  # a class without pairs is left out, not shown empty


@pytest.fixture(scope="module")
def sim():
    return from_spec({"simulate": {"n_pairs": 600, "seed": 3, "annotation_format": "helpsteer2"}})


def test_planted_margin_is_smaller_on_diverging_pairs_and_a_good_judge_recovers_it(sim):
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
    assert row["verdict"].startswith("supported")


# ---- question 2 --------------------------------------------------------------------------------
def test_pair_sigma_and_planted_spread_exact():
    pred = pd.DataFrame({"pair_id": ["a", "b"], "sigma_a": [3.0, 1.0], "sigma_b": [4.0, 0.0]})
    assert q2.pair_sigma(pred).tolist() == [5.0, 1.0]
    with pytest.raises(ValueError, match="sigma_a"):
        q2.pair_sigma(pred.drop(columns="sigma_a"))
    truth = pd.DataFrame({"a_verbosity": [0, 1], "b_verbosity": [1, 1], "a_format": [0, 0], "b_format": [1, 0]})
    from pluralign.data.simulate import population_weights

    sd = population_weights()["sd"]
    assert q2.planted_spread(truth).round(9).tolist() == [round(float(np.hypot(sd["verbosity"], sd["format"])), 9), 0.0]


def test_sigma_margin_correlation_sign_too_few_and_constant():
    rng = np.random.default_rng(0)
    labels = ["diverging"] * 40 + ["high-agreement-pref"] * 8 + ["high-agreement-tie"] * 20
    cl = _classes(labels)
    m = pd.Series(rng.uniform(0, 1, len(cl)), index=cl.index)
    m[cl.agreement == "high-agreement-tie"] = 0.5  # constant within the class
    sigma = 2 - m + rng.normal(0, 0.05, len(cl))  # σ falls as the margin rises
    out = q2.sigma_margin_correlations(sigma, {"m": m}, cl, planted=2 - m, n_boot=200).set_index("class")
    assert out.loc["diverging", "rho"] < -0.8 and out.loc["diverging", "verdict"].startswith("supported")
    assert out.loc["diverging", "planted rho"] == pytest.approx(-1.0)
    assert out.loc["high-agreement-pref", "verdict"].startswith("too few") and np.isnan(
        out.loc["high-agreement-pref", "rho"]
    )
    assert "the same for every pair" in out.loc["high-agreement-tie", "verdict"]
    shown = q2.display(out.reset_index())
    assert shown.loc[("m", "high-agreement-pref"), "Spearman ρ(σ_pair, m) [95% CI]"] == "—"


# ---- question 3 --------------------------------------------------------------------------------
def test_regimes_by_class_exact():
    cl = _classes(["diverging", "diverging", "high-agreement-pref", "high-agreement-pref"])
    # pre: aligned on p1, p2; post: aligned on p2, p3 (p0 stayed misaligned, p1 reversed, p2 stayed, p3 became)
    R = pd.DataFrame(
        {
            "pair_id": cl.index,
            "pre_chosen": [0, 1, 1, 0],
            "pre_rejected": [1, 0, 0, 0],
            "post_chosen": [0, 0, 1, 1],
            "post_rejected": [1, 1, 0, 0],
        }
    ).astype({"pre_chosen": float})
    pop = pd.Series([False, True, True, True], index=cl.index)
    t = q3.regimes_by_class(R, cl, population=pop, n_boot=50)
    assert t.loc["diverging", "a- post"] == 1.0 and t.loc["high-agreement-pref", "a- post"] == 0.0
    assert t.loc["diverging", "stayed-misaligned"] == 0.5 and t.loc["diverging", "reversed"] == 0.5
    assert t.loc["high-agreement-pref", "became-aligned"] == 0.5 and t.loc["all", "a+ pre"] == 0.5
    assert t.loc["diverging", "planted a-"] == 0.5
    d = q3.resistance_difference(R, cl, population=pop, n_boot=50)
    assert d["delta"] == 1.0 and d["planted"] == 0.5 and d["n_diverging"] == 2


def test_population_alignment_reads_the_chosen_side():
    view = pd.DataFrame({"pair_id": ["a", "b", "c"], "chosen_side": ["A", "B", "A"]})
    share = pd.Series({"a": 0.8, "b": 0.8, "c": 0.5})
    assert q3.population_alignment(view, share).tolist() == [True, False, False]  # an even split is misaligned
    with pytest.raises(ValueError, match="lacks"):
        q3.population_alignment(view, share.drop("c"))


# ---- question 4 --------------------------------------------------------------------------------
def _toy_models():
    cl = _classes(["high-agreement-pref"] * 20 + ["diverging"] * 20)
    cl["majority"] = "A"
    hedging = pd.Series([0.9] * 20 + [0.5] * 20, index=cl.index)  # decisive only where people agree
    flat = pd.Series([0.8] * 40, index=cl.index)  # equally decisive everywhere
    gap = pd.Series([2.0] * 20 + [0.0] * 20, index=cl.index)  # an MSE model's r_A − r_B
    return cl, {"flat": flat, "hedging": hedging}, {"mse": gap}


def test_decisiveness_gap_exact_and_paired_against_the_reference():
    cl, p_a, gap = _toy_models()
    g = q4.decisiveness_gaps(cl, p_a, gap, reference="flat", n_boot=100)
    assert g.loc["hedging", "gap"] == pytest.approx(0.4) and g.loc["flat", "gap"] == pytest.approx(0.0)
    assert g.loc["hedging", "verdict"] == "less decisive on diverging pairs"
    assert g.loc["hedging", "delta"] == pytest.approx(0.4)
    assert g.loc["hedging", "delta_verdict"].startswith("handles disagreement better")
    assert g.loc["mse", "delta_verdict"] == "— (a different scale)" and g.loc["mse", "gap"] == pytest.approx(2.0)
    m = q4.measure_by_class(cl, p_a, gap, reference="flat", n_boot=50).set_index(["model", "class"])
    assert m.loc[("hedging", "diverging"), "value"] == pytest.approx(0.5)
    assert m.loc[("hedging", "diverging"), "delta"] == pytest.approx(-0.3)
    assert np.isnan(m.loc[("mse", "all"), "delta"])


def test_pearson_with_p_star_per_class():
    rng = np.random.default_rng(1)
    cl = _classes(["high-agreement-pref"] * 30 + ["diverging"] * 30)
    p_star = pd.Series(rng.uniform(0.05, 0.95, 60), index=cl.index)
    noisy = (p_star + rng.normal(0, 0.3, 60)).clip(0, 1)
    out = q4.pearson_by_class(p_star, {"noisy": noisy, "exact": p_star}, cl, reference="noisy", n_boot=200)
    ex = out[out.model == "exact"].set_index("class")
    assert ex.loc["all", "r"] == pytest.approx(1.0) and ex.loc["all", "delta_lo"] > 0
    assert ex.loc["all", "verdict"].startswith("correlates more")
    assert list(out["model"].unique()) == ["noisy", "exact"]


# ---- the study, end to end on a small simulation -----------------------------------------------
def test_setup_refuses_unknown_settings():
    with pytest.raises(ValueError, match="unknown seal key"):
        cross.setup(data={"simulate": {"n_pairs": 60, "seed": 0}}, seal={"other": []})


def test_study_end_to_end_on_the_simulator():
    """Every page's sections on a small simulation: the five models train, nothing shows NaN, and the planted
    references stand beside the estimates."""
    # seed 2: texts the other demo-RM tests embed too (embeddings are memoized per process)
    s = cross.setup(
        data={"simulate": {"n_pairs": 200, "seed": 2, "annotation_format": "helpsteer2"}},
        split={"test": 80, "validation": 30},
        reward_model={"head": "linear"},
        train={"epochs": 2, "eval_every": 0.5},
        n_boot=50,
        seal={
            "other_data": [{"simulate": {"n_pairs": 80, "seed": 6, "name": "sim-other"}}],
            "base_model": {"head": "linear"},
            "train": {"objective": "bt", "labels": "aggregate", "epochs": 2},
        },
    )
    results = [
        s.margin_distribution(),
        s.margin_separation(),
        s.models_trained(),
        s.training_measures(),
        s.decisiveness_gaps(),
        s.uncertainty(),
        s.regimes(),
        s.resistance_gap(),
    ]
    for r in results:
        assert r.table is not None and not r.table.astype(str).isin(["nan", "NaN"]).any().any()
    assert results[2].table["trained"].eq("yes").all()
    assert "planted (demo truth)" in results[1].table.columns
    assert "planted a₋ (population)" in results[6].table.columns
    assert all(r.figure is not None for r in (results[0], results[3], results[5], results[6]))


# ---- the profiles' parameter files -------------------------------------------------------------
@pytest.mark.parametrize("profile", ["demo", "sample", "paper"])
def test_every_profile_has_the_four_pages_with_valid_parameters(profile):
    from pluralign.book import runner as book

    runs = {r.notebook: r for r in book.runs(profile, only="cross")}
    assert sorted(runs) == ["cross_margins", "cross_regimes", "cross_training", "cross_uncertainty"]
    design = book.read_params(book.ROOT / runs["cross_margins"].params, "cross_margins")["design"]
    if profile == "paper":  # MultiPref and HelpSteer2, analysed apart, with the paper's models by name
        assert [d["name"] for d in design["data"]] == ["multipref", "helpsteer2"]
        assert design["judge"]["from"] == "llm" and design["reward_model"] == "diverging_llama3_8b"
    elif profile == "sample":
        assert design["data"] == {"name": "pandalm"}


def test_sample_pandalm_gold_margins_by_class(shared_data, monkeypatch):
    """On PandaLM (three real annotators) question 1 runs without any model: every pair has a gold margin, and
    a 2–1 split (diverging when the annotators picked opposite responses) has m = 1/3."""
    monkeypatch.setenv("PLURALIGN_SHARED_DATA", str(shared_data))
    s = cross.setup("sample", data={"name": "pandalm"}, p_star_from="annotators", judge={"from": None}, n_boot=100)
    assert list(s.margins) == ["gold (annotators)"] and s.margins_left_out == {"gold (annotators)": 0}
    div = s.classified.index[s.classified["agreement"] == "diverging"]
    assert len(div) > 10 and np.allclose(s.margins["gold (annotators)"].reindex(div), 1 / 3)
    r = s.margin_separation()
    assert r.table.loc["gold (annotators)", "verdict"].startswith("supported")
    assert "not tested independently" in r.note


def test_a_list_of_data_sets_is_analysed_apart_and_joined():
    """The paper profile's shape (MultiPref and HelpSteer2 apart): one Study per data set, tables stacked
    under a "data set" level, values of each suffixed."""
    s = cross.setup(
        data=[
            {"simulate": {"n_pairs": 120, "seed": 1, "name": "sim-one"}},
            {"simulate": {"n_pairs": 120, "seed": 2, "name": "sim-two"}},
        ],
        n_boot=30,
    )
    assert isinstance(s, cross.study.Studies) and list(s.studies) == ["sim-one", "sim-two"]
    r = s.margin_separation()
    assert list(r.table.index.get_level_values("data set").unique()) == ["sim-one", "sim-two"]
    assert "x_auc_0_0" in r.values and "x_auc_0_1" in r.values and "**sim-two**" in r.note

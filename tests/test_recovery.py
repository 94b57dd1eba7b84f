"""Small versions of every recovery check (pluralign.recovery): each passes on what the simulator planted and
fails on a broken method, so a change that breaks a method fails CI."""
import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R
from pluralign.data.simulate import FEATURES, simulate
from pluralign.diverging.agreement import agreement_classes


@pytest.fixture(scope="module")
def sim():
    return simulate(n_pairs=600, seed=3)


@pytest.fixture(scope="module")
def classified(sim):
    return agreement_classes(sim)


def test_expected_agreement_matches_a_large_resample():
    """The analytic P(diverging) under the population equals the share over many annotators' draws."""
    d = simulate(n_pairs=300, seed=5, n_annotators=4, n_pool=400)
    exp = R.expected_agreement(d)
    assert exp["p_diverging"].between(0, 1).all()
    obs = (agreement_classes(d)["agreement"] == "diverging").mean()
    assert abs(exp["p_diverging"].mean() - obs) < 0.06
    # an objective pair (harmful compliance vs refusal) almost never diverges; taste-driven ones often do
    assert exp.loc[d.truth["cause"] == "none", "p_diverging"].mean() < exp.loc[exp["taste_driven"], "p_diverging"].mean()


def test_expected_agreement_refuses_other_data(sim):
    with pytest.raises(ValueError, match="MultiPref"):
        R.expected_agreement(simulate(n_pairs=20, annotation_format="helpsteer2"))


def test_diverging_share_and_taste_driven(sim, classified):
    for check in (R.diverging_share, R.diverging_taste_driven):
        r = check(classified, sim)
        assert set(r) == set(R.COLUMNS) and r["recovered"], r
    broken = classified.assign(agreement="other")
    broken.iloc[:5, broken.columns.get_loc("agreement")] = "diverging"
    assert not R.diverging_share(broken, sim)["recovered"]


def test_cause_agreement_rules_vs_a_broken_labeller(sim, classified):
    ids = classified.index[classified["agreement"] == "diverging"]
    assert R.cause_agreement(sim, ids)["recovered"]

    def wrong(data, pair_ids):
        return pd.DataFrame({"pair_id": list(pair_ids), "annotator": "x", "causes": [frozenset({"format"})] * len(pair_ids)})
    r = R.cause_agreement(sim, ids, labeller=wrong)
    assert not r["recovered"] and r["estimate"] < 0.2


def test_meanvar_auroc(sim):
    t = sim.truth
    good = pd.DataFrame({"sigma_a": t["taste_driven"].astype(float) + 0.1, "sigma_b": 0.2}, index=t.index)
    assert R.meanvar_auroc_diverging(good, t)["estimate"] == 1.0
    flat = good.assign(sigma_a=1.0)
    r = R.meanvar_auroc_diverging(flat, t)
    assert r["estimate"] == 0.5 and not r["recovered"]


def test_rm_checks_on_planted_and_inverted_gaps(sim):
    t = sim.truth
    gap = t["mean_gap"]
    assert R.rm_accuracy_high_agreement(gap, t)["estimate"] == 1.0
    assert R.rm_utility_correlation(gap, t)["estimate"] == pytest.approx(1.0)
    assert not R.rm_accuracy_high_agreement(-gap, t)["recovered"]
    assert not R.rm_utility_correlation(-gap, t)["recovered"]


def test_a_small_demo_rm_learns_the_planted_preferences():
    """The demo recipe (frozen MiniLM + MLP head, BT on every judgment) on a small simulated set: held-out
    accuracy against the population where it agrees, and the reward gap tracks the planted utility."""
    from pluralign import rewards
    d = simulate(n_pairs=500, seed=0)
    ids = d.pairs["pair_id"].to_numpy()
    test, train = ids[:150], ids[150:]
    rm = rewards.load(head="mlp").train(d.subset(train), objective="bt", labels="all", epochs=10, progress=False)
    s = rm.score(d.subset(test), progress=False).set_index("pair_id")
    gap = s["reward_a"] - s["reward_b"]
    assert R.rm_accuracy_high_agreement(gap, d.truth, threshold=0.8)["recovered"]
    assert R.rm_utility_correlation(gap, d.truth, threshold=0.6)["recovered"]


def test_imprint_weights_on_a_planted_reward_and_a_broken_one(sim):
    t, w = sim.truth, sim.meta["weights"]["mean"]
    ua = np.column_stack([t[f"a_{f}"] for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
    ub = np.column_stack([t[f"b_{f}"] for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
    noise = np.random.default_rng(0).normal(0, 0.05, size=(2, len(t)))
    corr, cov = R.imprint_weights(ua + noise[0], ub + noise[1], sim, t.index, weights=w)
    assert corr["quantity"] == "imprint_weight_correlation" and corr["recovered"] and corr["estimate"] > 0.99
    assert cov["recovered"], cov
    corr, cov = R.imprint_weights(ub + noise[0], ua + noise[1], sim, t.index, weights=w)  # the wrong side's rewards
    assert not corr["recovered"] and not cov["recovered"]


def test_robustness_sign_by_hand():
    w = pd.Series({"verbosity": 0.6, "refusal": -0.5, "interpretation": 0.0})
    scores = pd.DataFrame({"entry": ["c", "c", "r", "r", "c"], "feature": ["verbosity", "refusal", "verbosity",
                                                                          "refusal", "interpretation"],
                           "flip": [1, 1, -1, 1, 1], "separated": False,
                           "estimate": [-0.4, 0.7, -0.2, -0.3, 5.0]})
    # verbosity added to the chosen entry helps it (π < 0); refusal added to it hurts (π > 0);
    # verbosity removed from the rejected entry helps the chosen side (π < 0); refusal added to the rejected (π < 0)
    r = R.robustness_sign(scores, w)
    assert r["estimate"] == 1.0 and r["recovered"] and "4 estimable" in r["description"]
    bad = scores.assign(estimate=-scores["estimate"])
    assert not R.robustness_sign(bad, w)["recovered"]


def test_margins_and_categories(sim):
    from pluralign.btb.margins import judgments_from
    j = judgments_from("simulated", sim, n=10, seed=0).set_index("pair_id")
    assert R.margin_pstar_correlation(j["share_a"].astype(float), sim.truth["share_a"])["recovered"]
    shuffled = pd.Series(np.random.default_rng(0).permutation(j["share_a"].to_numpy()), index=j.index)
    assert not R.margin_pstar_correlation(shuffled, sim.truth["share_a"])["recovered"]
    kind = sim.truth["kind"]
    assert R.subjectivity_category_accuracy(kind, sim.truth, "truth")["estimate"] == 1.0
    flipped = kind.map({"single": "multiple", "multiple": "single"})
    assert not R.subjectivity_category_accuracy(flipped, sim.truth, "x")["recovered"]


def test_claim_rows_give_their_verdict_from_the_ci():
    rng = np.random.default_rng(0)
    p_star = pd.Series(rng.random(400))
    base = p_star + rng.normal(0, 0.5, 400)
    reg = p_star + rng.normal(0, 0.05, 400)
    assert R.claim_margin_improves_pstar(p_star, base, reg)["recovered"]
    assert not R.claim_margin_improves_pstar(p_star, reg, base)["recovered"]
    up = R.claim_seal_alignment_shift(np.zeros(200), np.ones(200))
    assert up["recovered"] and np.isnan(up["planted"])
    idx = [f"p{i}" for i in range(40)]
    cls = pd.DataFrame({"agreement": ["high-agreement-pref"] * 20 + ["diverging"] * 20}, index=idx)
    r = R.claim_bt_decisive_on_diverging(pd.Series([0.95] * 20 + [0.55] * 20, index=idx), cls)
    assert r["estimate"] == pytest.approx(0.4) and not r["recovered"]
    same = pd.Series([0.9, 0.1] * 20, index=idx)
    assert R.claim_bt_decisive_on_diverging(same, cls)["recovered"]


def test_result_table_and_profiles():
    t = pd.DataFrame([R.row("diverging", "diverging_share", "d", 0.4, 0.41, (0.38, 0.44), "inside", True),
                      R.row("btb", "claim_x", "c", None, -0.1, (-0.2, 0.0), "claim", False)], columns=R.COLUMNS)
    res = R.result(t)
    assert res.table.loc[("btb", "claim_x"), "planted"] == "—" and res.values["n_recovered"] == 1
    assert res.values["n_claims"] == 1 and "1 of 1 method checks" in res.note
    assert R.result(profile="sample").table is None
    with pytest.raises(ValueError, match="planted truth"):
        R.recovery_table("sample")


def test_cli_is_wired(capsys):
    from pluralign.book import cli
    assert cli.DELEGATED["recovery"][0] == "pluralign.recovery:main"
    with pytest.raises(SystemExit):
        R.main(["--profile", "paper"])
    assert R.page_params("recovery")["profile"] == "demo"


def test_training_curves_off_the_demo_say_so():
    assert R.training_curves("sample").table is None


def test_labelling_weights_are_the_pools_judgment_weighted_means(sim):
    pool = sim.meta["annotators"]
    counts = sim.annotations["annotator_id"].value_counts()
    w = R.labelling_weights(sim)
    assert w["format"] == pytest.approx((pool["format"] * counts.reindex(pool.index).fillna(0)).sum() / counts.sum())
    # a pool of 40 is a sample of the population: its weights are near, not equal to, the population's
    diff = (w - sim.meta["weights"]["mean"]).abs()
    assert 0 < diff.max() < 1.0

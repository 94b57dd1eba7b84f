"""Part I's recovery checks on small simulated data: each passes on what the simulator planted and fails on a
broken method or stand-in."""

import pandas as pd
import pytest

from pluralign import recovery as R
from pluralign.data.simulate import simulate
from pluralign.diverging.agreement import agreement_classes


def test_expected_agreement_matches_a_large_resample():
    """The analytic P(diverging) under the population equals the share over many annotators' draws."""
    d = simulate(n_pairs=300, seed=5, n_annotators=4, n_pool=400)
    exp = R.expected_agreement(d)
    assert exp["p_diverging"].between(0, 1).all()
    obs = (agreement_classes(d)["agreement"] == "diverging").mean()
    assert abs(exp["p_diverging"].mean() - obs) < 0.06
    # an objective pair (harmful compliance vs refusal) almost never diverges; taste-driven ones often do
    assert (
        exp.loc[d.truth["cause"] == "none", "p_diverging"].mean() < exp.loc[exp["taste_driven"], "p_diverging"].mean()
    )


def test_expected_agreement_refuses_other_data(sim):
    with pytest.raises(ValueError, match="MultiPref"):
        R.expected_agreement(simulate(n_pairs=20, annotation_format="helpsteer2"))


def test_diverging_share_and_taste_driven(sim, classified):
    for check in (R.diverging_share, R.diverging_taste_driven):
        r = check(classified, sim)
        assert set(r) == set(R.COLUMNS) and r["recovered"] and r["null_pass"] <= 0.05, r
    broken = classified.assign(agreement="other")
    broken.iloc[:5, broken.columns.get_loc("agreement")] = "diverging"
    assert not R.diverging_share(broken, sim)["recovered"]


@pytest.mark.parametrize("how", ["sign", "zero", "noise", "votes shuffled", "threshold +1"])
def test_broken_agreement_classes_fail_both_rows(sim, how):
    """Classes inverted, none diverging, diverging at random at the right rate, votes shuffled across pairs, and
    an off-by-one in the significance threshold each fail both rows: the right share alone does not pass (the
    per-pair slope and the taste-driven rate see which pairs were marked)."""
    from pluralign.recovery.mutations import broken_classes

    c = broken_classes(sim, how)
    assert not R.diverging_share(c, sim)["recovered"] or how == "threshold +1"
    assert not (R.diverging_share(c, sim)["recovered"] and R.diverging_taste_driven(c, sim)["recovered"])


def test_cause_agreement_rules_vs_a_broken_labeller(sim, classified):
    ids = classified.index[classified["agreement"] == "diverging"]
    assert R.cause_agreement(sim, ids)["recovered"]

    def wrong(data, pair_ids):
        return pd.DataFrame(
            {"pair_id": list(pair_ids), "annotator": "x", "causes": [frozenset({"format"})] * len(pair_ids)}
        )

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


@pytest.mark.slow  # trains the demo's reward model on 350 pairs; CI runs it (make test-slow)
def test_a_small_demo_rm_learns_the_planted_preferences():
    """The demo recipe (frozen MiniLM + MLP head, BT on every judgment) on a small simulated set: held-out
    accuracy against the population where it agrees, and the reward gap tracks the planted utility."""
    from pluralign import rewards

    d = simulate(n_pairs=500, seed=2)  # seed 2: the texts the other demo-RM tests embed (one embedding per process)
    ids = d.pairs["pair_id"].to_numpy()
    test, train = ids[:150], ids[150:]
    rm = rewards.load(head="mlp").train(d.subset(train), objective="bt", labels="all", epochs=10, progress=False)
    s = rm.score(d.subset(test), progress=False).set_index("pair_id")
    gap = s["reward_a"] - s["reward_b"]
    assert R.rm_accuracy_high_agreement(gap, d.truth, threshold=0.8)["recovered"]
    assert R.rm_utility_correlation(gap, d.truth, threshold=0.6)["recovered"]

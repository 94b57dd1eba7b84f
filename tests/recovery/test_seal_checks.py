"""Part II's recovery checks on small simulated data: Eq. 1 and Eq. 4 on noisy oracle rewards recover the planted
weights and fail when the method is broken (wrong signs, intervals too narrow, no pair fixed effects)."""

import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R
from pluralign.data.simulate import FEATURES


def test_oracle_imprint_recovers_weights_with_calibrated_intervals(sim):
    """The method row: Eq. 1 on a noisy oracle gives back the planted weights, its intervals calibrated on both
    sides (95 % and 50 % coverage inside their bands); a noise method would pass with probability ≈ 0."""
    r = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8)
    assert r["quantity"] == "imprint_weights" and r["kind"] == "method" and r["recovered"], r
    assert r["r_first"] > 0.98 and r["null_pass"] <= 0.05 and r["planted"] == 0.95
    assert "95% coverage in [" in r["criterion"] and "50% coverage in [" in r["criterion"]
    assert (
        "t test" in r["criterion"] and "χ² test" in r["criterion"] and "against the planted weights" in r["description"]
    )


@pytest.mark.parametrize("how", ["sign", "zero", "noise", "se×3", "se÷3"])
def test_oracle_imprint_fails_a_broken_method(sim, how):
    """Each broken variant of Eq. 1 (estimates negated, zero or noise with plausible intervals, intervals three
    times too wide or too narrow) fails the row at the table's 25 draws, the design the row gates with."""
    from pluralign.recovery.mutations import broken_fit
    from pluralign.seal import imprint as imp

    fit = broken_fit(imp.feature_imprint, how)
    assert not R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=25, fit=fit)["recovered"]


def test_oracle_imprint_needs_the_pair_fixed_effects(sim):
    """The oracle's prompt effect rises with the pair's features, as a real RM's offsets do: Eq. 1 without its
    pair fixed effects (SEAL's own code: pooled OLS) is biased by it and fails; without a prompt effect the pooled
    imprints track the weights closely (their bias is the prompt effect's)."""
    from pluralign.seal import imprint as imp

    pooled = imp.feature_imprint_seal_code
    assert not R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8, fit=pooled)["recovered"]
    assert (
        R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8, fit=pooled, prompt_effect=0.0)["r_first"] > 0.98
    )


def test_imprint_on_the_featurizers_features(sim):
    """Eq. 1 on the rule featurizer's features of the texts: passes against its pseudo-true value, with the
    planted weight shown beside a truth that differs from it; negated imprints fail."""
    from pluralign.recovery.mutations import broken_fit
    from pluralign.seal import imprint as imp
    from pluralign.seal.pairs import chosen_rejected

    view = chosen_rejected(sim).table
    r = R.oracle_imprint_text(sim, view, noise_sd=0.5, n_draws=8)
    assert r["quantity"] == "imprint_text_weights" and r["recovered"], r
    assert "pseudo-true value" in r["description"] and "(planted " in r["description"]
    fit = broken_fit(imp.feature_imprint, "sign")
    assert not R.oracle_imprint_text(sim, view, noise_sd=0.5, n_draws=8, fit=fit)["recovered"]


def test_imprint_rm_and_residual_sd_on_a_known_reward(sim):
    """The stand-in RM row: a reward that is twice the planted utility plus noise of sd 0.6 per entry has
    r ≈ 1 and a residual sd of ≈ 0.3 on the utility scale; the wrong side's rewards fail."""
    t, w = sim.truth, sim.meta["weights"]["mean"]
    ua = np.column_stack([t[f"a_{f}"] for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
    ub = np.column_stack([t[f"b_{f}"] for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
    noise = np.random.default_rng(0).normal(0, 0.6, size=(2, len(t)))
    ra, rb = 2 * ua + noise[0], 2 * ub + noise[1]
    r = R.imprint_rm(ra, rb, sim, t.index)
    assert r["quantity"] == "imprint_rm_weight_correlation" and r["recovered"] and r["estimate"] > 0.98
    assert R.residual_sd(ra, rb, sim, t.index) == pytest.approx(0.3, rel=0.15)
    assert not R.imprint_rm(rb, ra, sim, t.index)["recovered"]
    assert r["kind"] == "stand-in" and np.isnan(r["planted"])


def test_robustness_sign_by_hand():
    w = pd.Series({"verbosity": 0.6, "refusal": -0.5, "interpretation": 0.0})
    scores = pd.DataFrame(
        {
            "entry": ["c", "c", "r", "r", "c"],
            "feature": ["verbosity", "refusal", "verbosity", "refusal", "interpretation"],
            "flip": [1, 1, -1, 1, 1],
            "separated": False,
            "estimate": [0.4, -0.7, 0.2, 0.3, 5.0],
        }
    ).assign(ci_low=lambda d: d["estimate"] - 0.15, ci_high=lambda d: d["estimate"] + 0.15)
    # a flip is original − rewritten: the chosen entry losing verbosity (+1) hurts it (π > 0); losing a refusal
    # helps it (π < 0); the rejected entry gaining verbosity (−1) hurts the chosen side (π > 0); the rejected
    # losing a refusal helps the rejected (π > 0); interpretation's weight is 0: not estimable
    r = R.robustness_sign(scores, w)
    assert r["estimate"] == 1.0 and r["recovered"] and "4 estimable" in r["description"]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((0.025**0.25, 1.0)) and np.isnan(r["planted"])
    bad = scores.assign(estimate=-scores["estimate"], ci_low=-scores["ci_high"], ci_high=-scores["ci_low"])
    assert not R.robustness_sign(bad, w)["recovered"]
    # one small score of the wrong sign whose interval straddles 0: noise, not a miss (3 of 4 right, passes)
    noisy = scores.copy()
    noisy.loc[2, ["estimate", "ci_low", "ci_high"]] = [-0.05, -0.3, 0.2]
    r = R.robustness_sign(noisy, w)
    assert r["estimate"] == 0.75 and r["recovered"] and "0 significantly of the wrong sign" in r["description"]


def test_oracle_robustness_on_simulated_rewrites(sim):
    """The method row of Eq. 4: every score's interval is calibrated around its planted value (the projection of
    the planted event probability); scores read with the entries swapped, or intervals three times too narrow,
    fail."""
    from pluralign.recovery.mutations import broken_fit
    from pluralign.seal import robustness as rob
    from pluralign.seal.pairs import chosen_rejected

    view = chosen_rejected(sim).table
    r = R.oracle_robustness(sim, view, noise_sd=0.5, n_draws=8)
    assert r["quantity"] == "robustness_scores" and r["recovered"] and r["null_pass"] <= 0.05, r

    def swapped(b, a, fc, fr, *x, **k):
        return rob.robustness_scores(b, a, fr, fc, *x, **k)

    assert not R.oracle_robustness(sim, view, noise_sd=0.5, n_draws=8, scores=swapped)["recovered"]
    narrow = broken_fit(rob.robustness_scores, "se÷3")
    assert not R.oracle_robustness(sim, view, noise_sd=0.5, n_draws=8, scores=narrow)["recovered"]


def test_planted_scores_follow_the_weights(sim):
    """The planted π: the chosen entry losing a feature of positive weight raises the misalignment probability."""
    from pluralign.recovery.robustness_checks import rewritten_oracle
    from pluralign.seal.pairs import chosen_rejected

    rw = rewritten_oracle(sim, chosen_rejected(sim).table, seed=0, p_flip=0.25, n_rounds=2)
    pi = R.planted_scores(rw, 0.5)
    w = rw["weights"]
    for (entry, feature, flip), v in pi.items():
        if abs(w[feature]) > 0.3:
            hurts = (entry == "c" and flip > 0) or (entry == "r" and flip < 0)
            assert np.sign(v) == (np.sign(w[feature]) if hurts else -np.sign(w[feature])), (entry, feature, flip)


def test_oracle_resistance_against_planted_regimes(sim):
    """SEAL Eq. 3 and Table 1 on pre-D / post-D oracles with logistic noise: the coefficients' intervals are
    calibrated around the exact planted ρ and the regime counts match their planted expectation; Table 1's
    conditions read with pre and post swapped, and negated coefficients, fail."""
    from pluralign.recovery.mutations import broken_fit
    from pluralign.seal import resistance as res
    from pluralign.seal.pairs import chosen_rejected

    view = chosen_rejected(sim).table
    other = simulate_other(sim)
    r = R.oracle_resistance(sim, view, [other], noise_sd=0.5, n_draws=8)
    assert r["quantity"] == "resistance_regimes" and r["recovered"], r
    assert abs(r["estimate"] - r["planted"]) < 0.03

    def swapped(pc, pr, qc, qr):
        return res.alignment_regimes(qc, qr, pc, pr)

    assert not R.oracle_resistance(sim, view, [other], noise_sd=0.5, n_draws=8, regimes=swapped)["recovered"]
    fit = broken_fit(res.misalignment_regression, "sign")
    assert not R.oracle_resistance(sim, view, [other], noise_sd=0.5, n_draws=8, regression=fit)["recovered"]


def simulate_other(sim):
    """Another population for the pre-D reward: its style weights reversed (as the demo's other data)."""
    from pluralign.data.simulate import simulate

    w = {"verbosity": -0.6, "format": -0.4, "sentiment": -0.5}
    return simulate(n_pairs=300, seed=9, weights={k: [v, 0.3] for k, v in w.items()})


def test_labelling_weights_are_the_pools_judgment_weighted_means(sim):
    pool = sim.meta["annotators"]
    counts = sim.annotations["annotator_id"].value_counts()
    w = R.labelling_weights(sim)
    assert w["format"] == pytest.approx((pool["format"] * counts.reindex(pool.index).fillna(0)).sum() / counts.sum())
    # the pool is moment-matched to the population, so the judgment-weighted means are near its means
    diff = (w - sim.meta["weights"]["mean"]).abs()
    assert 0 < diff.max() < 0.1


def test_separated_marks_a_regressor_whose_pairs_all_share_one_outcome():
    """Quasi-complete separation (Albert & Anderson 1984): every pair with the feature misaligned, or none."""
    from pluralign.recovery.resistance_checks import separated

    ch = pd.DataFrame({"a": [1, 1, 0, 0, 0, 0], "b": [1, 0, 1, 0, 1, 0]})
    rj = pd.DataFrame({"a": [0, 0, 0, 1, 1, 0], "b": [0, 0, 0, 0, 0, 0]})
    y = np.array([True, True, False, True, False, False])
    idx = pd.MultiIndex.from_tuples([("c", "a"), ("c", "b"), ("r", "a"), ("r", "b")])
    # c:a — both pairs with it misaligned; c:b mixed; r:a mixed; r:b never set (the pairs without it are mixed)
    assert separated(y, ch, rj, idx).tolist() == [True, False, False, False]

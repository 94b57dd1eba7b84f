"""Part II's recovery checks on small simulated data: Eq. 1 and Eq. 4 on noisy oracle rewards recover the planted
weights and fail when the method is broken (wrong signs, intervals too narrow, no pair fixed effects)."""

import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R
from pluralign.data.simulate import FEATURES


def test_oracle_imprint_recovers_weights_and_its_intervals_cover(sim):
    """The method check: Eq. 1 on a noisy oracle gives back the planted weights, and its 95% intervals
    contain them about 95% of the time."""
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8)
    assert corr["quantity"] == "imprint_weight_correlation" and corr["recovered"] and corr["estimate"] > 0.98
    assert "7 of 7 signs right, 0 significantly wrong" in corr["description"]  # interpretation's weight is 0
    assert np.isnan(corr["planted"]) and corr["kind"] == "method" and corr["interval"] == "Fisher z over features"
    assert cov["recovered"] and cov["planted"] == 0.95 and cov["interval"] == "bootstrap over noise draws", cov
    assert "binomial 1% floor over 64 intervals" in cov["criterion"]


def test_oracle_imprint_fails_a_broken_method(sim, monkeypatch):
    """Intervals that are too narrow (SEs shrunk 20×) fail the coverage row; sign-flipped estimates fail the
    correlation row: each row can fail."""
    from pluralign.seal import imprint as imp

    real = imp.feature_imprint

    def narrow(*a, **k):
        fit = real(*a, **k)
        t = fit.table.copy()
        half = (t["ci_high"] - t["ci_low"]) / 40
        t["ci_low"], t["ci_high"] = t["estimate"] - half, t["estimate"] + half
        return imp.ImprintFit(**{**fit.__dict__, "table": t})

    monkeypatch.setattr(imp, "feature_imprint", narrow)
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8)
    assert corr["recovered"] and not cov["recovered"]

    def flipped(*a, **k):
        fit = real(*a, **k)
        t = fit.table.copy()
        t[["estimate", "ci_low", "ci_high"]] = -t[["estimate", "ci_high", "ci_low"]].to_numpy()
        return imp.ImprintFit(**{**fit.__dict__, "table": t})

    monkeypatch.setattr(imp, "feature_imprint", flipped)
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=2)
    assert not corr["recovered"] and not cov["recovered"]


def test_oracle_imprint_needs_the_pair_fixed_effects(sim, monkeypatch):
    """The oracle's prompt effect rises with the pair's features, as a real RM's offsets do: Eq. 1 without its
    pair fixed effects (SEAL's own code: pooled OLS) is biased by it — its intervals miss the planted weights
    and the coverage row fails; without a prompt effect the pooled fit is unbiased and passes the correlation
    row, so the effect is what lets the check fail."""
    from pluralign.seal import imprint as imp

    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=4)
    assert corr["recovered"] and cov["recovered"]
    assert "SEAL's code, no pair effects" in corr["description"]
    monkeypatch.setattr(imp, "feature_imprint", imp.feature_imprint_seal_code)
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=4)
    assert not cov["recovered"] and cov["estimate"] < 0.6
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=4, prompt_effect=0.0)
    assert corr["recovered"]


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


def test_oracle_robustness_on_simulated_rewrites(sim, monkeypatch):
    """The method check of Eq. 4: planted flips scored by a noisy oracle give every π the planted sign; a
    robustness regression that reads the flips the wrong way round fails."""
    from pluralign.seal import robustness as rob
    from pluralign.seal.design import chosen_rejected

    view = chosen_rejected(sim).table
    r = R.oracle_robustness(sim, view, noise_sd=0.5, n_rounds=5)
    assert r["recovered"] and r["estimate"] == 1.0 and "12 estimable" in r["description"], r
    real = rob.robustness_scores

    def reversed_signs(*a, **k):  # flips read the wrong way round: every score and its interval mirrored
        fit = real(*a, **k)
        t = fit.table
        t["estimate"], t["ci_low"], t["ci_high"] = -t["estimate"], -t["ci_high"], -t["ci_low"]
        return fit

    monkeypatch.setattr(rob, "robustness_scores", reversed_signs)
    assert not R.oracle_robustness(sim, view, noise_sd=0.5, n_rounds=2)["recovered"]


def test_labelling_weights_are_the_pools_judgment_weighted_means(sim):
    pool = sim.meta["annotators"]
    counts = sim.annotations["annotator_id"].value_counts()
    w = R.labelling_weights(sim)
    assert w["format"] == pytest.approx((pool["format"] * counts.reindex(pool.index).fillna(0)).sum() / counts.sum())
    # the pool is moment-matched to the population, so the judgment-weighted means are near its means
    diff = (w - sim.meta["weights"]["mean"]).abs()
    assert 0 < diff.max() < 0.1

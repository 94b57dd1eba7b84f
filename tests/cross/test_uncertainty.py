"""Question 2 (pluralign.cross.uncertainty): σ_pair, the planted spread and their correlations with the margin."""

import numpy as np
import pandas as pd
import pytest

from pluralign.cross import uncertainty as q2


def test_pair_sigma_and_planted_spread_exact():
    pred = pd.DataFrame({"pair_id": ["a", "b"], "sigma_a": [3.0, 1.0], "sigma_b": [4.0, 0.0]})
    assert q2.pair_sigma(pred).tolist() == [5.0, 1.0]
    with pytest.raises(ValueError, match="sigma_a"):
        q2.pair_sigma(pred.drop(columns="sigma_a"))
    truth = pd.DataFrame({"a_verbosity": [0, 1], "b_verbosity": [1, 1], "a_format": [0, 0], "b_format": [1, 0]})
    from pluralign.data.simulate import population_weights

    sd = population_weights()["sd"]
    assert q2.planted_spread(truth).round(9).tolist() == [round(float(np.hypot(sd["verbosity"], sd["format"])), 9), 0.0]


def test_sigma_margin_correlation_sign_too_few_and_constant(classes):
    rng = np.random.default_rng(0)
    labels = ["diverging"] * 40 + ["high-agreement-pref"] * 8 + ["high-agreement-tie"] * 20
    cl = classes(labels)
    m = pd.Series(rng.uniform(0, 1, len(cl)), index=cl.index)
    m[cl.agreement == "high-agreement-tie"] = 0.5  # constant within the class
    sigma = 2 - m + rng.normal(0, 0.05, len(cl))  # σ falls as the margin rises
    out = q2.sigma_margin_correlations(sigma, {"m": m}, cl, planted=2 - m, n_boot=200).set_index("class")
    assert out.loc["diverging", "rho"] < -0.8 and out.loc["diverging", "verdict"].startswith("σ is larger where")
    assert out.loc["diverging", "planted rho"] == pytest.approx(-1.0)
    # ρ = −1 planted, the CI above it: read against the planted value as well as against 0
    assert out.loc["diverging", "short"] == "below 0; above planted"
    assert "above the planted spread's ρ (−1.000)" in out.loc["diverging", "verdict"]
    bare = q2.sigma_margin_correlations(sigma, {"m": m}, cl, n_boot=200).set_index("class")
    assert bare.loc["diverging", "verdict"] == "supported: σ is larger where the margin is smaller"
    assert out.loc["high-agreement-pref", "verdict"].startswith("too few") and np.isnan(
        out.loc["high-agreement-pref", "rho"]
    )
    assert "the same for every pair" in out.loc["high-agreement-tie", "verdict"]
    shown = q2.display(out.reset_index())
    assert shown.loc[("m", "high-agreement-pref"), "Spearman ρ(σ, margin) [95% CI]"] == "—"


def test_spearman_over_a_stack_of_resamples_equals_spearman_of_each():
    """The bootstrap's replicates of σ against the margin are ranked as one stack (``spearman_many``): each equals
    :func:`spearman` of its resample, with ties, and NaN where a column is constant, as spearman says."""
    rng = np.random.default_rng(5)
    x = np.column_stack([np.round(rng.normal(size=50), 1), rng.integers(0, 4, 50)]).astype(float)
    stack = np.stack([x[rng.integers(0, 50, 50)] for _ in range(30)])
    stack[0, :, 1] = 2.0  # a constant margin
    got = q2.spearman_many(stack)
    want = np.array([q2.spearman(m) for m in stack])
    assert np.isnan(got[0]) and np.isnan(want[0])
    np.testing.assert_allclose(got[1:], want[1:], rtol=0, atol=1e-12)

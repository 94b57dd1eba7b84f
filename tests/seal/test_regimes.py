"""t-tests of the reward shift θ per alignment regime (seal.regimes; Fig. 4 / Fig. 17): exact on a hand case, a
planted shift found and nothing else, bad input refused."""

import numpy as np
import pytest
from scipy import stats

from pluralign.seal.regimes import regime_shift_tests
from pluralign.seal.resistance import REGIMES


def test_regime_tests_equal_scipy_on_a_hand_case():
    theta = np.array([10.0, 12.0, 9.0, 11.0, -3.0, -5.0, -4.0, 1.0, 2.0, 30.0, 31.0])
    reg = ["stayed-aligned"] * 4 + ["stayed-misaligned"] * 3 + ["became-aligned"] * 2 + ["reversed"] * 2
    gamma = ["c", "c", "r", "r", "c", "r", "r", "i", "i", "c", None]
    t = regime_shift_tests(theta, reg, gamma)
    row = t.one_sample.loc[("stayed-aligned", "all")]
    ref = stats.ttest_1samp([10, 12, 9, 11], 0.0)
    assert row["n"] == 4 and row["mean"] == pytest.approx(10.5)
    assert row["t"] == pytest.approx(ref.statistic) and row["p_value"] == pytest.approx(ref.pvalue)
    lo, hi = stats.t.interval(0.95, 3, loc=10.5, scale=np.std([10, 12, 9, 11], ddof=1) / 2)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    w = t.welch.loc["stayed-misaligned"]  # c: [-3] only -> no Welch test
    assert w["n_c"] == 1 and w["n_r"] == 2 and np.isnan(w["p_value"])
    ref_w = stats.ttest_ind([10, 12], [9, 11], equal_var=False)
    assert t.welch.loc["stayed-aligned", "t"] == pytest.approx(ref_w.statistic)
    assert t.welch.loc["stayed-aligned", "p_value"] == pytest.approx(ref_w.pvalue)
    assert t.welch.loc["stayed-aligned", "df"] == pytest.approx(2.0)  # equal variances, 2 + 2 pairs
    k = t.one_sample["p_value"].notna().sum()
    assert t.one_sample["p_bonferroni"].dropna().to_numpy() == pytest.approx(
        np.minimum(1, k * t.one_sample["p_value"].dropna().to_numpy())
    )
    assert t.n_missing == 1  # the pair without γ
    assert list(t.one_sample.index.get_level_values(0).unique()) == list(REGIMES)


def test_regime_tests_find_a_planted_shift_and_nothing_else():
    rng = np.random.default_rng(0)
    reg = np.repeat(REGIMES, 400)
    theta = rng.normal(0, 20, len(reg)) + np.where(reg == "became-aligned", 15.0, 0.0)
    gamma = np.where(rng.random(len(reg)) < 0.5, "c", "r").astype(object)
    theta = theta + np.where((reg == "reversed") & (gamma == "c"), -20.0, 0.0)
    t = regime_shift_tests(theta, reg, gamma)
    p_all = t.one_sample.xs("all", level="group")["p_bonferroni"]
    assert p_all["became-aligned"] < 1e-6 and p_all["stayed-aligned"] > 0.05 and p_all["stayed-misaligned"] > 0.05
    assert t.welch.loc["reversed", "p_bonferroni"] < 1e-6 and t.welch.loc["reversed", "difference"] < 0
    assert (t.welch.drop(index="reversed")["p_bonferroni"] > 0.05).all()


def test_regime_tests_refuse_bad_input():
    with pytest.raises(ValueError, match="unknown regime"):
        regime_shift_tests([1.0, 2.0], ["aligned", "stayed-aligned"])
    with pytest.raises(ValueError, match="2 shifts but 1 regimes"):
        regime_shift_tests([1.0, 2.0], ["reversed"])
    with pytest.raises(ValueError, match="unknown γ"):
        regime_shift_tests([1.0, 2.0], ["reversed"] * 2, ["c", "x"])
    assert regime_shift_tests([1.0, 2.0, 3.0], ["reversed"] * 3).welch.empty


# ---- reward gaps (Fig. 7)

"""SEAL alignment resistance: δ, a₊/a₋, regimes (Table 1), γ (App. D.4, Table 2), Eq. 3, App. D.2."""

import itertools

import numpy as np
import pandas as pd
import pytest

from pluralign.paper import numbers, value
from pluralign.seal.facts import PAPER_SETUP
from pluralign.seal.resistance import (
    REGIMES,
    aligned,
    alignment_regimes,
    alignment_resistance,
    alignment_score,
    alignment_summary,
    labeller_agreement,
    labeller_preference,
    misalignment_regression,
    regime_prevalence,
    reward_quadrants,
)

# Table 2 of the paper, transcribed row by row in the paper's order:
# t_i^c(helpful), t_i^c(harmless), t_i^r(helpful), t_i^r(harmless) -> decision
TABLE_2 = [
    (0, 0, 0, 0, "i"),
    (1, 1, 1, 1, "i"),
    (0, 1, 0, 1, "i"),
    (1, 0, 1, 0, "i"),
    (1, 1, 1, 0, "c"),
    (0, 0, 1, 1, "r"),
    (1, 1, 0, 0, "c"),
    (0, 1, 1, 0, "r"),
    (1, 0, 0, 1, "c"),
    (1, 0, 0, 0, "c"),
    (0, 1, 1, 1, "r"),
    (0, 1, 0, 0, "c"),
    (1, 0, 1, 1, "r"),
    (0, 0, 1, 0, "r"),
    (1, 1, 0, 1, "c"),
    (0, 0, 0, 1, "r"),
]


def test_table_2_lists_all_16_cases():
    assert {row[:4] for row in TABLE_2} == set(itertools.product((0, 1), repeat=4))


@pytest.mark.parametrize("ch, cs, rh, rs, decision", TABLE_2)
def test_labeller_preference_each_case_of_table_2(ch, cs, rh, rs, decision):
    assert labeller_preference([ch], [cs], [rh], [rs])[0] == decision
    assert labeller_preference([bool(ch)], [bool(cs)], [bool(rh)], [bool(rs)])[0] == decision


def test_labeller_preference_vectorised_and_paper_dict():
    ch, cs, rh, rs, dec = map(list, zip(*TABLE_2))
    assert list(labeller_preference(ch, cs, rh, rs)) == dec
    assert PAPER_SETUP["table2"] == {row[:4]: row[4] for row in TABLE_2}


def test_labeller_preference_reproduces_seal_code_counts():
    """On SEAL's 16 label-combination counts, the code's ordering (harmless first) gives its reported
    28,443 / 10,840 / 121,517 and agreement 0.7241; Table 2's rule gives 28,213 / 11,070."""
    counts = numbers("seal", "SEAL analysis code (main_results.ipynb), labels")
    w = counts["value"].to_numpy(int)
    arr = np.array([[int(x) for x in r.split()] for r in counts["row"]])
    for priority, expected in (("harmless", (28_443, 10_840, 121_517)), ("helpful", (28_213, 11_070, 121_517))):
        g = labeller_preference(arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], priority=priority)
        got = tuple(int(w[g == x].sum()) for x in "cri")
        assert got == expected, priority
    assert 28_443 / (28_443 + 10_840) == pytest.approx(
        value("seal", "SEAL analysis code (main_results.ipynb)", "γ ≠ i", "LM-labeller agreement with the human label")
    )


def test_labeller_preference_bad_input():
    with pytest.raises(ValueError, match="chosen_harmless: 1 missing"):
        labeller_preference([1], [None], [0], [0])
    with pytest.raises(ValueError, match="booleans or 0/1"):
        labeller_preference([2], [1], [0], [0])
    with pytest.raises(ValueError, match="differ in length"):
        labeller_preference([1, 0], [1], [0], [0])
    with pytest.raises(ValueError, match="priority"):
        labeller_preference([1], [1], [0], [0], priority="honest")


def test_aligned_and_scores_ties_are_misaligned():
    c = [1.0, 0.5, -1.0, 2.0]
    r = [0.0, 0.5, -0.5, 1.0]
    assert list(aligned(c, r)) == [True, False, False, True]
    assert alignment_score(c, r) == 0.5
    assert alignment_resistance(c, r) == 0.5


def test_regimes_hand_computed_including_ties():
    #            pre (c, r)   post (c, r)     regime
    cases = [
        ((0.0, 1.0), (1.0, 0.0), "became-aligned"),
        ((1.0, 0.0), (2.0, -1.0), "stayed-aligned"),
        ((0.0, 1.0), (-1.0, 0.0), "stayed-misaligned"),
        ((1.0, 0.0), (0.0, 1.0), "reversed"),
        ((1.0, 1.0), (2.0, 1.0), "became-aligned"),  # pre tie = misaligned
        ((1.0, 1.0), (3.0, 3.0), "stayed-misaligned"),  # ties both times
        ((2.0, 1.0), (1.0, 1.0), "reversed"),
    ]  # post tie = misaligned
    pre_c, pre_r = zip(*[c[0] for c in cases])
    post_c, post_r = zip(*[c[1] for c in cases])
    got = alignment_regimes(pre_c, pre_r, post_c, post_r)
    assert list(got) == [c[2] for c in cases]
    prev = regime_prevalence(got)
    assert list(prev.index) == list(REGIMES)
    np.testing.assert_allclose(prev.to_numpy(), [2 / 7, 1 / 7, 2 / 7, 2 / 7])
    s = alignment_summary(pre_c, pre_r, post_c, post_r)
    assert s["a_plus_pre"] == pytest.approx(3 / 7) and s["a_plus_post"] == pytest.approx(3 / 7)
    assert s["a_minus_post"] == pytest.approx(4 / 7) and s["n_pairs"] == 7
    # a₊ post = became + stayed aligned; a₊ pre = stayed aligned + reversed
    assert s["a_plus_post"] == pytest.approx(s["became-aligned"] + s["stayed-aligned"])
    assert s["a_plus_pre"] == pytest.approx(s["stayed-aligned"] + s["reversed"])


def test_table_1_prevalences_are_consistent_with_alignment_scores():
    t = numbers("seal", "Table 1")
    t1 = t[t["column"] == "prevalence"].set_index("row")["value"]
    assert t1.sum() == pytest.approx(1.0)
    assert t1["became-aligned"] + t1["stayed-aligned"] == pytest.approx(value("seal", "§2.2", "post-D RM", "a₊"))
    assert t1["stayed-aligned"] + t1["reversed"] == pytest.approx(value("seal", "§2.2", "pre-D RM", "a₊"), abs=0.011)


def test_regime_prevalence_rejects_unknown():
    with pytest.raises(ValueError, match="unknown regime"):
        regime_prevalence(["stayed-aligned", "aligned"])


def test_reward_quadrants_hand_computed():
    c = [1.0, -1.0, -2.0, 3.0, 0.0, -0.5, 2.0, -1.0]
    r = [2.0, -3.0, 1.0, -1.0, 0.0, -0.1, 0.5, -2.0]
    q = reward_quadrants(c, r)
    assert q["both positive"] == pytest.approx(3 / 8)  # (1,2), (0,0), (2,.5)
    assert q["both negative"] == pytest.approx(3 / 8)  # (-1,-3), (-.5,-.1), (-1,-2)
    assert q["chosen negative only"] == pytest.approx(1 / 8)  # (-2, 1)
    assert q["rejected negative only"] == pytest.approx(1 / 8)  # (3, -1)
    assert q.sum() == pytest.approx(1.0)


def test_labeller_agreement_per_regime_hand_computed():
    regimes = ["stayed-aligned"] * 5 + ["reversed"] * 3 + ["became-aligned"] * 2
    gamma = ["c", "c", "c", "r", "i", "r", "r", "c", "i", "i"]
    out = labeller_agreement(regimes, gamma)
    assert list(out.index) == [*REGIMES, "all"]
    assert out.loc["stayed-aligned", "agreement"] == pytest.approx(3 / 4)
    assert out.loc["reversed", "agreement"] == pytest.approx(1 / 3)
    assert np.isnan(out.loc["became-aligned", "agreement"])  # only indifferent pairs
    assert out.loc["stayed-misaligned", "n"] == 0
    assert out.loc["all", ["n", "n_c", "n_r", "n_i"]].tolist() == [10, 4, 3, 3]
    incl = labeller_agreement(regimes, gamma, exclude_indifferent=False)
    assert incl.loc["stayed-aligned", "agreement"] == pytest.approx(3 / 5)
    assert incl.loc["became-aligned", "agreement"] == 0.0
    with pytest.raises(ValueError, match="γ must be"):
        labeller_agreement(["reversed"], ["x"])


def test_misalignment_regression_recovers_planted_logit():
    rng = np.random.default_rng(0)
    n = 20000
    chosen = pd.DataFrame({"helpful": rng.integers(0, 2, n), "eloquent": rng.integers(0, 2, n)})
    rejected = pd.DataFrame({"helpful": rng.integers(0, 2, n), "eloquent": rng.integers(0, 2, n)})
    truth = {("c", "helpful"): -1.0, ("c", "eloquent"): -0.5, ("r", "helpful"): 0.8, ("r", "eloquent"): 0.0}
    eta = -0.7 - 1.0 * chosen.helpful - 0.5 * chosen.eloquent + 0.8 * rejected.helpful
    misaligned = rng.random(n) < 1 / (1 + np.exp(-eta))
    chosen_r = np.zeros(n)
    rejected_r = np.where(misaligned, 1.0, -1.0)
    rejected_r[misaligned & (rng.random(n) < 0.2)] = 0.0  # some ties: still misaligned
    fit = misalignment_regression(chosen_r, rejected_r, chosen, rejected)
    out = fit.table
    for key, b in truth.items():
        assert out.loc[key, "ci_low"] <= b <= out.loc[key, "ci_high"], (key, out.loc[key, "estimate"])
    assert fit.intercept == pytest.approx(-0.7, abs=0.1)
    assert fit.base_rate == pytest.approx(misaligned.mean())
    assert fit.n_obs == n and fit.n_dropped_missing == 0 and fit.converged and fit.dropped_vif == []
    assert (fit.outcome, fit.model) == ("misaligned", "logit")
    flipped = misalignment_regression(chosen_r, rejected_r, chosen, rejected, outcome="aligned").table
    np.testing.assert_allclose(flipped.estimate, -out.estimate, rtol=1e-6)
    lpm = misalignment_regression(chosen_r, rejected_r, chosen, rejected, model="linear").table
    assert np.sign(lpm.loc[("c", "helpful"), "estimate"]) == -1
    assert abs(lpm.loc[("c", "helpful"), "estimate"]) < abs(out.loc[("c", "helpful"), "estimate"])
    with pytest.raises(ValueError, match="outcome must be"):
        misalignment_regression(chosen_r, rejected_r, chosen, rejected, outcome="resistant")


def test_misalignment_regression_reports_non_convergence_under_separation():
    rng = np.random.default_rng(0)
    n = 400
    chosen = pd.DataFrame(
        {"helpful": rng.integers(0, 2, n).astype(float), "eloquent": rng.integers(0, 2, n).astype(float)}
    )
    rejected = pd.DataFrame(
        {"helpful": rng.integers(0, 2, n).astype(float), "eloquent": rng.integers(0, 2, n).astype(float)}
    )
    chosen_r = np.zeros(n)
    misaligned = (chosen["helpful"] == 0).to_numpy()  # chosen helpful perfectly predicts alignment
    rejected_r = np.where(misaligned, 1.0, -1.0)
    out = misalignment_regression(chosen_r, rejected_r, chosen, rejected)
    assert out.converged is False
    mild = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    assert misalignment_regression(chosen_r, mild, chosen, rejected).converged is True

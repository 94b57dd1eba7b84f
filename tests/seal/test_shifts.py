"""SEAL reward shifts: Definition 1 (signed angle) and Eq. 2."""

import numpy as np
import pandas as pd
import pytest

from pluralign.seal.resistance import alignment_regimes
from pluralign.seal.shifts import reward_angle, reward_shift, reward_shift_regression


@pytest.mark.parametrize(
    "pre, post, expected",
    [
        ((1, 0), (0, 1), 90.0),  # x axis -> y axis: counter-clockwise
        ((1, 0), (0, -1), -90.0),  # clockwise
        ((1, 0), (1, 1), 45.0),
        ((1, 1), (1, 0), -45.0),
        ((0, 1), (-1, 0), 90.0),  # quadrant edges
        ((-1, 0), (0, -1), 90.0),
        ((0, -1), (1, 0), 90.0),
        ((1, 0), (-1, 0), 180.0),  # opposite: +180, never -180
        ((-1, 0), (1, 0), 180.0),  # cross product is -0.0 here: atan2 gives -180, mapped to +180
        ((0, 1), (0, -1), 180.0),
        ((-1, -1), (-1, -2), np.degrees(np.arccos(3 / np.sqrt(10)))),  # third quadrant, toward alignment
        ((-1, -1), (-2, -1), -np.degrees(np.arccos(3 / np.sqrt(10)))),  # third quadrant, toward misalignment
        ((2, 3), (4, 6), 0.0),  # same direction, different length
    ],
)
def test_reward_shift_hand_computed(pre, post, expected):
    got = reward_shift([pre[0]], [pre[1]], [post[0]], [post[1]])
    assert got.shape == (1,)
    assert got[0] == pytest.approx(expected, abs=1e-12)


def test_reward_shift_range_and_boundary():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(4, 5000))
    th = reward_shift(*v)
    assert np.all(th > -180) and np.all(th <= 180)
    # exactly opposite vectors in every direction give +180
    ang = rng.uniform(-np.pi, np.pi, 200)
    c, r = np.cos(ang), np.sin(ang)
    assert np.all(reward_shift(c, r, -c, -r) == 180.0)


def test_reward_shift_is_rotation_angle_and_matches_definition_1():
    """Rotating the pre-D vector counter-clockwise by φ gives θ = φ; |θ| = arccos of Definition 1."""
    rng = np.random.default_rng(1)
    pc, pr = rng.normal(size=(2, 2000))
    phi = rng.uniform(-179, 179, 2000)
    rad = np.radians(phi)
    scale = rng.uniform(0.1, 5, 2000)
    qc = scale * (np.cos(rad) * pc - np.sin(rad) * pr)
    qr = scale * (np.sin(rad) * pc + np.cos(rad) * pr)
    th = reward_shift(pc, pr, qc, qr)
    np.testing.assert_allclose(th, phi, atol=1e-9)
    cos = (pc * qc + pr * qr) / np.sqrt((pc**2 + pr**2) * (qc**2 + qr**2))
    np.testing.assert_allclose(np.abs(th), np.degrees(np.arccos(np.clip(cos, -1, 1))), atol=1e-5)
    np.testing.assert_allclose(reward_shift(qc, qr, pc, pr), -th, atol=1e-9)  # antisymmetric


def test_positive_shift_in_third_quadrant_moves_toward_alignment():
    """The documented convention: a misaligned third-quadrant vector just above the diagonal becomes
    aligned under a small counter-clockwise (positive) shift, and vice versa."""
    pre_c, pre_r = np.array([-1.0]), np.array([-0.95])  # misaligned (chosen < rejected)
    rad = np.radians(5)
    post_c = np.cos(rad) * pre_c - np.sin(rad) * pre_r
    post_r = np.sin(rad) * pre_c + np.cos(rad) * pre_r
    assert reward_shift(pre_c, pre_r, post_c, post_r)[0] == pytest.approx(5)
    assert alignment_regimes(pre_c, pre_r, post_c, post_r)[0] == "became-aligned"
    back = reward_shift(post_c, post_r, pre_c, pre_r)[0]
    assert back == pytest.approx(-5)
    assert alignment_regimes(post_c, post_r, pre_c, pre_r)[0] == "reversed"


def test_reward_shift_undefined_and_bad_input():
    th = reward_shift([0, 1], [0, 1], [1, 1], [1, 0])
    assert np.isnan(th[0]) and th[1] == pytest.approx(-45)
    with pytest.raises(ValueError, match="same length"):
        reward_shift([1, 2], [1], [1], [1])
    with pytest.raises(ValueError, match="pre_rejected: 1 missing"):
        reward_shift([1.0], [np.nan], [1.0], [1.0])


def test_reward_angle():
    got = reward_angle([1, -1, 0, -1, 1, 0], [0, 0, -1, -0.0, 1, 0])
    np.testing.assert_allclose(got[:5], [0, 180, -90, 180, 45])
    assert np.isnan(got[5])


def test_reward_shift_regression_recovers_planted_coefficients():
    rng = np.random.default_rng(0)
    n = 4000
    chosen = pd.DataFrame({"helpful": rng.integers(0, 2, n), "eloquent": rng.integers(0, 2, n)})
    rejected = pd.DataFrame({"helpful": rng.integers(0, 2, n), "eloquent": rng.integers(0, 2, n)})
    truth = {("c", "helpful"): 3.0, ("c", "eloquent"): 0.0, ("r", "helpful"): -4.0, ("r", "eloquent"): 1.5}
    theta = (
        1.0 + 3.0 * chosen.helpful - 4.0 * rejected.helpful + 1.5 * rejected.eloquent + rng.normal(scale=2.0, size=n)
    )
    fit = reward_shift_regression(theta, chosen, rejected)
    out = fit.table
    assert list(out.index.names) == ["entry", "feature"]
    for key, b in truth.items():
        row = out.loc[key]
        assert row.ci_low <= b <= row.ci_high, (key, row.estimate)
    assert fit.intercept == pytest.approx(1.0, abs=0.2)
    assert fit.n_obs == n and fit.n_dropped_missing == 0 and 0 < fit.r2 < 1 and fit.dropped_vif == []
    # Bonferroni over the 4 coefficients
    np.testing.assert_allclose(out.p_bonferroni, np.minimum(1, 4 * out.p_value))
    # a chosen column duplicated under another name is dropped for VIF
    chosen2 = chosen.assign(helpful_copy=chosen.helpful)
    rejected2 = rejected.assign(helpful_copy=rejected.helpful)
    fit2 = reward_shift_regression(theta, chosen2, rejected2)
    assert fit2.table.dropped_vif.sum() == 2
    assert set(fit2.dropped_vif) in (
        {"helpful_copy|c", "helpful_copy|r"},
        {"helpful|c", "helpful|r"},
        {"helpful|c", "helpful_copy|r"},
        {"helpful_copy|c", "helpful|r"},
    )
    with pytest.raises(ValueError, match="lack column"):
        reward_shift_regression(theta, chosen, rejected.drop(columns="eloquent"))


def test_the_rewards_table_or_its_four_columns():
    from pluralign.seal.resistance import alignment_summary

    R = pd.DataFrame(
        {
            "pre_chosen": [1.0, -1.0, 2.0],
            "pre_rejected": [0.0, 1.0, 3.0],
            "post_chosen": [2.0, 1.0, -1.0],
            "post_rejected": [1.0, 0.0, 0.5],
        }
    )
    cols = [R[c] for c in R.columns]
    np.testing.assert_array_equal(reward_shift(R), reward_shift(*cols))
    assert list(alignment_regimes(R)) == ["stayed-aligned", "became-aligned", "stayed-misaligned"]
    assert alignment_summary(R) == alignment_summary(*cols)
    with pytest.raises(ValueError, match="lacks"):
        reward_shift(R.drop(columns="post_rejected"))
    with pytest.raises(TypeError, match="four arrays"):
        reward_shift(R["pre_chosen"], R["pre_rejected"])

"""SEAL's reward shift θ (Definition 1) as the paper computes it and on rewards centred per model: an offset added
to one model's rewards (which Bradley–Terry training leaves undetermined) turns the raw angle, not the centred one."""

import numpy as np
import pytest

from pluralign.seal.shifts import centred_reward_shift, centred_rewards, reward_offsets, reward_shift


def test_an_offset_on_one_model_changes_the_raw_angle_but_not_the_centred_one():
    # two pairs, by hand: pre-D vectors (1, 0) and (−1, 0) (mean 0), post-D the same vectors
    pc, pr = np.array([1.0, -1.0]), np.array([0.0, 0.0])
    qc, qr = pc.copy(), pr.copy()
    assert list(reward_shift(pc, pr, qc, qr)) == [0.0, 0.0]
    # the post-D head learned the same rewards plus 1: (2, 1) and (0, 1)
    raw = reward_shift(pc, pr, qc + 1, qr + 1)
    assert raw[0] == pytest.approx(np.degrees(np.arctan2(1, 2)))  # 26.6°
    assert raw[1] == pytest.approx(-90.0)  # (−1, 0) → (0, 1): clockwise
    np.testing.assert_allclose(centred_reward_shift(pc, pr, qc + 1, qr + 1), [0.0, 0.0], atol=1e-12)
    o = reward_offsets(pc, pr, qc + 1, qr + 1)
    assert (o.pre, o.post, o.offset) == (0.0, 1.0, 1.0)


def test_centred_shift_is_invariant_to_both_offsets_and_equals_the_raw_one_on_centred_rewards():
    rng = np.random.default_rng(3)
    R = rng.normal(size=(4, 500))
    base = centred_reward_shift(*R)
    shifted = centred_reward_shift(R[0] - 2.5, R[1] - 2.5, R[2] + 4.0, R[3] + 4.0)
    np.testing.assert_allclose(shifted, base, atol=1e-9)
    c = centred_rewards(*R)
    assert all(abs(np.mean(np.r_[c[k], c[k + 1]])) < 1e-12 for k in (0, 2))
    np.testing.assert_allclose(reward_shift(*c), base, atol=1e-12)
    assert not np.allclose(reward_shift(R[0], R[1], R[2] + 4.0, R[3] + 4.0), reward_shift(*R))

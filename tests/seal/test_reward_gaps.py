"""Reward gaps of several RMs (seal.reward_gaps; App. D.1, Fig. 7) on a hand case."""

import pytest

from pluralign.seal.reward_gaps import reward_gap_summary, reward_gaps


def test_reward_gap_summary_on_a_hand_case():
    rw = {"A": ([1.0, 2.0, 0.0, 5.0], [0.0, 3.0, 0.0, 1.0]), "B": ([0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, -1.0])}
    g = reward_gaps(rw)
    assert g.loc[g["RM"] == "A", "gap"].tolist() == [1.0, -1.0, 0.0, 4.0]
    s = reward_gap_summary(rw)
    assert s.loc["A", "share positive"] == 0.5 and s.loc["A", "share zero"] == 0.25 and s.loc["A", "median"] == 0.5
    assert s.loc["A", "lowest reward"] == 0.0 and s.loc["A", "highest reward"] == 5.0
    assert s.loc["B", "mean"] == pytest.approx(-0.5) and s.loc["B", "pairs"] == 4
    with pytest.raises(ValueError, match="scored 1 pairs"):
        reward_gaps({"A": ([1.0, 2.0], [0.0, 0.0]), "B": ([1.0], [0.0])})
    with pytest.raises(ValueError, match="no reward models"):
        reward_gaps({})


# ---- topics (Fig. 15)

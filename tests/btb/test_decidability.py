"""The training-size sweep of Beyond the Binary's central claim (pluralign.btb.decidability): exact fits of Eqs. 1
and 4 for a linear reward, fresh training draws from the simulator, the t interval over draws, and the size from
which the sweep decides."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pluralign.btb import decidability as D
from pluralign.data.spec import from_spec

SPEC = {"simulate": {"n_pairs": 200, "seed": 0}}
OOD = {"column": "prompt_type", "values": ["creative", "harmful"]}


def _logistic_pairs(w, rows, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-1, 2, size=(rows, len(w))).astype(float)
    a_wins = rng.random(rows) < 1 / (1 + np.exp(-x @ w))
    return np.where(a_wins[:, None], x, -x)  # chosen minus rejected


def test_eq1_fit_recovers_the_planted_weights():
    w = np.array([1.0, -0.5, 0.0, 2.0])
    fit = D.fit_linear(_logistic_pairs(w, 20000, 1))
    assert np.allclose(fit, w, atol=0.08)


def test_eq4_fit_minimises_eq4_and_moves_away_from_eq1():
    """At the Eq. 4 fit the gradient of mean −log σ(w·dx − m) (written out here) vanishes; at the Eq. 1 fit it
    does not: the margin enters with Eq. 4's sign."""
    dx = _logistic_pairs(np.array([1.0, -0.5, 0.3]), 3000, 2)
    m = np.random.default_rng(3).uniform(0, 1, len(dx))

    def grad(w):
        return -((1 - 1 / (1 + np.exp(-(dx @ w - m))))[:, None] * dx).mean(0)

    w4, w1 = D.fit_linear(dx, m), D.fit_linear(dx)
    assert np.abs(grad(w4)).max() < 1e-6
    assert np.abs(grad(w1)).max() > 1e-3


def test_a_training_draw_is_fresh_sized_and_reproducible():
    dx, p, seed = D.training_draw(SPEC, 300, [0, 7919, 0], ood_by=OOD)
    assert dx.shape == (300, len(D.PLANTED)) and p.shape == (300,)
    again, _, _ = D.training_draw(SPEC, 300, [0, 7919, 0], ood_by=OOD)
    other, _, _ = D.training_draw(SPEC, 300, [0, 7919, 1], ood_by=OOD)
    assert np.array_equal(dx, again) and not np.array_equal(dx, other)
    # the planted harmfulness of the out-of-domain (harmful) prompts never differs inside the training set
    assert not dx[:, D.PLANTED.index("harmfulness")].any()
    m = D.judge_margins(p, noise=1.0, n=10, seed=seed)
    assert ((m >= 0) & (m <= 1)).all() and set(np.round(m * 10)) <= set(range(0, 11, 2))


def test_summary_is_a_t_interval_over_the_draws():
    fits = pd.DataFrame(
        {
            "draw": [0, 1, 2],
            "test": "all test pairs",
            "training pairs": 100,
            "judge noise": 1.0,
            "r Eq. 1": [0.5, 0.6, 0.7],
            "r Eq. 4": [0.49, 0.58, 0.66],
        }
    )
    fits["Δ r"] = fits["r Eq. 4"] - fits["r Eq. 1"]
    row = D.summary(fits, "training pairs", 0.05, **{"judge noise": 1.0}).iloc[0]
    d = fits["Δ r"].to_numpy()
    half = stats.t.ppf(0.975, 2) * d.std(ddof=1) / np.sqrt(3)
    assert row["Δ r"] == pytest.approx(d.mean()) and row["Δ r high"] == pytest.approx(d.mean() + half)
    assert row["Δ r low"] < 0 < row["Δ r high"] < 0.05 and row["says"] == "below the paper's Δ (0.050)"
    row = D.summary(fits, "training pairs", 0.01, **{"judge noise": 1.0}).iloc[0]
    assert row["says"] == D.CANNOT


def test_decidable_size_is_where_every_larger_size_decides():
    says = [
        "cannot tell",
        "below the paper's Δ (0.054)",
        "cannot tell",
        "Δ below 0",
        "Δ below 0; below the paper's Δ (0.054)",
    ]
    t = pd.DataFrame({"training pairs": [100, 250, 500, 1000, 2000], "says": says})
    assert D.decidable_at(t, "either") == 1000 and D.decidable_at(t, "sign") == 1000
    assert D.decidable_at(t, "paper") == 2000
    assert D.decidable_at(t.iloc[:3], "either") is None
    with pytest.raises(ValueError, match="criterion must be one of"):
        D.decidable_at(t, "power")


def test_sweep_rows_and_the_planted_features_of_a_simulators_truth():
    data = from_spec(SPEC, 0)
    p = data.truth["share_a"]
    fits = D.sweep(SPEC, data.truth, p, ood_by=OOD, noise=1.0, n=10, sizes=(50, 100), noises=(0.0, 1.0), draws=2)
    assert set(fits["test"]) == {"all test pairs", "in-domain test pairs"}
    steps = set(zip(fits["training pairs"], fits["judge noise"]))
    assert steps == {(50, 1.0), (100, 1.0), (100, 0.0)} and len(fits) == 2 * 3 * 2
    assert fits["r Eq. 1"].between(-1, 1).all()
    with pytest.raises(ValueError, match="no planted feature columns"):
        D.planted_features(data.truth.drop(columns=["a_format"]), "a")

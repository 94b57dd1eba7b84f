"""The book's bootstrap intervals (:func:`pluralign.stats.bootstrap_ci`)."""

import numpy as np

from pluralign.stats import bootstrap_ci


def _looped(x, stat, n_boot=2000, seed=0, level=0.95):
    """The percentile bootstrap written out: one ``stat`` call per resample."""
    idx = np.random.default_rng(seed).integers(0, len(x), size=(n_boot, len(x)))
    boots = np.array([stat(x[i]) for i in idx])
    return float(stat(x)), *map(float, np.nanquantile(boots, [(1 - level) / 2, (1 + level) / 2]))


def test_the_mean_of_each_resample_taken_at_once_gives_the_loops_interval_to_the_bit():
    rng = np.random.default_rng(3)
    for n in (1, 2, 9, 130, 1203):
        x = rng.normal(size=n) * 250
        assert bootstrap_ci(x) == _looped(x, np.mean)
        assert bootstrap_ci(x, np.median, seed=4) == _looped(x, np.median, seed=4)  # another statistic: the loop


def test_a_planted_mean_lies_in_its_interval_and_an_empty_sample_has_none():
    x = np.random.default_rng(0).normal(5.0, 1.0, 400)
    est, lo, hi = bootstrap_ci(x)
    assert lo < 5.0 < hi and lo < est < hi and hi - lo < 0.3
    assert all(np.isnan(bootstrap_ci([])))

"""The recovery table's rows: their kinds, the shared intervals (two-way bootstrap over pairs and annotators,
exact binomial, the coverage floor)."""

import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R
from pluralign.recovery import rows


def test_a_row_names_its_kind_and_refuses_an_unknown_one():
    r = R.row("btb", "x", "d", None, 0.5, (0.4, 0.6), "c", True, kind="stand-in", interval="exact")
    assert r["kind"] == "stand-in" and np.isnan(r["planted"]) and list(r) == R.COLUMNS
    with pytest.raises(ValueError, match="kind must be one of"):
        R.row("btb", "x", "d", None, 0.5, (0.4, 0.6), "c", True, kind="ceiling")
    assert R.is_method("method") and not R.is_method("plumbing")
    assert R.is_method(pd.Series(["method", "claim"])).tolist() == [True, False]


def test_coverage_floor_is_the_binomial_quantile():
    """200 intervals of nominal 0.95: a correct method covers at least 182 of them 99 % of the time."""
    assert R.coverage_floor(200) == pytest.approx(0.91, abs=0.006)
    assert R.coverage_floor(2000) > R.coverage_floor(200)  # more intervals, a tighter floor


def test_exact_share_ci():
    lo, hi = R.exact_share_ci(12, 12)
    assert hi == 1.0 and lo == pytest.approx(0.7354, abs=1e-3)  # (0.025)^(1/12)
    lo, hi = R.exact_share_ci(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.3085, abs=1e-3)


def _annotated(n_pairs, n_annotators, per_pair, rng):
    pairs = [f"p{i}" for i in range(n_pairs)]
    rows = [(p, f"a{j}") for p in pairs for j in rng.choice(n_annotators, per_pair, replace=False)]
    return pd.Index(pairs, name="pair_id"), pd.DataFrame(rows, columns=["pair_id", "annotator_id"])


def test_two_way_share_ci_widens_when_annotators_drive_the_values():
    """Pairs judged by one "diverging-prone" annotator share that annotator: resampling annotators too widens
    the interval; where the value does not depend on the annotators it is about the pairs-only one."""
    rng = np.random.default_rng(0)
    ids, ann = _annotated(1000, 10, 1, rng)
    first = ann.set_index("pair_id")["annotator_id"].reindex(ids)
    driven = pd.Series((first.isin(["a0", "a1", "a2"])).astype(float).to_numpy(), index=ids)
    est, lo, hi = R.two_way_share_ci(driven, ann)
    from pluralign.stats import bootstrap_ci

    _, plo, phi = bootstrap_ci(driven.to_numpy(), n_boot=1000)
    assert est == pytest.approx(driven.mean())
    assert hi - lo > 2 * (phi - plo)
    # values that do not depend on the annotators (four of a pool of 40 per pair, as the demo's): the two-way
    # interval is conservative (Owen 2007), somewhat wider than the pairs-only one, not a different answer
    ids, ann = _annotated(1000, 40, 4, rng)
    free = pd.Series(rng.random(1000) < 0.3, index=ids).astype(float)
    _, lo2, hi2 = R.two_way_share_ci(free, ann)
    _, plo2, phi2 = bootstrap_ci(free.to_numpy(), n_boot=1000)
    assert phi2 - plo2 <= hi2 - lo2 <= 1.5 * (phi2 - plo2)


def test_two_way_share_ci_within_a_mask():
    rng = np.random.default_rng(1)
    ids, ann = _annotated(400, 20, 3, rng)
    x = pd.Series(rng.random(400) < 0.5, index=ids).astype(float)
    mask = pd.Series(np.arange(400) < 100, index=ids).astype(float)
    est, lo, hi = R.two_way_share_ci(x, ann, within=mask)
    assert est == pytest.approx(x[:100].mean()) and lo < est < hi


def _correlated_z(rng, draws, k, scale=1.0, shared=0.7):
    """Standardized errors of ``draws`` fits of ``k`` quantities each whose errors share a common shock per fit
    (correlation ``shared``²), every one N(0, 1) marginally, as a correct method's are; ``scale`` is the ratio of
    the true spread to the reported SE (1: correct)."""
    common = rng.standard_normal((draws, 1))
    own = rng.standard_normal((draws, k))
    return scale * (shared * common + np.sqrt(1 - shared**2) * own)


def test_calibration_allows_for_correlated_intervals_by_a_design_effect():
    """A correct method whose intervals within one fit are correlated (0.09 and 0.25; the mean |r| measured between
    Eq. 3's coefficients on the demo is 0.13) passes at about the designed rate, where the band of independent
    intervals fails it more often; intervals 3× too wide or 3× too narrow fail at every seed; and a row of two
    intervals per draw that all cover (no spread) keeps the band of independent intervals."""
    for shared in (0.3, 0.5):
        zs = [_correlated_z(np.random.default_rng(s), 25, 15, shared=shared) for s in range(300)]
        cals = [rows.calibration(z) for z in zs]
        assert np.mean([c["ok"] for c in cals]) >= 0.99
        assert all(c["draws"] == 25 and c["n"] == 375 for c in cals)
    strong = [_correlated_z(np.random.default_rng(s), 25, 15, shared=0.7) for s in range(300)]
    assert np.mean([rows.calibration(z)["ok"] for z in strong]) > np.mean(
        [rows.calibration(z.ravel())["ok"] for z in strong]
    )
    for scale in (3.0, 1 / 3):  # SE÷3 (errors 3× the reported SE) and SE×3
        zs = [_correlated_z(np.random.default_rng(s), 25, 15, scale) for s in range(20)]
        assert not any(rows.calibration(z)["ok"] for z in zs)
    covered = np.full((25, 2), 0.1)
    c = rows.calibration(covered)
    assert (
        c["deff"][0.95] == 1.0 and c["band"][0.95] == rows.binomial_band(50, 0.95, rows.ALPHA / 2) and c["ok"] is False
    )
    assert c["share"][0.95] == 1.0 and c["band"][0.95][1] == 1.0  # 95 %: all 50 covered is within the band


def test_a_design_effect_never_exceeds_the_intervals_per_draw_so_too_narrow_intervals_fail():
    """Kish's design effect is 1 + (m − 1)ρ ≤ m for m intervals per draw, taken against the binomial spread at the
    share observed: two strongly correlated intervals per draw (SEAL Eq. 1 on text has two) reported 3× too narrow
    cover about half the time, and fail at every seed; measured against the spread at the nominal 95 %, their own
    spread would inflate the design effect to about 10 and widen the band until they pass."""
    for s in range(50):
        z = _correlated_z(np.random.default_rng(s), 25, 2, scale=3.0, shared=0.95)
        c = rows.calibration(z)
        assert all(d <= 2.0 for d in c["deff"].values()), c["deff"]
        assert not c["ok"], (s, c["share"], c["band"])


def test_calibration_with_a_single_draw_uses_the_binomial_band_and_ignores_missing_intervals():
    z = np.random.default_rng(0).standard_normal(400)
    c = rows.calibration(z)
    assert c["draws"] == 1 and c["band"][0.95] == rows.binomial_band(400, 0.95, rows.ALPHA / 2) and c["ok"]
    z2 = np.vstack([np.random.default_rng(1).standard_normal((10, 6)), np.full((1, 6), np.nan)])
    assert rows.calibration(z2)["draws"] == 10 and rows.calibration(z2)["n"] == 60


def test_null_pass_rate_many_draws_the_same_nulls_as_one_at_a_time():
    """A criterion vectorised over the nulls gives the rate the one-at-a-time loop gives (same generator, same
    order), and both are NaN when null passes are off."""
    from pluralign.recovery.rows import null_pass_rate, null_pass_rate_many, without_null_passes

    def make(g):
        return g.normal(size=5)

    one = null_pass_rate(lambda v: v.mean() > 0, make, reps=50, seed=3)
    many = null_pass_rate_many(lambda vs: [v.mean() > 0 for v in vs], make, reps=50, seed=3)
    assert one == many and 0 < one < 1
    with without_null_passes():
        assert np.isnan(null_pass_rate_many(lambda vs: [True] * len(vs), make))

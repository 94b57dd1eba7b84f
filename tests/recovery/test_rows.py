"""The recovery table's rows: their kinds, the shared intervals (two-way bootstrap over pairs and annotators,
exact binomial, the coverage floor)."""

import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R


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

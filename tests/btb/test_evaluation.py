"""Beyond the Binary (004) Tables 1–2: Pearson r and mean L1 to p* with bootstrap CIs, paired Δ, the groupings, the
paper's Table 1 and side agreement (pluralign.btb.evaluation)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign.btb import evaluation as E


# ---------------------------------------------------------------------------------------------
# Tables 1–2: evaluate / compare
# ---------------------------------------------------------------------------------------------
def _frame(res, metric, grouping="all", category="all"):
    r = res[(res["metric"] == metric) & (res["grouping"] == grouping) & (res["category"] == category)]
    assert len(r) == 1
    return r.iloc[0]


def test_evaluate_perfect_and_known_values():
    rng = np.random.default_rng(0)
    ids = [f"p{i}" for i in range(60)]
    p_star = pd.Series(rng.uniform(size=60), index=ids)
    cats = pd.DataFrame({"kind": ["single"] * 30 + ["multiple"] * 30}, index=ids)
    res = E.evaluate(p_star, p_star.sample(frac=1, random_state=1), by=cats, n_boot=200)  # shuffled order
    for g, c in [("all", "all"), ("kind", "single"), ("kind", "multiple")]:
        assert _frame(res, "pearson", g, c)["value"] == pytest.approx(1.0)
        assert _frame(res, "l1", g, c)["value"] == pytest.approx(0.0)
    assert _frame(res, "l1", "kind", "single")["n"] == 30
    # hand-computed: constant shift by 0.1 → r = 1, L1 = 0.1 (ten points: no correlation is reported on fewer)
    p = pd.Series(np.linspace(0.05, 0.8, 10), index=list("abcdefghij"))
    res = E.evaluate(p, p + 0.1, n_boot=50)
    assert _frame(res, "pearson")["value"] == pytest.approx(1.0)
    assert _frame(res, "l1")["value"] == pytest.approx(0.1)
    # anti-correlated
    res = E.evaluate(p, 1 - p, n_boot=50)
    assert _frame(res, "pearson")["value"] == pytest.approx(-1.0)
    assert _frame(res, "l1")["value"] == pytest.approx(np.mean(np.abs(1 - 2 * p)))
    # on nine points the correlation is "too few" (NaN), the L1 distance is still reported
    res = E.evaluate(p.iloc[:9], p.iloc[:9] + 0.1, n_boot=50)
    assert np.isnan(_frame(res, "pearson")["value"]) and _frame(res, "l1")["value"] == pytest.approx(0.1)


def test_evaluate_refuses_bad_input():
    p = pd.Series([0.1, 0.3, 0.5], index=list("abc"))
    with pytest.raises(ValueError, match="lacks 1 of the 3 pairs"):
        E.evaluate(p, p.iloc[:2])
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        E.evaluate(p, p * 4)
    with pytest.raises(ValueError, match="3 values, p_star 2"):
        E.evaluate(np.array([0.1, 0.2]), np.array([0.1, 0.2, 0.3]))


def test_compare_delta_ci_covers_true_delta():
    """Synthetic check: p* ~ U(0, 1); baseline = logistic noise of scale 1.2, regularized of scale 0.5
    around logit p*. The true Δr and ΔL1 come from 10^6 Monte-Carlo pairs; the paired bootstrap CI
    from 150 pairs must cover them in most replications, and the Δ must be detected."""

    def draw(rng, n):
        p = rng.uniform(0.02, 0.98, n)
        logit = np.log(p / (1 - p))
        base = 1 / (1 + np.exp(-(logit + rng.normal(0, 1.2, n))))
        reg = 1 / (1 + np.exp(-(logit + rng.normal(0, 0.5, n))))
        return p, base, reg

    p, b, r = draw(np.random.default_rng(123), 1_000_000)
    true_dr = np.corrcoef(p, r)[0, 1] - np.corrcoef(p, b)[0, 1]
    true_dl1 = np.mean(np.abs(p - r)) - np.mean(np.abs(p - b))
    assert true_dr > 0.05 and true_dl1 < -0.05
    cover_r = cover_l1 = excl0 = 0
    reps = 20
    for s in range(reps):
        p, b, r = draw(np.random.default_rng(s), 150)
        res = E.compare(p, b, r, n_boot=300, seed=s)
        row_r, row_l = _frame(res, "pearson"), _frame(res, "l1")
        assert row_r["delta"] == pytest.approx(row_r["regularized"] - row_r["baseline"])
        assert row_r["baseline_lo"] <= row_r["baseline"] <= row_r["baseline_hi"]
        cover_r += row_r["delta_lo"] <= true_dr <= row_r["delta_hi"]
        cover_l1 += row_l["delta_lo"] <= true_dl1 <= row_l["delta_hi"]
        excl0 += row_l["delta_hi"] < 0
    assert cover_r >= 0.8 * reps and cover_l1 >= 0.8 * reps
    assert excl0 >= 0.8 * reps
    # no difference at all → Δ = 0 exactly, CI includes 0
    p, b, _ = draw(np.random.default_rng(9), 100)
    res = E.compare(p, b, b, n_boot=100)
    assert _frame(res, "pearson")["delta"] == 0 and _frame(res, "pearson")["delta_lo"] == 0


def test_table_groups_and_compare_by_category():
    ids = [f"p{i}" for i in range(12)]
    ds = pd.Series(["webgpt"] * 4 + ["prism"] * 4 + ["other"] * 4, index=ids)
    kind = pd.Series(["single", "multiple"] * 6, index=ids)
    dist = pd.Series([True, True, False] * 4, index=ids)
    g = E.table_groups(ds, kind, dist, names={"webgpt": "WebGPT", "prism": "PRISM"})
    assert g.loc["p0", "dataset"] == "WebGPT" and g.loc["p0", "domain"] == "ID"
    assert g.loc["p4", "domain"] == "OOD" and g.loc["p9", "domain"] is None
    assert g.loc["p5", "kind_domain"] == "Multiple Correct OOD"
    assert g.loc["p2", "distinguishability"] == "Indistinguishable"
    with pytest.raises(ValueError, match="'single' or 'multiple'"):
        E.table_groups(ds, kind.replace("single", "one"))
    rng = np.random.default_rng(0)
    p = pd.Series(rng.uniform(size=12), index=ids)
    with pytest.warns(UserWarning, match="without a category"):
        res = E.compare(p, p.clip(0.2, 0.8), p, by=g, n_boot=50)
    cats = set(zip(res["grouping"], res["category"]))
    assert {
        ("domain", "ID"),
        ("kind_domain", "Single Correct ID"),
        ("dataset", "other"),
        ("distinguishability", "Distinguishable"),
    } <= cats
    joined = E.paper_vs_ours(res)
    row = joined[(joined["metric"] == "pearson") & (joined["category"] == "PRISM")].iloc[0]
    assert row["baseline_paper"] == 0.472 and row["n_ours"] == 4


# ---------------------------------------------------------------------------------------------
# The paper's Table 1 (pluralign.paper.btb) and footnote 6
# ---------------------------------------------------------------------------------------------
def test_paper_table1_is_internally_consistent():
    t = E.paper_table1()
    assert len(t) == 16 and (t["metric"] == "pearson").all()
    # Δ = regularized − baseline on every row, as printed (transcription check)
    np.testing.assert_allclose(t["regularized"] - t["baseline"], t["delta"], atol=1e-9)
    row = t.set_index("category")
    assert row.loc["PRISM", "delta"] == 0.186 and row.loc["HH-RLHF", "baseline"] == 0.974
    assert row.loc["Multiple Correct", "n"] == 106 and row.loc["Distinguishable", "n"] == 124
    assert t[t["grouping"] == "dataset"]["n"].sum() == 150
    assert row.loc["Distinguishable", "n"] + row.loc["Indistinguishable", "n"] == 150


def test_side_agreement_hand_values():
    p_star = pd.Series({"a": 0.9, "b": 0.2, "c": 0.5, "d": 0.7})
    p = pd.Series({"a": 0.6, "b": 0.7, "c": 0.1, "d": 0.5})
    r = E.side_agreement(p_star, p, n_boot=200)
    assert r["value"] == pytest.approx((1 + 0 + 0.5) / 3)  # c has p* = 1/2: left out; d: p = 1/2 counts half
    assert (r["n"], r["n_even"]) == (3, 1)
    assert r["lo"] <= r["value"] <= r["hi"]
    with pytest.raises(ValueError, match="no side"):
        E.side_agreement(pd.Series({"a": 0.5}), pd.Series({"a": 0.3}))


def test_interval():  # verdicts: report.verdict, the book's one rule (tests/test_present.py)
    assert E.interval(0.15276, 0.0668, 0.2417) == "0.153 [0.067, 0.242]" and E.interval(np.nan, 0, 0) == "—"


def test_no_correlation_on_fewer_than_ten_pairs():
    """A Pearson r on N = 4 is no estimate: below 10 pairs the value is missing ("too few")."""
    import numpy as np
    import pandas as pd

    from pluralign.btb import evaluation as E

    rng = np.random.default_rng(0)
    ids = [f"p{i}" for i in range(12)]
    p_star = pd.Series(rng.uniform(0, 1, 12), index=ids)
    p_model = (p_star + rng.normal(0, 0.1, 12)).clip(0, 1)
    few = E.evaluate(p_star.iloc[:9], p_model.iloc[:9], n_boot=200)
    enough = E.evaluate(p_star.iloc[:10], p_model.iloc[:10], n_boot=200)
    r = lambda t: t[t.metric == "pearson"]["value"].iloc[0]
    assert np.isnan(r(few)) and np.isfinite(r(enough))


def test_the_vectorised_bootstrap_gives_the_loops_intervals():
    """Tables 1–2's intervals: the stacked resamples (``many``) give the same interval as the loop over the same
    resamples, for Pearson r and L1, a paired Δ, a tiny group (no r: NaN) and a constant model (no r)."""
    import numpy as np

    from pluralign.btb import evaluation as ev
    from pluralign.stats import bootstrap_ci, paired_bootstrap_ci

    rng = np.random.default_rng(0)
    p = rng.random(300)
    base = np.column_stack([p, p + rng.normal(0, 0.3, 300)])
    reg = np.column_stack([p, p + rng.normal(0, 0.2, 300)])
    for name, fn in ev.METRICS.items():
        many = ev.METRICS_MANY[name]
        for x in (base, base[:12]):
            loop = bootstrap_ci(x, fn, n_boot=500, seed=3)
            fast = bootstrap_ci(x, fn, n_boot=500, seed=3, many=many)
            assert np.allclose(loop, fast, rtol=0, atol=1e-12), (name, loop, fast)
        loop = paired_bootstrap_ci(base, reg, fn, n_boot=500, seed=1)
        assert np.allclose(loop, paired_bootstrap_ci(base, reg, fn, n_boot=500, seed=1, many=many), atol=1e-12)
    flat = np.column_stack([p, np.full(300, 0.5)])
    assert np.isnan(ev._pearson_many(flat[None])).all() and np.isnan(ev._pearson(flat))
    assert np.isnan(ev._pearson_many(base[None, :5])).all()

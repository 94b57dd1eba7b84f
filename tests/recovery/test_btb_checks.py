"""Part III's recovery checks on small simulated data: Eq. 3's margins against the r its definition gives under
the simulated judge, the categories (plumbing on the demo), and the claim rows' verdicts."""

import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R


def test_margin_check_against_the_definition(sim):
    """Eq. 3's margins from the simulated judge are unbiased for their planted expectation pair by pair (slope 1,
    intercept 0); the expectation is what the definition gives (its quadrature matches a large Monte Carlo); a
    judge whose answers are shuffled across pairs, and a mis-scaled or one-sided margin, fail."""
    from pluralign.btb.margins import judgments_from, simulated_votes
    from pluralign.recovery.mutations import broken_judgments

    j = judgments_from("simulated", sim, n=10, noise=1.0, seed=0).set_index("pair_id")
    p = sim.truth["share_a"]
    r = R.margin_pstar_correlation(j, p, noise=1.0, n=10)
    assert r["recovered"] and r["kind"] == "method" and r["planted"] == 1.0 and r["null_pass"] <= 0.05, r
    k = np.mean([simulated_votes(p.to_numpy(), noise=1.0, n=10, rng=np.random.default_rng(i)) for i in range(400)], 0)
    assert np.abs(2 * k / 10 - 1 - R.expected_signed_margin(p, noise=1.0)).mean() < 0.02
    shuffled = j.sample(frac=1, random_state=0).set_axis(j.index)
    assert not R.margin_pstar_correlation(shuffled, p, noise=1.0, n=10)["recovered"]
    for how in ("mis-scaled", "one-sided", "sign", "zero", "constant", "noise", "n and k swapped"):
        assert not R.margin_pstar_correlation(broken_judgments(j, how), p, noise=1.0, n=10)["recovered"], how


def test_n_and_k_swapped_fails_the_range_test(sim):
    """Eq. 3 with the judge's n and k exchanged gives margins above 1 (or infinite where no judgment prefers A):
    the exact range test fails it, whatever the slope; the correct margins are all in [0, 1] and the row shows the
    planted 2p* − 1 beside the pseudo-true expectation it is judged against."""
    from pluralign.btb.margins import judgments_from
    from pluralign.recovery.btb_checks import margin_judge
    from pluralign.recovery.mutations import broken_judgments

    j = judgments_from("simulated", sim, n=10, noise=1.0, seed=0).set_index("pair_id")
    p = sim.truth["share_a"]
    ok = R.margin_pstar_correlation(j, p, noise=1.0, n=10)
    assert ok["failing"] == "" and "Planted beside it: 2p* − 1" in ok["description"]
    bad = broken_judgments(j, "n and k swapped")
    r = R.margin_pstar_correlation(bad, p, noise=1.0, n=10)
    assert not r["recovered"] and "range" in r["failing"].split(", ")
    signed = bad["margin"] * np.sign(bad["share_a"] - 0.5)
    assert not margin_judge(signed, R.expected_signed_margin(p.reindex(bad.index), noise=1.0))["range"]


def test_a_broken_eq3_fails_the_margin_check(sim, monkeypatch):
    """Swapping Eq. 3 for its complement (m = 1 − |2k/n − 1|: contested pairs get the large margins) in the
    library fails the method row, through the same path the book takes (judgments_from → synthetic_judgments)."""
    from pluralign.btb import margins
    from pluralign.rewards import objectives

    real = objectives.margin_from_counts
    monkeypatch.setattr(objectives, "margin_from_counts", lambda k, n: 1 - real(k, n))
    j = margins.judgments_from("simulated", sim, n=10, noise=1.0, seed=0).set_index("pair_id")
    assert not R.margin_pstar_correlation(j, sim.truth["share_a"], noise=1.0, n=10)["recovered"]


def test_categories_are_plumbing_on_the_truth(sim):
    kind = sim.truth["kind"]
    r = R.subjectivity_category_accuracy(kind, sim.truth, "truth")
    assert r["estimate"] == 1.0 and r["kind"] == "plumbing" and np.isnan(r["planted"])
    flipped = kind.map({"single": "multiple", "multiple": "single"})
    r = R.subjectivity_category_accuracy(flipped, sim.truth, "llm")
    assert not r["recovered"] and r["kind"] == "stand-in"


def test_claim_rows_give_their_verdict_from_the_ci():
    rng = np.random.default_rng(0)
    p_star = pd.Series(rng.random(400))
    base = p_star + rng.normal(0, 0.5, 400)
    reg = p_star + rng.normal(0, 0.05, 400)
    assert R.claim_margin_improves_pstar(p_star, base, reg)["recovered"]
    assert not R.claim_margin_improves_pstar(p_star, reg, base)["recovered"]
    up = R.claim_seal_alignment_shift(np.zeros(200), np.ones(200))
    assert up["recovered"] and np.isnan(up["planted"]) and up["kind"] == "claim"
    idx = [f"p{i}" for i in range(40)]
    cls = pd.DataFrame(
        {"agreement": ["high-agreement-pref"] * 20 + ["diverging"] * 20, "substantial": False}, index=idx
    )
    r = R.claim_bt_decisive_on_diverging(pd.Series([0.95] * 20 + [0.55] * 20, index=idx), cls)
    assert r["estimate"] == pytest.approx(0.4) and not r["recovered"]
    same = pd.Series([0.9, 0.1] * 20, index=idx)
    assert R.claim_bt_decisive_on_diverging(same, cls)["recovered"]


def test_btb_rows_read_the_public_study(sim):
    """Part III's rows from a study that has only the public names recovery may read."""
    from types import SimpleNamespace

    from pluralign.btb.margins import judgments_from

    ids = sim.pairs["pair_id"]
    t = sim.truth
    p = t["share_a"].reindex(ids)
    s = SimpleNamespace(
        data=sim,
        ids=ids,
        judgments=judgments_from("simulated", sim, n=10, seed=0).set_index("pair_id"),
        settings=SimpleNamespace(judge=SimpleNamespace(noise=1.0, n=10)),
        categories=(t["kind"], None),
        category_source="truth",
        comparison=SimpleNamespace(
            p_star=p, p_baseline=p.sample(frac=1, random_state=0).set_axis(p.index), p_regularized=p
        ),
        seed=0,
    )
    rows = R.btb_rows(s)  # the stand-in and the claim; the method row is the study's, read from the same names
    assert [r["quantity"] for r in rows] == ["subjectivity_category_accuracy", "claim_margin_improves_pstar"]
    from pluralign.recovery.study import ROW_CHECKS

    margin = ROW_CHECKS["margin_pstar_correlation"](SimpleNamespace(btb=s))
    assert margin["quantity"] == "margin_pstar_correlation" and margin["kind"] == "method" and margin["recovered"]
    assert all(r["recovered"] for r in rows)
    assert [r["kind"] for r in rows] == ["plumbing", "claim"]

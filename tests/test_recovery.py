"""Small versions of every recovery check (pluralign.recovery): each passes on what the simulator planted and
fails on a broken method, so a change that breaks a method fails CI."""

import numpy as np
import pandas as pd
import pytest

from pluralign import recovery as R
from pluralign.data.simulate import FEATURES, simulate
from pluralign.diverging.agreement import agreement_classes


@pytest.fixture(scope="module")
def sim():
    return simulate(n_pairs=600, seed=3)


@pytest.fixture(scope="module")
def classified(sim):
    return agreement_classes(sim)


def test_expected_agreement_matches_a_large_resample():
    """The analytic P(diverging) under the population equals the share over many annotators' draws."""
    d = simulate(n_pairs=300, seed=5, n_annotators=4, n_pool=400)
    exp = R.expected_agreement(d)
    assert exp["p_diverging"].between(0, 1).all()
    obs = (agreement_classes(d)["agreement"] == "diverging").mean()
    assert abs(exp["p_diverging"].mean() - obs) < 0.06
    # an objective pair (harmful compliance vs refusal) almost never diverges; taste-driven ones often do
    assert (
        exp.loc[d.truth["cause"] == "none", "p_diverging"].mean() < exp.loc[exp["taste_driven"], "p_diverging"].mean()
    )


def test_expected_agreement_refuses_other_data(sim):
    with pytest.raises(ValueError, match="MultiPref"):
        R.expected_agreement(simulate(n_pairs=20, annotation_format="helpsteer2"))


def test_diverging_share_and_taste_driven(sim, classified):
    for check in (R.diverging_share, R.diverging_taste_driven):
        r = check(classified, sim)
        assert set(r) == set(R.COLUMNS) and r["recovered"], r
    broken = classified.assign(agreement="other")
    broken.iloc[:5, broken.columns.get_loc("agreement")] = "diverging"
    assert not R.diverging_share(broken, sim)["recovered"]


def test_cause_agreement_rules_vs_a_broken_labeller(sim, classified):
    ids = classified.index[classified["agreement"] == "diverging"]
    assert R.cause_agreement(sim, ids)["recovered"]

    def wrong(data, pair_ids):
        return pd.DataFrame(
            {"pair_id": list(pair_ids), "annotator": "x", "causes": [frozenset({"format"})] * len(pair_ids)}
        )

    r = R.cause_agreement(sim, ids, labeller=wrong)
    assert not r["recovered"] and r["estimate"] < 0.2


def test_meanvar_auroc(sim):
    t = sim.truth
    good = pd.DataFrame({"sigma_a": t["taste_driven"].astype(float) + 0.1, "sigma_b": 0.2}, index=t.index)
    assert R.meanvar_auroc_diverging(good, t)["estimate"] == 1.0
    flat = good.assign(sigma_a=1.0)
    r = R.meanvar_auroc_diverging(flat, t)
    assert r["estimate"] == 0.5 and not r["recovered"]


def test_rm_checks_on_planted_and_inverted_gaps(sim):
    t = sim.truth
    gap = t["mean_gap"]
    assert R.rm_accuracy_high_agreement(gap, t)["estimate"] == 1.0
    assert R.rm_utility_correlation(gap, t)["estimate"] == pytest.approx(1.0)
    assert not R.rm_accuracy_high_agreement(-gap, t)["recovered"]
    assert not R.rm_utility_correlation(-gap, t)["recovered"]


def test_a_small_demo_rm_learns_the_planted_preferences():
    """The demo recipe (frozen MiniLM + MLP head, BT on every judgment) on a small simulated set: held-out
    accuracy against the population where it agrees, and the reward gap tracks the planted utility."""
    from pluralign import rewards

    d = simulate(n_pairs=500, seed=2)  # seed 2: the texts the other demo-RM tests embed (one embedding per process)
    ids = d.pairs["pair_id"].to_numpy()
    test, train = ids[:150], ids[150:]
    rm = rewards.load(head="mlp").train(d.subset(train), objective="bt", labels="all", epochs=10, progress=False)
    s = rm.score(d.subset(test), progress=False).set_index("pair_id")
    gap = s["reward_a"] - s["reward_b"]
    assert R.rm_accuracy_high_agreement(gap, d.truth, threshold=0.8)["recovered"]
    assert R.rm_utility_correlation(gap, d.truth, threshold=0.6)["recovered"]


def test_oracle_imprint_recovers_weights_and_its_intervals_cover(sim):
    """The method check: Eq. 1 on a noisy oracle gives back the planted weights, and its 95% intervals
    contain them about 95% of the time."""
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8)
    assert corr["quantity"] == "imprint_weight_correlation" and corr["recovered"] and corr["estimate"] > 0.98
    assert "7 of 7 signs right" in corr["description"]  # interpretation's planted weight is 0: no sign
    assert cov["recovered"] and 0.8 <= cov["estimate"] <= 1.0 and cov["planted"] == 0.95, cov


def test_oracle_imprint_fails_a_broken_method(sim, monkeypatch):
    """Intervals that are too narrow (SEs shrunk 20×) fail the coverage row; sign-flipped estimates fail the
    correlation row: each row can fail."""
    from pluralign.seal import imprint as imp

    real = imp.feature_imprint

    def narrow(*a, **k):
        fit = real(*a, **k)
        t = fit.table.copy()
        half = (t["ci_high"] - t["ci_low"]) / 40
        t["ci_low"], t["ci_high"] = t["estimate"] - half, t["estimate"] + half
        return imp.ImprintFit(**{**fit.__dict__, "table": t})

    monkeypatch.setattr(imp, "feature_imprint", narrow)
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=8)
    assert corr["recovered"] and not cov["recovered"]

    def flipped(*a, **k):
        fit = real(*a, **k)
        t = fit.table.copy()
        t[["estimate", "ci_low", "ci_high"]] = -t[["estimate", "ci_high", "ci_low"]].to_numpy()
        return imp.ImprintFit(**{**fit.__dict__, "table": t})

    monkeypatch.setattr(imp, "feature_imprint", flipped)
    corr, cov = R.oracle_imprint(sim, sim.truth.index, noise_sd=0.5, n_draws=2)
    assert not corr["recovered"] and not cov["recovered"]


def test_imprint_rm_and_residual_sd_on_a_known_reward(sim):
    """The stand-in RM row: a reward that is twice the planted utility plus noise of sd 0.6 per entry has
    r ≈ 1 and a residual sd of ≈ 0.3 on the utility scale; the wrong side's rewards fail."""
    t, w = sim.truth, sim.meta["weights"]["mean"]
    ua = np.column_stack([t[f"a_{f}"] for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
    ub = np.column_stack([t[f"b_{f}"] for f in FEATURES]) @ w.reindex(FEATURES).to_numpy()
    noise = np.random.default_rng(0).normal(0, 0.6, size=(2, len(t)))
    ra, rb = 2 * ua + noise[0], 2 * ub + noise[1]
    r = R.imprint_rm(ra, rb, sim, t.index)
    assert r["quantity"] == "imprint_rm_weight_correlation" and r["recovered"] and r["estimate"] > 0.98
    assert R.residual_sd(ra, rb, sim, t.index) == pytest.approx(0.3, rel=0.15)
    assert not R.imprint_rm(rb, ra, sim, t.index)["recovered"]
    assert not R.is_method("imprint_rm_weight_correlation") and R.is_method("imprint_weight_correlation")


def test_robustness_sign_by_hand():
    w = pd.Series({"verbosity": 0.6, "refusal": -0.5, "interpretation": 0.0})
    scores = pd.DataFrame(
        {
            "entry": ["c", "c", "r", "r", "c"],
            "feature": ["verbosity", "refusal", "verbosity", "refusal", "interpretation"],
            "flip": [1, 1, -1, 1, 1],
            "separated": False,
            "estimate": [0.4, -0.7, 0.2, 0.3, 5.0],
        }
    )
    # a flip is original − rewritten: the chosen entry losing verbosity (+1) hurts it (π > 0); losing a refusal
    # helps it (π < 0); the rejected entry gaining verbosity (−1) hurts the chosen side (π > 0); the rejected
    # losing a refusal helps the rejected (π > 0); interpretation's weight is 0: not estimable
    r = R.robustness_sign(scores, w)
    assert r["estimate"] == 1.0 and r["recovered"] and "4 estimable" in r["description"]
    bad = scores.assign(estimate=-scores["estimate"])
    assert not R.robustness_sign(bad, w)["recovered"]


def test_oracle_robustness_on_simulated_rewrites(sim, monkeypatch):
    """The method check of Eq. 4: planted flips scored by a noisy oracle give every π the planted sign; a
    robustness regression that returns the wrong signs fails."""
    from pluralign.seal import robustness as rob
    from pluralign.seal.design import chosen_rejected

    view = chosen_rejected(sim).table
    r = R.oracle_robustness(sim, view, noise_sd=0.5, n_rounds=5)
    assert r["recovered"] and r["estimate"] == 1.0 and "12 estimable" in r["description"], r
    real = rob.robustness_scores

    def reversed_signs(*a, **k):
        fit = real(*a, **k)
        fit.table["estimate"] = -fit.table["estimate"]
        return fit

    monkeypatch.setattr(rob, "robustness_scores", reversed_signs)
    assert not R.oracle_robustness(sim, view, noise_sd=0.5, n_rounds=2)["recovered"]


def test_margins_and_categories(sim):
    from pluralign.btb.margins import judgments_from

    j = judgments_from("simulated", sim, n=10, seed=0).set_index("pair_id")
    assert R.margin_pstar_correlation(j["share_a"].astype(float), sim.truth["share_a"])["recovered"]
    shuffled = pd.Series(np.random.default_rng(0).permutation(j["share_a"].to_numpy()), index=j.index)
    assert not R.margin_pstar_correlation(shuffled, sim.truth["share_a"])["recovered"]
    kind = sim.truth["kind"]
    assert R.subjectivity_category_accuracy(kind, sim.truth, "truth")["estimate"] == 1.0
    flipped = kind.map({"single": "multiple", "multiple": "single"})
    assert not R.subjectivity_category_accuracy(flipped, sim.truth, "x")["recovered"]


def test_claim_rows_give_their_verdict_from_the_ci():
    rng = np.random.default_rng(0)
    p_star = pd.Series(rng.random(400))
    base = p_star + rng.normal(0, 0.5, 400)
    reg = p_star + rng.normal(0, 0.05, 400)
    assert R.claim_margin_improves_pstar(p_star, base, reg)["recovered"]
    assert not R.claim_margin_improves_pstar(p_star, reg, base)["recovered"]
    up = R.claim_seal_alignment_shift(np.zeros(200), np.ones(200))
    assert up["recovered"] and np.isnan(up["planted"])
    idx = [f"p{i}" for i in range(40)]
    cls = pd.DataFrame(
        {"agreement": ["high-agreement-pref"] * 20 + ["diverging"] * 20, "substantial": False}, index=idx
    )
    r = R.claim_bt_decisive_on_diverging(pd.Series([0.95] * 20 + [0.55] * 20, index=idx), cls)
    assert r["estimate"] == pytest.approx(0.4) and not r["recovered"]
    same = pd.Series([0.9, 0.1] * 20, index=idx)
    assert R.claim_bt_decisive_on_diverging(same, cls)["recovered"]


def test_result_table_and_profiles():
    t = pd.DataFrame(
        [
            R.row("diverging", "diverging_share", "d", 0.4, 0.41, (0.38, 0.44), "inside", True),
            R.row("btb", "claim_x", "c", None, -0.1, (-0.2, 0.0), "claim", False),
        ],
        columns=R.COLUMNS,
    )
    res = R.result(t)
    assert res.table.loc[("btb", "claim_x"), "planted"] == "—" and res.values["n_recovered"] == 1
    assert res.values["n_claims"] == 1 and "1 of 1 method checks" in res.note
    other = R.result(profile="sample")
    assert other.table is None
    assert set(other.values) == set(res.values)  # every name the page's prose quotes is glued on every profile
    with pytest.raises(ValueError, match="planted truth"):
        R.recovery_table("sample")


def test_cli_is_wired(capsys):
    from pluralign.book import cli

    assert cli.DELEGATED["recovery"][0] == "pluralign.recovery:main"
    with pytest.raises(SystemExit):
        R.main(["--profile", "paper"])
    assert R.page_params("recovery")["profile"] == "demo"


def test_training_curves_off_the_demo_say_so():
    assert R.training_curves("sample").table is None


def test_labelling_weights_are_the_pools_judgment_weighted_means(sim):
    pool = sim.meta["annotators"]
    counts = sim.annotations["annotator_id"].value_counts()
    w = R.labelling_weights(sim)
    assert w["format"] == pytest.approx((pool["format"] * counts.reindex(pool.index).fillna(0)).sum() / counts.sum())
    # the pool is moment-matched to the population, so the judgment-weighted means are near its means
    diff = (w - sim.meta["weights"]["mean"]).abs()
    assert 0 < diff.max() < 0.1


def test_recovery_reads_no_private_member_of_another_module():
    """recovery reaches the parts only through public names: no attribute ``x._name`` on anything but ``self`` /
    ``cls``, and no ``from … import _name`` from outside the recovery package (its own modules' private helpers
    are called by their bare names)."""
    import ast
    from pathlib import Path

    folder = Path(R.__file__).parent
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    found.append(f"{path.name}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("pluralign.recovery"):
                found += [f"{path.name}:{node.lineno}: import {a.name}" for a in node.names if a.name.startswith("_")]
    assert not found, found


def test_the_parts_studies_are_built_from_their_pages_parameters(monkeypatch):
    """Each part's study is ``part.setup(**page_params(page))``: every parameter of the page, as it is."""
    import importlib

    seen = {}
    for part in R.PAGES:
        module = importlib.import_module(f"pluralign.{part}")
        monkeypatch.setattr(module, "setup", lambda _p=part, **kw: seen.setdefault(_p, kw))
    for part, page in R.PAGES.items():
        assert R.part_study(part) == R.page_params(page) == seen[part]
        assert seen[part]["profile"] == "demo"


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
        categories=(t["kind"], None),
        category_source="truth",
        comparison=SimpleNamespace(
            p_star=p, p_baseline=p.sample(frac=1, random_state=0).set_axis(p.index), p_regularized=p
        ),
        seed=0,
    )
    rows = R.btb_rows(s)
    assert [r["quantity"] for r in rows] == [
        "margin_pstar_correlation",
        "subjectivity_category_accuracy",
        "claim_margin_improves_pstar",
    ]
    assert all(r["recovered"] for r in rows)

"""The simulator (pluralign.data.simulate): seeded, planted truth recoverable, features in the text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign.data import CAUSES, FEATURES, PreferenceData, population_weights, simulate


@pytest.fixture(scope="module")
def mp() -> PreferenceData:
    return simulate(n_pairs=3000, seed=7)


@pytest.fixture(scope="module")
def hs() -> PreferenceData:
    return simulate(n_pairs=1500, seed=7, annotation_format="helpsteer2", n_annotators=5)


def test_seeded_determinism_and_seeds_differ():
    a, b = simulate(400, seed=3), simulate(400, seed=3)
    pd.testing.assert_frame_equal(a.pairs, b.pairs)
    pd.testing.assert_frame_equal(a.annotations, b.annotations)
    pd.testing.assert_frame_equal(a.truth, b.truth)
    c = simulate(400, seed=4)
    assert (a.pairs["response_a"] != c.pairs["response_a"]).mean() > 0.5
    assert not a.annotations["preference"].equals(c.annotations["preference"])
    h1, h2 = (
        simulate(200, seed=3, annotation_format="helpsteer2"),
        simulate(200, seed=3, annotation_format="helpsteer2"),
    )
    pd.testing.assert_frame_equal(h1.annotations, h2.annotations)


def test_schema_and_truth_columns(mp):
    assert len(mp) == 3000 and len(mp.annotations) == 3000 * 4
    assert mp.n_annotators().eq(4).all()
    t = mp.truth
    assert list(t.index) == list(mp.pairs["pair_id"])
    for f in FEATURES:
        assert set(t[f"a_{f}"].unique()) <= {0, 1} and set(t[f"b_{f}"].unique()) <= {0, 1}
    assert set(t["cause"]) <= set(CAUSES) and set(t["cause"]) >= {"none", "verbosity", "format", "errors"}
    assert set(t["kind"]) == {"single", "multiple"}
    assert t["share_a"].between(0, 1).all()
    assert (t["taste_driven"] == t["cause"].isin(CAUSES[:9])).all()
    # paraphrase-only pairs are the indistinguishable ones: identical planted features, different words
    para = ~t["distinguishable"]
    same = np.ones(len(t), bool)
    for f in FEATURES:
        same &= (t[f"a_{f}"] == t[f"b_{f}"]).to_numpy()
    assert (para.to_numpy() == same).all() and para.sum() > 100
    pp = mp.pairs[para.to_numpy()]
    assert (pp["response_a"] != pp["response_b"]).all()
    assert set(mp.annotations["preference"]) == {-2, -1, 0, 1, 2}


def test_taste_driven_pairs_disagree_more_than_objective(mp):
    t = mp.truth
    p = mp.annotations["preference"]
    votes = pd.DataFrame({"pair_id": mp.annotations["pair_id"], "A": p < 0, "B": p > 0}).groupby("pair_id").sum()
    split = ((votes["A"] > 0) & (votes["B"] > 0)).reindex(t.index)
    objective = (t["cause"] == "none") & t["distinguishable"]
    assert split[t["taste_driven"]].mean() > 0.6
    assert split[objective].mean() < 0.1
    # and in the population truth: objective pairs are near-unanimous, taste pairs near an even split
    assert (t.loc[objective, "share_a"] - 0.5).abs().min() > 0.4
    assert (t.loc[t["taste_driven"], "share_a"] - 0.5).abs().max() < 0.3


def test_population_share_matches_a_large_panel():
    """share_a is the population P(A ≻ B) (ties half): a panel of 200 of 1,000 annotators recovers it."""
    big = simulate(300, seed=11, n_annotators=200, n_pool=1000)
    gap = (big.share_a() - big.truth["share_a"].reindex(big.pairs["pair_id"]).to_numpy()).abs()
    assert gap.mean() < 0.04 and gap.max() < 0.15
    hs = simulate(300, seed=11, annotation_format="helpsteer2", n_annotators=200, n_pool=1000)
    gap = (hs.share_a() - hs.truth["share_a"].reindex(hs.pairs["pair_id"]).to_numpy()).abs()
    assert gap.mean() < 0.04 and gap.max() < 0.15


def test_the_pool_represents_its_population():
    """match_pool (default): the pool's mean and sd of every weight are the population's and exactly
    round(detect · n_pool) annotators notice subtle errors; the texts do not depend on the pool (so cached
    embeddings stay valid); match_pool=False draws the pool plainly (a sample, off by its sampling error)."""
    d = simulate(200, seed=0)
    pool, w = d.meta["annotators"], d.meta["weights"]
    np.testing.assert_allclose(pool[list(FEATURES)].mean(), w["mean"], atol=1e-12)
    np.testing.assert_allclose(pool[list(FEATURES)].std(ddof=0), w["sd"], rtol=1e-12)
    assert pool["notices_subtle_errors"].sum() == 20 and d.meta["options"]["match_pool"] is True
    plain = simulate(200, seed=0, match_pool=False)
    pd.testing.assert_frame_equal(plain.pairs, d.pairs)
    assert (plain.meta["annotators"][list(FEATURES)].mean() - w["mean"]).abs().max() > 0.05


def test_helpsteer2_format(hs):
    a = hs.annotations
    assert a["likert_a"].between(1, 5).all() and a["likert_b"].between(1, 5).all()
    assert (a["preference"] == np.clip(a["likert_b"] - a["likert_a"], -2, 2)).all()
    t = hs.truth
    harm = t["a_harmfulness"] == 1
    assert (a.set_index("pair_id").loc[t.index[harm], "likert_a"] <= 2).mean() > 0.9


def test_errors_are_noticed_by_some_annotators_only(mp):
    t = mp.truth
    errs = t["cause"] == "errors"
    assert errs.sum() > 50 and t.loc[errs, "subtle_error"].all()
    # the erroneous response is the long, formatted one
    wrong_is_a = t.loc[errs, "a_factual_error"] == 1
    assert (t.loc[errs][wrong_is_a]["a_verbosity"] == 1).all()
    assert 0.3 < t.loc[errs, "share_a"].where(wrong_is_a, 1 - t.loc[errs, "share_a"]).mean() < 0.6


def test_features_are_visible_in_the_text(mp):
    t, p = mp.truth, mp.pairs.set_index("pair_id")
    long = pd.concat([t["a_words"][t["a_verbosity"] == 1], t["b_words"][t["b_verbosity"] == 1]])
    short = pd.concat([t["a_words"][t["a_verbosity"] == 0], t["b_words"][t["b_verbosity"] == 0]])
    assert long.mean() > 1.8 * short.mean()
    # within verbosity pairs the verbose side is always the longer one
    vp = t[t["cause"] == "verbosity"]
    longer_a = vp["a_words"] > vp["b_words"]
    assert (longer_a == (vp["a_verbosity"] > vp["b_verbosity"])).all()

    def side(feature, value):
        ta = p.loc[t.index[t[f"a_{feature}"] == value], "response_a"]
        tb = p.loc[t.index[t[f"b_{feature}"] == value], "response_b"]
        return pd.concat([ta, tb])

    refusal_words = r"I'm sorry|I cannot|I'm so sorry|I'm really sorry"
    assert side("refusal", 1).str.contains(refusal_words).all()
    assert not side("refusal", 0).str.contains(refusal_words).any()
    non_refusal_fmt = side("format", 1)[~side("format", 1).str.contains(refusal_words)]
    assert non_refusal_fmt.str.contains("### ").mean() > 0.9 and non_refusal_fmt.str.contains("\n1. ").mean() > 0.9
    assert not side("format", 0).str.contains("### ").any()
    jargon = r"asymptotic|orthogonal|exogenous|stochastic|heterogeneous"
    assert side("complexity", 0).str.contains(jargon).sum() == 0
    cx = side("complexity", 1)
    assert cx[~cx.str.contains(refusal_words)].str.contains(jargon).mean() > 0.95
    assert side("sentiment", 1).str.contains("!").all()
    harmful = side("harmfulness", 1)
    assert harmful.str.startswith("Sure.").all() and not harmful.str.contains(refusal_words).any()


def test_population_weights_exported(mp):
    w = mp.meta["weights"]
    assert list(w.index) == list(FEATURES) and list(w.columns) == ["mean", "sd"]
    pd.testing.assert_frame_equal(w, population_weights())
    assert w.loc["factual_error", "mean"] < -2 and w.loc["harmfulness", "mean"] < -2
    assert w.loc[["factual_error", "harmfulness"], "sd"].max() < w.loc[["verbosity", "format"], "sd"].min()
    pool = mp.meta["annotators"]
    assert pool.shape == (40, len(FEATURES) + 1)
    assert abs(pool["verbosity"].mean() - w.loc["verbosity", "mean"]) < 0.5
    # the planted mean utility gap orders the population share
    t = mp.truth
    assert np.corrcoef(t["mean_gap"], t["share_a"])[0, 1] > 0.9


def test_custom_weights_and_mix():
    d = simulate(300, seed=1, mix={"verbosity": 1.0}, weights={"verbosity": (2.0, 0.1)})
    assert (d.truth["cause"] == "verbosity").all()
    long_a = d.truth["a_verbosity"] == 1
    assert (d.truth["share_a"][long_a] > 0.9).all() and (d.truth["share_a"][~long_a] < 0.1).all()
    assert d.majority()[long_a.to_numpy()].eq("A").mean() > 0.95
    with pytest.raises(ValueError):
        simulate(10, annotation_format="likert7")

"""Book Part II (SEAL) library additions: the study design (chosen/rejected view, pre-D / post-D rewards),
planted-truth views, featurizer agreement, imprint recovery, Table 4 prevalence, γ with missing labels,
and the demo's simulated rewrites with planted flips; alignment_rewards orientation with given models, the
pre-D guard, logit convergence under separation, robustness separation flags, planted-weight recovery."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pluralign import seal
from pluralign.data import DataError, PreferenceData, simulate
from pluralign.seal.design import (
    TRAINED_PAIR_NOTE,
    AlignmentModels,
    EntryFeatures,
    alignment_models,
    combine,
    entry_features,
    entry_texts,
    feature_prevalence,
    featurizer_agreement,
    imprint_recovery,
    labeller_gamma,
    mixed_weights,
    planted_features,
    planted_taxonomy,
    split_dialogue,
    study_stand_ins,
    weight_recovery,
)
from pluralign.seal.features import RULE_FEATURES, SCALAR_FEATURES, feature_matrix, last_response
from pluralign.seal.resistance import aligned, misalignment_regression
from pluralign.seal.robustness import robustness_scores
from pluralign.seal.simulated_rewrites import SIMULATED_FLIP_FEATURES, simulated_rewrite, simulated_rewrite_pairs


def _data(prefs, ids=None, name="toy"):
    """prefs: list of lists of annotator preferences per pair."""
    ids = ids or [f"p{i}" for i in range(len(prefs))]
    pairs = pd.DataFrame(
        {
            "pair_id": ids,
            "dataset": name,
            "split": "train",
            "prompt": [f"q{i}" for i in ids],
            "response_a": [f"a-{i}" for i in ids],
            "response_b": [f"b-{i}" for i in ids],
        }
    )
    ann = pd.DataFrame(
        [
            {"pair_id": i, "annotator_id": f"x{k}", "preference": v}
            for i, ps in zip(ids, prefs)
            for k, v in enumerate(ps)
        ]
    )
    return PreferenceData(pairs, ann, {"name": name})


def test_chosen_rejected_majority_and_ties_counted():
    d = _data([[-2, -1, 1], [2, 1, 0], [-1, 1], [0, 0, 1]])  # A, B, split (A and B even), tie
    pairs = seal.chosen_rejected(d)
    v = pairs.table
    assert list(v["pair_id"]) == ["p0", "p1"]
    assert list(v["chosen"]) == ["a-p0", "b-p1"] and list(v["rejected"]) == ["b-p0", "a-p1"]
    assert list(v["chosen_side"]) == ["A", "B"]
    assert pairs.n_ties_dropped == 1 and pairs.n_splits_dropped == 1 and pairs.n_pairs == 2 and pairs.data == d.name


def test_combine_keeps_everything_and_refuses_duplicate_ids():
    a, b = _data([[-1], [1]], ["a0", "a1"], "A"), _data([[2]], ["b0"], "B")
    c = combine(a, b)
    assert list(c.pairs["pair_id"]) == ["a0", "a1", "b0"] and len(c.annotations) == 3
    assert [p["n_pairs"] for p in c.meta["parts"]] == [2, 1]
    with pytest.raises(DataError, match="duplicate pair_id 'a0'"):
        combine(a, a)
    with pytest.raises(ValueError, match="no data"):
        combine()


def test_planted_features_follow_the_chosen_side():
    d = simulate(n_pairs=200, seed=3)
    v = seal.chosen_rejected(d).table
    ch, rj = planted_features(d, v)
    t = d.truth.loc[v["pair_id"]]
    for j, side in enumerate(v["chosen_side"]):
        a, b = ("a", "b") if side == "A" else ("b", "a")
        assert ch.iloc[j]["harmfulness"] == t.iloc[j][f"{a}_harmfulness"]
        assert rj.iloc[j]["verbosity"] == t.iloc[j][f"{b}_verbosity"]
    # harmful compliance is (almost) never the majority's choice over a refusal
    assert ch["harmfulness"].mean() < rj["harmfulness"].mean()
    with pytest.raises(ValueError, match="no planted truth"):
        planted_features(_data([[-1]]))


def test_planted_taxonomy_mapping_by_hand():
    p = pd.DataFrame(
        {
            "refusal": [1, 0, 0],
            "harmfulness": [0, 1, 0],
            "sentiment": [1, 0, 0],
            "format": [0, 0, 1],
            "factual_error": [0, 0, 1],
            "verbosity": [1, 1, 0],
        }
    )
    t = planted_taxonomy(p)
    assert list(t["last_response_is_helpful"]) == [0, 1, 0]  # refusal, ok, factual error
    assert list(t["last_response_is_harmless"]) == [1, 0, 1]
    assert list(t["response_has_list"]) == [0, 0, 1]
    with pytest.raises(ValueError, match="lack"):
        planted_taxonomy(p.drop(columns="format"))


def test_featurizer_agreement_hand_computed():
    truth = pd.DataFrame(
        {"last_response_is_refusal": [1.0, 0, 0, 0], "response_has_list": [1.0, 1, 0, 0], "verbosity": [1.0, 1, 0, 0]}
    )
    labels = pd.DataFrame(
        {
            "last_response_is_refusal": [True, False, False, True],
            "response_has_list": [True, True, False, False],
            "response_words": [90, 80, 10, 20],
        }
    )
    out = featurizer_agreement(labels, truth)
    assert out.loc["last_response_is_refusal", "agreement"] == pytest.approx(0.75)
    assert out.loc["response_has_list", "agreement"] == 1.0 and out.loc["response_has_list", "cohen_kappa"] == 1.0
    assert out.loc["response_words ~ verbosity", "auroc"] == 1.0
    assert out.loc["last_response_is_refusal", "prevalence_labels"] == 0.5
    with pytest.raises(ValueError, match="4 planted rows"):
        featurizer_agreement(labels.iloc[:3], truth)


def test_imprint_recovery_scale_and_sign():
    w = pd.Series({"x": 1.0, "y": -2.0, "z": 0.5})
    imp = pd.DataFrame(
        {"estimate": [2.0, -4.0, 1.0], "ci_low": [1.9, -4.1, 0.0], "ci_high": [2.1, -3.9, 0.5]}, index=["x", "y", "z"]
    )
    r = imprint_recovery(imp, w)
    assert r.scale == pytest.approx(2.0) and r.pearson_r == pytest.approx(1.0)
    assert r.sign_agreement == 1.0
    assert list(r.table["covered"]) == [True, True, False]  # z: scaled weight 1.0 is outside [0, 0.5]
    with pytest.raises(ValueError, match="fewer than two"):
        imprint_recovery(imp.iloc[:1], w)


def test_imprint_of_planted_utility_recovers_population_weights():
    """An 'RM' whose reward is the population's mean utility w·x: the pair-FE imprint on the planted
    features returns the planted weights exactly, and imprint_recovery reports scale 1."""
    d = simulate(n_pairs=400, seed=5)
    v = seal.chosen_rejected(d).table
    ch, rj = planted_features(d, v)
    w = d.meta["weights"]["mean"]
    rc, rr = ch[list(w.index)] @ w.to_numpy(), rj[list(w.index)] @ w.to_numpy()
    rng = np.random.default_rng(0)
    rc, rr = rc + 0.01 * rng.standard_normal(len(rc)), rr + 0.01 * rng.standard_normal(len(rr))
    table = seal.imprint_table(v["pair_id"], ch, rj, rm=(rc, rr))
    fit = seal.feature_imprint(table, "rm", list(ch.columns))
    imp = fit.table
    ok = imp["estimate"].notna()
    np.testing.assert_allclose(imp.loc[ok, "estimate"], w[imp.index[ok]], atol=0.01)
    rec = imprint_recovery(fit, w)
    assert rec.scale == pytest.approx(1.0, abs=0.01) and rec.sign_agreement == 1.0
    pd.testing.assert_frame_equal(rec.table, imprint_recovery(imp, w).table)  # the fit or its table


def test_feature_prevalence_by_hand():
    c = pd.DataFrame({"harmless": [1.0, 1, 0, np.nan], "last_response_sentiment": [1.0, 0, -1, 1]})
    r = pd.DataFrame({"harmless": [0.0, 0, 1, 0], "last_response_sentiment": [-1.0, -1, 0, 0]})
    p = feature_prevalence(c, r)
    assert p.loc["harmless", "chosen"] == pytest.approx(2 / 3) and p.loc["harmless", "rejected"] == 0.25
    assert p.loc["last_response_sentiment", "difference"] == pytest.approx(0.25 - (-0.5))
    assert p.loc["harmless", "n"] == 3


def test_labeller_gamma_with_missing_labels():
    F = EntryFeatures(
        "planted",
        pd.DataFrame(),
        pd.DataFrame(),
        [],
        {
            "chosen_helpful": np.array([1, 0, np.nan]),
            "chosen_harmless": np.array([1, 1, 1]),
            "rejected_helpful": np.array([0, 1, 1]),
            "rejected_harmless": np.array([1, 1, 1]),
        },
    )
    g = labeller_gamma(F)
    assert list(g) == ["c", "r", None]


def test_entry_texts_and_split_dialogue_round_trip():
    v = pd.DataFrame(
        {
            "prompt": ["How?", "\n\nHuman: hi\n\nAssistant: yo\n\nHuman: and?\n\nAssistant:"],
            "chosen": ["Do X.", "Sure."],
            "rejected": ["No.", "Never."],
        }
    )
    t = entry_texts(v, "chosen")
    assert t[0] == "Human: How?\n\nAssistant: Do X."
    assert t[1].endswith("Assistant: Sure.")
    # split as the hh-rlhf loader splits: at the last "\n\nAssistant:", both parts trimmed
    assert [split_dialogue(x) for x in t] == [
        ("Human: How?", "Do X."),
        ("Human: hi\n\nAssistant: yo\n\nHuman: and?", "Sure."),
    ]
    hh = pd.DataFrame(
        {"prompt": ["Human: hi", "Human: a\n\nAssistant: b\n\nHuman: c"], "chosen": ["x", "y"], "rejected": ["u", "w"]}
    )
    assert [split_dialogue(x) for x in entry_texts(hh, "rejected")] == list(zip(hh["prompt"], hh["rejected"]))
    assert split_dialogue("no marker here ") == ("", "no marker here")
    assert last_response(t[1]) == "Sure."
    with pytest.raises(ValueError, match="entry must be"):
        entry_texts(v, "both")


def test_entry_features_rules_on_text():
    v = pd.DataFrame(
        {
            "pair_id": ["x", "y"],
            "prompt": ["Help me.", "Steal a car?"],
            "chosen": ["Sure, here is a list:\n1. one\n2. two", "I'm sorry, but I can't help with that."],
            "rejected": ["I'm sorry, but I can't help with that.", "Sure. Hot-wire the ignition."],
            "chosen_side": ["A", "A"],
        }
    )
    F = entry_features(None, v, "rules")
    assert list(F.chosen["response_has_list"]) == [1.0, 0.0]
    assert list(F.rejected["last_response_is_refusal"]) == [1.0, 0.0]
    assert list(F.rejected["last_response_is_harmless"]) == [1.0, 0.0]
    # Table 2, helpfulness first: y's chosen refusal is "unhelpful" under the stand-in, so γ = r despite harm
    assert list(labeller_gamma(F)) == ["c", "r"]
    with pytest.raises(ValueError, match="needs llm"):
        entry_features(None, v, "llm")
    with pytest.raises(ValueError, match="source must be"):
        entry_features(None, v, "magic")


def test_simulated_rewrite_planted_flips_show_in_text():
    import importlib

    sim = importlib.import_module("pluralign.data.simulate")
    d = simulate(n_pairs=300, seed=2)
    texts = list(d.pairs["response_a"])
    rw = simulated_rewrite(texts, seed=0, p_flip=0.5)
    again = simulated_rewrite(texts, seed=0, p_flip=0.5)
    pd.testing.assert_frame_equal(rw, again)
    assert (rw["rewritten"] != rw["original"]).all()
    opener = lambda t: any(t.startswith(o) for o in sim.ENTHUSIASTIC_OPEN)  # noqa: E731
    for _, row in rw.iterrows():
        if row["sentiment"] == 1:
            assert opener(row["original"]) and not opener(row["rewritten"])
        if row["sentiment"] == -1:
            assert not opener(row["original"]) and opener(row["rewritten"])
        if row["format"] == -1:
            assert row["rewritten"].count("### ") == 1 and "### " not in row["original"]
        if row["format"] == 1:
            assert "### " in row["original"] and "### " not in row["rewritten"]
    assert {-1, 1} <= set(rw["sentiment"]) and {-1, 1} <= set(rw["verbosity"])
    # the rule featurizer sees the planted sentiment flips
    lab0 = feature_matrix(seal.rule_featurize(rw["original"]), ["last_response_sentiment"])
    lab1 = feature_matrix(seal.rule_featurize(rw["rewritten"]), ["last_response_sentiment"])
    measured = (lab0 - lab1)["last_response_sentiment"]
    assert (measured[rw["sentiment"] == 1] > 0).mean() > 0.8 and (measured[rw["sentiment"] == -1] < 0).mean() > 0.8
    none = simulated_rewrite(texts[:50], p_flip=0.0)
    assert (none[list(SIMULATED_FLIP_FEATURES)] == 0).all().all()
    with pytest.raises(ValueError, match="cannot flip"):
        simulated_rewrite(texts[:2], features=["harmfulness"])
    with pytest.raises(ValueError, match="p_flip"):
        simulated_rewrite(texts[:2], p_flip=2)


def test_robustness_scores_find_the_planted_sentiment_flip():
    """A reward that pays 3 points for the enthusiastic opener: rewrites that strip it from a chosen entry
    (flip +1) make aligned pairs misaligned, so π^c_+(sentiment) is large and significant."""
    import importlib

    sim = importlib.import_module("pluralign.data.simulate")
    d = simulate(n_pairs=1500, seed=4)
    v = seal.chosen_rejected(d).table

    def reward(texts, bonus):
        """3 points for enthusiasm; an otherwise-aligned RM gives the chosen entry a 0.5 bonus"""
        return 3.0 * np.array([any(t.startswith(o) for o in sim.ENTHUSIASTIC_OPEN) for t in texts]) + bonus

    rc, rr = simulated_rewrite(v["chosen"], seed=1), simulated_rewrite(v["rejected"], seed=2)
    rng = np.random.default_rng(0)
    n = len(v)
    c0, r0 = rng.normal(0, 1, n), rng.normal(0, 1, n)  # the pair's own reward noise, kept
    c1, r1 = rng.normal(0, 0.5, n), rng.normal(0, 0.5, n)  # rewriting nudges each reward a little
    before = aligned(reward(v["chosen"], 0.5 + c0), reward(v["rejected"], r0))
    after = aligned(reward(rc["rewritten"], 0.5 + c0 + c1), reward(rr["rewritten"], r0 + r1))
    cols = list(SIMULATED_FLIP_FEATURES)
    pi = seal.robustness_scores(before, after, rc[cols].astype(float), rr[cols].astype(float), cols, unchanged=()).table
    s = pi.loc[("c", "sentiment", 1)]
    assert s["estimate"] > 2 and s["p_bonferroni"] < 0.01
    assert pi.loc[("r", "sentiment", -1), "estimate"] > 2  # the rejected entry gains enthusiasm
    assert abs(pi.loc[("c", "format", 1), "estimate"]) < 1.5  # format does not enter this reward


def test_mixed_weights_pair_count_weighted():
    w = mixed_weights([pd.Series({"a": 1.0, "b": 2.0}), {"a": 3.0}], [1, 3])
    assert w.to_dict() == {"a": 2.5, "b": 0.5}
    with pytest.raises(ValueError, match="weight vectors for"):
        mixed_weights([{"a": 1.0}], [1, 2])


def test_entry_features_llm_offers_every_scalar_feature_to_the_vif_filter():
    rng = np.random.default_rng(0)
    n = 80
    v = pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(n)],
            "prompt": [f"Q{i}?" for i in range(n)],
            "chosen": [f"c{i}" for i in range(n)],
            "rejected": [f"r{i}" for i in range(n)],
            "chosen_side": ["A"] * n,
        }
    )
    draws = {}

    class Labeller:
        model = "fake"

        def structured(self, prompts, schema, job=None, **kw):
            out = []
            for p in prompts:
                lab = {k: bool(rng.integers(2)) for k in schema["properties"]}
                lab["last_response_sentiment"] = str(rng.choice(["negative", "neutral", "positive"]))
                lab["topics"], lab["last_response_is_discriminating_against"] = [], []
                # assistant_is_coherent copies last_response_is_coherent: collinear, VIF = inf
                lab["assistant_is_coherent"] = lab["last_response_is_coherent"]
                out.append(None if p.endswith("c3") else lab)
            draws[job] = out
            return out

    F = entry_features(None, v, "llm", llm=Labeller())
    assert F.regressors == list(SCALAR_FEATURES) and len(F.regressors) == 17
    assert F.chosen.loc[3].isna().all()  # the failed label stays missing, pair 3 is dropped below
    R = {k: rng.normal(size=n) for k in ("c", "r")}
    table = seal.imprint_table(v["pair_id"], F.chosen, F.rejected, post=(R["c"], R["r"]))
    assert table.n_pairs_dropped_missing == 1 and table.n_pairs == n - 1
    imp = seal.feature_imprint(table, "post", F.regressors)
    assert {"assistant_is_coherent", "last_response_is_coherent"} & set(imp.dropped_vif)
    assert F.labeller == "fake" and F.labels_chosen.loc[3].isna().all()


class _FakeRM:
    """Scores response_a / response_b from a table keyed by response text; the scores come back in an
    order other than the data's, so alignment_rewards must match them by pair_id."""

    def __init__(self, table):
        self.table = table

    def score(self, data, progress=False):
        p = data.pairs.iloc[::-1]
        return pd.DataFrame(
            {
                "pair_id": p["pair_id"].to_numpy(),
                "reward_a": [self.table[t] for t in p["response_a"]],
                "reward_b": [self.table[t] for t in p["response_b"]],
            }
        )


def test_alignment_rewards_orients_chosen_and_rejected_with_given_models():
    d = _data([[-2, -1], [2, 1], [-1, 1], [1, 2]])  # chosen A, B, tie (dropped), B
    pre = _FakeRM(
        {"a-p0": 1.0, "b-p0": 2.0, "a-p1": 3.0, "b-p1": 4.0, "a-p2": 0.0, "b-p2": 0.0, "a-p3": 5.0, "b-p3": 6.0}
    )
    post = _FakeRM({k: 10 * v for k, v in pre.table.items()})
    R = seal.alignment_rewards(d, rms=AlignmentModels(pre=pre, post=post, design="fake"), scoring_input="prompt_reply")
    assert list(R["pair_id"]) == ["p0", "p1", "p3"]
    np.testing.assert_array_equal(R["pre_chosen"], [1.0, 4.0, 6.0])  # A for p0, B for p1 and p3
    np.testing.assert_array_equal(R["pre_rejected"], [2.0, 3.0, 5.0])
    np.testing.assert_array_equal(R["post_chosen"], [10.0, 40.0, 60.0])
    np.testing.assert_array_equal(R["post_rejected"], [20.0, 30.0, 50.0])
    assert list(R.columns) == ["pair_id", "pre_chosen", "pre_rejected", "post_chosen", "post_rejected"]


def test_pre_d_model_must_not_see_d():
    d = _data([[-1], [1]], ids=["p0", "p1"])
    other = _data([[1], [-1]], ids=["p1", "o1"], name="other")
    with pytest.raises(ValueError, match="must not see D"):
        alignment_models(d, other)
    with pytest.raises(ValueError, match="give either models"):
        alignment_models(d)
    with pytest.raises(ValueError, match="keys 'pre' and 'post'"):
        alignment_models(d, models={"pre": {}})


def test_misalignment_regression_reports_non_convergence_under_separation():
    rng = np.random.default_rng(0)
    n = 400
    chosen = pd.DataFrame(
        {"helpful": rng.integers(0, 2, n).astype(float), "eloquent": rng.integers(0, 2, n).astype(float)}
    )
    rejected = pd.DataFrame(
        {"helpful": rng.integers(0, 2, n).astype(float), "eloquent": rng.integers(0, 2, n).astype(float)}
    )
    chosen_r = np.zeros(n)
    misaligned = (chosen["helpful"] == 0).to_numpy()  # chosen helpful perfectly predicts alignment
    rejected_r = np.where(misaligned, 1.0, -1.0)
    out = misalignment_regression(chosen_r, rejected_r, chosen, rejected)
    assert out.converged is False
    mild = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    assert misalignment_regression(chosen_r, mild, chosen, rejected).converged is True


def test_robustness_scores_flag_separated_categories():
    # flip 0: 10 pairs, 2 events; flip -1: 6 pairs, 0 events (separated); flip +1: 4 pairs, 2 events
    flip = [0] * 10 + [-1] * 6 + [1] * 4
    event = np.array([1, 1] + [0] * 8 + [0] * 6 + [1, 1, 0, 0], bool)
    before, after = np.ones(len(flip), bool), ~event
    fc = pd.DataFrame({"eloquent": np.asarray(flip, float)})
    fr = pd.DataFrame({"eloquent": np.zeros(len(flip))})
    with np.errstate(all="ignore"):
        out = robustness_scores(before, after, fc, fr, unchanged=()).table
    assert out.loc[("c", "eloquent", -1), "n_misaligned"] == 0
    assert bool(out.loc[("c", "eloquent", -1), "separated"]) is True
    assert out.loc[("c", "eloquent", 1), "n_misaligned"] == 2
    assert bool(out.loc[("c", "eloquent", 1), "separated"]) is False


def test_simulated_rewrite_pairs_has_the_keys_of_rewrite_pairs():
    d = simulate(n_pairs=40, seed=3)
    v = seal.chosen_rejected(d).table
    rp = simulated_rewrite_pairs(v, seed=2, p_flip=0.5)
    assert set(vars(rp)) == {
        "view",
        "kept",
        "originals",
        "rewritten",
        "flips",
        "status",
        "n_pairs",
        "n_kept",
        "n_dropped",
        "dropped",
        "prompts",
    }
    assert rp.n_pairs == rp.n_kept == len(v) and rp.n_dropped == 0
    assert rp.originals["chosen"] == v["chosen"].tolist() and rp.prompts == v["prompt"].tolist()
    one = simulated_rewrite(v["rejected"].tolist(), seed=3, p_flip=0.5)
    assert rp.rewritten["rejected"] == one["rewritten"].tolist()
    assert list(rp.flips["chosen"].columns) == ["last_response_sentiment", "response_has_list", "verbosity"]
    np.testing.assert_array_equal(rp.flips["rejected"]["last_response_sentiment"], one["sentiment"])


def test_weight_recovery_on_the_simulator():
    D = simulate(n_pairs=300, seed=5)
    other = simulate(n_pairs=200, seed=6, name="other", weights={"verbosity": [-0.6, 1.0], "format": [-0.4, 0.9]})
    view = seal.chosen_rejected(D).table
    F = entry_features(D, view, "planted")
    w_post = mixed_weights([other.meta["weights"]["mean"], D.meta["weights"]["mean"]], [len(other), len(D)])
    rng = np.random.default_rng(0)

    def rm(w):  # an RM whose reward is a population's utility plus a little noise
        w = pd.Series(w).reindex(F.regressors).fillna(0.0)
        return tuple(
            getattr(F, e)[list(w.index)].to_numpy() @ w.to_numpy() + 0.01 * rng.standard_normal(len(view))
            for e in ("chosen", "rejected")
        )

    table = seal.imprint_table(
        view["pair_id"], F.chosen, F.rejected, pre=rm(other.meta["weights"]["mean"]), post=rm(w_post)
    )
    imprint = {k: seal.feature_imprint(table, k, F.regressors) for k in ("pre", "post")}
    rms = AlignmentModels(
        pre=None, post=None, design="utility", n_train_pre=len(other), n_train_post=len(other) + len(D)
    )
    study = SimpleNamespace(D=D, view=view, F=F, rms=rms, other_parts=[other])
    wr = weight_recovery(study, imprint)
    assert wr["utility_error"] < 1e-6 and wr["utility"].table["covered"].isna().all()
    assert list(wr["parts"]) == ["pre-D RM vs the other data's weights", "post-D RM vs the mix (other data + D)"]
    for v in wr["parts"].values():
        assert v.scale == pytest.approx(1.0, abs=0.05) and v.pearson_r > 0.99
    assert wr["n_train"] == {"pre": 200, "post": 500}
    assert list(wr["summary"].columns) == ["planted utility (method check)", *wr["parts"]]
    assert len(wr["table"]) == len(wr["utility"].table) + sum(len(v.table) for v in wr["parts"].values())
    with pytest.raises(ValueError, match="planted"):
        weight_recovery(SimpleNamespace(**{**vars(study), "F": None}), imprint)


def test_study_stand_ins():
    assert study_stand_ins({"pre": {}, "post": {}}, None) == []
    assert study_stand_ins(None, None) == [TRAINED_PAIR_NOTE]
    out = study_stand_ins(None, EntryFeatures("rules", pd.DataFrame(), pd.DataFrame(), [], {}, "rule-based featurizer"))
    assert out[1].startswith("rule-based featurizer") and "LM-labeller" in out[1]
    assert study_stand_ins(None, EntryFeatures("llm", pd.DataFrame(), pd.DataFrame(), [], {}, "x")) == [
        TRAINED_PAIR_NOTE
    ]


def test_rule_regressors_are_the_rule_features_but_word_count():
    d = simulate(n_pairs=20, seed=1)
    F = entry_features(d, seal.chosen_rejected(d).table, "rules")
    assert F.regressors == [f for f in RULE_FEATURES if f != "response_words"]

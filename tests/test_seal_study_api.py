"""SEAL study API from the Part II review: alignment_rewards orientation with given models, the pre-D guard,
logit convergence under separation, robustness separation flags, the simulated rewrite_pairs stand-in,
planted-weight recovery and the study's stand-in sentences."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pluralign import seal
from pluralign.data import PreferenceData, simulate
from pluralign.seal.resistance import misalignment_regression
from pluralign.seal.robustness import robustness_scores


def _data(prefs, ids=None, name="toy"):
    ids = ids or [f"p{i}" for i in range(len(prefs))]
    pairs = pd.DataFrame({"pair_id": ids, "dataset": name, "split": "train", "prompt": [f"q{i}" for i in ids],
                          "response_a": [f"a-{i}" for i in ids], "response_b": [f"b-{i}" for i in ids]})
    ann = pd.DataFrame([{"pair_id": i, "annotator_id": f"x{k}", "preference": v}
                        for i, ps in zip(ids, prefs) for k, v in enumerate(ps)])
    return PreferenceData(pairs, ann, {"name": name})


class _FakeRM:
    """Scores response_a / response_b from a table keyed by response text; the scores come back in an
    order other than the data's, so alignment_rewards must match them by pair_id."""

    def __init__(self, table):
        self.table = table

    def score(self, data, progress=False):
        p = data.pairs.iloc[::-1]
        return pd.DataFrame({"pair_id": p["pair_id"].to_numpy(),
                             "reward_a": [self.table[t] for t in p["response_a"]],
                             "reward_b": [self.table[t] for t in p["response_b"]]})


def test_alignment_rewards_orients_chosen_and_rejected_with_given_models():
    d = _data([[-2, -1], [2, 1], [-1, 1], [1, 2]])            # chosen A, B, tie (dropped), B
    pre = _FakeRM({"a-p0": 1.0, "b-p0": 2.0, "a-p1": 3.0, "b-p1": 4.0, "a-p2": 0.0, "b-p2": 0.0,
                   "a-p3": 5.0, "b-p3": 6.0})
    post = _FakeRM({k: 10 * v for k, v in pre.table.items()})
    R = seal.alignment_rewards(d, rms={"pre": pre, "post": post, "design": "fake"})
    assert list(R["pair_id"]) == ["p0", "p1", "p3"]
    np.testing.assert_array_equal(R["pre_chosen"], [1.0, 4.0, 6.0])      # A for p0, B for p1 and p3
    np.testing.assert_array_equal(R["pre_rejected"], [2.0, 3.0, 5.0])
    np.testing.assert_array_equal(R["post_chosen"], [10.0, 40.0, 60.0])
    np.testing.assert_array_equal(R["post_rejected"], [20.0, 30.0, 50.0])
    assert R.attrs["n_ties_dropped"] == 1 and R.attrs["design"] == "fake"


def test_pre_d_model_must_not_see_d():
    d = _data([[-1], [1]], ids=["p0", "p1"])
    other = _data([[1], [-1]], ids=["p1", "o1"], name="other")
    with pytest.raises(ValueError, match="must not see D"):
        seal.alignment_models(d, other)
    with pytest.raises(ValueError, match="give either models"):
        seal.alignment_models(d)
    with pytest.raises(ValueError, match="keys 'pre' and 'post'"):
        seal.alignment_models(d, models={"pre": {}})


def test_misalignment_regression_reports_non_convergence_under_separation():
    rng = np.random.default_rng(0)
    n = 400
    chosen = pd.DataFrame({"helpful": rng.integers(0, 2, n).astype(float), "eloquent": rng.integers(0, 2, n).astype(float)})
    rejected = pd.DataFrame({"helpful": rng.integers(0, 2, n).astype(float), "eloquent": rng.integers(0, 2, n).astype(float)})
    chosen_r = np.zeros(n)
    misaligned = (chosen["helpful"] == 0).to_numpy()          # chosen helpful perfectly predicts alignment
    rejected_r = np.where(misaligned, 1.0, -1.0)
    out = misalignment_regression(chosen_r, rejected_r, chosen, rejected)
    assert out.attrs["converged"] is False
    mild = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    assert misalignment_regression(chosen_r, mild, chosen, rejected).attrs["converged"] is True


def test_robustness_scores_flag_separated_categories():
    # flip 0: 10 pairs, 2 events; flip -1: 6 pairs, 0 events (separated); flip +1: 4 pairs, 2 events
    flip = [0] * 10 + [-1] * 6 + [1] * 4
    event = np.array([1, 1] + [0] * 8 + [0] * 6 + [1, 1, 0, 0], bool)
    before, after = np.ones(len(flip), bool), ~event
    fc = pd.DataFrame({"eloquent": np.asarray(flip, float)})
    fr = pd.DataFrame({"eloquent": np.zeros(len(flip))})
    with np.errstate(all="ignore"):
        out = robustness_scores(before, after, fc, fr, unchanged=())
    assert out.loc[("c", "eloquent", -1), "n_misaligned"] == 0
    assert bool(out.loc[("c", "eloquent", -1), "separated"]) is True
    assert out.loc[("c", "eloquent", 1), "n_misaligned"] == 2
    assert bool(out.loc[("c", "eloquent", 1), "separated"]) is False


def test_simulated_rewrite_pairs_has_the_keys_of_rewrite_pairs():
    d = simulate(n_pairs=40, seed=3)
    v = seal.chosen_rejected(d)
    rp = seal.simulated_rewrite_pairs(v, seed=2, p_flip=0.5)
    assert set(rp) == {"view", "kept", "originals", "rewritten", "flips", "status", "n_pairs", "n_kept",
                       "n_dropped", "dropped", "prompts"}
    assert rp["n_pairs"] == rp["n_kept"] == len(v) and rp["n_dropped"] == 0
    assert rp["originals"]["chosen"] == v["chosen"].tolist() and rp["prompts"] == v["prompt"].tolist()
    one = seal.simulated_rewrite(v["rejected"].tolist(), seed=3, p_flip=0.5)
    assert rp["rewritten"]["rejected"] == one["rewritten"].tolist()
    assert list(rp["flips"]["chosen"].columns) == ["last_response_sentiment", "response_has_list", "verbosity"]
    np.testing.assert_array_equal(rp["flips"]["rejected"]["last_response_sentiment"], one["sentiment"])


def test_weight_recovery_on_the_simulator():
    D = simulate(n_pairs=300, seed=5)
    other = simulate(n_pairs=200, seed=6, name="other",
                     weights={"verbosity": [-0.6, 1.0], "format": [-0.4, 0.9]})
    view = seal.chosen_rejected(D)
    F = seal.entry_features(D, view, "planted")
    w_post = seal.mixed_weights([other.meta["weights"]["mean"], D.meta["weights"]["mean"]], [len(other), len(D)])
    rng = np.random.default_rng(0)

    def rm(w):      # an RM whose reward is a population's utility plus a little noise
        w = pd.Series(w).reindex(F["regressors"]).fillna(0.0)
        return tuple(F[e][list(w.index)].to_numpy() @ w.to_numpy() + 0.01 * rng.standard_normal(len(view))
                     for e in ("chosen", "rejected"))

    table = seal.imprint_table(view["pair_id"], F["chosen"], F["rejected"],
                               pre=rm(other.meta["weights"]["mean"]), post=rm(w_post))
    imprint = {k: seal.feature_imprint(table, k, F["regressors"]) for k in ("pre", "post")}
    R = pd.DataFrame()
    R.attrs.update(n_train_pre=len(other), n_train_post=len(other) + len(D))
    study = SimpleNamespace(D=D, view=view, F=F, R=R, other_parts=[other])
    wr = seal.weight_recovery(study, imprint)
    assert wr["utility_error"] < 1e-6 and wr["utility"]["covered"].isna().all()
    assert list(wr["parts"]) == ["pre-D RM vs the other data's weights", "post-D RM vs the mix (other data + D)"]
    for v in wr["parts"].values():
        assert v.attrs["scale"] == pytest.approx(1.0, abs=0.05) and v.attrs["pearson_r"] > 0.99
    assert wr["n_train"] == {"pre": 200, "post": 500}
    assert list(wr["summary"].columns) == ["planted utility (method check)", *wr["parts"]]
    assert len(wr["table"]) == len(wr["utility"]) + sum(len(v) for v in wr["parts"].values())
    with pytest.raises(ValueError, match="planted"):
        seal.weight_recovery(SimpleNamespace(**{**vars(study), "F": None}), imprint)


def test_study_stand_ins():
    assert seal.study_stand_ins({"pre": {}, "post": {}}, None) == []
    assert seal.study_stand_ins(None, None) == [seal.TRAINED_PAIR_NOTE]
    out = seal.study_stand_ins(None, {"source": "rules", "note": "rule-based featurizer"})
    assert out[1].startswith("rule-based featurizer") and "LM-labeller" in out[1]
    assert seal.study_stand_ins(None, {"source": "llm", "note": "x"}) == [seal.TRAINED_PAIR_NOTE]


def test_rule_regressors_are_the_rule_features_but_word_count():
    d = simulate(n_pairs=20, seed=1)
    F = seal.entry_features(d, seal.chosen_rejected(d), "rules")
    assert F["regressors"] == [f for f in seal.RULE_FEATURES if f != "response_words"]

"""The demo's planted truth in SEAL's terms (seal.planted): planted features and taxonomy, the rule featurizer's
agreement with them, imprint recovery of the planted weights, mixed weights, and the imprint page's weight recovery."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pluralign import seal
from pluralign.data import PreferenceData, simulate
from pluralign.seal.design import AlignmentModels, entry_features
from pluralign.seal.planted import (
    featurizer_agreement,
    imprint_recovery,
    mixed_weights,
    planted_features,
    planted_taxonomy,
    weight_recovery,
)


def _data(prefs, ids=None, name="toy"):
    """A data set without planted truth: prefs, a list of lists of annotator preferences per pair."""
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


def test_mixed_weights_pair_count_weighted():
    w = mixed_weights([pd.Series({"a": 1.0, "b": 2.0}), {"a": 3.0}], [1, 3])
    assert w.to_dict() == {"a": 2.5, "b": 0.5}
    with pytest.raises(ValueError, match="weight vectors for"):
        mixed_weights([{"a": 1.0}], [1, 2])


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

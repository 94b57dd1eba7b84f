"""The demo's rewriting stand-in (seal.simulated_rewrites): planted flips that show in the text, and pairs with the
keys of seal.lm_rewrites.rewrite_pairs."""

import numpy as np
import pandas as pd
import pytest

from pluralign import seal
from pluralign.data import simulate
from pluralign.seal.features import feature_matrix
from pluralign.seal.simulated_rewrites import SIMULATED_FLIP_FEATURES, simulated_rewrite, simulated_rewrite_pairs


def test_simulated_rewrite_planted_flips_show_in_text():
    import importlib

    sim = importlib.import_module("pluralign.data.simulated_texts")
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

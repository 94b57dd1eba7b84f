"""The frozen encoder's embeddings on disk are chunks fixed by the texts' content: a text's vector does not depend on
the order it was asked in, and two pages that embed the same texts at once (the demo's Part I and SEAL pages share
their simulated data; the book runs them side by side) split the chunks instead of each computing all of them."""

import threading

import numpy as np
import pytest

from pluralign import cache
from pluralign.rewards import frozen

TEXTS = [f"response number {i}: " + "word " * (i % 7) for i in range(10)]


@pytest.fixture
def encoder(monkeypatch):
    """The default encoder with a recorded stand-in for the model (each text's vector a function of the text), in
    a fresh process's memory."""
    monkeypatch.setattr(frozen, "_MEMO", {})
    enc = frozen.Encoder.get(frozen.default_encoder_path())
    calls: list[list[str]] = []

    def fake(self, texts, progress=None):
        calls.append(list(texts))
        if progress is not None:
            progress.update(len(texts))
        return np.array([[len(t), sum(map(ord, t))] for t in texts], dtype=np.float32)

    monkeypatch.setattr(frozen.Encoder, "_embed_uncached", fake)
    return enc, calls


def _entry(enc, part):
    return cache.Entry("rewards/embed", inputs=(enc.identity, part), settings={"pool": "mean", "norm": True}, fmt="npy")


def test_the_chunks_are_fixed_by_the_texts_so_another_order_reads_them_from_disk(encoder, monkeypatch):
    enc, calls = encoder
    first = enc.embed(TEXTS, progress=False, chunk=4)
    assert [len(c) for c in calls] == [4, 4, 2] and sorted(t for c in calls for t in c) == sorted(TEXTS)
    monkeypatch.setattr(frozen, "_MEMO", {})  # another process, asking in another order
    again = enc.embed(TEXTS[::-1], progress=False, chunk=4)
    assert len(calls) == 3  # nothing computed twice
    np.testing.assert_array_equal(again, first[::-1])


def test_a_chunk_another_process_is_computing_is_read_when_it_is_done_after_the_others(encoder, monkeypatch):
    """The chunk another page holds is taken last: the others are computed meanwhile, then its vectors are read
    from what that page stored, not computed here."""
    enc, calls = encoder
    held = sorted(TEXTS)[:4]  # the first chunk of these texts
    theirs = np.full((4, 2), 7.0, dtype=np.float32)
    holding, others_done, waited_for_others = threading.Event(), threading.Event(), []

    def other_page():
        with cache._computing(_entry(enc, held).key):
            holding.set()
            waited_for_others.append(others_done.wait(timeout=120))  # a guard against a hang, not a timing check
            _entry(enc, held).save(theirs)

    t = threading.Thread(target=other_page)
    t.start()
    holding.wait()
    real_fake = frozen.Encoder._embed_uncached

    def counting(self, texts, progress=None):
        out = real_fake(self, texts, progress)
        if sum(map(len, calls)) == len(TEXTS) - len(held):
            others_done.set()
        return out

    monkeypatch.setattr(frozen.Encoder, "_embed_uncached", counting)
    try:
        got = enc.embed(TEXTS, progress=False, chunk=4)
    finally:
        others_done.set()
        t.join()
    assert waited_for_others == [True]  # the other chunks were computed while the first was held elsewhere
    assert not any(x in c for c in calls for x in held)  # the held chunk was not computed here
    np.testing.assert_array_equal(got[[TEXTS.index(x) for x in held]], theirs)


def test_busy_tells_an_entry_another_holder_is_computing():
    entry = cache.Entry("test/busy", inputs="x", fmt="json")
    assert not entry.busy()
    with cache._computing(entry.key):
        assert _busy_elsewhere(entry)
    assert not entry.busy()


def _busy_elsewhere(entry) -> bool:
    out = []
    t = threading.Thread(target=lambda: out.append(entry.busy()))
    t.start()
    t.join()
    return out == [True]


def test_an_encoder_whose_embeddings_are_all_on_disk_never_loads_its_weights(monkeypatch):
    """Every page after the first that embeds the same texts reads them from the cache: building the encoder (and a
    frozen reward model on it) and embedding those texts again loads neither its tokenizer nor its weights; the
    first call that has a text to compute loads both, and the head's width is the encoder's either way."""
    monkeypatch.setattr(frozen, "_MEMO", {})
    monkeypatch.setattr(frozen, "_ENCODERS", {})
    path = frozen.default_encoder_path()
    first = frozen.Encoder.get(path).embed(TEXTS, progress=False)
    assert {"model", "tokenizer"} <= set(vars(frozen.Encoder.get(path)))  # computed here: both loaded
    monkeypatch.setattr(frozen, "_MEMO", {})  # another page's process
    monkeypatch.setattr(frozen, "_ENCODERS", {})
    rm = frozen.FrozenEncoderRM(path)
    again = rm.encoder.embed(TEXTS[::-1], progress=False)
    np.testing.assert_array_equal(again, first[::-1])
    assert not {"model", "tokenizer"} & set(vars(rm.encoder))
    rm.encoder.embed(["a text no page embedded before"], progress=False)
    assert {"model", "tokenizer"} <= set(vars(rm.encoder))
    assert rm.module.net[-1].in_features == 2 * rm.encoder.model.config.hidden_size

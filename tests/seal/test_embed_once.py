"""SEAL's pre-D / post-D pair embeds each text once across pages: a page whose models come from the cache
still finds the other data's embeddings (seal-resistance scores the other data; it used to embed its texts again,
in another order, on every cold build)."""

import pytest

from pluralign.data import simulate
from pluralign.rewards import frozen
from pluralign.seal.design import alignment_models


def test_the_other_datas_texts_are_embedded_once_and_reused_when_the_models_come_from_the_cache(monkeypatch):
    d = simulate(n_pairs=30, seed=1, name="D")
    other = simulate(n_pairs=30, seed=2, name="other")
    monkeypatch.setattr(frozen, "_MEMO", {})  # a fresh process: nothing embedded in memory by earlier tests
    calls = []
    real = frozen.Encoder._embed_uncached
    monkeypatch.setattr(
        frozen.Encoder,
        "_embed_uncached",
        lambda self, texts, progress=None: calls.append(len(texts)) or real(self, texts, progress),
    )
    train = {"epochs": 1, "batch_size": 16}
    first = alignment_models(d, other, train=train, base={"head": "linear"})
    assert calls, "the first build embeds"
    frozen._MEMO.clear()  # a new page: a new process, nothing in memory
    calls.clear()
    again = alignment_models(d, other, train=train, base={"head": "linear"})
    again.pre.score(other)  # what the resistance section scores
    again.post.score(other)
    assert calls == [], f"texts embedded again on a later page: {calls}"
    assert first.pre.score(other)["reward_a"].tolist() == pytest.approx(again.pre.score(other)["reward_a"].tolist())

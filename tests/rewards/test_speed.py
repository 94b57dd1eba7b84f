"""Scoring near the machine's limit: token-budget batches (shapes within the budget, no padding beyond
a batch's longest, results in input order and independent of the batch company), the precision switch
(``"auto"`` is fp32 where bf16 is not native), and the measured deviation of bf16 from fp32."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pluralign.rewards as R
from pluralign.rewards import speed
from rm_helpers import tiny_seqcls_folder

WORDS = (
    "tell me about the a an of and to is it how why what here clear overview history tips beginners "
    "volcanoes chess coffee jazz tea owls rivers trains whales yoga kites opera pirates comets"
).split()


def _texts(n=40, seed=0, longest=60):
    rng = np.random.default_rng(seed)
    return [
        (
            " ".join(rng.choice(WORDS, size=int(rng.integers(0, 12)))),
            " ".join(rng.choice(WORDS, size=int(rng.integers(1, longest)))),
        )
        for _ in range(n)
    ]


@pytest.fixture(scope="module")
def tiny_rm_folder(tmp_path_factory):
    return tiny_seqcls_folder(tmp_path_factory.mktemp("tiny-speed-rm"))


# ---- token_batches on hand cases ---------------------------------------------------------------------------
def test_token_batches_respect_the_budget_and_cover_every_input_once():
    lengths = [5, 100, 30, 30, 7, 64, 1, 250, 30]
    batches = speed.token_batches(lengths, budget=128, max_batch=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 3
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 128
    # longest first; a single input over the budget is a batch on its own
    assert batches[0] == [7] and batches[1] == [1]
    assert [lengths[b[0]] for b in batches] == sorted((lengths[b[0]] for b in batches), reverse=True)
    # hand case: 64 with one 30 (2×64 = 128 fits), then 30, 30 and 7 (3×30 = 90, max_batch 3), then 5 and 1
    assert batches[2:] == [[5, 2], [3, 8, 4], [0, 6]]
    with pytest.raises(ValueError, match="token budget"):
        speed.token_batches(lengths, budget=0)


# ---- scoring: shapes, order, company ---------------------------------------------------------------------
def test_scoring_batches_stay_within_the_token_budget_and_pad_only_to_their_longest(tiny_rm_folder, monkeypatch):
    rm = R.load(tiny_rm_folder, token_budget=256, batch_size=64)
    texts = _texts(40)
    lengths = sorted((len(f["input_ids"]) for f in rm._featurize(texts)), reverse=True)
    shapes = []
    forward = rm.module.forward

    def spy(**batch):
        shapes.append(tuple(batch["input_ids"].shape))
        return forward(**batch)

    monkeypatch.setattr(rm.module, "forward", spy)
    rm.raw_outputs(texts, progress=False, cache=False)
    assert sum(n for n, _ in shapes) == len(texts)
    assert max(L for _, L in shapes) == max(lengths) and len(shapes) > 1
    pos = 0
    for n, L in shapes:
        assert n * L <= 256 or n == 1
        assert L == lengths[pos]  # padded to the batch's own longest (the first, inputs sorted longest first)
        pos += n


def test_rewards_keep_input_order_and_do_not_depend_on_company(tiny_rm_folder):
    rm = R.load(tiny_rm_folder)
    with torch.no_grad():  # a random tiny head gives near-equal rewards: spread them so that 1e-4 means something
        rm.module.model.classifier.weight.mul_(1000)
    texts = _texts(40, seed=1)
    alone = np.array([rm.raw_outputs([t], progress=False, cache=False)[0, 0] for t in texts])
    for budget in (64, 512, 8192):
        rm.token_budget = budget
        together = rm.raw_outputs(texts, progress=False, cache=False)[:, 0]
        np.testing.assert_allclose(together, alone, atol=1e-4, rtol=0)
        reversed_ = rm.raw_outputs(texts[::-1], progress=False, cache=False)[::-1, 0]
        np.testing.assert_allclose(reversed_, alone, atol=1e-4, rtol=0)
    assert np.ptp(alone) > 0.05  # the texts get different rewards: the order check can fail


def test_frozen_encoder_and_sentence_embeddings_do_not_depend_on_company(tiny_rm_folder):
    enc = R.Encoder(str(tiny_rm_folder), max_length=128)
    texts = [p + " " + r for p, r in _texts(25, seed=2)]
    alone = np.stack([enc._embed_uncached([t])[0] for t in texts])
    enc.token_budget = 128
    np.testing.assert_allclose(enc._embed_uncached(texts), alone, atol=1e-5)
    np.testing.assert_allclose(enc._embed_uncached(texts[::-1])[::-1], alone, atol=1e-5)


def test_llm_next_token_logprobs_do_not_depend_on_company(tmp_path):
    import pluralign.llm as llm_mod
    from pluralign.llm.tiny import make_tiny_causal_lm

    llm = llm_mod.load(str(make_tiny_causal_lm(tmp_path / "tiny")))
    texts = [p + " " + r for p, r in _texts(12, seed=3, longest=30)]
    alone = [llm.next_token_logprobs([t])[0] for t in texts]
    llm.token_budget = 64
    for got, want in zip(llm.next_token_logprobs(texts, batch_size=8), alone):
        torch.testing.assert_close(got, want, atol=1e-4, rtol=0)


# ---- precision --------------------------------------------------------------------------------------------
def test_precision_auto_is_fp32_without_native_bf16_and_bf16_with_it(tiny_rm_folder, monkeypatch):
    monkeypatch.setattr(speed, "_cpu_flags", lambda: frozenset({"avx512f", "avx2"}))
    assert not speed.native_bf16("cpu")
    assert R.load(tiny_rm_folder, precision="auto", device="cpu").precision == "fp32"
    monkeypatch.setattr(speed, "_cpu_flags", lambda: frozenset({"avx512f", "avx512_bf16"}))
    assert speed.native_bf16("cpu")
    assert R.load(tiny_rm_folder, precision="auto", device="cpu").precision == "bf16"
    assert R.load(tiny_rm_folder, device="cpu").precision == "fp32"  # exact unless asked
    with pytest.raises(ValueError, match="precision must be one of"):
        R.load(tiny_rm_folder, precision="fast")


def test_precision_deviation_measures_bf16_against_fp32(tiny_rm_folder):
    from pluralign.data import simulate

    data = simulate(n_pairs=30, seed=0)
    exact = R.load(tiny_rm_folder, precision="fp32")
    fast = R.load(tiny_rm_folder, precision="bf16")
    res = speed.precision_deviation(fast, exact, data)
    a = fast.score(data, progress=False, cache=False)
    b = exact.score(data, progress=False, cache=False)
    da, db = (a.reward_a - a.reward_b).to_numpy(), (b.reward_a - b.reward_b).to_numpy()
    want = max(np.abs(a.reward_a - b.reward_a).max(), np.abs(a.reward_b - b.reward_b).max())
    assert res.values["precision"] == "bf16" and res.values["n_pairs"] == 30
    assert res.values["max_abs_diff"] == pytest.approx(want) and want > 0
    assert res.values["sign_flip_share"] == pytest.approx(np.mean(np.sign(da) != np.sign(db)))
    same = speed.precision_deviation(exact, exact, data)
    assert same.values["max_abs_diff"] == 0 and same.values["sign_flip_share"] == 0
    assert "fp32" in same.note and "0 of 30 pairs" in same.note


def test_fp32_twin_scores_the_same_weights_in_fp32_and_deviation_takes_entry_pairs(tiny_rm_folder):
    exact = R.load(tiny_rm_folder, precision="fp32")
    fast = R.load(tiny_rm_folder, precision="bf16")
    assert speed.fp32_twin(exact) is exact  # already exact
    twin = speed.fp32_twin(fast)
    assert twin.precision == "fp32" and fast.precision == "bf16"  # the fast model is left as it was
    assert next(fast.module.parameters()).dtype == torch.bfloat16
    entries = _texts(20, seed=3)  # 10 pairs: (chosen, rejected) one after the other
    # loaded by rewards.load: the twin is the same weights loaded again in fp32, the exact model's rewards
    np.testing.assert_array_equal(
        twin.score(entries, progress=False, cache=False), exact.score(entries, progress=False, cache=False)
    )
    # without a way to reload (a hand-made copy): the bf16 weights widened to fp32
    del fast._fp32
    widened = speed.fp32_twin(fast)
    rounded = R.load(tiny_rm_folder, precision="fp32")
    rounded.module.to(torch.bfloat16).float()
    assert widened.precision == "fp32" and next(fast.module.parameters()).dtype == torch.bfloat16
    np.testing.assert_allclose(
        widened.score(entries, progress=False, cache=False),
        rounded.score(entries, progress=False, cache=False),
        rtol=0,
        atol=1e-6,
    )
    res = speed.precision_deviation(fast, twin, entries)
    ra = fast.score(entries, progress=False, cache=False).reshape(-1, 2)
    rb = twin.score(entries, progress=False, cache=False).reshape(-1, 2)
    assert res.values["n_pairs"] == 10 and res.values["max_abs_diff"] == pytest.approx(np.abs(ra - rb).max())
    assert res.values["sign_flip_share"] == pytest.approx(
        np.mean(np.sign(ra[:, 0] - ra[:, 1]) != np.sign(rb[:, 0] - rb[:, 1]))
    )
    assert speed.precision_deviation(fast, twin, entries, n_pairs=4).values["n_pairs"] == 4
    with pytest.raises(ValueError, match="even number"):
        speed.precision_deviation(fast, twin, entries[:5])


def test_benchmark_shares_lists_each_step_against_the_machines_limit(tmp_path):
    import json

    from pluralign.book import performance

    assert "No benchmark" in performance.benchmark_shares(tmp_path).note
    (tmp_path / "rewards_ceiling.json").write_text(
        json.dumps(
            {
                "name": "rewards_ceiling",
                "date": "2026-01-01 00:00:00",
                "machine": {"cpu": "X", "cores": 2},
                "figures": {
                    "load_average_1min_start": 0.5,
                    "ceiling_fp32_texts_per_s": 60.0,
                    "ceiling_bf16_texts_per_s": 250.0,
                    "default_fp32_texts_per_s": 48.0,
                    "default_fp32_share_of_fp32_ceiling": 0.8,
                    "default_fp32_share_of_fp32_ceiling_median_of_repetitions": 0.78,
                    "fast_path_texts_per_s": 110.0,
                    "fast_path_share_of_bf16_ceiling": 0.44,
                },
                "units": {
                    "default_fp32_texts_per_s": "texts/s",
                    "fast_path_texts_per_s": "texts/s",
                    "ceiling_fp32_texts_per_s": "texts/s",
                    "ceiling_bf16_texts_per_s": "texts/s",
                },
                "target": {"default_fp32_share_of_fp32_ceiling": ">= 0.80"},
            }
        )
    )
    res = performance.benchmark_shares(tmp_path)
    t = res.table.reset_index()
    assert list(t["step"]) == ["default fp32", "fast path"] and list(t["precision"]) == ["fp32", "bf16"]
    assert list(t["share of the machine's limit"]) == [0.8, 0.44]
    assert list(t["rate"]) == ["48.0 texts/s", "110 texts/s"] and list(t["limit"]) == ["60.0 texts/s", "250 texts/s"]
    assert t["median share over repetitions"].tolist() == [0.78, "—"] and t["target"].tolist() == [">= 0.80", "—"]
    assert res.values == {"share_rewards_ceiling_default_fp32": "80.0 %", "share_rewards_ceiling_fast_path": "44.0 %"}


def _distinct_texts(inst):
    prompts = inst.prompt.fillna("").astype(str)
    return list(dict.fromkeys(list(zip(prompts, inst["first"])) + list(zip(prompts, inst["second"]))))


@pytest.mark.parametrize("labels", ["aggregate", "all"])
def test_training_evaluation_is_the_exact_mean_loss_over_each_distinct_text_once(tiny_rm_folder, monkeypatch, labels):
    """Evaluation scores every distinct text of the evaluation set once, in token-budget batches, and takes the
    loss over every instance: with every annotator's label (4 per pair here) a pair's texts are scored once, not
    once per annotator; the result is the mean BT loss over the instances computed from scores."""
    from pluralign.data import simulate
    from pluralign.rewards import objectives as obj

    data = simulate(n_pairs=40, seed=2)
    train, ev = data.subset(data.pairs.pair_id[:30]), data.subset(data.pairs.pair_id[30:])
    inst = obj.build_instances(ev, "bt", labels).table
    texts = _distinct_texts(inst)
    assert len(texts) < 2 * len(inst) or labels == "aggregate"
    probe = R.load(tiny_rm_folder)
    text_len = [len(f["input_ids"]) for f in probe._featurize(texts)]
    budget = 3 * max(text_len)  # three texts to a batch (or more where shorter): the last batch is short
    rm = R.load(tiny_rm_folder, token_budget=budget, batch_size=8)
    seen = []
    real = speed.token_batches
    monkeypatch.setattr(
        speed,
        "token_batches",
        lambda lengths, budget, max_batch=None: (
            seen.append((list(lengths), budget, max_batch)) or real(lengths, budget, max_batch)
        ),
    )
    trained = rm.train(
        train,
        objective="bt",
        labels=labels,
        eval_data=ev,
        epochs=1,
        lr=1e-3,
        batch_size=8,
        keep_best=False,
        progress=False,
    )
    evals = [(lengths, b, m) for lengths, b, m in seen if b == budget and m == 16]  # 8 pairs' texts a batch at most
    assert evals and all(lengths == text_len for lengths, b, m in evals)  # each distinct text once
    assert len({len(x) for x in real(*evals[-1])}) > 1  # uneven batches: a mean of batch means would differ
    # the last evaluation (after the last step, weights as returned) is the mean BT loss over the instances
    ra = trained.score(list(zip(inst.prompt.fillna(""), inst["first"])), progress=False, cache=False)
    rb = trained.score(list(zip(inst.prompt.fillna(""), inst["second"])), progress=False, cache=False)
    want = float(obj.bt_loss(torch.tensor(ra), torch.tensor(rb), None).mean())
    losses = [h["eval_loss"] for h in trained.history if "eval_loss" in h]
    assert losses[-1] == pytest.approx(want, abs=1e-5)

"""The GPU's scoring and training path, checked on the CPU: grouped, pipelined scoring (``speed.score_pipelined``)
gives the plain path's rewards in input order and the same cache entries; a GPU's batches are bounded by the token
budget alone; LoRA over a bf16 base, length-grouped training batches and gradient checkpointing only where the
activations would not fit (``memory.needs_checkpointing``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from transformers import LlamaConfig

import pluralign.rewards as R
from pluralign.rewards import causal, memory, speed, trainer
from pluralign.rewards.base import CHUNK, RewardModel
from rm_helpers import tiny_llama_folder, tiny_seqcls_folder, tiny_texts


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return tiny_llama_folder(tmp_path_factory.mktemp("tiny-llama-pipe"))


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    return tiny_seqcls_folder(tmp_path_factory.mktemp("tiny-bert-pipe"))


def _settings(rm):
    return {"backend": rm.backend, "n_outputs": rm.n_outputs, **rm._score_settings()}


@pytest.mark.parametrize("which", ["llama", "bert"])
def test_grouped_pipelined_scoring_gives_the_plain_paths_rewards_in_input_order(request, which):
    kind = "causal" if which == "llama" else "seq-cls"
    rm = R.load(request.getfixturevalue(which), kind=kind, device="cpu")
    texts = tiny_texts(230, seed=3)
    plain = rm.raw_outputs(texts, progress=False, cache=False)
    atol = 1e-3 * np.ptp(plain[:, 0])  # fp32 rounding of other batch shapes is ~1e-7; the rewards spread far wider,
    assert atol > 1e-7  # so an order mix-up would show
    for chunk, group, bs in ((50, 3, 7), (1000, 1, 1000), (17, 8, 3)):
        piped = speed.score_pipelined(rm, texts, bs, settings=_settings(rm), cache=False, chunk=chunk, group=group)
        assert piped.shape == plain.shape
        np.testing.assert_allclose(piped, plain, rtol=0, atol=atol)


def test_pipelined_scoring_writes_and_reads_the_cpu_paths_cache_entries(llama, monkeypatch):
    rm = R.load(llama, kind="causal", device="cpu")
    texts = tiny_texts(2 * CHUNK + 10, seed=4)
    first = rm.raw_outputs(texts[:CHUNK], progress=False)  # one chunk cached by the plain path
    calls = []
    real = rm._featurize
    monkeypatch.setattr(rm, "_featurize", lambda t: calls.append(len(t)) or real(t))
    both = speed.score_pipelined(rm, texts, 64, settings=_settings(rm), cache=True, chunk=CHUNK, group=8)
    assert calls == [CHUNK, 10]  # only the two chunks not yet cached; the first group is one chunk
    three = tiny_texts(3 * CHUNK, seed=6)
    calls.clear()
    speed.score_pipelined(rm, three, 64, settings=_settings(rm), cache=False, chunk=CHUNK, group=8)
    assert calls == [CHUNK, 2 * CHUNK]  # then groups of up to eight chunks
    np.testing.assert_array_equal(both[:CHUNK], first)
    monkeypatch.setattr(rm, "_featurize", lambda t: pytest.fail("a cached chunk was scored again"))
    again = rm.raw_outputs(texts, progress=False)  # the plain path finds every chunk in the cache
    np.testing.assert_array_equal(again, both)


def test_an_error_while_tokenizing_ahead_reaches_the_caller(llama, monkeypatch):
    rm = R.load(llama, kind="causal", device="cpu")
    texts = tiny_texts(40)

    def broken(t):
        raise ValueError("tokenizer broke on text 7")

    monkeypatch.setattr(rm, "_featurize", broken)
    with pytest.raises(ValueError, match="tokenizer broke on text 7"):
        speed.score_pipelined(rm, texts, 8, settings=_settings(rm), cache=False, chunk=10, group=2)


def test_the_gpu_path_is_taken_on_cuda_for_backends_that_score_through_their_module(llama):
    rm = R.load(llama, kind="causal", device="cpu")
    assert rm.batch_size == 32 and not rm.pipelined  # the CPU: as before
    on_gpu = copy.copy(rm)
    on_gpu.device = torch.device("cuda")
    assert on_gpu.pipelined
    head = R.load()  # the frozen-encoder default embeds through its encoder's own batching
    head.device = torch.device("cuda")
    assert type(head)._raw_outputs_uncached is not RewardModel._raw_outputs_uncached and not head.pipelined
    assert speed.default_batch_size("cpu") == 32
    assert speed.default_batch_size(torch.device("cuda:0")) == speed.TOKEN_BUDGET["cuda"]
    assert speed.CHUNKS_PER_GROUP["cpu"] == 1


def test_lora_trains_over_a_bf16_base_on_a_gpu_only(monkeypatch):
    cpu, gpu = torch.device("cpu"), torch.device("cuda")
    assert causal.lora_base_dtype(dict(causal.DEFAULT_LORA), None, cpu) is None
    monkeypatch.setattr(speed, "native_bf16", lambda device=None: getattr(device, "type", None) == "cuda")
    assert causal.lora_base_dtype(dict(causal.DEFAULT_LORA), None, gpu) is torch.bfloat16  # a GPU computing bf16
    assert causal.lora_base_dtype(None, None, gpu) is None  # full fine-tuning keeps fp32 weights
    # a quantized base too: its non-quantized modules and its 4-bit compute in bf16 (bitsandbytes keeps its weights)
    assert causal.lora_base_dtype(dict(causal.DEFAULT_LORA), "8bit", gpu) is torch.bfloat16
    assert causal.lora_base_dtype(dict(causal.DEFAULT_LORA), "4bit", gpu) is torch.bfloat16
    assert causal.lora_base_dtype(dict(causal.DEFAULT_LORA), "8bit", cpu) is None


# Llama-3-8B: hidden 4096, intermediate 14336, 32 layers (its config.json); the paper's batch of 16 pairs is 32
# sequences; hh-rlhf conversations run to 540 tokens (the harmless test split in ../shared/data, measured). An 80 GB
# H100 holds 85.0 GB (79.18 GiB); free after loading the 32-layer 8-bit weights (8.0 GB int8 + a 2.1 GB fp32
# embedding) about 75 GB.
LLAMA3_8B = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32)
BENCH_SHAPE = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=8)
GB = 1e9


def test_gradient_checkpointing_only_where_the_step_would_not_fit():
    """The estimate is calibrated on the measured 8-bit step (63.39 GiB peak at 16,384 tokens × 8 layers, where the
    uncalibrated count said 22.5 GB): that step fits where it ran, and on 32 layers a 5,000-token step — which the
    uncalibrated count let through on an H100 and which runs out of memory — needs checkpointing."""
    c = memory.CALIBRATION
    assert memory.activation_bytes(BENCH_SHAPE, c["tokens"]) == pytest.approx(22.55 * GB, rel=1e-3)
    assert memory.step_bytes(BENCH_SHAPE, c["tokens"]) == pytest.approx(c["peak_bytes"] - c["resident_bytes"])
    assert 2.5 < memory.calibration_factor() < 3.0
    assert not memory.needs_checkpointing(BENCH_SHAPE, c["tokens"], 85.0 * GB - c["resident_bytes"])
    assert memory.needs_checkpointing(LLAMA3_8B, 5_000, 75 * GB)
    assert memory.needs_checkpointing(LLAMA3_8B, 32 * 540, 75 * GB)  # the paper's longest batch
    assert not memory.needs_checkpointing(LLAMA3_8B, 2_000, 75 * GB)
    per_token_layer = memory.activation_bytes(LLAMA3_8B, 1) / 32
    assert per_token_layer == 11 * 4096 + 2 * 4096 + 6 * 14336 + 8 * 4096  # the count in the docstring


def test_length_grouped_training_batches_on_a_gpu(llama):
    rm = R.load(llama, kind="causal", device="cpu", lora={"r": 4, "lora_alpha": 8, "lora_dropout": 0.0})
    from pluralign.rewards import objectives
    from rm_helpers import tiny_pairs

    inst = objectives.build_instances(tiny_pairs(), "bt")
    ds = trainer._dataset(rm, inst)
    lengths = trainer._instance_lengths(rm, ds)
    assert len(lengths) == len(inst) and all(
        n == max(rm._length(ds.texts[i]), rm._length(ds.texts[j])) for n, i, j in zip(lengths, ds.first, ds.second)
    )
    args = trainer.TrainingArguments(output_dir="unused", per_device_train_batch_size=4, use_cpu=True, report_to=[])
    t = trainer.PreferenceTrainer(
        model=rm.module, args=args, train_dataset=ds, objective="bt", pairwise=True, lengths=lengths
    )
    sampler = t._get_train_sampler()
    assert type(sampler).__name__ == "LengthGroupedSampler" and sorted(sampler) == list(range(len(ds)))
    plain = trainer.PreferenceTrainer(model=rm.module, args=args, train_dataset=ds, objective="bt", pairwise=True)
    assert type(plain._get_train_sampler()).__name__ != "LengthGroupedSampler"  # the CPU: random batches as before


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("which", ["llama", "bert"])
def test_pad_features_pads_as_the_tokenizer_does(request, which, side):
    kind = "causal" if which == "llama" else "seq-cls"
    rm = R.load(request.getfixturevalue(which), kind=kind, device="cpu")
    rm.tokenizer.padding_side = side
    feats = rm._featurize(tiny_texts(30, seed=5))
    want = rm.tokenizer.pad(feats, return_tensors="pt")
    got = speed.pad_features(feats, rm.tokenizer)
    assert set(got) == set(want.keys()) and len({len(f["input_ids"]) for f in feats}) > 5
    for k in want:
        assert got[k].dtype == want[k].dtype and torch.equal(got[k], want[k]), k
    no_mask = [{"input_ids": f["input_ids"]} for f in feats]
    assert torch.equal(speed.pad_features(no_mask, rm.tokenizer)["attention_mask"], want["attention_mask"])


def test_packed_scoring_gives_the_padded_rewards(llama):
    """Packed rows (positions restarting per text, attention inside each text, the head at each text's last token)
    against padded batches, on the CPU with the text-by-text attention that stands in for the varlen kernel."""
    from pluralign.rewards import packing

    rm = R.load(llama, kind="causal", device="cpu")
    texts = tiny_texts(120, seed=7)
    padded = rm.raw_outputs(texts, progress=False, cache=False)
    packed = speed.score_pipelined(rm, texts, 1000, settings=_settings(rm), cache=False, chunk=50, packed=True)
    assert rm.packed and rm.module.model.config._attn_implementation == packing.NAME
    atol = 1e-3 * np.ptp(padded[:, 0])
    assert atol > 1e-7
    np.testing.assert_allclose(packed, padded, rtol=0, atol=atol)
    rm.packed = False
    again = rm.raw_outputs(texts, progress=False, cache=False)  # padded again, through the switched attention
    np.testing.assert_allclose(again, padded, rtol=0, atol=1e-6)


def test_pack_lays_texts_out_one_after_another():
    from pluralign.rewards import packing

    b = packing.pack([{"input_ids": [5, 6, 7]}, {"input_ids": [8]}, {"input_ids": [9, 10]}])
    assert b["input_ids"].tolist() == [[5, 6, 7, 8, 9, 10]]
    assert b["position_ids"].tolist() == [[0, 1, 2, 0, 0, 1]]
    assert b["cu_seq_lens"].tolist() == [0, 3, 4, 6] and b["cu_seq_lens"].dtype == torch.int32
    assert b["last"].tolist() == [2, 3, 5] and b["max_length"] == 3
    assert speed.packed_batches([3, 1, 2, 9, 1], 4) == [[0, 1], [2], [3], [4]]


def test_padding_is_capped_where_asked():
    lengths = [100, 95, 90, 60, 58, 30, 29, 28]
    assert speed.token_batches(lengths, 10_000) == [list(range(8))]  # the CPU: the budget alone, as before
    capped = speed.token_batches(lengths, 10_000, max_padding=0.1)
    for b in capped:
        longest = max(lengths[i] for i in b)
        assert sum(lengths[i] for i in b) >= 0.9 * longest * len(b)
    assert capped == [[0, 1, 2], [3, 4], [5, 6, 7]]


def test_packed_scoring_of_a_lora_model_gives_its_padded_rewards(llama):
    """A LoRA reward model (peft wrapper: the body's LoRA layers, the head's trained copy) packed as padded."""
    rm = R.load(llama, kind="causal", device="cpu", lora={"r": 4, "lora_alpha": 8, "lora_dropout": 0.0})
    m = rm._trainable("bt", None, 0)
    with torch.no_grad():  # move the adapters and the head's copy off their initial values, so they count
        for p in m.module.parameters():
            if p.requires_grad:
                p.add_(0.05 * torch.randn_like(p))
    m.module.eval()
    texts = tiny_texts(60, seed=8)
    padded = speed.score_pipelined(m, texts, 1000, settings=_settings(m), cache=False, chunk=50, packed=False)
    packed = speed.score_pipelined(m, texts, 1000, settings=_settings(m), cache=False, chunk=50, packed=True)
    base = rm.raw_outputs(texts, progress=False, cache=False)
    assert np.abs(padded - base).max() > 100 * 1e-6  # the adapters changed the rewards
    np.testing.assert_allclose(packed, padded, rtol=0, atol=1e-3 * np.ptp(padded[:, 0]))


def test_a_packed_training_batch_gives_the_padded_loss_and_gradients(llama):
    """The Trainer's batch packed into one row (a GPU's causal-LM reward models) against the same batch padded: the
    same outputs, loss and adapter gradients (text-by-text attention standing in for the varlen kernel)."""
    from pluralign.rewards import objectives, packing
    from rm_helpers import tiny_pairs

    rm = R.load(llama, kind="causal", device="cpu", lora={"r": 4, "lora_alpha": 8, "lora_dropout": 0.0})
    m = rm._trainable("bt", None, 0)
    assert packing.enable(m, force=True)
    ds = trainer._dataset(m, objectives.build_instances(tiny_pairs(), "bt"))
    items = [ds[i] for i in range(8)]
    results = {}
    for form in ("padded", "packed"):
        m.packed = form == "packed"
        batch = trainer._Collator(m)(items)
        assert ("cu_seq_lens" in batch) is m.packed
        target = batch.pop("labels")
        out = m.module(**batch).float()
        first, second = torch.chunk(out, 2)
        loss = objectives.instance_loss("bt", first, second, target, None)
        m.module.zero_grad()
        loss.backward()
        grads = {n: p.grad.clone() for n, p in m.module.named_parameters() if p.requires_grad}
        results[form] = (out.detach(), float(loss), grads)
    (o1, l1, g1), (o2, l2, g2) = results["padded"], results["packed"]
    torch.testing.assert_close(o2, o1, rtol=1e-4, atol=1e-5)
    assert abs(l2 - l1) < 1e-5
    assert any(g.abs().max() > 0 for g in g1.values())
    for name in g1:
        torch.testing.assert_close(g2[name], g1[name], rtol=1e-3, atol=1e-6)


def test_the_checkpointing_decision_bounds_a_step_whether_batches_are_padded_or_packed(llama):
    from pluralign.rewards import objectives
    from rm_helpers import tiny_pairs

    rm = R.load(llama, kind="causal", device="cpu")
    ds = trainer._dataset(rm, objectives.build_instances(tiny_pairs(), "bt"))
    lengths = trainer._instance_lengths(rm, ds)
    assert trainer.longest_step_tokens(lengths, 16, True) == 32 * max(lengths)
    assert trainer.longest_step_tokens(lengths, 16, False) == 16 * max(lengths)


def test_the_gpu_training_set_up_decides_checkpointing_on_packed_batches_too(llama, monkeypatch):
    """trainer._on_gpu for a quantized LoRA model that trains packed (an H100 run failed here once: the decision read
    the length-grouping lengths, which packed batches leave unset). The GPU's own calls are stood in for: packing is
    forced on (the text-by-text attention) and the memory decision records the step's tokens."""
    from pluralign.rewards import objectives, packing
    from rm_helpers import tiny_pairs

    rm = R.load(llama, kind="causal", device="cpu", lora={"r": 4, "lora_alpha": 8, "lora_dropout": 0.0})
    m = rm._trainable("bt", None, 0)
    m.module.is_quantized = True
    ds = trainer._dataset(m, objectives.build_instances(tiny_pairs(), "bt"))
    seen = []
    real_enable = packing.enable
    monkeypatch.setattr(packing, "enable", lambda model, **kw: real_enable(model, force=True))
    monkeypatch.setattr(memory, "use_checkpointing_if_needed", lambda model, tokens: seen.append(tokens) or False)
    assert trainer._on_gpu(m, ds, 4, True) is None and m.packed  # packed: no length-grouped batches
    assert seen == [8 * max(trainer._instance_lengths(m, ds))]
    m.packed = None
    monkeypatch.setattr(packing, "enable", lambda model, **kw: setattr(model, "packed", False) or False)
    assert trainer._on_gpu(m, ds, 4, True) == trainer._instance_lengths(m, ds)  # padded: grouped by these lengths

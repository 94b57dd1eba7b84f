"""Quantized LoRA training computes in bf16 on a GPU: the training copy of an 8-bit (or 4-bit) base loads its
non-quantized modules in bf16 and keeps them there after peft's preparation (which casts them to fp32), 4-bit
computes in bf16, and a step's activations and q / k / v (at the varlen kernel) are bf16 under the Trainer's bf16
autocast. Checked on the CPU with bitsandbytes' CPU backend, the GPU's dtype decision stood in for; the base model
waits in host memory while its training copy trains; bf16 LoRA gets the same checkpointing decision as 8-bit."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import pluralign.rewards as R
from pluralign.rewards import causal, packing, trainer
from pluralign.rewards import training as rtraining
from rm_helpers import tiny_texts

sys.path.insert(0, str(Path(__file__).parent))
from llama3_chat import chat_model_folder  # noqa: E402

LORA = {"r": 4, "lora_alpha": 8, "lora_dropout": 0.0}


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    return chat_model_folder(tmp_path_factory.mktemp("llama3-chat-q"))


def _bnb_cpu():
    try:
        causal.check_quantization("8bit", "cpu")
    except causal.QuantizationUnavailable as e:
        pytest.skip(str(e))


@pytest.fixture
def as_on_a_gpu(monkeypatch):
    """The dtype a CUDA GPU with bf16 gets (lora_base_dtype), on the CPU."""
    real = causal.lora_base_dtype
    monkeypatch.setattr(
        causal, "lora_base_dtype", lambda lora, q, device: torch.bfloat16 if lora else real(lora, q, device)
    )


@pytest.mark.parametrize("quantization", ["8bit", "4bit"])
def test_a_quantized_training_copy_computes_in_bf16(chat, as_on_a_gpu, monkeypatch, quantization):
    _bnb_cpu()
    rm = R.load(str(chat), kind="causal", device="cpu", lora=LORA, **{f"load_in_{quantization}": True})
    m = rm._trainable("bt", None, 0)
    layers = causal.quantized_layers(m.module)
    assert layers and set(layers) <= {"Linear8bitLt", "Linear4bit"}
    frozen = {n: p.dtype for n, p in m.module.named_parameters() if not p.requires_grad and p.is_floating_point()}
    assert frozen and all(d == torch.bfloat16 for d in frozen.values()), frozen  # embedding, norms, frozen head
    assert all(p.dtype == torch.float32 for p in m.module.parameters() if p.requires_grad)  # adapters, head: fp32
    if quantization == "4bit":
        q = m.module.model.get_base_model().model.layers[0].self_attn.q_proj.base_layer
        assert q.compute_dtype == torch.bfloat16
    # one packed training step under the Trainer's bf16 autocast, the varlen kernel stood in for on the CPU
    seen, hidden = [], []

    def kernel(q, k, v, cu_q, cu_k, mq, mk, scale=None, **kw):
        seen.append((q.dtype, k.dtype, v.dtype))
        return packing._segments(q, k, v, cu_q, scale, True)

    monkeypatch.setattr(packing, "KERNEL_DEVICES", ("cpu",))
    monkeypatch.setattr(packing, "_varlen", lambda: kernel)
    assert packing.enable(m, force=True, training=True)
    body = m.module.model.get_base_model().model
    hooks = [layer.register_forward_hook(lambda mod, i, o: hidden.append(i[0].dtype)) for layer in body.layers]
    batch = m._collate(m._featurize(tiny_texts(8, seed=2)))
    m.module.train()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = m.module(**batch)
    out.float().sum().backward()
    for h in hooks:
        h.remove()
    assert seen and all(d == (torch.bfloat16,) * 3 for d in seen)
    assert hidden and all(d == torch.bfloat16 for d in hidden)  # the residual stream each layer sees
    assert any(p.grad is not None and p.grad.abs().max() > 0 for p in m.module.parameters() if p.requires_grad)


def test_without_the_gpus_bf16_a_quantized_copy_stays_as_peft_prepares_it(chat):
    _bnb_cpu()
    rm = R.load(str(chat), kind="causal", device="cpu", lora=LORA, load_in_8bit=True)
    m = rm._trainable("bt", None, 0)
    assert all(p.dtype == torch.float32 for p in m.module.parameters() if p.is_floating_point())


def test_compute_in_leaves_bitsandbytes_weights_alone(chat):
    _bnb_cpu()
    rm = R.load(str(chat), kind="causal", device="cpu", load_in_8bit=True)
    model = rm.module.model
    q = model.model.layers[0].self_attn.q_proj.weight
    before = (q.dtype, type(q))
    n = causal.compute_in(model, torch.bfloat16)
    assert n > 0 and (q.dtype, type(q)) == before and q.dtype == torch.int8
    assert model.model.embed_tokens.weight.dtype == torch.bfloat16 and causal.compute_in(model, None) == 0


class _Module(torch.nn.Module):
    def __init__(self, quantized=False):
        super().__init__()
        self.is_quantized = quantized
        self.moves = []

    def to(self, where):
        self.moves.append(str(where))
        return self


class _RM:
    def __init__(self, module, device):
        self.module, self.device = module, torch.device(device)


def test_the_base_waits_in_host_memory_while_its_training_copy_trains():
    base, copy = _RM(_Module(), "cuda"), _RM(_Module(), "cuda")
    with rtraining.parked(base, copy) as moved:
        assert moved and base.module.moves == ["cpu"]
    assert base.module.moves == ["cpu", "cuda"]
    quantized = _RM(_Module(quantized=True), "cuda")  # bitsandbytes 0.48 and later move their weights
    with rtraining.parked(quantized, copy) as moved:
        assert moved is rtraining._bnb_moves() and quantized.module.moves == (["cpu"] if moved else [])
    for stays in (_RM(base.module, "cuda"), _RM(_Module(), "cpu")):
        other = copy if stays.module is not base.module else base
        with rtraining.parked(stays, other) as moved:
            assert not moved
    shared = _RM(_Module(), "cuda")
    with rtraining.parked(shared, _RM(shared.module, "cuda")) as moved:
        assert not moved and shared.module.moves == []


def test_bf16_lora_gets_the_checkpointing_decision(chat, monkeypatch):
    from pluralign.rewards import memory, objectives
    from rm_helpers import tiny_pairs

    rm = R.load(str(chat), kind="causal", device="cpu", lora=LORA)
    m = rm._trainable("bt", None, 0)
    assert not getattr(m.module, "is_quantized", False) and m.lora is not None
    ds = trainer._dataset(m, objectives.build_instances(tiny_pairs(), "bt"))
    seen = []
    monkeypatch.setattr(packing, "enable", lambda model, **kw: setattr(model, "packed", False) or False)
    monkeypatch.setattr(memory, "use_checkpointing_if_needed", lambda model, tokens: seen.append(tokens) or False)
    trainer._on_gpu(m, ds, 4, True)
    assert seen == [8 * max(trainer._instance_lengths(m, ds))]


@pytest.mark.parametrize("quantization", ["8bit", "4bit"])
def test_a_quantized_model_moves_with_its_side_tensors(chat, quantization):
    """Parking moves bitsandbytes' scales and quantization state with the weights (a parent's .to leaves them): on
    the CPU a move to the same device, before and after the layers' first forward, leaves the rewards as they were."""
    _bnb_cpu()
    rm = R.load(str(chat), kind="causal", device="cpu", **{f"load_in_{quantization}": True})
    texts = tiny_texts(6, seed=4)
    rtraining._move(rm.module, torch.device("cpu"))  # before the first forward: the scales on the weights
    before = rm.score(texts, progress=False, cache=False)
    rtraining._move(rm.module, torch.device("cpu"))  # after it: on the layers' state
    after = rm.score(texts, progress=False, cache=False)
    assert np.array_equal(before, after)

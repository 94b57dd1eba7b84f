"""The paper profile's GPU settings (Diverging Preferences App. A: Llama-3-8B-Instruct reward models, "8-bit
quantization with LoRA" for training and inference; bf16 scoring), on tiny random models built here (no Hub).

Each test runs its body on ``device`` in ("cpu", "cuda"): the ``cuda`` cases are marked ``gpu`` and skip without a
CUDA GPU, the ``cpu`` cases run the same bodies everywhere (bitsandbytes' CPU backend), so the code of every GPU
test is exercised on any machine. Run only the GPU cases with ``pytest -m gpu tests/test_gpu_paths.py``."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pluralign.rewards as R
from pluralign.rewards import causal, objectives
from pluralign.rewards.speed import native_bf16
from rm_helpers import tiny_llama_folder, tiny_pairs, tiny_texts

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.gpu, CUDA])]
LORA = {"r": 4, "lora_alpha": 8, "lora_dropout": 0.0}

# bf16 against fp32, same weights, 40 texts, tiny Llama (hidden 64), model seeds 0-3, measured on an AVX512-BF16 CPU:
# max |Δr| 0.0016-0.0021 = 0.21-0.39 % of the fp32 reward spread, Pearson r >= 0.99998. Not yet measured on a CUDA
# GPU (no GPU was lent when this was written): bf16 keeps 8 mantissa bits on either (relative rounding 2^-9 per
# operation), so the same bounds apply there; they leave about 5x headroom over the CPU figures.
BF16_TOL = {"rel_max": 0.02, "corr": 0.999}


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return tiny_llama_folder(tmp_path_factory.mktemp("tiny-llama-gpu"))


def _on(module, device: str) -> bool:
    return all(p.device.type == device for p in module.parameters())


@pytest.mark.parametrize("device", DEVICES)
def test_bf16_scoring_is_close_to_fp32_and_auto_picks_bf16_where_native(llama, device):
    texts = tiny_texts()
    exact = R.load(llama, kind="causal", device=device)
    auto = R.load(llama, kind="causal", device=device, precision="auto")
    assert exact.precision == "fp32"
    assert auto.precision == ("bf16" if native_bf16(device) else "fp32")
    if device == "cuda":
        assert auto.precision == "bf16" and _on(auto.module, "cuda")  # every CUDA GPU of the paper era has bf16
    fast = R.load(llama, kind="causal", device=device, precision="bf16")
    assert next(fast.module.parameters()).dtype == torch.bfloat16
    r32 = exact.score(texts, progress=False, cache=False)
    r16 = fast.score(texts, progress=False, cache=False)
    spread = r32.max() - r32.min()
    rel = np.abs(r16 - r32).max() / spread
    assert spread > 0.1 and 0 < rel <= BF16_TOL["rel_max"], rel
    assert np.corrcoef(r16, r32)[0, 1] >= BF16_TOL["corr"]
    assert "unquantized bf16 weights" in R.describe_loading(fast) and f"on {device}" in R.describe_loading(fast)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("quantization,layer", [("8bit", "Linear8bitLt"), ("4bit", "Linear4bit")])
def test_8bit_and_4bit_loading_through_bitsandbytes(llama, device, quantization, layer):
    rm = R.load(llama, kind="causal", device=device, **{f"load_in_{quantization}": True})
    assert causal.quantized_layers(rm.module) == {layer: 14}
    assert rm.device.type == device and _on(rm.module, device)
    if device == "cuda":  # on a GPU the unquantized modules run in bf16 (no precision given), as in the paper
        assert rm.module.model.model.embed_tokens.weight.dtype == torch.bfloat16
    r = rm.score(tiny_texts(12), progress=False, cache=False)
    assert np.isfinite(r).all() and r.max() - r.min() > 1e-3
    assert f"{quantization[0]}-bit" in R.describe_loading(rm) and f"on {device}" in R.describe_loading(rm)


@pytest.mark.parametrize("device", DEVICES)
def test_a_lora_training_step_in_8bit(llama, device):
    rm = R.load(llama, kind="causal", device=device, load_in_8bit=True, lora=LORA)
    m = rm._trainable("bt", None, 0)
    assert isinstance(m.module, causal.QuantizedLoRA) and _on(m.module, device)
    int8 = {n: p.detach().clone() for n, p in m.module.named_parameters() if p.dtype == torch.int8}
    train = [p for p in m.module.parameters() if p.requires_grad]
    lora_b = {n: p.detach().clone() for n, p in m.module.named_parameters() if "lora_B" in n}
    assert int8 and lora_b and all(p.dtype == torch.float32 for p in train)
    inst = objectives.build_instances(tiny_pairs(), "bt")
    t = inst.table
    feats = m._featurize(list(zip(t["prompt"], t["first"])) + list(zip(t["prompt"], t["second"])))
    batch = {k: v.to(device) for k, v in m._collate(feats).items()}
    target = torch.tensor(t["target"].to_numpy(), dtype=torch.float32, device=device)
    opt = torch.optim.AdamW(train, lr=1e-2)
    m.module.train()
    losses = []
    for _ in range(3):
        first, second = torch.chunk(m.module(**batch).float(), 2)
        loss = objectives.instance_loss("bt", first, second, target, None)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < losses[0], losses
    after = dict(m.module.named_parameters())
    assert all(torch.equal(after[n].detach(), v) and after[n].dtype == torch.int8 for n, v in int8.items())
    assert all(not torch.equal(after[n].detach(), v) for n, v in lora_b.items())


# the CPU case takes about a minute on 2 cores (8 epochs through the Trainer): CI runs it with the slow tests
@pytest.mark.parametrize("device", [pytest.param("cpu", marks=pytest.mark.slow), DEVICES[1]])
def test_the_trainer_path_trains_with_bf16_on_cuda(llama, device, monkeypatch):
    from pluralign.rewards import trainer

    seen = {}
    real = trainer.TrainingArguments

    def spy(**kw):
        seen.update(kw)
        return real(**kw)

    monkeypatch.setattr(trainer, "TrainingArguments", spy)
    data = tiny_pairs()
    rm = R.load(llama, kind="causal", device=device, lora=LORA)
    trained = rm.train(data, objective="bt", lr=1e-2, epochs=8, batch_size=4, eval_data=data, progress=False)
    assert seen["bf16"] is (device == "cuda") and seen["use_cpu"] is (device == "cpu")
    assert trained.device.type == device and _on(trained.module, device)
    losses = [h["eval_loss"] for h in trained.history if "eval_loss" in h]
    assert losses[-1] < losses[0], losses
    acc = float((trained.prob_a(data, progress=False) > 0.5).eq(data.majority() == "A").mean())
    assert acc >= 0.9, acc

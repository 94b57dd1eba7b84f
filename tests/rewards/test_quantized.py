"""8-bit and 4-bit reward models through bitsandbytes on the CPU (Diverging Preferences App. A: "For training and
inference, we use 8-bit quantization with LoRA"), on a tiny random Llama: the quantized layers are really there,
the rewards stay close to the fp32 rewards of the same weights, LoRA training moves the adapter and the head and
leaves the quantized base weights as they were, and where bitsandbytes cannot run the error says what to do.

The CUDA side of the same paths is in test_gpu_paths.py (marked ``gpu``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import pluralign.rewards as R
from pluralign.rewards import causal
from pluralign.rewards.objectives import build_instances
from pluralign.rewards.trainer import fit
from pluralign.train_options import TrainOptions
from rm_helpers import tiny_llama_folder, tiny_pairs, tiny_texts

LORA = {"r": 4, "lora_alpha": 8, "lora_dropout": 0.0}

# Measured (hidden 64, 2 layers, random weights, 40 texts, CPU backend of bitsandbytes 0.50.2), over model seeds
# 0-3: 8-bit max |r_8bit - r_fp32| 0.0019-0.0045 = 0.32-0.85 % of the fp32 reward spread (max - min), Pearson
# r >= 0.9999; 4-bit NF4 0.033-0.044 = 5.5-6.9 % of the spread, Pearson r >= 0.994. The bounds below leave about
# 2x headroom: LLM.int8() rounds each row to 1/127 of its absmax, NF4 to 16 levels per 64-weight block.
TOL = {"8bit": {"rel_max": 0.02, "corr": 0.999}, "4bit": {"rel_max": 0.15, "corr": 0.98}}


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return tiny_llama_folder(tmp_path_factory.mktemp("tiny-llama-q"))


@pytest.fixture(scope="module")
def fp32_rewards(llama):
    return R.load(llama, kind="causal").score(tiny_texts(), progress=False, cache=False)


def _layers(rm) -> dict:
    return causal.quantized_layers(rm.module)


@pytest.mark.parametrize(
    "option,layer,weight_dtype",
    [("load_in_8bit", "Linear8bitLt", torch.int8), ("load_in_4bit", "Linear4bit", torch.uint8)],
)
def test_quantized_loading_on_cpu_puts_bitsandbytes_layers_in_place_and_keeps_the_head(
    llama, option, layer, weight_dtype
):
    exact = R.load(llama, kind="causal")
    rm = R.load(llama, kind="causal", device="cpu", **{option: True})
    assert rm.quantization == option[len("load_in_") :] and rm.device.type == "cpu"
    # every linear layer of the 2 decoder layers (q, k, v, o, gate, up, down) is quantized; the head is not
    assert _layers(rm) == {layer: 14}
    model = rm.module.model
    assert model.model.layers[0].self_attn.q_proj.weight.dtype == weight_dtype
    assert type(model.score).__name__ == "Linear" and model.score.weight.dtype == torch.float32
    assert torch.equal(model.score.weight, exact.module.model.score.weight)  # same seeded fresh head
    assert all(p.device.type == "cpu" for p in model.parameters())
    line = R.describe_loading(rm)
    assert f"{'8' if '8' in option else '4'}-bit" in line and f"14 {layer} layers" in line and "on cpu" in line
    assert "unquantized fp32 weights" in R.describe_loading(exact)


@pytest.mark.parametrize("quantization", ["8bit", "4bit"])
def test_quantized_rewards_are_close_to_the_fp32_rewards_of_the_same_weights(llama, fp32_rewards, quantization):
    rm = R.load(llama, kind="causal", **{f"load_in_{quantization}": True})
    r = rm.score(tiny_texts(), progress=False, cache=False)
    spread = fp32_rewards.max() - fp32_rewards.min()
    assert spread > 0.1  # the texts get different rewards: the comparison can fail
    rel = np.abs(r - fp32_rewards).max() / spread
    corr = np.corrcoef(r, fp32_rewards)[0, 1]
    assert 0 < rel <= TOL[quantization]["rel_max"], (quantization, rel)  # > 0: really a different computation
    assert corr >= TOL[quantization]["corr"], (quantization, corr)
    # a reward never depends on its batch mates, quantized too
    np.testing.assert_allclose(rm.score(tiny_texts()[:7], progress=False, cache=False, batch_size=1), r[:7], atol=1e-4)


def test_4bit_compute_dtype_follows_the_precision_switch(llama):
    fp32 = R.load(llama, kind="causal", load_in_4bit=True)
    bf16 = R.load(llama, kind="causal", load_in_4bit=True, precision="bf16")
    q = fp32.module.model.model.layers[0].self_attn.q_proj
    assert q.compute_dtype == torch.float32 and fp32.precision == "fp32"
    assert bf16.module.model.model.layers[0].self_attn.q_proj.compute_dtype == torch.bfloat16
    assert bf16.precision == "bf16" and "computing in bf16" in R.describe_loading(bf16)
    # 8-bit with no precision given: the unquantized modules stay fp32 on the CPU (bf16 only on a GPU)
    eight = R.load(llama, kind="causal", load_in_8bit=True)
    assert eight.module.model.model.embed_tokens.weight.dtype == torch.float32


@pytest.mark.slow  # LoRA training through bitsandbytes' CPU kernels; CI runs it (make test-slow)
@pytest.mark.parametrize("quantization", ["8bit", "4bit"])
def test_lora_steps_on_a_quantized_rm_lower_the_loss_and_leave_the_quantized_weights(llama, quantization):
    rm = R.load(llama, kind="causal", lora=LORA, **{f"load_in_{quantization}": True})
    m = rm._trainable("bt", None, 0)
    assert isinstance(m.module, causal.QuantizedLoRA)
    # gradient checkpointing (QLoRA) with no KV cache configured: transformers logs nothing on a page's stderr
    assert m.module.model.get_base_model().config.use_cache is False
    data = tiny_pairs()
    inst = build_instances(data, "bt")
    with torch.no_grad():  # an inference forward first (bitsandbytes would repack 4-bit weights for its CPU kernel
        m.module.eval()  # there, after which no gradient flows through them: the training copy must not be)
        m.module(**m._collate(m._featurize([("tell me", "here is")])))
    quantized = {n: p.detach().clone() for n, p in m.module.named_parameters() if p.dtype in (torch.int8, torch.uint8)}
    trainable = {n: p.detach().clone() for n, p in m.module.named_parameters() if p.requires_grad}
    assert quantized and all(not p.requires_grad for n, p in m.module.named_parameters() if n in quantized)
    assert {n.split(".")[-2] if "lora_" in n else "score" for n in trainable} <= {"default", "score"}
    assert any("lora_A" in n for n in trainable) and any("score" in n for n in trainable)
    loop = TrainOptions(
        objective="bt", lr=1e-2, epochs=6, batch_size=4, eval_every=1.0, keep_best=False, progress=False
    )
    history = fit(m, inst, inst, loop)
    losses = [h["eval_loss"] for h in history if "eval_loss" in h]
    assert len(losses) == 6 and losses[-1] < losses[0] - 0.05, losses
    after = dict(m.module.named_parameters())
    for n, v in quantized.items():
        assert after[n].dtype == v.dtype and torch.equal(after[n].detach(), v), n  # base weights untouched
    # every LoRA adapter moved (all of them sit upstream of quantized layers: gradients flowed through those)
    assert all(not torch.equal(after[n].detach(), v) for n, v in trainable.items() if "lora_B" in n)
    assert causal.quantized_layers(m.module).get("Linear8bitLt" if quantization == "8bit" else "Linear4bit") == 14


@pytest.mark.slow  # LoRA training through bitsandbytes' CPU kernels; CI runs it (make test-slow)
def test_an_8bit_lora_rm_trains_saves_and_reloads_in_8bit_through_the_trainer(llama):
    rm = R.load(llama, kind="causal", lora=LORA, load_in_8bit=True)
    data = tiny_pairs()
    trained = rm.train(data, objective="bt", lr=1e-2, epochs=8, batch_size=4, progress=False)
    acc = float((trained.prob_a(data, progress=False) > 0.5).eq(data.majority() == "A").mean())
    assert acc >= 0.9, acc
    assert trained.quantization == "8bit" and "8-bit weights" in R.describe_loading(trained)
    folder = trained.info["identity"]
    cfg_files = [
        p for p in __import__("pluralign.cache", fromlist=["cache_dir"]).cache_dir().rglob("pluralign_rm.json")
    ]
    cfg = json.loads(cfg_files[0].read_text())
    assert cfg["load_in_8bit"] is True and cfg["load_in_4bit"] is False and cfg["lora"]["r"] == 4, folder
    assert not list(cfg_files[0].parent.glob("model.safetensors"))  # the adapter and head, not the base
    # the same folder opened unquantized (load_in_4bit=False, load_in_8bit=False: as trained) stays 8-bit;
    # asked for 4-bit it loads the base in 4-bit under the same adapter, with nearby rewards
    four = R.load(cfg_files[0].parent, load_in_4bit=True)
    assert four.quantization == "4bit"
    r8 = trained.score(data, progress=False)[["reward_a", "reward_b"]].to_numpy()
    r4 = four.score(data, progress=False)[["reward_a", "reward_b"]].to_numpy()
    assert np.corrcoef(r8.ravel(), r4.ravel())[0, 1] > 0.9


def test_a_quantized_model_refuses_training_without_lora(llama):
    with pytest.raises(ValueError, match="needs LoRA adapters"):
        R.load(llama, kind="causal", load_in_8bit=True).train(tiny_pairs(), objective="bt", epochs=1, progress=False)


# ---- where bitsandbytes cannot run it: errors that name the option, the model and what to do ------------------
def test_missing_bitsandbytes_is_a_clear_error(llama, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "bitsandbytes" else real(name, *a)
    )
    with pytest.raises(R.QuantizationUnavailable) as e:
        R.load(llama, kind="causal", load_in_8bit=True)
    msg = str(e.value)
    assert "load_in_8bit=True" in msg and str(llama) in msg and "not installed" in msg and "pip install" in msg
    assert "load_in_8bit: false" in msg


def test_a_bitsandbytes_without_cpu_backend_is_a_clear_error_on_cpu(llama, monkeypatch):
    monkeypatch.setattr(causal, "_bnb_has_cpu_backend", lambda: False)
    with pytest.raises(R.QuantizationUnavailable) as e:
        R.load(llama, kind="causal", load_in_4bit=True, device="cpu")
    msg = str(e.value)
    assert "load_in_4bit=True" in msg and str(llama) in msg and "CPU backend" in msg and "pip install -U" in msg
    # the real check on this machine's bitsandbytes: it has one (0.50.2: bitsandbytes.backends.cpu)
    monkeypatch.undo()
    assert causal._bnb_has_cpu_backend()


def test_bad_quantization_requests_are_refused(llama):
    with pytest.raises(ValueError, match="exclude each other"):
        R.load(llama, kind="causal", load_in_8bit=True, load_in_4bit=True)
    with pytest.raises(R.QuantizationUnavailable, match="not on device 'meta'"):
        R.load(llama, kind="causal", load_in_8bit=True, device="meta")
    with pytest.raises(ValueError, match="apply to causal LMs"):
        R.load(R.default_encoder_path(), kind="seq-cls", load_in_4bit=True)


def test_the_loading_line_names_the_hub_id_of_a_mirror_folder_and_the_quantization(tmp_path, monkeypatch):
    # how the paper profile's 8-bit Llama RM reads on a page when it loads from $PLURALIGN_MIRROR
    tiny_llama_folder(tmp_path / "meta-llama" / "Meta-Llama-3-8B-Instruct")
    monkeypatch.setenv("PLURALIGN_MIRROR", str(tmp_path))
    rm = R.load("meta-llama/Meta-Llama-3-8B-Instruct", kind="causal", load_in_8bit=True, lora=True)
    assert R.describe_loading(rm) == (
        "meta-llama/Meta-Llama-3-8B-Instruct (causal): 8-bit weights (bitsandbytes LLM.int8(), 14 Linear8bitLt "
        "layers; other modules fp32), LoRA r=16, on cpu"
    )

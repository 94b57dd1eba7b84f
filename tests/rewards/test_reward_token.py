"""One reward token on every path, on a tiny Llama-3-style chat model (Llama-3's chat template, every text ending
with ``<|eot_id|>``, pad == EOS): packed and padded batches, one text or many, read the reward at the same token, and
it is the token TRL's ``RewardTrainer`` trains at (transformers' sequence classifier over TRL's right-padded batch with
``pad_token_id`` = the tokenizer's pad token); a chat text is tokenized once (one BOS); packed attention refuses the
attention it cannot compute (Gemma-2's soft-capping, Mistral's sliding window); q, k and v reach the varlen kernel in
the autocast dtype."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import pluralign.rewards as R
from pluralign.rewards import packing, speed
from rm_helpers import tiny_texts

sys.path.insert(0, str(Path(__file__).parent))  # the chat model beside this file (tests/ holds the shared helpers)
from llama3_chat import chat_model_folder  # noqa: E402


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    return chat_model_folder(tmp_path_factory.mktemp("llama3-chat"))


def _settings(rm):
    return {"backend": rm.backend, "n_outputs": rm.n_outputs, **rm._score_settings()}


def _texts():
    return tiny_texts(12, seed=11)


def _trl_rewards(rm, texts):
    """What TRL's RewardTrainer computes for ``texts``: its collator's right-padded batch (pad = the tokenizer's pad
    token, attention mask 1 on the text) through transformers' own sequence-classifier forward, which reads the
    rightmost token that is not ``config.pad_token_id``."""
    from trl.trainer.reward_trainer import DataCollatorForPreference

    feats = rm._featurize(texts)
    half = len(feats) // 2
    batch = DataCollatorForPreference(pad_token_id=rm.tokenizer.pad_token_id)(
        [{"chosen_ids": a["input_ids"], "rejected_ids": b["input_ids"]} for a, b in zip(feats[:half], feats[half:])]
    )
    assert rm.module.model.config.pad_token_id == rm.tokenizer.pad_token_id  # as TRL sets it
    with torch.no_grad():
        return rm.module.model(**batch).logits.numpy().astype(np.float64)


def test_packed_padded_and_one_by_one_give_the_same_rewards(chat):
    """The issue's measurement (12 chat texts, packed against padded through the pipelined GPU path) differed by
    110 % of the rewards' spread: packed read ``<|eot_id|>``, padded the token before it."""
    rm = R.load(str(chat), kind="causal", device="cpu")
    assert rm.tokenizer.pad_token_id == rm.tokenizer.eos_token_id == rm.tokenizer.convert_tokens_to_ids("<|eot_id|>")
    texts = _texts()
    padded = speed.score_pipelined(rm, texts, 1000, settings=_settings(rm), cache=False, chunk=50, packed=False)
    alone = np.concatenate([rm.raw_outputs([t], progress=False, cache=False) for t in texts])
    packed = speed.score_pipelined(rm, texts, 1000, settings=_settings(rm), cache=False, chunk=50, packed=True)
    assert rm.packed
    spread = np.ptp(padded[:, 0])
    assert spread > 1e-3
    np.testing.assert_allclose(alone, padded, rtol=0, atol=1e-5 * spread)
    np.testing.assert_allclose(packed, padded, rtol=0, atol=1e-5 * spread)


def test_the_reward_token_is_the_one_trl_trains_at(chat):
    """TRL tokenizes a chat text with the template and pads with the tokenizer's pad token (its EOS where it has
    none); transformers then reads the last token that is not the pad token: on a Llama-3 chat text, the reply's last
    token, the one before the template's closing ``<|eot_id|>``. Packed and padded scoring read that token."""
    rm = R.load(str(chat), kind="causal", device="cpu")
    texts = _texts()
    trl = _trl_rewards(rm, texts)
    spread = np.ptp(trl[:, 0])
    for packed in (False, True):
        got = speed.score_pipelined(rm, texts, 1000, settings=_settings(rm), cache=False, chunk=50, packed=packed)
        np.testing.assert_allclose(got, trl, rtol=0, atol=1e-5 * spread)
    eot = rm.tokenizer.convert_tokens_to_ids("<|eot_id|>")
    feats = rm._featurize(texts)
    b = packing.pack(feats, packing.pad_id_of(rm.module.model))
    ids = b["input_ids"][0]
    for i, f in enumerate(feats):
        end = int(b["cu_seq_lens"][i + 1]) - 1
        assert f["input_ids"][-1] == eot  # the template's last token
        assert int(b["last"][i]) == end - 1 and int(ids[end - 1]) != eot  # the reply's last token before it
        assert int(ids[end - 1]) == rm.tokenizer(texts[i][1], add_special_tokens=False)["input_ids"][-1]


def test_a_tokenizer_with_its_own_pad_token_is_read_at_the_templates_last_token(tmp_path):
    folder = chat_model_folder(
        tmp_path / "own-pad", pad_token="<|finetune_right_pad_id|>", extra=("<|finetune_right_pad_id|>",)
    )
    rm = R.load(str(folder), kind="causal", device="cpu")
    texts = _texts()
    feats = rm._featurize(texts)
    b = packing.pack(feats, packing.pad_id_of(rm.module.model))
    assert b["last"].tolist() == (b["cu_seq_lens"][1:].long() - 1).tolist()  # the template's last token
    trl = _trl_rewards(rm, texts)
    for packed in (False, True):
        got = speed.score_pipelined(rm, texts, 1000, settings=_settings(rm), cache=False, chunk=50, packed=packed)
        np.testing.assert_allclose(got, trl, rtol=0, atol=1e-5 * np.ptp(trl[:, 0]))


def test_the_padded_reward_token_comes_from_the_attention_mask_left_or_right():
    ids = torch.tensor([[5, 6, 9, 9, 0, 0], [0, 0, 7, 9, 8, 9], [9, 9, 0, 0, 0, 0]])
    right = torch.tensor([[1, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]])
    assert packing.padded_reward_positions(ids, right, pad_id=9).tolist() == [1, 4, 1]
    assert packing.padded_reward_positions(ids, right, pad_id=None).tolist() == [3, 5, 1]
    cu = np.array([0, 4, 8], dtype=np.int32)
    row = np.array([5, 6, 9, 9, 7, 9, 8, 9])
    assert packing.reward_positions(row, cu, 9).tolist() == [1, 6]
    assert packing.reward_positions(row, cu, None).tolist() == [3, 7]


def test_a_chat_text_is_tokenized_once_with_one_bos(chat):
    rm = R.load(str(chat), kind="causal", device="cpu")
    bos = rm.tokenizer.bos_token_id
    for f in rm._featurize(_texts() + [("", "a reply without a prompt")]):
        assert f["input_ids"].count(bos) == 1 and f["input_ids"][0] == bos


@pytest.mark.parametrize("arch, reason", [("gemma2", "soft-caps its attention logits"), ("mistral", "sliding window")])
def test_attention_packing_cannot_compute_stays_padded_and_is_said_once(tmp_path, caplog, arch, reason):
    rm = R.load(str(chat_model_folder(tmp_path / arch, arch)), kind="causal", device="cpu")
    packing._SAID.clear()
    texts = _texts()
    with caplog.at_level(logging.WARNING, logger="pluralign.rewards.packing"):
        assert packing.enable(rm, force=True) is False
        assert packing.enable(rm, force=True, training=True) is False
        got = speed.score_pipelined(rm, texts, 1000, settings=_settings(rm), cache=False, chunk=50, packed=True)
    said = [r.getMessage() for r in caplog.records if r.name == "pluralign.rewards.packing"]
    assert len(said) == 1 and reason in said[0] and "padded" in said[0]
    assert rm.packed is False and rm.module.model.config._attn_implementation != packing.NAME
    padded = rm.raw_outputs(texts, progress=False, cache=False)
    np.testing.assert_allclose(got, padded, rtol=0, atol=1e-6)


def test_packed_attention_refuses_what_it_would_drop():
    q = torch.zeros(1, 2, 4, 8)
    cu = torch.tensor([0, 4], dtype=torch.int32)
    m = torch.nn.Module()
    with packing.packed():
        for kw in ({"softcap": 50.0}, {"sliding_window": 4096}, {"dropout": 0.1}):
            with pytest.raises(NotImplementedError, match="packed attention cannot compute"):
                packing._attention(m, q, q, q, None, cu_seq_lens_q=cu, **kw)


def test_attention_dropout_in_training_keeps_a_model_padded(chat):
    from transformers import AutoConfig

    cfg = AutoConfig.from_pretrained(chat)
    assert packing.refusal(cfg, training=True) is None
    cfg.attention_dropout = 0.1
    assert packing.refusal(cfg) is None and "dropout" in packing.refusal(cfg, training=True)


def test_q_k_v_reach_the_kernel_in_the_autocast_dtype(chat, monkeypatch):
    """An 8-bit training copy's q and k leave RoPE in fp32 under the Trainer's bf16 autocast: they reach the varlen
    kernel in bf16 (a stand-in kernel records them on the CPU), not the text-by-text fallback."""
    seen = []

    def kernel(q, k, v, cu_q, cu_k, mq, mk, scale=None, **kw):
        seen.append((q.dtype, k.dtype, v.dtype))
        return packing._segments(q, k, v, cu_q, scale, True)

    monkeypatch.setattr(packing, "KERNEL_DEVICES", ("cpu",))
    monkeypatch.setattr(packing, "_varlen", lambda: kernel)
    rm = R.load(str(chat), kind="causal", device="cpu")
    assert packing.enable(rm, force=True)
    batch = rm._collate(rm._featurize(_texts()))
    assert packing.kernel_dtype(torch.zeros(2)) is None
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert packing.kernel_dtype(torch.zeros(2)) is torch.bfloat16
        out = rm.module(**batch)
    assert seen and all(d == (torch.bfloat16,) * 3 for d in seen)
    assert out.shape == (12, rm.n_outputs)


def test_a_packed_step_with_gradient_checkpointing_gives_the_padded_gradients(chat):
    """Gradient checkpointing recomputes each layer's forward in the backward pass, after the packed forward has
    returned: the recomputed attention must stay inside each text (it read the packed context, closed by then)."""
    rm = R.load(str(chat), kind="causal", device="cpu", lora={"r": 4, "lora_alpha": 8, "lora_dropout": 0.0})
    m = rm._trainable("bt", None, 0)
    assert packing.enable(m, force=True, training=True)
    m.module.model.get_base_model().gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": False}
    )
    m.module.model.get_base_model().enable_input_require_grads()
    feats = m._featurize(_texts())
    grads = {}
    m.module.train()
    for form in ("padded", "packed"):
        m.packed = form == "packed"
        out = m.module(**m._collate(feats))
        m.module.zero_grad()
        (out.float() ** 2).sum().backward()
        grads[form] = {n: p.grad.clone() for n, p in m.module.named_parameters() if p.requires_grad}
    assert any(g.abs().max() > 0 for g in grads["padded"].values())
    for name, g in grads["padded"].items():
        torch.testing.assert_close(grads["packed"][name], g, rtol=1e-3, atol=1e-6)

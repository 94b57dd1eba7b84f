"""Reward-model backends on tiny randomly initialised models written to temporary folders in the
Hub layout (safetensors): sequence-classification RMs scored as (prompt, response) sentence pairs
with a truncation side (SEAL's scoring of the OpenAssistant RMs), full fine-tuning of an encoder,
causal LMs with a scalar head + LoRA (Diverging Preferences App. A),
``trust_remote_code`` off by default, and rewards that do not depend on the batch."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import pluralign.rewards as R
from pluralign.data.core import PreferenceData

WORDS = (
    "tell me about the a an of and to is it how why what here clear overview history tips beginners "
    "i'm sorry but can't help with that request cannot answer questions like this one good question "
    "volcanoes chess coffee jazz tea owls rivers trains whales yoga kites opera pirates comets castles "
    "start middle end alpha beta gamma delta . , ? !"
).split()


@pytest.fixture(scope="module")
def minilm_tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(R.default_encoder_path())


@pytest.fixture(scope="module")
def tiny_bert_rm(tmp_path_factory, minilm_tokenizer):
    """A 2-layer, hidden-32 BertForSequenceClassification RM with MiniLM's vocabulary."""
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=minilm_tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
        max_position_embeddings=128,
        architectures=["BertForSequenceClassification"],
    )
    model = BertForSequenceClassification(cfg).eval()
    folder = tmp_path_factory.mktemp("tiny-bert-rm")
    model.save_pretrained(folder)
    minilm_tokenizer.save_pretrained(folder)
    assert (folder / "model.safetensors").exists()
    return folder


@pytest.fixture(scope="module")
def tiny_bert_encoder(tmp_path_factory, minilm_tokenizer):
    from transformers import BertConfig, BertModel

    torch.manual_seed(1)
    cfg = BertConfig(
        vocab_size=minilm_tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        architectures=["BertModel"],
    )
    folder = tmp_path_factory.mktemp("tiny-bert-encoder")
    BertModel(cfg).save_pretrained(folder)
    minilm_tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    """A 2-layer Llama causal LM with a word-level tokenizer that has an EOS but no pad token."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<unk>", "<s>", "</s>"] + sorted(set(WORDS)))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    assert fast.pad_token is None
    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        architectures=["LlamaForCausalLM"],
    )
    folder = tmp_path_factory.mktemp("tiny-llama")
    LlamaForCausalLM(cfg).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def _pairs(n_topics=12, seed=0) -> PreferenceData:
    """Good answer vs refusal, every annotator prefers the good answer."""
    topics = [
        "volcanoes",
        "chess",
        "coffee",
        "jazz",
        "tea",
        "owls",
        "rivers",
        "trains",
        "whales",
        "yoga",
        "kites",
        "opera",
        "pirates",
        "comets",
        "castles",
    ][:n_topics]
    rng = np.random.default_rng(seed)
    pairs, ann = [], []
    for i, t in enumerate(topics):
        good = f"here is a clear overview of {t} : history and tips for beginners ."
        bad = (
            "i'm sorry , but i can't help with that request ." if i % 2 else "i cannot answer questions like this one ."
        )
        a_good = rng.random() < 0.5
        pairs.append(
            {
                "pair_id": f"p{i}",
                "dataset": "tiny",
                "split": "train",
                "prompt": f"tell me about {t} ?",
                "response_a": good if a_good else bad,
                "response_b": bad if a_good else good,
            }
        )
        ann += [{"pair_id": f"p{i}", "annotator_id": f"a{j}", "preference": -2 if a_good else 2} for j in range(3)]
    return PreferenceData(pd.DataFrame(pairs), pd.DataFrame(ann), {"name": "tiny"})


def _texts(n=40, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        p = " ".join(rng.choice(WORDS, size=int(rng.integers(0, 25))))
        r = " ".join(rng.choice(WORDS, size=int(rng.integers(1, 40))))
        out.append((p, r))
    return out


# ---- sequence-classification RMs ------------------------------------------------------------------
def test_seq_cls_rm_scores_sentence_pairs_like_a_direct_forward(tiny_bert_rm):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    rm = R.load(tiny_bert_rm)
    assert isinstance(rm, R.SequenceClassificationRM) and rm.backend == "seq-cls"
    assert rm.trust_remote_code is False
    texts = [("tell me about jazz ?", "here is a clear overview ."), ("why ?", "i cannot answer .")]
    got = rm.score(texts, progress=False)
    tok = AutoTokenizer.from_pretrained(tiny_bert_rm)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_bert_rm).eval()
    with torch.no_grad():
        want = [float(model(**tok(p, r, return_tensors="pt")).logits[0, 0]) for p, r in texts]
    np.testing.assert_allclose(got, want, atol=1e-5)
    # the response is the second segment of the pair
    feats = rm._featurize(texts[:1])
    assert 1 in feats[0]["token_type_ids"] and feats[0]["token_type_ids"][0] == 0


def test_truncation_side_cuts_the_oldest_history_first(tiny_bert_rm):
    head_a = "alpha beta gamma delta " * 4
    head_b = "castles comets opera pirates " * 4
    tail = "start middle end " * 8  # 24 tokens: more than the prompt budget
    texts = [(head_a + tail, "good question ."), (head_b + tail, "good question .")]
    left = R.load(tiny_bert_rm, max_length=24, truncation_side="left")
    right = R.load(tiny_bert_rm, max_length=24, truncation_side="right")
    fl = left._featurize(texts)
    assert all(len(f["input_ids"]) == 24 for f in fl)
    # left truncation drops the different beginnings: both prompts become identical, so do the rewards
    assert fl[0]["input_ids"] == fl[1]["input_ids"]
    rl = left.score(texts, progress=False)
    assert rl[0] == pytest.approx(rl[1], abs=1e-6)
    rr = right.score(texts, progress=False)
    assert abs(rr[0] - rr[1]) > 1e-5
    # the reply survives either way
    decoded = left.tokenizer.decode(fl[0]["input_ids"])
    assert "good question" in decoded and "alpha" not in decoded
    with pytest.raises(ValueError, match="truncation_side"):
        R.load(tiny_bert_rm, truncation_side="middle")


@pytest.mark.parametrize("backend", ["seq-cls", "causal"])
def test_rewards_do_not_depend_on_batch_size_or_batch_mates(backend, tiny_bert_rm, tiny_llama):
    rm = R.load(tiny_bert_rm) if backend == "seq-cls" else R.load(tiny_llama)
    texts = _texts(40)
    runs = {bs: rm.raw_outputs(texts, batch_size=bs, progress=False, cache=False)[:, 0] for bs in (1, 7, 32)}
    np.testing.assert_allclose(runs[7], runs[1], atol=1e-4)
    np.testing.assert_allclose(runs[32], runs[1], atol=1e-4)
    # the same text scored among different company
    alone = rm.raw_outputs(texts[5:6], batch_size=1, progress=False, cache=False)[0, 0]
    mixed = rm.raw_outputs(texts[::-1], batch_size=32, progress=False, cache=False)[::-1][5, 0]
    assert alone == pytest.approx(runs[1][5], abs=1e-4) and mixed == pytest.approx(runs[1][5], abs=1e-4)


def test_frozen_encoder_embeddings_do_not_depend_on_batch_size():
    enc = R.Encoder.get(R.default_encoder_path())
    texts = [p + " " + r for p, r in _texts(21, seed=3)]
    base = enc._embed_uncached(texts)
    old = enc.batch_size
    try:
        for bs in (1, 7, 32):
            enc.batch_size = bs
            np.testing.assert_allclose(enc._embed_uncached(texts), base, atol=1e-4)
    finally:
        enc.batch_size = old
    assert np.allclose(np.linalg.norm(base, axis=1), 1.0, atol=1e-5)  # normalised, sentence-transformers style


def test_scores_are_cached_by_model_and_texts(tiny_bert_rm, monkeypatch):
    rm = R.load(tiny_bert_rm)
    texts = _texts(10)
    first = rm.score(texts, progress=False)
    calls = []
    monkeypatch.setattr(type(rm), "_raw_outputs_uncached", lambda self, *a, **k: calls.append(1))
    np.testing.assert_array_equal(rm.score(texts, progress=False), first)
    assert calls == []
    other = R.load(tiny_bert_rm, max_length=8)  # other settings: a new entry
    with pytest.raises(Exception):
        other.score(texts, progress=False)
    assert calls == [1]


# ---- full fine-tuning of an encoder ------------------------------------------------------------------
def test_finetune_encoder_learns_tiny_preferences(tiny_bert_encoder):
    rm = R.load(tiny_bert_encoder)
    assert isinstance(rm, R.FineTuneEncoderRM) and not rm.trained
    d = _pairs()
    before = float((rm.prob_a(d, progress=False) > 0.5).eq(d.majority() == "A").mean())
    trained = rm.train(d, objective="bt", lr=1e-3, epochs=8, batch_size=4, dropout=0.0, progress=False)
    assert trained.trained and trained.backend == "finetune"
    acc = float((trained.prob_a(d, progress=False) > 0.5).eq(d.majority() == "A").mean())
    assert acc == 1.0, (before, acc)
    folder = trained.info.get("identity")
    assert folder and "rewards_train" in folder


def test_a_head_cached_by_one_checkout_opens_from_another(tiny_bert_encoder, tmp_path):
    """The training cache is keyed by the encoder's content, so a head trained on an encoder folder that has
    since moved (another checkout, another virtual environment) is reused, opened on the encoder where it is
    now; opened directly, the folder names the moved path and says how to open it."""
    import shutil

    from pluralign.rewards.folders import RM_CONFIG, open_trained

    d = _pairs()
    first = shutil.copytree(tiny_bert_encoder, tmp_path / "first" / "encoder")
    trained = R.load(first, kind="frozen-encoder").train(d, objective="bt", epochs=2, progress=False)
    before = trained.prob_a(d, progress=False).to_numpy()
    second = shutil.copytree(first, tmp_path / "second" / "encoder")
    shutil.rmtree(first)
    again = R.load(second, kind="frozen-encoder").train(d, objective="bt", epochs=2, progress=False)
    assert again.encoder.name_or_path == str(second)
    np.testing.assert_allclose(again.prob_a(d, progress=False).to_numpy(), before, atol=1e-6)
    written = [p.parent for p in Path(os.environ["PLURALIGN_CACHE"]).rglob(RM_CONFIG)]
    assert len(written) == 1, f"the second checkout trained again: {written}"
    with pytest.raises(FileNotFoundError, match=r"field 'encoder' names .*first.*trained_from="):
        open_trained(written[0])
    assert open_trained(written[0], trained_from=str(second)).trained


# ---- causal LM + scalar head + LoRA -------------------------------------------------------------------
def test_causal_lm_scalar_head_pad_token_and_lora_training(tiny_llama):
    rm = R.load(tiny_llama, lora={"r": 4, "lora_alpha": 8, "lora_dropout": 0.0})
    assert isinstance(rm, R.CausalLMRM)
    assert rm.tokenizer.pad_token == "</s>" and rm.module.model.config.pad_token_id == 2
    d = _pairs()
    trained = rm.train(d, objective="bt", lr=5e-3, epochs=10, batch_size=4, progress=False)
    acc = float((trained.prob_a(d, progress=False) > 0.5).eq(d.majority() == "A").mean())
    assert acc >= 0.9, acc
    # the LoRA adapter (with the score head) is what was saved, not a copy of the base weights
    import pluralign.cache as cache

    saved = [p for p in cache.cache_dir().rglob("adapter_model.safetensors")]
    assert saved, "LoRA adapter not saved"
    assert not list(saved[0].parent.glob("model.safetensors"))
    cfg = json.loads((saved[0].parent / "pluralign_rm.json").read_text())
    assert cfg["lora"]["r"] == 4 and cfg["base"] == str(tiny_llama)
    reloaded = R.load(saved[0].parent)
    np.testing.assert_allclose(
        reloaded.score(d, progress=False)[["reward_a", "reward_b"]].to_numpy(),
        trained.score(d, progress=False)[["reward_a", "reward_b"]].to_numpy(),
        atol=1e-5,
    )


def test_quantization_and_lora_on_a_non_causal_model_are_refused_with_a_clear_error():
    # 8-bit / 4-bit loading itself (CPU and CUDA) is tested in test_quantized.py and test_gpu_paths.py
    for option in ({"lora": True}, {"load_in_8bit": True}, {"load_in_4bit": True}):
        with pytest.raises(ValueError, match="apply to causal LMs"):
            R.load(R.default_encoder_path(), kind="seq-cls", **option)


def test_trust_remote_code_is_off_unless_asked(tmp_path):
    marker = tmp_path / "EXECUTED"
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "model_type": "sneaky-rm",
                "architectures": ["SneakyForSequenceClassification"],
                "auto_map": {
                    "AutoConfig": "configuration_sneaky.SneakyConfig",
                    "AutoModelForSequenceClassification": "modeling_sneaky.SneakyForSequenceClassification",
                },
            }
        )
    )
    code = (
        f"open({str(marker)!r}, 'w').write('ran')\nfrom transformers import PretrainedConfig\n"
        "class SneakyConfig(PretrainedConfig):\n    model_type = 'sneaky-rm'\n"
    )
    (tmp_path / "configuration_sneaky.py").write_text(code)
    (tmp_path / "modeling_sneaky.py").write_text(code)
    with pytest.raises(Exception, match="trust_remote_code"):
        R.load(tmp_path)
    assert not marker.exists()


def test_unknown_kind_and_texts_are_refused(tiny_bert_rm):
    with pytest.raises(ValueError, match="kind must be one of"):
        R.load(tiny_bert_rm, kind="svm")
    rm = R.load(tiny_bert_rm)
    with pytest.raises(TypeError, match="plain string"):
        rm.score(["just a string"], progress=False)


def test_a_fresh_reward_head_loads_without_a_load_report_but_a_missing_body_weight_warns(tmp_path, capfd):
    """A causal LM loaded as a scalar-reward classifier has a new ``score`` head and an unused ``lm_head``: that is
    the design, so no transformers load report reaches stderr (a rendered page would show it) and nothing warns;
    a checkpoint that lacks a weight of the body is a warning naming it."""
    import warnings

    from safetensors.torch import load_file, save_file

    from rm_helpers import tiny_llama_folder

    folder = tiny_llama_folder(tmp_path / "llama")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R.load(str(folder), kind="causal")
    err = capfd.readouterr().err
    assert "LOAD REPORT" not in err and "MISSING" not in err
    weights = folder / "model.safetensors"
    state = load_file(weights)
    gone = "model.layers.1.mlp.down_proj.weight"
    save_file({k: v for k, v in state.items() if k != gone}, weights, metadata={"format": "pt"})
    with pytest.warns(UserWarning, match=r"weight\(s\) of the model body newly initialized.*layers\.1\.mlp\.down_proj"):
        R.load(str(folder), kind="causal")

"""A rehearsal mirror: every Hub id a profile uses, written locally so that the profile runs
offline on CPU before anyone spends GPU hours on it.

``build_mirror(dir, profile="paper")`` (``pluralign mirror rehearsal DIR``) writes, under ``DIR/<owner>/<name>``
(the layout of ``huggingface-cli download <id> --local-dir DIR/<id>``, which :mod:`pluralign.mirror` reads):

- for every **model** id: a model of the real model's architecture class and tokenizer family (:data:`MODELS`:
  the real ``model_type``, ``architectures`` and the settings that change code paths, e.g. DeBERTa-v3's relative
  positions only), at a tiny size with seeded random weights, in safetensors; its tokenizer is trained here on
  simulator texts (SentencePiece unigram for DeBERTa-v3, WordPiece for ELECTRA, byte-level BPE with the Llama-3
  special tokens and chat template for Llama-3) — nothing is downloaded;
- for every **data set** id: files in that data set's Hub schema and file layout (:data:`DATASETS`), filled
  from the real files of ``../shared/data`` where the workplace has them (Anthropic/hh-rlhf harmless-base) and
  from :func:`pluralign.data.simulate` elsewhere, ``rows`` pairs per split (more where the profile holds out
  more: :data:`MIN_ROWS`).

Each folder gets a hidden ``.pluralign-rehearsal.json`` sidecar (a hidden file: neither ``datasets`` nor the
project's folder reader takes it for data) saying that it is a rehearsal artefact — random weights, simulated
or subsampled rows — and ``DIR/REHEARSAL.json`` indexes them. Numbers computed on this mirror are meaningless;
it exists to find typos, schema mismatches, missing options and CUDA-only code paths. Deterministic: the same
arguments write the same bytes.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["build_mirror", "build_model", "build_dataset", "MODELS", "DATASETS", "RehearsalError", "SIDECAR"]

SIDECAR = ".pluralign-rehearsal.json"
NOTE = "rehearsal artefact: random weights / simulated rows; numbers computed on it are meaningless"


class RehearsalError(ValueError):
    """An id the rehearsal mirror has no recipe for."""


@dataclass(frozen=True)
class Arch:
    """The real model's architecture (from its ``config.json`` on the Hub: ``source``) and the tiny stand-in's
    settings. ``architectures`` None: the real config names none (``AutoModel`` → ``base_class``)."""

    model_type: str
    base_class: str  # the transformers class the stand-in is built and saved with
    architectures: tuple | None  # as in the real config.json
    tokenizer: str  # tokenizer family: deberta-v3-spm | electra-wordpiece | llama3-bpe | xlmr-spm
    real_size: str  # the real model's size, for the sidecar
    source: str
    config: dict = field(default_factory=dict)  # real settings kept (they change code paths)


_DEBERTA_V3 = dict(
    relative_attention=True,
    position_biased_input=False,
    pos_att_type=["p2c", "c2p"],
    max_relative_positions=-1,
    position_buckets=256,
    norm_rel_ebd="layer_norm",
    share_att_key=True,
    type_vocab_size=0,
    max_position_embeddings=512,
    layer_norm_eps=1e-7,
    hidden_act="gelu",
    pooler_dropout=0,
    pooler_hidden_act="gelu",
)
_HUB = "https://huggingface.co/{}/blob/main/config.json"

#: id → the real architecture (facts from each model's config.json on the Hugging Face Hub, as recorded here
#: from the Hub pages; this machine cannot reach the Hub to re-check them)
MODELS: dict[str, Arch] = {
    "OpenAssistant/reward-model-deberta-v3-large-v2": Arch(
        "deberta-v2",
        "DebertaV2ForSequenceClassification",
        ("DebertaV2ForSequenceClassification",),
        "deberta-v3-spm",
        "DeBERTa-v3-large: 24 layers, hidden 1024, 16 heads, vocab 128100, 1 label",
        _HUB.format("OpenAssistant/reward-model-deberta-v3-large-v2"),
        {**_DEBERTA_V3, "num_labels": 1},
    ),
    "OpenAssistant/reward-model-deberta-v3-large": Arch(
        "deberta-v2",
        "DebertaV2ForSequenceClassification",
        ("DebertaV2ForSequenceClassification",),
        "deberta-v3-spm",
        "DeBERTa-v3-large: 24 layers, hidden 1024, 16 heads, vocab 128100, 1 label",
        _HUB.format("OpenAssistant/reward-model-deberta-v3-large"),
        {**_DEBERTA_V3, "num_labels": 1},
    ),
    "OpenAssistant/reward-model-deberta-v3-base": Arch(
        "deberta-v2",
        "DebertaV2ForSequenceClassification",
        ("DebertaV2ForSequenceClassification",),
        "deberta-v3-spm",
        "DeBERTa-v3-base: 12 layers, hidden 768, 12 heads, vocab 128100, 1 label",
        _HUB.format("OpenAssistant/reward-model-deberta-v3-base"),
        {**_DEBERTA_V3, "num_labels": 1},
    ),
    "OpenAssistant/reward-model-electra-large-discriminator": Arch(
        "electra",
        "ElectraForSequenceClassification",
        ("ElectraForSequenceClassification",),
        "electra-wordpiece",
        "ELECTRA-large discriminator: 24 layers, hidden 1024, 16 heads, vocab 30522 (uncased WordPiece), 1 label",
        _HUB.format("OpenAssistant/reward-model-electra-large-discriminator"),
        {"num_labels": 1, "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu"},
    ),
    "microsoft/deberta-v3-large": Arch(
        "deberta-v2",
        "DebertaV2Model",
        None,
        "deberta-v3-spm",
        "DeBERTa-v3-large encoder (no head): 24 layers, hidden 1024, 16 heads, vocab 128100; tokenizer as spm.model "
        "only (no tokenizer.json)",
        _HUB.format("microsoft/deberta-v3-large"),
        dict(_DEBERTA_V3),
    ),
    "meta-llama/Meta-Llama-3-8B-Instruct": Arch(
        "llama",
        "LlamaForCausalLM",
        ("LlamaForCausalLM",),
        "llama3-bpe",
        "Llama-3-8B-Instruct: 32 layers, hidden 4096, 32 heads / 8 KV heads, vocab 128256, rope_theta 500000, "
        "8192 positions, untied embeddings; tokenizer without a pad token",
        _HUB.format("meta-llama/Meta-Llama-3-8B-Instruct"),
        {
            "rope_theta": 500000.0,
            "max_position_embeddings": 8192,
            "tie_word_embeddings": False,
            "hidden_act": "silu",
            "rms_norm_eps": 1e-5,
            "attention_bias": False,
        },
    ),
    "BAAI/bge-m3": Arch(
        "xlm-roberta",
        "XLMRobertaModel",
        ("XLMRobertaModel",),
        "xlmr-spm",
        "XLM-RoBERTa-large encoder: 24 layers, hidden 1024, 16 heads, vocab 250002, 8194 positions; a "
        "sentence-transformers model (CLS pooling, normalized)",
        _HUB.format("BAAI/bge-m3"),
        {
            "max_position_embeddings": 8194,
            "type_vocab_size": 1,
            "layer_norm_eps": 1e-5,
            "hidden_act": "gelu",
            "position_embedding_type": "absolute",
        },
    ),
}

# the tiny stand-ins' sizes: two heads of 16 dimensions (the Llama stand-in keeps grouped-query attention with one
# key-value head); at four heads of 8, CPU attention took twice the time for the same work and was a third of a
# training page's time
TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
SCALE = 10.0  # the weight matrices' standard deviation: SCALE × the config's initializer_range
# At most this many pieces per tokenizer (SentencePiece takes fewer where the corpus has no more). Every stand-in's
# training and scoring time grows with the pieces per text (attention with their square): on real hh-rlhf
# conversations DeBERTa-v3's SentencePiece at 600 pieces, trained on simulated text only, cut a conversation into
# 307 pieces on average, at 4,000 with real conversations in the corpus 181 (a simulated text 125 -> 90); the
# Llama-3 BPE at 600 (344 merges over the 256 bytes) cut a simulated pair into ~120-240 tokens, at 2,000 ~55 (at
# 4,000 no shorter, and its random answers ran on for 5-150 tokens: the end-of-turn lift below competes with more
# tokens)
VOCAB = {"deberta-v3-spm": 4000, "electra-wordpiece": 4000, "llama3-bpe": 2000, "xlmr-spm": 4000}

LLAMA3_SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
# Meta-Llama-3-8B-Instruct's tokenizer_config.json chat template
LLAMA3_CHAT_TEMPLATE = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + "
    "message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)


# ---------------------------------------------------------------------------------------------
# texts (the tokenizers' training corpus and the simulated data sets)
# ---------------------------------------------------------------------------------------------
def _simulated(n: int, seed: int, fmt: str = "multipref", n_annotators: int = 4):
    from pluralign.data.simulate import simulate

    return simulate(n_pairs=n, seed=seed, annotation_format=fmt, n_annotators=n_annotators, n_monte_carlo=200)


#: real conversations in the tokenizers' corpus (where the workplace has the shared hh-rlhf file)
CORPUS_REAL_ROWS = 1300


@functools.lru_cache(maxsize=4)
def _corpus(seed: int) -> tuple[str, ...]:
    """The tokenizers' training texts: simulator texts, a few formats the pages write, and the first
    :data:`CORPUS_REAL_ROWS` real hh-rlhf conversations where the workplace has them (the mirror's hh-rlhf rows are
    real: a tokenizer trained on simulated text alone cut them into ~2x the pieces)."""
    from pluralign.data.io import shared_data_dir

    d = _simulated(200, seed)
    real = shared_data_dir() / "hh-rlhf" / "harmless-base-test.jsonl.gz"
    hh = []
    if real.exists():
        lines = gzip.decompress(real.read_bytes()).decode("utf-8").split("\n")
        hh = [json.loads(ln)["chosen"] for ln in lines[:CORPUS_REAL_ROWS] if ln.strip()]
    extra = [
        "Human: which answer is better? Assistant: Answer A.",
        "SUBREDDIT: r/AskReddit TITLE: a question POST:",
        "TL;DR: Choice: A B tie",
        '{"helpful": true, "harmless": false, "topic": "science"}',
        "0 1 2 3 4 5 6 7 8 9 10 100 A B C D E F",
        "I am going to give you a prompt and two answers.",
    ]
    return (
        tuple(extra * 5)
        + tuple(d.pairs["prompt"])
        + tuple(d.pairs["response_a"])
        + tuple(d.pairs["response_b"])
        + tuple(hh)
    )


# ---------------------------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------------------------
def _deberta_tokenizer(folder: Path, corpus: list[str]) -> int:
    """A SentencePiece unigram model in DeBERTa-v3's layout: ``spm.model`` + ``tokenizer_config.json`` (ids 0-3 =
    [PAD] [CLS] [SEP] [UNK], as in the real spm.model); transformers converts it when it loads."""
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus),
        model_writer=buf,
        vocab_size=VOCAB["deberta-v3-spm"],
        model_type="unigram",
        pad_id=0,
        bos_id=1,
        eos_id=2,
        unk_id=3,
        pad_piece="[PAD]",
        bos_piece="[CLS]",
        eos_piece="[SEP]",
        unk_piece="[UNK]",
        user_defined_symbols=["[MASK]"],
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
        split_digits=True,
        hard_vocab_limit=False,
    )
    (folder / "spm.model").write_bytes(buf.getvalue())
    special = {
        "bos_token": "[CLS]",
        "eos_token": "[SEP]",
        "unk_token": "[UNK]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "mask_token": "[MASK]",
    }
    _json(
        folder / "tokenizer_config.json",
        {
            "do_lower_case": False,
            "vocab_type": "spm",
            "split_by_punct": False,
            "tokenizer_class": "DebertaV2Tokenizer",
            **special,
        },
    )
    _json(folder / "special_tokens_map.json", special)
    import transformers

    return len(transformers.AutoTokenizer.from_pretrained(folder))


def _electra_tokenizer(folder: Path, corpus: list[str]) -> int:
    """An uncased WordPiece ``vocab.txt`` (ELECTRA's / BERT's layout) + ``tokenizer_config.json``."""
    from tokenizers import BertWordPieceTokenizer

    wp = BertWordPieceTokenizer(lowercase=True)
    wp.train_from_iterator(
        corpus,
        vocab_size=VOCAB["electra-wordpiece"],
        show_progress=False,
        special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    )
    vocab = sorted(wp.get_vocab().items(), key=lambda kv: kv[1])
    (folder / "vocab.txt").write_text("".join(t + "\n" for t, _ in vocab), encoding="utf-8")
    _json(
        folder / "tokenizer_config.json",
        {
            "do_lower_case": True,
            "tokenizer_class": "ElectraTokenizer",
            "model_max_length": 512,
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        },
    )
    return len(vocab)


def _xlmr_tokenizer(folder: Path, corpus: list[str]) -> int:
    """A SentencePiece model in XLM-RoBERTa's layout (``sentencepiece.bpe.model``; the tokenizer adds fairseq's
    offset: <s> 0, <pad> 1, </s> 2, <unk> 3, <mask> last) + ``tokenizer_config.json``."""
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus),
        model_writer=buf,
        vocab_size=VOCAB["xlmr-spm"],
        model_type="unigram",
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=-1,
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
        hard_vocab_limit=False,
    )
    (folder / "sentencepiece.bpe.model").write_bytes(buf.getvalue())
    special = {
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "sep_token": "</s>",
        "pad_token": "<pad>",
        "cls_token": "<s>",
        "mask_token": "<mask>",
    }
    _json(
        folder / "tokenizer_config.json",
        {"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 8192, **special},
    )
    _json(folder / "special_tokens_map.json", special)
    import transformers

    return len(transformers.AutoTokenizer.from_pretrained(folder))


def _sentence_transformer_files(folder: Path, hidden: int) -> None:
    """bge-m3's sentence-transformers layout: Transformer → CLS pooling → L2 normalization."""
    _json(
        folder / "modules.json",
        [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ],
    )
    _json(folder / "sentence_bert_config.json", {"max_seq_length": 8192, "do_lower_case": False})
    (folder / "1_Pooling").mkdir(exist_ok=True)
    _json(
        folder / "1_Pooling" / "config.json",
        {
            "word_embedding_dimension": hidden,
            "pooling_mode_cls_token": True,
            "pooling_mode_mean_tokens": False,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
        },
    )
    (folder / "2_Normalize").mkdir(exist_ok=True)


def _llama3_tokenizer(folder: Path, corpus: list[str]) -> int:
    """A byte-level BPE ``tokenizer.json`` (``PreTrainedTokenizerFast``, as Llama-3's) with Llama-3's special
    tokens, BOS ``<|begin_of_text|>``, EOS ``<|eot_id|>``, no pad token, and the Instruct chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB["llama3-bpe"],
        special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer)
    bpe.add_special_tokens(LLAMA3_SPECIAL)
    bos = bpe.token_to_id("<|begin_of_text|>")
    bpe.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A",
        pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
        special_tokens=[("<|begin_of_text|>", bos)],
    )
    tok = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>", model_max_length=8192
    )
    tok.chat_template = LLAMA3_CHAT_TEMPLATE
    tok.save_pretrained(folder)
    return len(tok)


#: the end-of-turn logit lift of the rehearsal Llama (:func:`_ends_its_answers`)
EOS_LIFT = 12.0


def _ends_its_answers(model, tok) -> None:
    """Make the random Llama end its answers as a chat model does: a random model never samples ``<|eot_id|>``,
    so every request would run to ``max_tokens`` (512 tokens × every labelling attempt: most of a rehearsal's
    time, and unlike any real endpoint). Hidden channel 0 is made a constant of the residual stream (every token
    embedding holds the same value there, no layer writes to it) and only the two end tokens read it in the output
    layer, so their logits get a lift of about :data:`EOS_LIFT` at every position: answers end within a few tokens
    (measured on 12 greedy and sampled answers with two heads and 2,005 tokens: all ended after 1 or 2 tokens; with
    four heads, within 24; at a lift of 10, one in 12 still ran to the limit, and those dominated a labelling
    job's time). The other weights stay random; the
    answers stay garbage: empty or unparseable, which the pages must report as failed labels."""
    import torch

    ends = [tok.convert_tokens_to_ids(t) for t in ("<|end_of_text|>", "<|eot_id|>")]
    with torch.no_grad():
        emb = model.model.embed_tokens.weight
        emb[:, 0] = 3 * float(emb[:, 1:].std())
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0, :] = 0
            layer.mlp.down_proj.weight[0, :] = 0
        model.lm_head.weight[:, 0] = 0
        model.lm_head.weight[ends, 0] = EOS_LIFT


def build_model(hub_id: str, root: str | Path, *, seed: int = 0) -> Path:
    """Write the tiny random-weights stand-in of model ``hub_id`` under ``root/<hub_id>`` (see :data:`MODELS`)."""
    import torch
    import transformers

    arch = MODELS.get(hub_id)
    if arch is None:
        raise RehearsalError(
            f"no rehearsal recipe for model id {hub_id!r}: add its real architecture to "
            f"pluralign.book.rehearsal.MODELS (known: {', '.join(sorted(MODELS))})"
        )
    folder = Path(root) / hub_id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    corpus = _corpus(seed)
    vocab = {
        "deberta-v3-spm": _deberta_tokenizer,
        "electra-wordpiece": _electra_tokenizer,
        "llama3-bpe": _llama3_tokenizer,
        "xlmr-spm": _xlmr_tokenizer,
    }[arch.tokenizer](folder, corpus)
    cfg_cls = transformers.AutoConfig.for_model(arch.model_type).__class__
    kw = dict(TINY, vocab_size=vocab, **arch.config)
    if arch.model_type == "llama":
        tok = transformers.AutoTokenizer.from_pretrained(folder)
        kw.update(num_key_value_heads=1, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    elif arch.model_type == "xlm-roberta":
        kw.update(pad_token_id=1, bos_token_id=0, eos_token_id=2)
    elif arch.model_type == "electra":
        kw.update(embedding_size=TINY["hidden_size"], pad_token_id=0)
    else:
        kw.update(pooler_hidden_size=TINY["hidden_size"], pad_token_id=0)
    config = cfg_cls(**kw)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = getattr(transformers, arch.base_class)(config)
    with torch.no_grad():  # × SCALE: at std 0.02 a 2-layer model gives every input the same reward (to 3 decimals)
        for w in model.parameters():
            if w.dim() >= 2:
                w.mul_(SCALE)
        if arch.model_type == "llama":
            _ends_its_answers(model, transformers.AutoTokenizer.from_pretrained(folder))
    model.save_pretrained(folder, safe_serialization=True)
    cfg_path = folder / "config.json"
    cfg = json.loads(cfg_path.read_text())
    if arch.architectures is None:
        cfg.pop("architectures", None)  # as the real config.json: AutoModel picks the base model
    cfg.pop("transformers_version", None)  # the same bytes whatever the installed version
    _json(cfg_path, cfg)
    if arch.model_type == "xlm-roberta":
        _sentence_transformer_files(folder, TINY["hidden_size"])
    if arch.model_type == "llama":
        gen = folder / "generation_config.json"
        g = json.loads(gen.read_text()) if gen.exists() else {}
        tok = transformers.AutoTokenizer.from_pretrained(folder)
        g.update(
            bos_token_id=tok.bos_token_id,
            do_sample=True,
            temperature=0.6,
            top_p=0.9,
            eos_token_id=[tok.convert_tokens_to_ids("<|end_of_text|>"), tok.convert_tokens_to_ids("<|eot_id|>")],
        )
        g.pop("transformers_version", None)
        _json(gen, g)
    _sidecar(
        folder,
        {
            "kind": "model",
            "id": hub_id,
            "model_type": arch.model_type,
            "architectures": list(arch.architectures) if arch.architectures else None,
            "class": arch.base_class,
            "tokenizer": arch.tokenizer,
            "vocab_size": vocab,
            "size": {k: v for k, v in TINY.items()},
            "real": arch.real_size,
            "source": arch.source,
            "weights": f"random: the model's own init under torch.manual_seed({seed}), matrices × {SCALE:g}",
        },
    )
    return folder


# ---------------------------------------------------------------------------------------------
# data sets (each writer: folder, rows, seed → sidecar notes)
# ---------------------------------------------------------------------------------------------
def _jsonl_gz(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    path.write_bytes(gzip.compress(data, mtime=0))


def _jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def _parquet(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame.from_records(records).to_parquet(path, index=False)


def _readme(folder: Path, hub_id: str, configs: list[dict] | None = None) -> None:
    """A dataset card; ``configs`` (the Hub's YAML ``configs:``) where the real card declares named configs."""
    head = ""
    if configs:
        lines = ["---", "configs:"]
        for c in configs:
            lines.append(f"- config_name: {c['name']}")
            lines.append("  data_files:")
            for split, pattern in c["files"].items():
                lines += [f"  - split: {split}", f"    path: {pattern}"]
        head = "\n".join(lines + ["---", ""]) + "\n"
    (folder / "README.md").write_text(f"{head}# {hub_id} (pluralign rehearsal mirror)\n\n{NOTE}.\n", encoding="utf-8")


def _sim_pairs(n: int, seed: int, fmt="multipref", n_annotators=4):
    d = _simulated(n, seed, fmt, n_annotators)
    groups = {k: g for k, g in d.annotations.groupby("pair_id", sort=False)}
    return d, [(r, groups[r.pair_id]) for r in d.pairs.itertuples()]


def _hh_rlhf(folder: Path, rows: int, seed: int) -> dict:
    """Anthropic/hh-rlhf: ``<data_dir>/{train,test}.jsonl.gz`` of ``{"chosen", "rejected"}`` dialogues.
    harmless-base from the real shared file (its test rows; ``train`` gets the next ``rows`` of them),
    helpful-base from the simulator in the same dialogue format."""
    from pluralign.data.io import shared_data_dir

    real = shared_data_dir() / "hh-rlhf" / "harmless-base-test.jsonl.gz"
    notes = {}
    if real.exists():
        lines = [ln for ln in gzip.decompress(real.read_bytes()).decode("utf-8").split("\n") if ln.strip()]
        recs = [json.loads(ln) for ln in lines[: 2 * rows]]
        _jsonl_gz(folder / "harmless-base" / "test.jsonl.gz", recs[:rows])
        _jsonl_gz(folder / "harmless-base" / "train.jsonl.gz", recs[rows:])
        notes["harmless-base"] = (
            f"real rows of {real.name} (anthropics/hh-rlhf): test = its rows 1-{rows}, "
            f"train = its rows {rows + 1}-{2 * rows} (the real train file is not in the workplace)"
        )
        sim_dirs = ["helpful-base"]
    else:
        sim_dirs = ["harmless-base", "helpful-base"]
    for k, sub in enumerate(sim_dirs):
        for j, split in enumerate(("train", "test")):
            d, items = _sim_pairs(rows, seed + 10 * k + j + 1)
            recs = []
            for r, g in items:
                first = int(g["preference"].iat[0])
                a_wins = first <= 0
                hist = f"\n\nHuman: {r.prompt}\n\nAssistant:"
                c, x = (r.response_a, r.response_b) if a_wins else (r.response_b, r.response_a)
                recs.append({"chosen": f"{hist} {c}", "rejected": f"{hist} {x}"})
            _jsonl_gz(folder / sub / f"{split}.jsonl.gz", recs)
        notes[sub] = "simulated (pluralign.data.simulate): chosen = the first simulated annotator's choice"
    return notes


MP_LABELS = {
    -2: "A-is-clearly-better",
    -1: "A-is-slightly-better",
    0: "Tie",
    1: "B-is-slightly-better",
    2: "B-is-clearly-better",
}


def _multipref(folder: Path, rows: int, seed: int) -> dict:
    """allenai/multipref: ``data/train-00000-of-00001.parquet``; two normal and two expert annotators per pair."""
    d, items = _sim_pairs(rows, seed, "multipref", 4)
    recs = []
    for r, g in items:
        ann = []
        for k, (ev, p) in enumerate(zip(g["annotator_id"], g["preference"])):
            lab = MP_LABELS[int(p)]
            ann.append(
                {
                    "evaluator": ev,
                    "overall_pref": lab,
                    "helpful_pref": lab,
                    "truthful_pref": lab,
                    "harmless_pref": lab,
                    "overall_confidence": "confident",
                    "time_spent": 60 + k,
                }
            )
        recs.append(
            {
                "comparison_id": r.pair_id,
                "prompt_id": f"p-{r.pair_id}",
                "text": r.prompt,
                "model_a": "sim-model-a",
                "completion_a": r.response_a,
                "model_b": "sim-model-b",
                "completion_b": r.response_b,
                "source": "simulated",
                "category": "Open QA",
                "subject_study": "",
                "highest_level_degree": "",
                "normal_worker_annotations": ann[:2],
                "expert_worker_annotations": ann[2:],
            }
        )
    _parquet(folder / "data" / "train-00000-of-00001.parquet", recs)
    return {"train": "simulated (pluralign.data.simulate, MultiPref format): 2 normal + 2 expert annotators"}


def _helpsteer2(folder: Path, rows: int, seed: int) -> dict:
    """nvidia/HelpSteer2: ``train.jsonl.gz``, ``validation.jsonl.gz`` (one aggregated score per attribute) and
    ``disagreements/disagreements.jsonl.gz`` (a list of scores, one per annotator); the two responses to a prompt
    are consecutive rows; scores 0-4."""
    attrs = ("helpfulness", "correctness", "coherence", "complexity", "verbosity")

    def records(n, s, per_annotator):
        d, items = _sim_pairs(n, s, "helpsteer2", 3)
        out = []
        for r, g in items:
            la, lb = (g["likert_a"].astype(int) - 1).tolist(), (g["likert_b"].astype(int) - 1).tolist()
            for text, sc in ((r.response_a, la), (r.response_b, lb)):
                v = sc if per_annotator else int(round(float(np.mean(sc))))
                out.append({"prompt": r.prompt, "response": text, **{a: v for a in attrs}})
        return out

    small = max(min(rows, 200) // 2, 1)  # the main set: no page of the paper profile reads it
    _jsonl_gz(folder / "train.jsonl.gz", records(small, seed + 1, False))
    _jsonl_gz(folder / "validation.jsonl.gz", records(max(small // 4, 1), seed + 2, False))
    _jsonl_gz(folder / "disagreements" / "disagreements.jsonl.gz", records(rows, seed, True))
    return {
        "disagreements": "simulated (HelpSteer2 format, 3 annotators, every attribute = the simulated "
        "helpfulness Likert score - 1)",
        "train/validation": "simulated, mean score",
    }


def _prism(folder: Path, rows: int, seed: int) -> dict:
    """HannahKirk/prism-alignment: ``utterances.jsonl`` behind the card's ``utterances`` config (the real repo
    also has survey / conversations / metadata, which no loader here reads: not written)."""
    d, items = _sim_pairs(rows, seed, "multipref", 1)
    recs = []
    for i, (r, g) in enumerate(items):
        p = int(g["preference"].iat[0])
        conv = f"c{i // 2}"
        turn = i % 2
        for k, (text, chosen) in enumerate(((r.response_a, p <= 0), (r.response_b, p > 0))):
            recs.append(
                {
                    "utterance_id": f"{r.pair_id}-{k}",
                    "conversation_id": conv,
                    "turn": turn,
                    "within_turn_id": k,
                    "user_id": g["annotator_id"].iat[0],
                    "user_prompt": r.prompt,
                    "model_response": text,
                    "model_name": f"sim-model-{k}",
                    "model_provider": "simulated",
                    "score": 80 if chosen else 40 - 10 * abs(p),
                    "if_chosen": bool(chosen),
                    "included_in_balanced_subset": True,
                }
            )
    _jsonl(folder / "utterances.jsonl", recs)
    _readme(folder, "HannahKirk/prism-alignment", [{"name": "utterances", "files": {"train": "utterances.jsonl"}}])
    return {"utterances": "simulated: one conversation turn per simulated pair, chosen by its annotator"}


def _ultrafeedback(folder: Path, rows: int, seed: int) -> dict:
    """openbmb/UltraFeedback: one JSON Lines file per prompt source (``evol_instruct.jsonl``, ...), each row an
    instruction with its completions and their GPT-4 scores (here two completions per instruction)."""
    d, items = _sim_pairs(rows, seed, "helpsteer2", 1)
    by_src = {"evol_instruct": [], "sharegpt": []}
    for i, (r, g) in enumerate(items):
        src = "evol_instruct" if i % 2 == 0 else "sharegpt"
        comps = []
        for text, s in ((r.response_a, g["likert_a"].iat[0]), (r.response_b, g["likert_b"].iat[0])):
            s = float(s)
            comps.append(
                {
                    "model": "sim-model",
                    "principle": "helpfulness",
                    "custom_system_prompt": "",
                    "response": text,
                    "fine-grained_score": s,
                    "overall_score": 2 * s,
                    "critique": "",
                }
            )
        by_src[src].append(
            {
                "source": src,
                "instruction": r.prompt,
                "models": ["sim-model", "sim-model"],
                "completions": comps,
                "correct_answers": ["None"],
                "incorrect_answers": ["None"],
            }
        )
    for src, recs in by_src.items():
        _jsonl(folder / f"{src}.jsonl", recs)
    return {"train": "simulated: fine-grained_score = the simulated Likert score (1-5), two completions each"}


def _webgpt(folder: Path, rows: int, seed: int) -> dict:
    """openai/webgpt_comparisons: ``data/train-00000-of-00001.parquet`` (the Hub's parquet conversion of the
    loading script's data): question, quotes_0/1, answer_0/1, tokens_0/1, score_0/1 (score_1 = -score_0)."""
    d, items = _sim_pairs(rows, seed, "multipref", 1)
    recs = []
    for i, (r, g) in enumerate(items):
        s1 = float(g["preference"].iat[0]) / 2
        recs.append(
            {
                "question": {"dataset": "eli5", "id": r.pair_id, "full_text": r.prompt},
                "quotes_0": {"title": ["sim"], "extract": ["sim"]},
                "answer_0": r.response_a,
                "tokens_0": [],
                "score_0": -s1,
                "quotes_1": {"title": ["sim"], "extract": ["sim"]},
                "answer_1": r.response_b,
                "tokens_1": [],
                "score_1": s1,
            }
        )
    _parquet(folder / "data" / "train-00000-of-00001.parquet", recs)
    return {"train": "simulated: score_1 = the simulated annotator's preference / 2"}


def _summarize(folder: Path, rows: int, seed: int) -> dict:
    """openai/summarize_from_feedback: the ``comparisons`` config (``comparisons/{train,validation}-*.parquet``,
    the Hub's parquet conversion) behind the card's ``configs:``; rows info / summaries / choice / worker / split /
    batch / extra."""
    for j, split in enumerate(("train", "validation")):
        d, items = _sim_pairs(rows, seed + j, "multipref", 2)
        recs = []
        for r, g in items:
            for w, p in zip(g["annotator_id"], g["preference"]):
                recs.append(
                    {
                        "info": {
                            "id": r.pair_id,
                            "post": r.prompt,
                            "title": "a question",
                            "subreddit": "sim",
                            "site": None,
                            "article": None,
                        },
                        "summaries": [
                            {"text": r.response_a, "policy": "sim-a", "note": None},
                            {"text": r.response_b, "policy": "sim-b", "note": None},
                        ],
                        "choice": int(p > 0),
                        "worker": w,
                        "batch": "batch1",
                        "split": split,
                        "extra": {"confidence": 5},
                    }
                )
        _parquet(folder / "comparisons" / f"{split}-00000-of-00001.parquet", recs)
    _readme(
        folder,
        "openai/summarize_from_feedback",
        [{"name": "comparisons", "files": {"train": "comparisons/train-*", "validation": "comparisons/validation-*"}}],
    )
    return {"comparisons": "simulated: two workers per pair, choice = each one's side (a tie counts for A)"}


def _gptj(folder: Path, rows: int, seed: int) -> dict:
    """Dahoas/synthetic-instruct-gptj-pairwise: ``data/train-00000-of-00001.parquet`` of prompt/chosen/rejected."""
    d, items = _sim_pairs(rows, seed, "multipref", 1)
    recs = []
    for r, g in items:
        a_wins = int(g["preference"].iat[0]) <= 0
        c, x = (r.response_a, r.response_b) if a_wins else (r.response_b, r.response_a)
        recs.append({"prompt": r.prompt, "chosen": c, "rejected": x})
    _parquet(folder / "data" / "train-00000-of-00001.parquet", recs)
    return {"train": "simulated: chosen = the simulated annotator's choice"}


#: data set id → (writer, the pluralign.load calls that must read it, with their options)
DATASETS: dict[str, tuple] = {
    "Anthropic/hh-rlhf": (
        _hh_rlhf,
        ("hh-rlhf", [{"split": "train"}, {"split": "test"}, {"data_dir": "harmless-base", "split": "test"}]),
    ),
    "allenai/multipref": (_multipref, ("multipref", [{}])),
    "nvidia/HelpSteer2": (_helpsteer2, ("helpsteer2", [{"subset": "disagreements"}, {"subset": "main"}])),
    "HannahKirk/prism-alignment": (_prism, ("prism", [{}])),
    "openbmb/UltraFeedback": (_ultrafeedback, ("ultrafeedback", [{}])),
    "openai/webgpt_comparisons": (_webgpt, ("webgpt", [{}])),
    "openai/summarize_from_feedback": (
        _summarize,
        ("summarize-from-feedback", [{"split": "train"}, {"split": "validation"}]),
    ),
    "Dahoas/synthetic-instruct-gptj-pairwise": (_gptj, ("synthetic-instruct-gptj-pairwise", [{}])),
}


#: data sets that the paper profile splits by count: at least this many pairs, whatever ``rows`` says (Diverging
#: Preferences §3 holds out 500 test pairs per data set, and params/paper/diverging-study.yml and cross-study.yml
#: another 500 for validation: 1,000 held out plus a training side)
MIN_ROWS = {
    "allenai/multipref": 1200,
    "nvidia/HelpSteer2": 1200,
    # Beyond the Binary trains on four sets pooled (webgpt, hh-rlhf, summarize, gptj) and holds out 2,000 of
    # them for validation (btb-rewards.yml): three of them carry it, so that a few hundred pairs are left to
    # train on. hh-rlhf keeps the rows asked for: SEAL's D is its train split, and every entry of D is
    # labelled by three LM-labellers (at 650 rows, 2,600 entries: most of the SEAL pages' time)
    "openai/webgpt_comparisons": 750,
    "openai/summarize_from_feedback": 750,
    "Dahoas/synthetic-instruct-gptj-pairwise": 750,
}


def build_dataset(hub_id: str, root: str | Path, *, rows: int = 200, seed: int = 0) -> Path:
    """Write data set ``hub_id`` in its Hub layout under ``root/<hub_id>`` (see :data:`DATASETS`): ``rows`` pairs
    per split (:data:`MIN_ROWS` at least)."""
    if hub_id not in DATASETS:
        raise RehearsalError(
            f"no rehearsal recipe for data set id {hub_id!r}: add a writer in its Hub layout to "
            f"pluralign.book.rehearsal.DATASETS (known: {', '.join(sorted(DATASETS))})"
        )
    if rows < 2:
        raise ValueError(f"rows must be at least 2, got {rows}")
    folder = Path(root) / hub_id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    writer, (name, calls) = DATASETS[hub_id]
    rows = max(rows, MIN_ROWS.get(hub_id, 0))
    notes = writer(folder, rows, seed)
    _sidecar(
        folder,
        {
            "kind": "dataset",
            "id": hub_id,
            "loader": name,
            "rows_per_split": rows,
            "contents": notes,
            "layout": (writer.__doc__ or "").split(":", 1)[-1].strip().split("\n")[0],
        },
    )
    return folder


def build_mirror(
    root: str | Path, profile: str = "paper", *, rows: int = 200, seed: int = 0, ids: dict | None = None
) -> dict:
    """Every model and data set id of ``profile`` (:func:`pluralign.book.mirror.profile_ids`) under ``root``.
    An id without a recipe is refused before anything is written. Returns (and writes as
    ``root/REHEARSAL.json``) ``{"profile", "models": {id: folder}, "datasets": {id: folder}, "endpoints"}``."""
    from pluralign.book.mirror import profile_ids

    ids = ids or profile_ids(profile)
    unknown = [m for m in ids.get("models", []) if m not in MODELS] + [
        d for d in ids.get("datasets", []) if d not in DATASETS
    ]
    if unknown:
        raise RehearsalError(
            f"the {profile!r} profile uses {', '.join(map(repr, unknown))}, for which the rehearsal "
            "mirror has no recipe: add the real architecture to pluralign.book.rehearsal.MODELS "
            "or a writer in the Hub layout to DATASETS"
        )
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    out = {
        "profile": profile,
        "note": NOTE,
        "rows_per_split": rows,
        "seed": seed,
        "models": {m: str(build_model(m, root, seed=seed).relative_to(root)) for m in ids.get("models", [])},
        "datasets": {
            d: str(build_dataset(d, root, rows=rows, seed=seed).relative_to(root)) for d in ids.get("datasets", [])
        },
        "endpoints": list(ids.get("endpoints", [])),
    }
    _json(root / "REHEARSAL.json", out)
    return out


def _json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def _sidecar(folder: Path, info: dict) -> None:
    _json(folder / SIDECAR, {"rehearsal": True, "note": NOTE, "generator": "pluralign.book.rehearsal", **info})


def main(argv: list[str] | None = None) -> int:
    """``pluralign mirror rehearsal DIR [--profile paper] [--rows N] [--seed S]``."""
    import argparse

    p = argparse.ArgumentParser(prog="pluralign mirror rehearsal")
    p.add_argument("dir")
    p.add_argument("--profile", default="paper")
    p.add_argument("--rows", type=int, default=200, help="pairs per split of each data set (MIN_ROWS at least)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        out = build_mirror(a.dir, a.profile, rows=a.rows, seed=a.seed)
    except RehearsalError as e:
        import sys

        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"# rehearsal mirror of the '{a.profile}' profile in {a.dir} ({NOTE}); use it with")
    print(f"export PLURALIGN_MIRROR={os.path.abspath(a.dir)} HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1")
    for kind in ("models", "datasets"):
        for k, v in out[kind].items():
            print(f"{kind[:-1]:8s} {k}")
    return 0

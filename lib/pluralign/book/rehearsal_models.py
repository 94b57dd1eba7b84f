"""The rehearsal mirror's models: tiny random-weight stand-ins of the real architectures, with tokenizers
trained here on simulator texts (:func:`build_model`; :data:`MODELS` names each real model's architecture).
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pluralign.book.rehearsal_artefacts import RehearsalError, simulated, write_json, write_sidecar


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


DEBERTA_V3 = dict(
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
        {**DEBERTA_V3, "num_labels": 1},
    ),
    "OpenAssistant/reward-model-deberta-v3-large": Arch(
        "deberta-v2",
        "DebertaV2ForSequenceClassification",
        ("DebertaV2ForSequenceClassification",),
        "deberta-v3-spm",
        "DeBERTa-v3-large: 24 layers, hidden 1024, 16 heads, vocab 128100, 1 label",
        _HUB.format("OpenAssistant/reward-model-deberta-v3-large"),
        {**DEBERTA_V3, "num_labels": 1},
    ),
    "OpenAssistant/reward-model-deberta-v3-base": Arch(
        "deberta-v2",
        "DebertaV2ForSequenceClassification",
        ("DebertaV2ForSequenceClassification",),
        "deberta-v3-spm",
        "DeBERTa-v3-base: 12 layers, hidden 768, 12 heads, vocab 128100, 1 label",
        _HUB.format("OpenAssistant/reward-model-deberta-v3-base"),
        {**DEBERTA_V3, "num_labels": 1},
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
        dict(DEBERTA_V3),
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


#: real conversations in the tokenizers' corpus (where the workplace has the shared hh-rlhf file)
CORPUS_REAL_ROWS = 1300


@functools.lru_cache(maxsize=4)
def _corpus(seed: int) -> tuple[str, ...]:
    """The tokenizers' training texts: simulator texts, a few formats the pages write, and the first
    :data:`CORPUS_REAL_ROWS` real hh-rlhf conversations where the workplace has them (the mirror's hh-rlhf rows are
    real: a tokenizer trained on simulated text alone cut them into ~2x the pieces)."""
    from pluralign.data.io import shared_data_dir

    d = simulated(200, seed)
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


def _spm_tokenizer(
    folder: Path, corpus: list[str], *, vocab: str, model_file: str, ids: dict, config: dict, special: dict, **extra
) -> int:
    """A SentencePiece unigram model of ``VOCAB[vocab]`` pieces trained on ``corpus`` with the family's special
    ``ids`` (and ``extra`` trainer options), written as ``model_file`` beside ``tokenizer_config.json``
    (``config`` and the ``special`` tokens) and ``special_tokens_map.json``; the vocabulary size transformers
    loads."""
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus),
        model_writer=buf,
        vocab_size=VOCAB[vocab],
        model_type="unigram",
        **ids,
        character_coverage=1.0,
        num_threads=1,
        minloglevel=2,
        **extra,
        hard_vocab_limit=False,
    )
    (folder / model_file).write_bytes(buf.getvalue())
    write_json(folder / "tokenizer_config.json", {**config, **special})
    write_json(folder / "special_tokens_map.json", special)
    import transformers

    return len(transformers.AutoTokenizer.from_pretrained(folder))


def _deberta_tokenizer(folder: Path, corpus: list[str]) -> int:
    """A SentencePiece unigram model in DeBERTa-v3's layout: ``spm.model`` + ``tokenizer_config.json`` (ids 0-3 =
    [PAD] [CLS] [SEP] [UNK], as in the real spm.model); transformers converts it when it loads."""
    return _spm_tokenizer(
        folder,
        corpus,
        vocab="deberta-v3-spm",
        model_file="spm.model",
        ids=dict(
            pad_id=0,
            bos_id=1,
            eos_id=2,
            unk_id=3,
            pad_piece="[PAD]",
            bos_piece="[CLS]",
            eos_piece="[SEP]",
            unk_piece="[UNK]",
            user_defined_symbols=["[MASK]"],
        ),
        config={
            "do_lower_case": False,
            "vocab_type": "spm",
            "split_by_punct": False,
            "tokenizer_class": "DebertaV2Tokenizer",
        },
        special={
            "bos_token": "[CLS]",
            "eos_token": "[SEP]",
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        },
        split_digits=True,
    )


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
    write_json(
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
    return _spm_tokenizer(
        folder,
        corpus,
        vocab="xlmr-spm",
        model_file="sentencepiece.bpe.model",
        ids=dict(unk_id=0, bos_id=1, eos_id=2, pad_id=-1),
        config={"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 8192},
        special={
            "bos_token": "<s>",
            "eos_token": "</s>",
            "unk_token": "<unk>",
            "sep_token": "</s>",
            "pad_token": "<pad>",
            "cls_token": "<s>",
            "mask_token": "<mask>",
        },
    )


def _sentence_transformer_files(folder: Path, hidden: int) -> None:
    """bge-m3's sentence-transformers layout: Transformer → CLS pooling → L2 normalization."""
    write_json(
        folder / "modules.json",
        [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ],
    )
    write_json(folder / "sentence_bert_config.json", {"max_seq_length": 8192, "do_lower_case": False})
    (folder / "1_Pooling").mkdir(exist_ok=True)
    write_json(
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


def _tiny_config(arch: Arch, vocab: int, folder: Path):
    """The stand-in's config: the real model type and the settings that change code paths (``arch.config``), at
    the :data:`TINY` size with the trained tokenizer's ``vocab`` and special tokens."""
    import transformers

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
    return cfg_cls(**kw)


def _llama_generation_config(folder: Path) -> None:
    """Llama-3-Instruct's sampling settings and both end tokens in the stand-in's ``generation_config.json``."""
    import transformers

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
    write_json(gen, g)


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
    config = _tiny_config(arch, vocab, folder)
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
    write_json(cfg_path, cfg)
    if arch.model_type == "xlm-roberta":
        _sentence_transformer_files(folder, TINY["hidden_size"])
    if arch.model_type == "llama":
        _llama_generation_config(folder)
    write_sidecar(
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

"""A tiny Llama-3-style chat reward model for the tests: Llama-3's special tokens, BOS ``<|begin_of_text|>`` added
by the tokenizer, Meta-Llama-3-8B-Instruct's chat template (every rendered text ends with ``<|eot_id|>``), EOS
``<|eot_id|>`` and pad == EOS (what a Llama-3 tokenizer without a pad token gets, here and in TRL); built offline with
``tokenizers`` (a word-level vocabulary) and a random two-layer Llama. Tiny Gemma-2 and Mistral configs share the
tokenizer."""

from __future__ import annotations

from pathlib import Path

from pluralign.book.rehearsal_models import LLAMA3_CHAT_TEMPLATE, LLAMA3_SPECIAL
from rm_helpers import TINY_WORDS


def chat_tokenizer(pad_token: str | None = "<|eot_id|>", extra: tuple[str, ...] = ()):
    """The Llama-3-style fast tokenizer; ``pad_token`` None: none (Llama-3-Instruct's own), or a token of its own."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = ["<unk>"] + sorted(set(TINY_WORDS) | {"user", "assistant"})
    vocab = {w: i for i, w in enumerate(words)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens(LLAMA3_SPECIAL + list(extra))
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A",
        pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
        special_tokens=[("<|begin_of_text|>", bos)],
    )
    kw = {"pad_token": pad_token} if pad_token else {}
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", bos_token="<|begin_of_text|>", eos_token="<|eot_id|>", **kw
    )
    fast.chat_template = LLAMA3_CHAT_TEMPLATE
    return fast


def chat_model_folder(
    folder: Path, arch: str = "llama", *, pad_token: str | None = "<|eot_id|>", extra=(), seed: int = 0
) -> Path:
    """A random tiny causal LM of ``arch`` ("llama", "gemma2", "mistral") with :func:`chat_tokenizer`, saved in
    ``folder``."""
    import torch
    import transformers

    tok = chat_tokenizer(pad_token, extra)
    common = dict(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=512,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    if arch == "llama":
        cfg, cls = transformers.LlamaConfig(**common, architectures=["LlamaForCausalLM"]), transformers.LlamaForCausalLM
    elif arch == "gemma2":
        cfg = transformers.Gemma2Config(**common, head_dim=32, architectures=["Gemma2ForCausalLM"])
        cls = transformers.Gemma2ForCausalLM
    elif arch == "mistral":
        cfg = transformers.MistralConfig(**common, architectures=["MistralForCausalLM"])
        cls = transformers.MistralForCausalLM
    else:
        raise ValueError(arch)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = cls(cfg)
        with torch.no_grad():  # wider than std 0.02, so two texts' rewards differ visibly
            for w in model.parameters():
                if w.dim() >= 2:
                    w.mul_(8.0)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder

"""A tiny random-weights causal LM saved to a folder, for fast tests of the LLM path (server, client,
resumable jobs) without downloading anything: a byte-level BPE tokenizer trained on a few sentences
plus a 2-layer Llama. Its outputs mean nothing; its log-probabilities are real and deterministic."""

from __future__ import annotations

from pathlib import Path

__all__ = ["make_tiny_causal_lm"]

_CORPUS = [
    "Choice: A",
    "Choice: B",
    "Answer A: yes",
    "Answer B: no",
    "Prompt: which answer is better?",
    "I am going to give you a prompt and two answers.",
    "The goal is to identify the better answer.",
    '{"helpful": true, "harmless": false, "topic": "science"}',
    "Paris is the capital of France.",
    "The quick brown fox jumps over the lazy dog.",
    "0123456789 A B C D E F",
]


def make_tiny_causal_lm(
    folder: str | Path, *, seed: int = 0, hidden_size: int = 32, layers: int = 2, vocab_size: int = 320
) -> Path:
    """Write a random-weights ``LlamaForCausalLM`` (safetensors) and its tokenizer to ``folder``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(_CORPUS * 20, trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    tok.save_pretrained(folder)
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():  # larger logits than the default init, so that samples vary visibly
        model.lm_head.weight.mul_(20.0)
    model.save_pretrained(folder, safe_serialization=True)
    return folder

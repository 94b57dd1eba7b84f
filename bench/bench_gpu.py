"""Benchmark: the papers' GPU path — reward scoring and training against the chip's limit, and the GPU tests.

Offline, on one CUDA GPU, with random-weight models of the papers' shapes built here (no Hub): a **Llama-3-8B
shape** with 8 of its 32 decoder layers (hidden 4096, feed-forward 14336, 32 query and 8 key-value heads: the same
matrix shapes, a quarter of the depth; Diverging Preferences' reward models) and a **DeBERTa-v3-large shape**
(24 layers, hidden 1024, 16 heads, relative positions only; SEAL's and Beyond the Binary's reward models), both with
the embedded all-MiniLM WordPiece tokenizer, on the real hh-rlhf conversations of ``../shared/data`` (the first
``--pairs`` pairs, both replies: SEAL's scoring input). In one run:

1. **the GPU tests** — ``pytest -m gpu tests/rewards/test_gpu_paths.py`` (bf16 against fp32, 8-bit and 4-bit
   loading, an 8-bit LoRA step, the Trainer path in bf16); their counts go into the results;
2. **the chip's ceiling** — an 8192³ bf16 matrix product (median of 20), beside the datasheet's dense bf16 peak
   (H100 / H200 SXM 989 TFLOP/s, A100 312);
3. **scoring** (bf16, cache off) per shape: the library (``rewards.load(...).score``), a plain loop (32 texts a
   batch in data order, padded, tokenized batch by batch) and the **bare model** (the model alone on full,
   unpadded batches of random tokens of the texts' mean length, as many as the token budget holds; CUDA events,
   median of 5), each in tokens/s; the library's share of the bare model, and its FLOP rate as a share of the
   peak (FLOPs per text 2·P·L + 4·h·layers·L², P the non-embedding parameters, L the text's real tokens: padding is
   not counted, DeBERTa's relative-position terms are not counted either). Also the Llama shape in 8-bit weights
   and the DeBERTa shape in fp32 (the default precision), library only. Where the time goes in the bare model:
   the share of its CUDA kernel time spent in matrix-product kernels (torch.profiler), and the largest others;
4. **training** on the Llama shape, BT loss, one epoch, batches of 16 pairs (Diverging Preferences App. A), LoRA
   r=16 on q/v: over a **bf16 base** and over **8-bit weights** (the paper's setting; gradient checkpointing as
   :func:`pluralign.rewards.memory.needs_checkpointing` decides for this GPU); full fine-tuning of the DeBERTa shape
   (Beyond the Binary §3.3). Steady-state pairs/s between the ends of training steps 2..N (synchronised; three
   steps run under torch.profiler — GPU busy share, largest kernels and host operations — and are left out of the
   steady state together with the profiler's trace processing), the share of peak at 4·P·T (LoRA) or 6·P·T (full
   fine-tuning) as the GPU budget counts it, and the whole ``.train()`` call's time; the model alone in training
   (full, padded and packed batches); how far the bf16-base and 8-bit LoRA models' rewards agree on held-out pairs
   (Pearson r and max |Δr| over the bf16 model's reward spread).

Results: ``bench/results/gpu.json`` (device, CUDA, package versions, date) and a copy in
``bench/results/gpu-runs/<date>.json``, which the performance page's GPU budget reads
(:mod:`pluralign.book.budget`). Targets: scoring at least 85 % of the bare model's tokens/s and at least 40 % (Llama
shape) / 20 % (DeBERTa shape) of the bf16 peak; LoRA over a bf16 base at least 30 % of the peak. About 4 minutes on
one H100 (measured: 3.7 minutes, GPU tests included).

    python bench/bench_gpu.py                # on a CUDA GPU (make bench-gpu)
    python bench/bench_gpu.py --tiny         # a dry run of every step on tiny shapes (CPU), nothing recorded
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
warnings.filterwarnings("ignore")

#: Llama-3-8B (config.json: hidden 4096, intermediate 14336, 32 heads, 8 KV heads, rope theta 500000), 8 of 32 layers;
#: DeBERTa-v3-large (24 layers, hidden 1024, 16 heads, intermediate 4096); tiny stand-ins for the dry run
SHAPES = {
    "full": {
        "llama": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=8, num_attention_heads=32, kv=8),
        "deberta": dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16),
    },
    "tiny": {
        "llama": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2, kv=2),
        "deberta": dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2),
    },
}
TARGETS = {
    "score_llama_bf16_share_of_bare_model": ">= 0.85",
    "score_deberta_bf16_share_of_bare_model": ">= 0.85",
    "score_llama_bf16_share_of_peak": ">= 0.40",
    "score_deberta_bf16_share_of_peak": ">= 0.20",
    "train_lora_bf16_llama_share_of_peak": ">= 0.30",
}


def shared_data() -> Path:
    return Path(os.environ.get("PLURALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))


def free_memory(device) -> None:
    """Drop what the last part left behind (models, optimiser states) before the next part loads its own."""
    import gc

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def peak_of(device) -> tuple[float, str]:
    if device.type != "cuda":
        return float("nan"), "cpu"
    name = torch.cuda.get_device_name(device)
    from pluralign.book.budget import PEAK_TFLOPS

    for k, v in PEAK_TFLOPS.items():
        if k in name:
            return v, name
    return float("nan"), name


def build_models(folder: Path, tokenizer: str, shape: dict, device) -> dict[str, Path]:
    """The two random-weight models of ``shape``, saved as safetensors with the tokenizer (bf16 on a GPU)."""
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
    s = dict(shape["llama"])
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
    torch.manual_seed(0)
    with torch.device(device):
        model = LlamaForCausalLM(cfg).to(dtype)
    out["llama"] = folder / "llama-3-8b-shape"
    model.save_pretrained(out["llama"])
    tok.save_pretrained(out["llama"])
    del model
    cfg = DebertaV2Config(
        vocab_size=len(tok), pad_token_id=tok.pad_token_id, num_labels=1, **{**DEBERTA_V3, **shape["deberta"]}
    )
    cfg.architectures = ["DebertaV2ForSequenceClassification"]
    with torch.device(device):
        model = DebertaV2ForSequenceClassification(cfg).to(dtype)
    out["deberta"] = folder / "deberta-v3-large-shape"
    model.save_pretrained(out["deberta"])
    tok.save_pretrained(out["deberta"])
    del model
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return out


def gpu_tests(figures: dict) -> None:
    """``pytest -m gpu tests/rewards/test_gpu_paths.py`` in a child process; its counts."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lib"), os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-m",
            "gpu",
            "-p",
            "no:cacheprovider",
            "tests/rewards/test_gpu_paths.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    tail = (r.stdout + r.stderr).strip().splitlines()
    print("\n".join(tail[-15:]))
    summary = next((line for line in reversed(tail) if re.search(r"\d+ (passed|failed|skipped)", line)), "")
    for what in ("passed", "failed", "skipped"):
        m = re.search(rf"(\d+) {what}", summary)
        figures[f"gpu_tests_{what}"] = int(m.group(1)) if m else 0
    figures["gpu_tests_s"] = time.perf_counter() - t0


def matmul_ceiling(device, n: int = 8192, reps: int = 20) -> float:
    """TFLOP/s of an n³ bf16 matrix product on random data (median of ``reps``, CUDA events)."""
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    return 2 * n**3 / float(np.median(times)) / 1e12


def non_embedding_params(module) -> int:
    emb = module.get_input_embeddings() if hasattr(module, "get_input_embeddings") else None
    n = sum(p.numel() for p in module.parameters())
    return n - (emb.weight.numel() if emb is not None else 0)


def text_flops(params: int, cfg, lens: np.ndarray) -> float:
    """2·P·L + 4·h·layers·L², summed over the texts (real tokens only)."""
    L = lens.astype(float)
    return float((2 * params * L + 4 * cfg.hidden_size * cfg.num_hidden_layers * L**2).sum())


def bare_model(rm, mean_len: int, budget: int, device, reps: int = 5) -> float:
    """Tokens/s of the model alone on a full, unpadded batch: budget // L texts of L random tokens."""
    n = max(1, budget // mean_len)
    ids = torch.randint(1000, rm.module.model.config.vocab_size - 1, (n, mean_len), device=device)
    with torch.inference_mode():
        for _ in range(2):
            rm.module(input_ids=ids)
        sync(device)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            rm.module(input_ids=ids)
            sync(device)
            times.append(time.perf_counter() - t0)
    return n * mean_len / float(np.median(times))


def kernel_breakdown(rm, mean_len: int, budget: int, device) -> tuple[float, str]:
    """The share of the bare model's CUDA kernel time in matrix-product kernels, and the five largest others."""
    from torch.profiler import ProfilerActivity, profile

    n = max(1, budget // mean_len)
    ids = torch.randint(1000, rm.module.model.config.vocab_size - 1, (n, mean_len), device=device)
    with torch.inference_mode():
        rm.module(input_ids=ids)
        sync(device)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            rm.module(input_ids=ids)
            sync(device)
    times: dict[str, float] = {}
    for ev in prof.events():  # the kernels: events on the GPU, each with its own time range
        if ev.device_type.name == "CUDA":
            times[ev.name] = times.get(ev.name, 0.0) + ev.time_range.elapsed_us()
    total = sum(times.values()) or 1.0
    is_mm = re.compile(r"gemm|nvjet|xmma|cutlass|wgmma|sm90_|cublas|matmul", re.I)
    mm = sum(v for k, v in times.items() if is_mm.search(k))
    others = sorted(((v, k) for k, v in times.items() if not is_mm.search(k)), reverse=True)[:5]
    return mm / total, "; ".join(f"{k[:70]} {100 * v / total:.1f} %" for v, k in others)


def library_batches(rm, lens: np.ndarray, device) -> list[tuple[int, int]]:
    """The (texts, longest length) shapes of the padded batches the library's GPU path cuts these texts into."""
    from pluralign.rewards.base import CHUNK
    from pluralign.rewards.speed import CHUNKS_PER_GROUP, MAX_PADDING, default_token_budget, token_batches

    budget = rm.token_budget or default_token_budget(device)
    chunks = list(range(0, len(lens), CHUNK))
    group = CHUNKS_PER_GROUP.get(device.type, 1)
    groups = [chunks[:1]] + [chunks[k : k + group] for k in range(1, len(chunks), group)]
    shapes = []
    for g in groups:
        sub = np.concatenate([lens[c : c + CHUNK] for c in g])
        for idx in token_batches(sub, budget, None, MAX_PADDING.get(device.type)):
            shapes.append((len(idx), int(sub[idx].max())))
    return shapes


def bare_same_batches(rm, shapes, device) -> float:
    """Tokens/s of the model alone on full, unpadded batches of the library's own batch shapes (random tokens)."""
    vocab = rm.module.model.config.vocab_size
    with torch.inference_mode():
        n, L = shapes[0]
        rm.module(input_ids=torch.randint(1000, vocab - 1, (n, L), device=device))
        total, tokens = 0.0, 0
        for n, L in shapes:
            ids = torch.randint(1000, vocab - 1, (n, L), device=device)
            sync(device)
            t0 = time.perf_counter()
            rm.module(input_ids=ids)
            sync(device)
            total += time.perf_counter() - t0
            tokens += n * L
    return tokens / total


def score_bench(name, rm, texts, device, peak, figures, units, *, plain_n: int = 512, bare: bool = True) -> None:
    """Library, plain loop and bare model scoring of one loaded model, into ``figures``."""
    from pluralign.rewards.speed import default_token_budget

    t0 = time.perf_counter()
    feats = rm._featurize(texts)
    figures[f"score_{name}_tokenize_s"] = time.perf_counter() - t0
    lens = np.array([rm._length(f) for f in feats])
    cfg = rm.module.model.config
    params = non_embedding_params(rm.module.model)
    flops = text_flops(params, cfg, lens)
    figures[f"{name}_tokens_mean"] = float(lens.mean())
    figures[f"{name}_non_embedding_params"] = params
    ref = rm.score(texts[:256], progress=False, cache=False)  # warm-up: kernels, allocator, cuBLAS heuristics
    best = float("inf")
    for _ in range(2):
        sync(device)
        t0 = time.perf_counter()
        rm.score(texts, progress=False, cache=False)
        sync(device)
        best = min(best, time.perf_counter() - t0)
    lib_tok = float(lens.sum()) / best
    figures[f"score_{name}_packed"] = int(bool(getattr(rm, "packed", False)))
    figures[f"score_{name}_texts_per_s"] = len(texts) / best
    figures[f"score_{name}_tokens_per_s"] = lib_tok
    figures[f"score_{name}_tflops"] = flops / best / 1e12
    figures[f"score_{name}_share_of_peak"] = flops / best / 1e12 / peak
    # the GPU budget's count (2·P·T, no attention term) for its measured utilisation
    figures[f"budget_mfu_score_{name}"] = 2 * params * lib_tok / 1e12 / peak
    units.update({f"score_{name}_texts_per_s": "texts/s", f"score_{name}_tokens_per_s": "tokens/s"})
    units[f"score_{name}_tflops"] = "TFLOP/s"
    if getattr(rm, "packed", False):  # the padded path on the same texts: its speed and how far packing moves rewards
        from pluralign.rewards.speed import score_pipelined

        settings = {"backend": rm.backend, "n_outputs": rm.n_outputs, **rm._score_settings()}
        sync(device)
        t0 = time.perf_counter()
        padded = score_pipelined(rm, texts, rm.batch_size, settings=settings, cache=False, chunk=512, packed=False)
        sync(device)
        figures[f"score_{name}_padded_tokens_per_s"] = float(lens.sum()) / (time.perf_counter() - t0)
        rm.packed = True  # packed=False switched the model's packing off: back on for the comparison
        r = rm.score(texts, progress=False, cache=False)
        figures[f"score_{name}_packed_vs_padded_max_abs_diff_over_spread"] = float(
            np.abs(r - padded[:, 0]).max() / np.ptp(padded[:, 0])
        )
        units[f"score_{name}_padded_tokens_per_s"] = "tokens/s (padded batches, same run)"
    else:
        shapes = library_batches(rm, lens, device)
        figures[f"score_{name}_padded_over_real_tokens"] = sum(n * L for n, L in shapes) / float(lens.sum())
    del ref
    if plain_n:
        part = texts[:plain_n]
        t0 = time.perf_counter()
        with torch.inference_mode():
            for s in range(0, len(part), 32):
                batch = rm._collate(rm._featurize(part[s : s + 32]))
                rm.module(**{k: v.to(device) for k, v in batch.items()}).float().cpu()
        sync(device)
        figures[f"score_{name}_plain_loop_tokens_per_s"] = float(lens[:plain_n].sum()) / (time.perf_counter() - t0)
        units[f"score_{name}_plain_loop_tokens_per_s"] = "tokens/s"
    if not bare:
        return
    budget = rm.token_budget or default_token_budget(device)
    mean_len = int(round(lens.mean()))
    bare_tok = bare_model(rm, mean_len, budget, device)
    figures[f"score_{name}_bare_model_tokens_per_s"] = bare_tok
    figures[f"score_{name}_share_of_bare_model"] = lib_tok / bare_tok
    bare_flops = 2 * params * mean_len + 4 * cfg.hidden_size * cfg.num_hidden_layers * mean_len**2
    figures[f"score_{name}_bare_model_share_of_peak"] = bare_tok / mean_len * bare_flops / 1e12 / peak
    units[f"score_{name}_bare_model_tokens_per_s"] = "tokens/s (full batch of the mean length)"
    if not getattr(rm, "packed", False):  # padded: also against the model alone on the library's own batch shapes
        same = bare_same_batches(rm, library_batches(rm, lens, device), device)
        figures[f"score_{name}_bare_same_batches_tokens_per_s"] = same
        figures[f"score_{name}_share_of_bare_same_batches"] = lib_tok / same
        units[f"score_{name}_bare_same_batches_tokens_per_s"] = "tokens/s (the library's batch shapes, unpadded)"
    if device.type == "cuda":
        try:
            share, others = kernel_breakdown(rm, mean_len, budget, device)
            figures[f"score_{name}_bare_model_matmul_kernel_share"] = share
            figures.setdefault("_kernels", {})[name] = others
        except Exception as e:  # noqa: BLE001 - a profiler the machine does not support: said, not fatal
            figures.setdefault("_kernels", {})[name] = f"profiler failed: {type(e).__name__}: {e}"


class StepClock:
    """Synchronised time stamps at the end of every training step (wraps ``PreferenceTrainer.training_step``); on a
    GPU, steps ``profile`` (a range) run under torch.profiler: how much of their wall time the GPU was busy, and the
    largest kernels and host-side operations."""

    def __init__(self, device, profile=range(0)):
        from pluralign.rewards import trainer

        self.device, self.stamps, self.trainer = device, [], trainer
        self.orig = trainer.PreferenceTrainer.training_step
        self.profile, self.prof, self.report = profile, None, {}

    def _profiling(self, i: int) -> None:
        if self.device.type != "cuda" or not len(self.profile):
            return
        from torch.profiler import ProfilerActivity, profile

        if i == self.profile.start and self.prof is None:
            self.prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
            self.prof.__enter__()
            self.t0 = time.perf_counter()
        elif i == self.profile.stop and self.prof is not None:
            wall = time.perf_counter() - self.t0
            self.prof.__exit__(None, None, None)
            kernels: dict[str, float] = {}
            for ev in self.prof.events():
                if ev.device_type.name == "CUDA":
                    kernels[ev.name] = kernels.get(ev.name, 0.0) + ev.time_range.elapsed_us()
            busy = sum(kernels.values()) / 1e6
            host = sorted(self.prof.key_averages(), key=lambda e: -e.self_cpu_time_total)[:6]
            top = sorted(kernels.items(), key=lambda kv: -kv[1])[:5]
            self.report = {
                "gpu_busy_share": busy / wall,
                "kernels": "; ".join(f"{k[:60]} {v / 1e3:.0f} ms" for k, v in top),
                "host": "; ".join(f"{e.key[:50]} {e.self_cpu_time_total / 1e3:.0f} ms" for e in host),
                "wall_s": wall,
            }
            self.prof = None

    def __enter__(self):
        clock = self

        def step(inner, *a, **k):
            clock._profiling(len(clock.stamps))
            out = clock.orig(inner, *a, **k)
            sync(clock.device)
            clock.stamps.append(time.perf_counter())
            return out

        self.trainer.PreferenceTrainer.training_step = step
        return self

    def __exit__(self, *exc):
        self.trainer.PreferenceTrainer.training_step = self.orig

    def steady_rate(self, items_per_step: int) -> float:
        """Items per second between the ends of steps 1..N, leaving out the profiled steps and the profiler's own
        trace processing after them (which runs at the start of the step after the window)."""
        s = self.stamps
        skip = set(range(self.profile.start, self.profile.stop + 1)) if len(self.profile) else set()
        gaps = [(s[i] - s[i - 1]) for i in range(1, len(s)) if i not in skip]
        return len(gaps) * items_per_step / sum(gaps) if gaps else float("nan")

    def profiled_rate(self, items_per_step: int) -> float:
        """Items per second inside the profiled window (profiler running: a lower bound)."""
        if not self.report:
            return float("nan")
        return len(self.profile) * items_per_step / self.report["wall_s"]


def train_bench(name, rm, data, device, peak, flops_per_token, figures, units, batch: int = 16):
    """Train ``rm`` for one epoch on ``data``; steady-state pairs/s and the share of peak; the trained model."""
    from pluralign.rewards import memory

    seen = {}
    real = memory.use_checkpointing_if_needed

    def spy(model, tokens):
        seen["gc"] = real(model, tokens)
        seen["tokens"] = tokens
        return seen["gc"]

    memory.use_checkpointing_if_needed = spy
    from pluralign.rewards import trainer as T

    positions = []
    collate = T._Collator.__call__

    def counting(self, items):
        batch = collate(self, items)
        seen["packed"] = "cu_seq_lens" in batch
        mask = batch.get("attention_mask")
        real = int(mask.sum()) if mask is not None else int(batch["input_ids"].numel())
        positions.append((int(batch["input_ids"].numel()), real))
        return batch

    T._Collator.__call__ = counting
    p = data.pairs
    texts = list(zip(p.prompt.fillna(""), p.response_a)) + list(zip(p.prompt.fillna(""), p.response_b))
    lens = np.array([rm._length(f) for f in rm._featurize(texts)])
    tokens_per_pair = float(lens.sum()) / len(p)
    try:
        with StepClock(device, profile=range(8, 11)) as clock:
            t0 = time.perf_counter()
            trained = rm.train(data, "bt", epochs=1, batch_size=batch, seed=0, progress=False)
            wall = time.perf_counter() - t0
    finally:
        memory.use_checkpointing_if_needed = real
        T._Collator.__call__ = collate
    rate = clock.steady_rate(batch)
    figures["train_steady_excludes_profile"] = 1  # steady-state rates leave the profiled steps out
    if clock.report:
        figures[f"train_{name}_profiled_gpu_busy_share"] = clock.report["gpu_busy_share"]
        figures[f"train_{name}_profiled_pairs_per_s"] = clock.profiled_rate(batch)
        figures.setdefault("_training", {})[name] = (
            f"steps 9-11 ({clock.report['wall_s']:.2f} s): kernels {clock.report['kernels']} | host "
            f"{clock.report['host']}"
        )
    figures[f"train_{name}_packed"] = int(bool(seen.get("packed")))
    if positions:
        figures[f"train_{name}_padded_over_real_tokens"] = sum(a for a, _ in positions) / sum(b for _, b in positions)
    params = non_embedding_params(rm.module.model)
    figures[f"train_{name}_pairs_per_s"] = rate
    figures[f"train_{name}_share_of_peak"] = flops_per_token * params * tokens_per_pair * rate / 1e12 / peak
    figures[f"train_{name}_call_s"] = wall
    figures[f"train_{name}_steps"] = len(clock.stamps)
    if "gc" in seen:
        figures[f"train_{name}_gradient_checkpointing"] = int(seen["gc"])
        figures[f"train_{name}_longest_batch_tokens"] = int(seen["tokens"])
    units.update({f"train_{name}_pairs_per_s": "pairs/s (steady state)", f"train_{name}_call_s": "s (whole .train)"})
    if device.type == "cuda":
        figures[f"train_{name}_peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
        torch.cuda.reset_peak_memory_stats(device)
    return trained


def bare_train(name, rm, lengths: list[int], device, peak, figures, pairs: int = 16, steps: int = 8) -> None:
    """The model alone in training: forward and backward (BT loss) and an AdamW step on the trainable weights, bf16
    autocast on a GPU, without the Trainer or its data path, over ``2 × pairs`` texts three ways: **full** (every text
    of the mean length, no padding: the step's ceiling), **padded** (texts of the given real ``lengths`` padded to
    the longest, with the attention mask: what a random batch costs) and **packed** (the same texts in one row, varlen
    attention: :mod:`pluralign.rewards.packing`). Steady-state pairs/s and the share of peak at 4·P·T (real tokens)."""
    from pluralign.rewards import packing
    from pluralign.rewards.objectives import instance_loss

    m = rm._trainable("bt", None, 0)
    module = m.module
    module.train()
    params = [q for q in module.parameters() if q.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)
    body = module.model.get_base_model() if hasattr(module.model, "get_base_model") else module.model
    vocab = body.config.vocab_size
    n = 2 * pairs
    lengths = [int(x) for x in lengths[:n]]
    mean_len = int(round(np.mean(lengths)))
    target = torch.ones(pairs, device=device)
    feats = [{"input_ids": torch.randint(1000, vocab - 1, (L,)).tolist()} for L in lengths]
    padded = {
        k: v.to(device)
        for k, v in m._collate([{**f, "attention_mask": [1] * len(f["input_ids"])} for f in feats]).items()
    }
    row = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in packing.pack(feats).items()}
    packing.enable(m, force=True)  # varlen attention on a GPU (bf16 under autocast), text by text on the CPU
    forms = {
        "full": lambda: module(input_ids=torch.randint(1000, vocab - 1, (n, mean_len), device=device)),
        "padded": lambda: module(**padded),
        "packed": lambda: packing.forward_packed(body, row),
    }
    real = {"full": n * mean_len, "padded": sum(lengths), "packed": sum(lengths)}
    for form, run in forms.items():
        try:
            times = []
            for i in range(steps + 2):
                sync(device)
                t0 = time.perf_counter()
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                    first, second = torch.chunk(run().float(), 2)
                loss = instance_loss("bt", first, second, target, None)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sync(device)
                if i >= 2:
                    times.append(time.perf_counter() - t0)
            rate = pairs / float(np.median(times))
            figures[f"bare_train_{name}_{form}_pairs_per_s"] = rate
            share = 4 * non_embedding_params(body) * real[form] / pairs * rate / 1e12 / peak
            figures[f"bare_train_{name}_{form}_share_of_peak"] = share
        except Exception as e:  # noqa: BLE001 - one form failing (e.g. no varlen backward) is a finding, not fatal
            ERRORS.append(f"bare training {form}: {type(e).__name__}: {str(e)[:200]}")
    del forms, opt


ERRORS: list[str] = []


def guarded(what: str, fn, *a, **k):
    """Run one part of the benchmark; a failure is printed and recorded (the rest still runs)."""
    import traceback

    try:
        return fn(*a, **k)
    except Exception as e:  # noqa: BLE001 - one failed part must not lose the others' figures
        traceback.print_exc()
        ERRORS.append(f"{what}: {type(e).__name__}: {str(e)[:300]}")
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="tiny shapes, a dry run of every step; records nothing")
    ap.add_argument("--pairs", type=int, default=1000, help="hh-rlhf pairs scored (default 1000: 2,000 texts)")
    ap.add_argument("--train-pairs", type=int, default=512, help="pairs the bf16-base LoRA trains on (default 512)")
    ap.add_argument("--no-tests", action="store_true", help="skip the GPU tests")
    ap.add_argument("--tokenizer", default=None, help="tokenizer folder (default: the embedded all-MiniLM's)")
    ap.add_argument("--source", default=None, help="hh-rlhf file (default: ../shared/data/hh-rlhf/...)")
    ap.add_argument("--out", default=None, help="results file name under bench/results (default gpu; tiny: none)")
    args = ap.parse_args()
    os.environ.setdefault("PLURALIGN_CACHE", tempfile.mkdtemp(prefix="pluralign-bench-gpu-"))
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    import pluralign
    import pluralign.rewards as R
    from pluralign.book.benchmark import record, show

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type != "cuda" and not args.tiny:
        sys.exit("bench_gpu.py needs a CUDA GPU (or --tiny for a dry run on the CPU)")
    shape = SHAPES["tiny" if args.tiny else "full"]
    n_pairs = 64 if args.tiny else args.pairs
    n_train = 32 if args.tiny else args.train_pairs
    source = args.source or str(shared_data() / "hh-rlhf" / "harmless-base-test.jsonl.gz")
    figures: dict = {}
    units: dict = {}
    peak, gpu_name = peak_of(device)
    figures["peak_bf16_tflops_datasheet"] = peak
    t_start = time.perf_counter()
    if not args.no_tests:
        gpu_tests(figures)
    if device.type == "cuda":
        figures["matmul_bf16_tflops_measured"] = matmul_ceiling(device)
        units["matmul_bf16_tflops_measured"] = "TFLOP/s (8192³ bf16, random data)"
    data = pluralign.load("hh-rlhf", source=source, limit=max(n_pairs, 2 * n_train))
    p = data.pairs.iloc[:n_pairs]
    texts = list(zip(p.prompt.fillna(""), p.response_a)) + list(zip(p.prompt.fillna(""), p.response_b))
    with tempfile.TemporaryDirectory(prefix="pluralign-gpu-models-") as tmp:
        folders = build_models(Path(tmp), args.tokenizer or R.default_encoder_path(), shape, device)
        plain_n = 64 if args.tiny else 512

        def scoring(name, path, kind, **kw):
            rm = R.load(path, kind=kind, device=device, **kw)
            full = kw.get("precision") == "bf16"
            score_bench(name, rm, texts, device, peak, figures, units, plain_n=plain_n if full else 0, bare=full)

        guarded("scoring llama bf16", scoring, "llama_bf16", folders["llama"], "causal", precision="bf16")
        guarded(
            "scoring deberta bf16",
            scoring,
            "deberta_bf16",
            folders["deberta"],
            "seq-cls",
            precision="bf16",
            max_length=None,
        )
        guarded(
            "scoring deberta fp32",
            scoring,
            "deberta_fp32",
            folders["deberta"],
            "seq-cls",
            precision="fp32",
            max_length=None,
        )
        guarded("scoring llama 8-bit", scoring, "llama_8bit", folders["llama"], "causal", load_in_8bit=True)
        free_memory(device)
        ids = data.pairs["pair_id"]
        train = data.subset(ids.iloc[:n_train])
        half = data.subset(ids.iloc[: n_train // 2])
        held = data.subset(ids.iloc[n_train : n_train + n_train // 2])

        def lora_runs():
            lora = R.load(folders["llama"], kind="causal", device=device, lora=True)
            p0 = train.pairs.iloc[:16]
            both = list(zip(p0.prompt.fillna(""), p0.response_a)) + list(zip(p0.prompt.fillna(""), p0.response_b))
            lengths = [lora._length(f) for f in lora._featurize(both)]
            guarded("bare training lora bf16", bare_train, "lora_bf16_llama", lora, lengths, device, peak, figures)
            free_memory(device)
            guarded("training lora bf16", train_bench, "lora_bf16_llama", lora, train, device, peak, 4, figures, units)
            free_memory(device)
            q = R.load(folders["llama"], kind="causal", device=device, lora=True, load_in_8bit=True)
            b = train_bench("lora_8bit_llama", q, half, device, peak, 4, figures, units)
            # the agreement on the same data: the bf16-base LoRA trained on the 8-bit run's pairs
            a = lora.train(half, "bt", epochs=1, batch_size=16, seed=0, progress=False)
            ra = np.asarray(a.score(held, progress=False, cache=False)[["reward_a", "reward_b"]]).ravel()
            rb = np.asarray(b.score(held, progress=False, cache=False)[["reward_a", "reward_b"]]).ravel()
            figures["lora_bf16_vs_8bit_heldout_pearson_r"] = float(np.corrcoef(ra, rb)[0, 1])
            figures["lora_bf16_vs_8bit_heldout_max_abs_diff_over_spread"] = float(np.abs(ra - rb).max() / np.ptp(ra))
            figures["lora_heldout_texts"] = len(ra)

        def full_ft():  # Beyond the Binary §3.3 trains DeBERTa-v3-large on texts of at most 512 tokens
            ft = R.load(folders["deberta"], kind="finetune", device=device, max_length=512)
            train_bench("full_ft_deberta", ft, half, device, peak, 6, figures, units)

        guarded("training deberta", full_ft)
        free_memory(device)
        guarded("training lora", lora_runs)
    figures["total_s"] = time.perf_counter() - t_start
    kernels = figures.pop("_kernels", {})
    training = figures.pop("_training", {})
    import transformers

    notes = (
        f"{gpu_name}; torch {torch.__version__} (CUDA {torch.version.cuda}), transformers {transformers.__version__}; "
        f"random-weight models: Llama-3-8B shape with {shape['llama']['num_hidden_layers']} layers, DeBERTa-v3-large "
        f"shape; all-MiniLM WordPiece tokenizer; hh-rlhf harmless-base test, first {n_pairs} pairs. Bare model's "
        "largest non-matmul kernels: " + " | ".join(f"{k}: {v}" for k, v in kernels.items())
    )
    if training:
        notes += " Training steps profiled: " + " || ".join(f"{k}: {v}" for k, v in training.items())
    if ERRORS:
        notes += " FAILED PARTS: " + " | ".join(ERRORS)
        figures["failed_parts"] = len(ERRORS)
    show(figures, units)
    print(notes)
    for k, t in TARGETS.items():
        if k in figures:
            print(f"target {k} {t}: {figures[k]:.3f}")
    if args.tiny and not args.out:
        print("(--tiny: nothing recorded)")
        return
    path = record(args.out or "gpu", figures, units, target=TARGETS, notes=notes)
    if not args.out:  # every run kept beside the newest: the GPU budget takes a figure a newer run lacks from it
        import json
        import shutil

        runs = path.parent / "gpu-runs"
        runs.mkdir(exist_ok=True)
        stamp = json.loads(path.read_text())["date"].replace(" ", "T").replace(":", "-")
        shutil.copy(path, runs / f"{stamp}.json")
    print(f"-> {path}")


if __name__ == "__main__":
    main()

"""The record of GPU benchmark runs (``bench/bench_gpu.py``, ``make bench-gpu``): every run's result file, newest
first, and a figure's newest valid measurement with the run it came from.

A run writes ``bench/results/gpu.json`` and keeps a copy in ``bench/results/gpu-runs/<date>.json``. A figure is taken
from the newest run that measured it: a part of a run can fail (its figures are then missing, and the run's notes
name the failure), so an older run's measurement stands until a newer one replaces it — and the page says which run
each figure comes from. A training rate is valid only from a run whose steady state leaves its profiled steps out
(``train_steady_excludes_profile``) or that profiled none: an earlier version of the benchmark counted the profiler's
own trace processing into the steady state.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from pluralign.book.benchmark import results_dir

__all__ = ["runs", "measured", "describe"]


def runs(folder: str | Path | None = None) -> list[dict]:
    """Every GPU benchmark run on record (``gpu.json`` and ``gpu-runs/*.json`` under ``folder``, by default
    ``bench/results``), newest first, one entry per run (by date and GPU)."""
    root = Path(folder) if folder is not None else results_dir()
    seen, out = set(), []
    for f in [root / "gpu.json", *sorted((root / "gpu-runs").glob("*.json"))]:
        if not f.exists():
            continue
        r = json.loads(f.read_text())
        key = (r.get("date"), (r.get("machine") or {}).get("gpu"))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return sorted(out, key=lambda r: r.get("date", ""), reverse=True)


def _valid(run: dict, figure: str) -> bool:
    v = run.get("figures", {}).get(figure)
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return False
    if figure.startswith("train_") and "_profiled_" not in figure:
        figs = run["figures"]
        profiled = any(k.startswith("train_") and "_profiled_" in k for k in figs)
        return not profiled or bool(figs.get("train_steady_excludes_profile"))
    return True


def measured(figure: str, record: list[dict] | None = None) -> tuple[float, dict] | None:
    """``(value, run)`` of the newest run with a valid measurement of ``figure``, or None."""
    for run in runs() if record is None else record:
        if _valid(run, figure):
            return float(run["figures"][figure]), run
    return None


def describe(run: dict) -> str:
    """A run in words: its GPU and date, e.g. "NVIDIA H100 80GB HBM3, 2026-11-26 15:39"."""
    return f"{(run.get('machine') or {}).get('gpu') or 'no GPU'}, {str(run.get('date', ''))[:16]}"


#: the page's figures: (section, what, figure, kind, target) — kind "rate" (as measured, with its unit), "share" (a
#: percentage), "ratio", "count" or "flag" (1 yes, 0 no); target as the benchmark states it (">= 0.85"), or ""
FIGURES = [
    ("scoring, Llama-3-8B shape, bf16", "library", "score_llama_bf16_tokens_per_s", "rate", ""),
    ("scoring, Llama-3-8B shape, bf16", "packed batches", "score_llama_bf16_packed", "flag", ""),
    (
        "scoring, Llama-3-8B shape, bf16",
        "padded batches (same run)",
        "score_llama_bf16_padded_tokens_per_s",
        "rate",
        "",
    ),
    (
        "scoring, Llama-3-8B shape, bf16",
        "plain loop, 32 texts a batch",
        "score_llama_bf16_plain_loop_tokens_per_s",
        "rate",
        "",
    ),
    (
        "scoring, Llama-3-8B shape, bf16",
        "model alone, full batch",
        "score_llama_bf16_bare_model_tokens_per_s",
        "rate",
        "",
    ),
    (
        "scoring, Llama-3-8B shape, bf16",
        "library ÷ model alone",
        "score_llama_bf16_share_of_bare_model",
        "share",
        ">= 0.85",
    ),
    ("scoring, Llama-3-8B shape, bf16", "share of bf16 peak", "score_llama_bf16_share_of_peak", "share", ">= 0.40"),
    (
        "scoring, Llama-3-8B shape, bf16",
        "packed vs padded: max |Δr| ÷ spread",
        "score_llama_bf16_packed_vs_padded_max_abs_diff_over_spread",
        "ratio",
        "",
    ),
    ("scoring, DeBERTa-v3-large shape, bf16", "library", "score_deberta_bf16_tokens_per_s", "rate", ""),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "padded ÷ real tokens",
        "score_deberta_bf16_padded_over_real_tokens",
        "ratio",
        "",
    ),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "model alone, the library's batch shapes",
        "score_deberta_bf16_bare_same_batches_tokens_per_s",
        "rate",
        "",
    ),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "library ÷ model alone (same batch shapes)",
        "score_deberta_bf16_share_of_bare_same_batches",
        "share",
        ">= 0.85",
    ),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "library ÷ model alone (full batch, mean length)",
        "score_deberta_bf16_share_of_bare_model",
        "share",
        "",
    ),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "share of bf16 peak",
        "score_deberta_bf16_share_of_peak",
        "share",
        ">= 0.20",
    ),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "model alone: share of bf16 peak",
        "score_deberta_bf16_bare_model_share_of_peak",
        "share",
        "",
    ),
    (
        "scoring, DeBERTa-v3-large shape, bf16",
        "model alone: matrix-product kernels' share of GPU time",
        "score_deberta_bf16_bare_model_matmul_kernel_share",
        "share",
        "",
    ),
    (
        "scoring, other settings",
        "DeBERTa-v3-large shape, fp32: share of bf16 peak",
        "score_deberta_fp32_share_of_peak",
        "share",
        "",
    ),
    (
        "scoring, other settings",
        "Llama-3-8B shape, 8-bit weights: share of bf16 peak",
        "score_llama_8bit_share_of_peak",
        "share",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "bf16 base: pairs/s (library, steady state)",
        "train_lora_bf16_llama_pairs_per_s",
        "rate",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "bf16 base: share of bf16 peak (4·P·T)",
        "train_lora_bf16_llama_share_of_peak",
        "share",
        ">= 0.30",
    ),
    ("training, Llama-3-8B shape, LoRA", "bf16 base: packed batches", "train_lora_bf16_llama_packed", "flag", ""),
    (
        "training, Llama-3-8B shape, LoRA",
        "bf16 base, profiled steps: share of time the GPU is busy",
        "train_lora_bf16_llama_profiled_gpu_busy_share",
        "share",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "model alone, packed batch: share of bf16 peak",
        "bare_train_lora_bf16_llama_packed_share_of_peak",
        "share",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "model alone, padded batch: share of bf16 peak",
        "bare_train_lora_bf16_llama_padded_share_of_peak",
        "share",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "8-bit weights: pairs/s (library, steady state)",
        "train_lora_8bit_llama_pairs_per_s",
        "rate",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "8-bit weights: share of bf16 peak (4·P·T)",
        "train_lora_8bit_llama_share_of_peak",
        "share",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "8-bit weights: gradient checkpointing",
        "train_lora_8bit_llama_gradient_checkpointing",
        "flag",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "8-bit weights: peak GPU memory (GiB)",
        "train_lora_8bit_llama_peak_memory_gib",
        "ratio",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "bf16 base vs 8-bit, held-out rewards: Pearson r",
        "lora_bf16_vs_8bit_heldout_pearson_r",
        "ratio",
        "",
    ),
    (
        "training, Llama-3-8B shape, LoRA",
        "bf16 base vs 8-bit, held-out rewards: max |Δr| ÷ spread",
        "lora_bf16_vs_8bit_heldout_max_abs_diff_over_spread",
        "ratio",
        "",
    ),
    (
        "training, DeBERTa-v3-large shape, full fine-tuning",
        "pairs/s (library, steady state)",
        "train_full_ft_deberta_pairs_per_s",
        "rate",
        "",
    ),
    (
        "training, DeBERTa-v3-large shape, full fine-tuning",
        "share of bf16 peak (6·P·T)",
        "train_full_ft_deberta_share_of_peak",
        "share",
        "",
    ),
    ("tests", "GPU tests passed", "gpu_tests_passed", "count", ""),
    ("tests", "GPU tests failed", "gpu_tests_failed", "count", ""),
]


def _met(value: float, target: str) -> str:
    if not target:
        return ""
    op, bound = target.split()
    ok = value >= float(bound) if op == ">=" else value <= float(bound)
    return "yes" if ok else "no"


def benchmark_table(record: list[dict] | None = None):
    """The GPU benchmark's figures as the performance page shows them: each from the newest run that measured it
    (:func:`measured`), with its unit, target, whether the target is met, and the run (GPU, date)."""
    import pandas as pd

    from pluralign.book.benchmark import unit_of
    from pluralign.presentation import fmt_number

    record = runs() if record is None else record
    rows = []
    for section, what, figure, kind, target in FIGURES:
        found = measured(figure, record)
        if found is None:
            continue
        value, run = found
        if kind == "flag":
            shown = "yes" if value else "no"
        elif kind == "share":
            shown = fmt_number(value, "share")
        elif kind == "count":
            shown = fmt_number(int(value), "count")
        else:
            shown = fmt_number(value)
        if kind == "rate":  # the unit without the benchmark's explanation in brackets
            shown += " " + re.sub(r"\s*\(.*\)$", "", run.get("units", {}).get(figure, "") or unit_of(figure))
        rows.append(
            {
                "measured": section,
                "figure": what,
                "value": shown,
                "target": f"{target.split()[0]} {fmt_number(float(target.split()[1]), 'share')}" if target else "",
                "met": _met(value, target),
                "run": str(run.get("date", ""))[:16],
            }
        )
    return pd.DataFrame(rows, columns=["measured", "figure", "value", "target", "met", "run"])

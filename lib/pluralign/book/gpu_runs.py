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
from pluralign.presentation import fmt_number

__all__ = ["runs", "measured", "describe", "left_out"]


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


def _training_rate(figure: str) -> bool:
    return figure.startswith("train_") and "_profiled_" not in figure


def _rates_count_profiling(figures: dict) -> bool:
    """Whether a run's training rates counted its profiled steps into the steady state: it profiled some and its
    steady state did not leave them out (``train_steady_excludes_profile``)."""
    profiled = any(k.startswith("train_") and "_profiled_" in k for k in figures)
    return profiled and not figures.get("train_steady_excludes_profile")


def _valid(run: dict, figure: str) -> bool:
    v = run.get("figures", {}).get(figure)
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return False
    return not (_training_rate(figure) and _rates_count_profiling(run["figures"]))


def measured(figure: str, record: list[dict] | None = None) -> tuple[float, dict] | None:
    """``(value, run)`` of the newest run with a valid measurement of ``figure``, or None."""
    for run in runs() if record is None else record:
        if _valid(run, figure):
            return float(run["figures"][figure]), run
    return None


def when(run: dict) -> str:
    """A run's date as a table cell shows it, unbroken: "26 Nov 15:39"."""
    import datetime

    try:
        d = datetime.datetime.strptime(str(run.get("date", "")), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return str(run.get("date", ""))
    return d.strftime("%d %b %H:%M").lstrip("0").replace(" ", "\u00a0")


def notes(run: dict) -> str:
    """A run's notes as Markdown text: kernel names and error messages shown as written (``*``, ``_``, ``<``, ``|``
    and backticks escaped)."""
    return re.sub(r"([\\`*_<>|\[\]])", r"\\\1", str(run.get("notes", "")))


def describe(run: dict) -> str:
    """A run in words: its GPU and date, e.g. "NVIDIA H100 80GB HBM3, 2026-11-26 15:39"."""
    return f"{(run.get('machine') or {}).get('gpu') or 'no GPU'}, {str(run.get('date', ''))[:16]}"


#: the page's figures: (label, figure, kind) — kind "rate" (as measured, with its unit), "share" (a percentage),
#: "ratio", "count" or "flag" (1 yes, 0 no). A figure's target is the one its run recorded (bench_gpu.TARGETS), so
#: the page cannot state a target the benchmark did not set.
#: Llama-3-8B and DeBERTa are the two shapes; "peak" the bf16 dense peak; "model alone" the model on full, unpadded
#: batches in the same run (the page's note says more).
FIGURES = [
    ("Llama-3-8B scoring: library", "score_llama_bf16_tokens_per_s", "rate"),
    ("Llama-3-8B scoring: packed batches", "score_llama_bf16_packed", "flag"),
    ("Llama-3-8B scoring: padded, same run", "score_llama_bf16_padded_tokens_per_s", "rate"),
    ("Llama-3-8B scoring: plain loop, 32 a batch", "score_llama_bf16_plain_loop_tokens_per_s", "rate"),
    ("Llama-3-8B scoring: model alone", "score_llama_bf16_bare_model_tokens_per_s", "rate"),
    ("Llama-3-8B scoring ÷ model alone", "score_llama_bf16_share_of_bare_model", "share"),
    ("Llama-3-8B scoring: share of peak", "score_llama_bf16_share_of_peak", "share"),
    (
        "Llama-3-8B packed vs padded: max |Δr| ÷ spread",
        "score_llama_bf16_packed_vs_padded_max_abs_diff_over_spread",
        "ratio",
    ),
    ("Llama-3-8B scoring, 8-bit: share of peak", "score_llama_8bit_share_of_peak", "share"),
    ("DeBERTa scoring: library", "score_deberta_bf16_tokens_per_s", "rate"),
    ("DeBERTa scoring: padded ÷ real tokens", "score_deberta_bf16_padded_over_real_tokens", "ratio"),
    ("DeBERTa model alone, same batch shapes", "score_deberta_bf16_bare_same_batches_tokens_per_s", "rate"),
    ("DeBERTa scoring ÷ model alone, same batches", "score_deberta_bf16_share_of_bare_same_batches", "share"),
    ("DeBERTa scoring ÷ model alone, mean length", "score_deberta_bf16_share_of_bare_model", "share"),
    ("DeBERTa scoring: share of peak", "score_deberta_bf16_share_of_peak", "share"),
    ("DeBERTa model alone: share of peak", "score_deberta_bf16_bare_model_share_of_peak", "share"),
    ("DeBERTa model alone: matmul share of GPU time", "score_deberta_bf16_bare_model_matmul_kernel_share", "share"),
    ("DeBERTa scoring, fp32: share of peak", "score_deberta_fp32_share_of_peak", "share"),
    ("LoRA, bf16 base: pairs/s", "train_lora_bf16_llama_pairs_per_s", "rate"),
    ("LoRA, bf16 base: share of peak (4·P·T)", "train_lora_bf16_llama_share_of_peak", "share"),
    ("LoRA, bf16 base: packed batches", "train_lora_bf16_llama_packed", "flag"),
    ("LoRA, bf16 base: GPU busy, profiled steps", "train_lora_bf16_llama_profiled_gpu_busy_share", "share"),
    ("LoRA model alone, packed: share of peak", "bare_train_lora_bf16_llama_packed_share_of_peak", "share"),
    ("LoRA model alone, padded: share of peak", "bare_train_lora_bf16_llama_padded_share_of_peak", "share"),
    ("LoRA, 8-bit: pairs/s", "train_lora_8bit_llama_pairs_per_s", "rate"),
    ("LoRA, 8-bit: share of peak (4·P·T)", "train_lora_8bit_llama_share_of_peak", "share"),
    ("LoRA, 8-bit: gradient checkpointing", "train_lora_8bit_llama_gradient_checkpointing", "flag"),
    ("LoRA, 8-bit: peak GPU memory (GiB)", "train_lora_8bit_llama_peak_memory_gib", "ratio"),
    ("LoRA bf16 vs 8-bit, held out: Pearson r", "lora_bf16_vs_8bit_heldout_pearson_r", "ratio"),
    ("LoRA bf16 vs 8-bit, held out: max |Δr| ÷ spread", "lora_bf16_vs_8bit_heldout_max_abs_diff_over_spread", "ratio"),
    ("DeBERTa full fine-tuning: pairs/s", "train_full_ft_deberta_pairs_per_s", "rate"),
    ("DeBERTa full fine-tuning: share of peak (6·P·T)", "train_full_ft_deberta_share_of_peak", "share"),
    (
        "LoRA, bf16 base: same batches, bare loop: pairs/s",
        "train_lora_bf16_llama_bare_same_batches_pairs_per_s",
        "rate",
    ),
    ("LoRA, bf16 base ÷ bare loop, same batches", "train_lora_bf16_llama_share_of_bare_same_batches", "share"),
    ("LoRA training: host synchronisations per step", "train_host_syncs_per_step", "ratio"),
    ("LoRA, 8-bit: attention calls off the varlen kernel", "train_lora_8bit_llama_attention_fallbacks", "count"),
    ("LoRA, 8-bit: q reaches attention in bf16", "train_lora_8bit_llama_q_bf16", "flag"),
    ("LoRA, 8-bit: peak memory ÷ uncalibrated estimate", "lora_8bit_peak_over_estimate", "ratio"),
    ("Noise floor, bf16: padded vs padded, max |Δr| ÷ spread", "noise_bf16_padded_vs_padded_max_over_spread", "ratio"),
    ("Packed vs padded, bf16: max |Δr| ÷ spread", "noise_bf16_packed_vs_padded_max_over_spread", "ratio"),
    ("Packed vs padded, bf16: 99th percentile ÷ spread", "noise_bf16_packed_vs_padded_p99_over_spread", "ratio"),
    ("Packed bf16 vs fp32: max |Δr| ÷ spread", "noise_bf16_packed_vs_fp32_max_over_spread", "ratio"),
    ("Noise floor, 8-bit: padded vs padded, max |Δr| ÷ spread", "noise_8bit_padded_vs_padded_max_over_spread", "ratio"),
    ("Packed vs padded, 8-bit: max |Δr| ÷ spread", "noise_8bit_packed_vs_padded_max_over_spread", "ratio"),
    ("Padded scoring, cuDNN attention on", "cudnn_on_padded_scoring_tokens_per_s", "rate"),
    ("Padded scoring, cuDNN attention off", "cudnn_off_padded_scoring_tokens_per_s", "rate"),
    ("Padded LoRA, cuDNN attention on: pairs/s", "cudnn_on_padded_lora_pairs_per_s", "rate"),
    ("Padded LoRA, cuDNN attention off: pairs/s", "cudnn_off_padded_lora_pairs_per_s", "rate"),
    ("DeBERTa full fine-tuning: peak GPU memory (GiB)", "train_full_ft_deberta_peak_memory_gib", "ratio"),
    ("DeBERTa model alone, compiled ÷ eager", "deberta_compiled_over_eager", "ratio"),
    ("Llama-3-8B, 32 layers, 8-bit LoRA step fits without checkpointing", "llama32_8bit_plain_fits", "flag"),
    ("Llama-3-8B, 32 layers, 8-bit LoRA: seconds per step", "llama32_8bit_plain_s_per_step", "ratio"),
    ("Llama-3-8B, 32 layers, checkpointed: seconds per step", "llama32_8bit_checkpointed_s_per_step", "ratio"),
    ("GPU tests passed", "gpu_tests_passed", "count"),
    ("GPU tests failed", "gpu_tests_failed", "count"),
]

#: the display name of a figure the page shows (:data:`FIGURES`), by figure
LABEL = {figure: label for label, figure, _ in FIGURES}


def left_out(run: dict) -> list[tuple[str, str]]:
    """What of a run the page does not use, and why: (what, reason) pairs — its training rates where its steady
    state held profiled steps (and the profiler's trace processing after them), and the parts that failed (named in
    its notes, their figures missing)."""
    figs = run.get("figures", {})
    out = []
    if _rates_count_profiling(figs):
        rates = sorted(k for k in figs if _training_rate(k) and isinstance(figs[k], (int, float)))
        shown = [LABEL[k] for k in rates if k in LABEL]
        what = "; ".join(shown) if shown else f"{len(rates)} training figures"
        out.append(
            (
                what,
                "its training rates counted profiled steps and the profiler's own trace processing into the steady "
                "state, so they understate the library's training speed",
            )
        )
    m = re.search(r"FAILED PARTS: (.*)$", str(run.get("notes", "")))
    if m:
        for part in m.group(1).split(" | "):
            name, _, err = part.partition(": ")
            kind = err.split(":")[0].strip()
            why = "the GPU ran out of memory" if "OutOfMemory" in kind else "a programming error stopped it"
            out.append((f"the {name} part", f"{why}, so its figures are missing"))
    return out


def _shown_target(target: str) -> str:
    """ ">= 0.85" as "≥ 85 %" (no break inside)."""
    if not target:
        return ""
    op, bound = target.split()
    sign = {">=": "≥", "<=": "≤"}[op]
    return f"{sign}\u00a0{100 * float(bound):.3g}\u00a0%"


def _met(value: float, target: str) -> str:
    if not target:
        return ""
    op, bound = target.split()
    ok = value >= float(bound) if op == ">=" else value <= float(bound)
    return "yes" if ok else "no"


def benchmark_table(record: list[dict] | None = None):
    """The GPU benchmark's figures as the performance page shows them: each from the newest run that measured it
    (:func:`measured`), with its unit, target, whether the target is met, and the run (its date and time)."""
    import pandas as pd

    from pluralign.book.benchmark import unit_of

    record = runs() if record is None else record
    rows = []
    for label, figure, kind in FIGURES:
        found = measured(figure, record)
        if found is None:
            continue
        value, run = found
        target = (run.get("target") or {}).get(figure, "")
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
                "figure": label,
                "value": shown,
                "target": _shown_target(target),
                "met": _met(value, target),
                "run": when(run),
            }
        )
    return pd.DataFrame(rows, columns=["figure", "value", "target", "met", "run"])

"""The performance page: what the paper profile costs on a GPU at the speeds measured, the benchmarks behind it, and
which measurements are not used and why.

- :func:`opening` — the GPU-hours of each part of the ``paper`` profile on one H100 at the measured speeds (values for
  the page's first paragraph);
- :func:`gpu_budget` — each heavy step priced from the newest benchmark run that measured it
  (:mod:`pluralign.book.budget`, :mod:`pluralign.book.gpu_runs`), assumed speeds elsewhere;
- :func:`left_out` — the runs whose figures the page does not use, and why (:func:`pluralign.book.gpu_runs.left_out`);
- :func:`gpu_benchmark` — the GPU benchmark's figures, each from the newest run that measured it;
- :func:`benchmark_results`, :func:`benchmark_shares` — the CPU benchmarks (``make bench``) and each heavy step
  against the machine's own limit;
- :func:`dropdown` — a long table folded under a title (a MyST dropdown).
"""

from __future__ import annotations

import re

import pandas as pd

from pluralign.book import benchmark
from pluralign.presentation import MISSING, fmt_number
from pluralign.report import NoEstimate, Result

__all__ = ["opening", "gpu_budget", "left_out", "gpu_benchmark", "benchmark_results", "benchmark_shares", "dropdown"]

PART_NAMES = {"I": "Part I (Diverging Preferences)", "II": "Part II (SEAL)", "III": "Part III (Beyond the Binary)"}


def dropdown(title: str, result: Result):
    """``result``'s table and note folded under ``title`` (a MyST dropdown): the long tables, and the runs' notes
    with their kernel names, stay out of the page's reading until opened."""
    from IPython.display import Markdown

    from pluralign.presentation import present_html

    body = present_html(result.table) if result.table is not None and len(result.table) else ""
    return Markdown(f":::{{dropdown}} {title}\n{body}\n\n{result.note}\n:::")


def _hours(h: float) -> str:
    """GPU-hours as the opening writes them: one decimal below 100, whole hours above."""
    return f"{h:,.1f}" if h < 100 else f"{h:,.0f}"


def opening(record: list[dict] | None = None) -> Result:
    """The GPU-hours of each part of the ``paper`` profile on one H100 at the speeds measured where a benchmark run
    measured a step and assumed elsewhere, in words: values ``perf_hours_<part>`` (H100 GPU-hours),
    ``perf_a100_<part>``, ``perf_measured`` ("2 of 6"), ``perf_sentence`` (the page's opening sentence) and
    ``perf_newest`` (the newest run's GPU and date)."""
    from pluralign.book import budget, gpu_runs

    record = gpu_runs.runs() if record is None else record
    b = budget.gpu_budget(record=record)
    per = budget.budget_by_part(b)
    measured = int(b["MFU source"].str.startswith("run").sum())
    values, parts = {}, []
    for part, row in per.iterrows():
        key = part.split()[0]
        h, a = float(row["H100 GPU-hours (estimate)"]), float(row["A100 GPU-hours (estimate)"])
        values[f"perf_hours_{key.lower()}"] = _hours(h)
        values[f"perf_a100_{key.lower()}"] = _hours(a)
        parts.append(f"{_hours(h)} for {PART_NAMES.get(key, part)}")
    total = float(per["H100 GPU-hours (estimate)"].sum())
    values["perf_hours_total"] = _hours(total)
    values["perf_measured"] = f"{measured} of {len(b)}"
    newest = gpu_runs.describe(record[0]) if record else "no run on record"
    values["perf_newest"] = newest
    speed = (
        f"{measured} of its {len(b)} heavy steps at the speed a GPU benchmark run measured for them and the others at "
        "an assumed speed"
        if measured
        else f"all {len(b)} of its heavy steps at assumed speeds (no GPU benchmark run has measured one)"
    )
    values["perf_sentence"] = (
        f"On one H100 the paper profile needs about {_hours(total)} GPU-hours: {', '.join(parts[:-1])} and "
        f"{parts[-1]}, with {speed}."
    )
    return Result(per, values=values)


def gpu_budget(record: list[dict] | None = None) -> Result:
    """The paper profile's GPU budget per heavy step (:func:`pluralign.book.budget.gpu_budget`): FLOP counts at the
    share of peak the newest GPU benchmark run that measured the step found (its day and time in the row) or, where
    none did, an assumed one; values ``budget_h100_<part>``, ``budget_a100_<part>`` (hours) and
    ``budget_measured_steps``."""
    from pluralign.book import budget, gpu_runs

    record = gpu_runs.runs() if record is None else record
    b = budget.gpu_budget(record=record)
    per_part = budget.budget_by_part(b)
    values = {
        f"budget_h100_{p.split()[0].lower()}": round(float(h), 1)
        for p, h in per_part["H100 GPU-hours (estimate)"].items()
    }
    values.update(
        {
            f"budget_a100_{p.split()[0].lower()}": round(float(h), 1)
            for p, h in per_part["A100 GPU-hours (estimate)"].items()
        }
    )
    measured = int(b["MFU source"].str.startswith("run").sum())
    values["budget_measured_steps"] = f"{measured} of {len(b)}"
    note = (
        "**Estimates.** The FLOPs are arithmetic; the share of peak is measured where the *MFU source* names a GPU "
        "benchmark run by its day and time (random-weight models of the papers' shapes; a Llama-3-8B shape with 8 of "
        "its 32 layers carries its per-layer speed to the full depth) and assumed elsewhere. A measured share comes "
        "from the newest run that measured the step and whose measurement is valid (the runs left out are listed "
        "below): a step an older run measured describes the library of that date. How each row was counted:\n\n"
        + "\n".join(f"- *{r.step}*: {r.basis}." for r in b.itertuples())
    )
    shown = b.drop(columns="basis").assign(
        **{
            c: [fmt_number(v) for v in b[c]]
            for c in ("PFLOP", "H100 GPU-hours (estimate)", "A100 GPU-hours (estimate)")
        },
        MFU=[fmt_number(v, "share") for v in b["MFU"]],
    )
    return Result(shown.set_index(["part", "step"]), note=note, values=values, data={"by_part": per_part})


def left_out(record: list[dict] | None = None) -> Result:
    """The GPU benchmark runs whose figures (some or all) the page does not use, one row per reason: the run (its
    day and time, and GPU), what is left out and why (:func:`pluralign.book.gpu_runs.left_out`); value
    ``perf_left_out`` (how many runs)."""
    from pluralign.book import gpu_runs

    record = gpu_runs.runs() if record is None else record
    rows = []
    for run in record:
        for what, why in gpu_runs.left_out(run):
            rows.append(
                {
                    "run": gpu_runs.when(run),
                    "GPU": (run.get("machine") or {}).get("gpu") or "none",
                    "left out": what,
                    "why": why,
                }
            )
    table = pd.DataFrame(rows, columns=["run", "GPU", "left out", "why"])
    n = int(table["run"].nunique()) if len(table) else 0
    note = (
        "A run's other figures stand where no newer run measured them."
        if n
        else "Every figure of every run on record is used."
    )
    return Result(table.set_index(["run", "GPU"]) if len(table) else table, note=note, values={"perf_left_out": n})


def gpu_benchmark(folder=None) -> Result:
    """The GPU benchmark (``make bench-gpu``): each figure from the newest run that measured it
    (:func:`pluralign.book.gpu_runs.benchmark_table`), the runs named in the note; no estimate where no run is on
    record. Values ``gpu_runs`` (how many runs), ``gpu_newest`` (the newest run's GPU and date) and ``gpu_peak_h100``
    (the H100 SXM's dense bf16 peak)."""
    from pluralign.book import gpu_runs
    from pluralign.book.budget import PEAK_TFLOPS

    record = gpu_runs.runs(folder)
    if not record:
        raise NoEstimate("no GPU benchmark run on record: run `make bench-gpu` on a CUDA GPU")
    table = gpu_runs.benchmark_table(record).set_index("figure")
    note = (
        "*Llama-3-8B*: its shape with 8 of its 32 layers unless the row says 32; *DeBERTa*: the DeBERTa-v3-large "
        "shape; scoring in bf16 unless the row says otherwise; *peak*: the GPU's dense bf16 peak; *model alone* and "
        "*bare loop*: the model without the library's data path, on full unpadded batches of random tokens or on the "
        "library's own batches; *LoRA*: the Llama-3-8B shape, r = 16, batches of 16 pairs, over a bf16 base or 8-bit "
        "weights. Runs (newest first; *run* is a run's day and time):\n\n"
    ) + "\n".join(f"- **{gpu_runs.when(r)}** ({str(r.get('date', ''))[:4]}) — {gpu_runs.notes(r)}" for r in record)
    values = {
        "gpu_runs": len(record),
        "gpu_newest": gpu_runs.describe(record[0]),
        "gpu_peak_h100": fmt_number(PEAK_TFLOPS["H100"]),
    }
    return Result(table, note=note, values=values)


def benchmark_results(folder=None) -> Result:
    """The CPU benchmarks' results (:func:`pluralign.book.benchmark.load_results`) indexed by benchmark and figure
    (a note when there are none); the GPU benchmark has its own section (:func:`gpu_benchmark`)."""
    r = benchmark.load_results(folder)
    r = r[r["benchmark"] != "gpu"]
    where = r.groupby("benchmark", sort=False)[["machine", "date"]].first()
    note = (
        "Measured on: " + "; ".join(f"**{b}** — {m['machine']}, {m['date']}" for b, m in where.iterrows()) + "."
        if len(r)
        else "No benchmark results yet: run `make bench`."
    )
    # each value with its own significant digits (a column's shared decimals would show 0.49 pairs/s as 0)
    table = r.assign(figure=r["figure"].str.replace("_", " "), value=[fmt_number(v) for v in r["value"]])
    table = table.set_index(["benchmark", "figure"])
    return Result(table[["value", "unit", "target"]], note=note, data={"machines": where})


_SHARE_FIGURE = re.compile(r"^(?P<step>.+)_share_of_(?P<precision>[a-z0-9]+)_ceiling$")


def benchmark_shares(folder=None) -> Result:
    """Each heavy step the benchmarks timed, as a share of the machine's own limit: every figure named
    ``<step>_share_of_<precision>_ceiling`` (the step's rate ÷ matmul GFLOP/s × FLOPs per item, measured in the
    same run), with the step's rate, its limit, the median over repetitions where recorded, the target and the
    1-minute load average during the run (a busy machine lowers every share). Values
    ``share_<benchmark>_<step>`` (as % with one decimal) for the prose; a note when no benchmark recorded one."""
    r = benchmark.load_results(folder)
    rows, values = [], {}
    for b, g in r.groupby("benchmark", sort=False):
        fig = dict(zip(g["figure"], g["value"]))
        units = dict(zip(g["figure"], g["unit"]))
        tgt = dict(zip(g["figure"], g["target"]))
        load = [
            fig.get(k)
            for k in ("load_average_1min_start", "load_average_1min_end", "load_average_1min")
            if isinstance(fig.get(k), (int, float))
        ]
        for k, v in fig.items():
            m = _SHARE_FIGURE.match(str(k))
            if not m or not isinstance(v, (int, float)):
                continue
            step, prec = m["step"], m["precision"]
            rate = next(
                (
                    (fig[q], units[q])
                    for q in fig
                    if re.fullmatch(re.escape(step) + r"_[a-z]+_per_s", str(q)) and isinstance(fig[q], (int, float))
                ),
                (None, ""),
            )
            limit = (rate[0] / v, rate[1]) if rate[0] is not None and v > 0 else (None, "")  # share = rate ÷ limit
            rows.append(
                {
                    "benchmark": b,
                    "step": step.replace("_", " "),
                    "precision": prec,
                    "share of the machine's limit": float(v),
                    "median share over repetitions": fig.get(f"{k}_median_of_repetitions", MISSING),
                    "rate": MISSING if rate[0] is None else f"{fmt_number(rate[0])} {rate[1]}",
                    "limit": MISSING if limit[0] is None else f"{fmt_number(limit[0])} {limit[1]}",
                    "target": tgt.get(k, MISSING),
                    "1-min load average": (" → ".join(fmt_number(x) for x in load) if load else MISSING),
                }
            )
            values[f"share_{b}_{step}"] = fmt_number(float(v), "share")
    table = pd.DataFrame(
        rows,
        columns=[
            "benchmark",
            "step",
            "precision",
            "share of the machine's limit",
            "median share over repetitions",
            "rate",
            "limit",
            "target",
            "1-min load average",
        ],
    )
    note = (
        "Limit = the matrix-product speed measured in the same run at the model's own shapes ÷ the step's FLOPs per "
        "item, so 100 % is the machine's matmul speed with nothing else to do; softmax, norms, padding, "
        "tokenization and Python are all overhead against it. Each time is the best of interleaved repetitions "
        "(the load average says how busy the machine was: on a busy machine the threads of one process wait "
        "for each other and every wall-clock share drops; a *one thread cpu time* row is the same step with one "
        "thread in CPU seconds against the one-thread limit, which other processes hardly change)."
        if rows
        else "No benchmark has recorded a share of the machine's limit yet: run `make bench`."
    )
    return Result(table.set_index(["benchmark", "step"]), note=note, values=values)

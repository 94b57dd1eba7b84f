# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (performance)=
# # Performance
#
# {glue:text}`perf_sentence` The steps and their speeds are in the budget below; the GPU benchmark runs behind the
# measured speeds follow it, with the runs whose figures are not used and why.

# %% tags=["parameters"]
profile = "demo"

# %% tags=["remove-input"]
from pluralign import report
from pluralign.book import performance

opening = performance.opening().glue()

# %% [markdown]
# (gpu-budget)=
# ## GPU budget of the paper profile (estimate)
#
# Part by part on one GPU: about {glue:text}`budget_h100_i` H100 GPU-hours ({glue:text}`budget_a100_i` on an A100)
# for Part I, {glue:text}`budget_h100_ii` for Part II and {glue:text}`budget_h100_iii` for Part III. Each step is its
# FLOPs (items × FLOPs per item) at a share of the GPU's peak: the share the newest valid benchmark run measured for
# the step ({glue:text}`budget_measured_steps` steps), an assumed one elsewhere; the *MFU source* column says which,
# and the note under the table gives each row's basis.

# %% tags=["remove-input"]
performance.gpu_budget().glue()

# %% [markdown]
# (gpu-runs-left-out)=
# ## Measurements not used
#
# A benchmark run can measure a step wrongly, or stop before a part ends; such figures are left out, and the newest
# run that measured the step cleanly prices it instead. {glue:text}`perf_left_out` runs on record have figures left
# out:

# %% tags=["remove-input"]
performance.left_out().glue()

# %% [markdown]
# (gpu-benchmark)=
# ## The papers' GPU path, measured
#
# The GPU benchmark times the papers' reward models on one CUDA GPU, offline: random-weight models of their shapes (a
# Llama-3-8B shape with 8 of its 32 layers, the full 32 layers for one training step, a DeBERTa-v3-large shape) on the
# real hh-rlhf conversations. Each rate is the median step after two warm-up steps; the library is compared with the
# chip's bf16 peak ({glue:text}`gpu_peak_h100` TFLOP/s on an H100 SXM) and with the model alone on the same batches,
# so what batching, padding, tokenization and host transfers cost shows as the gap. Each figure comes from the newest
# run that measured it, and the *run* column names that run: a figure from an older run describes the library as it
# was then. {glue:text}`gpu_runs` runs are on record, the newest on {glue:text}`gpu_newest`.

# %% tags=["remove-input"]
gpu = performance.gpu_benchmark().glue()
performance.dropdown(f"Every figure of the GPU benchmark ({len(gpu.table)} rows)", gpu)

# %% [markdown]
# (cpu-benchmarks)=
# ## The CPU benchmarks
#
# Speed and memory goals live in benchmarks, not in timed tests: each benchmark writes one machine-readable result
# (figures, units, target and the machine that measured them), rendered here. The figures are those of the machine
# named in each row, measured when the date says — not of the machine that built this page.

# %% tags=["remove-input"]
cpu = performance.benchmark_results()
performance.dropdown(f"Every figure of the CPU benchmarks ({len(cpu.table)} rows)", cpu)

# %% [markdown]
# (machine-limit)=
# ### Each heavy step against the machine's own limit
#
# A time means little without the speed the machine could reach: each benchmark also measures the matrix-product
# speed at the model's shapes in the same run, and gives a model step's throughput as a share of that speed ÷ FLOPs
# per item (the targets: reward scoring at least 80 % of the fp32 limit, the bf16 fast path at least 40 % of the bf16
# limit where the CPU has native bf16).

# %% tags=["remove-input"]
performance.benchmark_shares()

# %% tags=["remove-input"]
report.reproduce("performance", "pluralign.book.performance", "pluralign.book.budget", "pluralign.book.gpu_runs")

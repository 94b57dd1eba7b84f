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
# Speed and memory goals live in benchmarks, not in timed tests. `make bench` runs every script in
# `bench/` and writes one machine-readable result per benchmark to `bench/results/<name>.json`
# (figures, units, target and the machine that measured them); this page renders them. The
# figures are those of the machine named in each row, measured when the date says — not of the
# machine that built this page.

# %% tags=["parameters"]
profile = "demo"

# %% tags=["remove-input"]
from pluralign import report

report.benchmark_results()

# %% [markdown]
# (machine-limit)=
# ## Each heavy step against the machine's own limit
#
# A time means little without the speed the machine could reach: each benchmark also measures torch's matmul
# GFLOP/s at the model's shapes in the same run, and gives a model step's throughput as a share of matmul
# GFLOP/s ÷ FLOPs per item (the targets: reward scoring at least 80 % of the fp32 limit, the bf16 fast
# path at least 40 % of the bf16 limit where the CPU has native bf16).

# %% tags=["remove-input"]
report.benchmark_shares()

# %% [markdown]
# (gpu-benchmark)=
# ## The papers' GPU path, measured
#
# `make bench-gpu` runs the GPU tests and times the papers' reward models on one CUDA GPU, offline: random-weight
# models of their shapes (a Llama-3-8B shape with 8 of its 32 layers, a DeBERTa-v3-large shape) on the real hh-rlhf
# conversations. Scoring is compared with the bf16 peak of the chip ({glue:text}`gpu_peak_h100` TFLOP/s on an
# H100) and with the model alone on full, unpadded batches in the same run, so what batching, padding, tokenization
# and host transfers cost shows as the gap; training with the peak at the FLOP count the budget below uses. Each figure comes from the newest run that
# measured it, and the *run* column names that run: a figure from an older run describes the library as it was
# then. {glue:text}`gpu_runs` runs are on record, the newest on {glue:text}`gpu_newest`.

# %% tags=["remove-input"]
report.gpu_benchmark().glue()

# %% [markdown]
# (gpu-budget)=
# ## GPU budget of the `paper` profile (estimate)
#
# How long the `paper` profile would take on one GPU, part by part: about
# {glue:text}`budget_h100_i` H100 GPU-hours ({glue:text}`budget_a100_i` on an A100) for Part I,
# {glue:text}`budget_h100_ii` for Part II and {glue:text}`budget_h100_iii` for Part III. Each step is its FLOPs
# (items × FLOPs per item) at a share of the GPU's peak: the share measured above where a benchmark run measured the
# step ({glue:text}`budget_measured_steps` steps), an assumed one elsewhere; the *MFU source* column says which, and
# the note under the table gives each row's basis. Run `make bench-gpu` on your GPU to measure your own.

# %% tags=["remove-input"]
report.gpu_budget().glue()

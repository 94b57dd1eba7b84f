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

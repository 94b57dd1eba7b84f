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
# (build-report)=
# # Build report

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from IPython.display import Markdown

from pluralign import presentation, report

parameters = report.parameter_report(profile).glue()
cache = report.cache_state().glue()

# %% [markdown]
# :::{admonition} What built this book
# :class: tip
# This copy of the book was built on the **{glue:text}`report_profile`** profile from {glue:text}`n_runs` notebook
# runs, on the machine and package versions listed below. Their heavy steps (scores, labels, trained models,
# embeddings) sit in a cache of {glue:text}`cache_entries` entries, {glue:text}`cache_mib` MiB; re-running a notebook
# with the same parameters recomputes nothing that is in it. The full parameters of every page and the full cache
# list are folded below.
# :::
#
# ## Machine and packages

# %% tags=["remove-input"]
report.Result(report.environment().set_index("item"))

# %% [markdown]
# ## Parameters
#
# Every notebook's parameters: what its parameter file sets and, for the pages of a part, every other setting of the
# part at its default (the column "set by" says which).

# %% tags=["remove-input"]
Markdown(f":::{{dropdown}} Every page's parameters ({len(parameters.table)} rows)\n{presentation.present_html(parameters.table)}\n:::")

# %% [markdown]
# ## Cache
#
# What the cache folder holds, per step. This page is executed after every other page of the book, so it shows what
# they stored.

# %% tags=["remove-input"]
report.Result(cache.data["by_step"].rename_axis("step").round({"MiB": 1}))

# %% tags=["remove-input"]
Markdown(f":::{{dropdown}} Every cache entry ({len(cache.table)})\n{presentation.present_html(cache.table)}\n:::\n\n{cache.note}")

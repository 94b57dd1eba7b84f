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
#
# What produced the pages of this book: the profile, every notebook's parameters (what its parameter
# file sets and, for the pages of a part, every other setting of the part at its default: `set by`), the
# machine and package versions, and the state of the on-disk cache of heavy steps (scores, labels, trained
# models, embeddings). Re-running a notebook with the same parameters recomputes nothing that is in
# the cache.

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from pluralign import report

parameters = report.parameter_report(profile).glue()

# %% [markdown]
# ## Profile and parameters
#
# Profile **{glue:text}`report_profile`**: {glue:text}`n_runs` notebook runs.

# %% tags=["remove-input"]
parameters

# %% [markdown]
# ## Machine and packages

# %% tags=["remove-input"]
report.environment().set_index("item")

# %% [markdown]
# ## Cache
#
# Every entry of the cache folder (`$PLURALIGN_CACHE`; the book uses `.cache/pluralign` in the project)
# with its size: {glue:text}`cache_entries` entries, {glue:text}`cache_mib` MiB. This page is executed
# after every other page of the book, so it shows what they stored.

# %% tags=["remove-input"]
report.cache_state().glue()

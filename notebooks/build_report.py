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
# What produced the pages of this book: the profile, every notebook's parameters, the machine and
# package versions, and the state of the on-disk cache of heavy steps (scores, labels, trained
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
# Entries per step in the cache folder (`$PLURALIGN_CACHE`; the book uses `.cache/pluralign` in the
# project). Empty on a first build before any heavy step has run.

# %% tags=["remove-input"]
report.cache_state()

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
# (recovery)=
# # The demo as a controlled experiment
#
# The demo profile's data come from the project's simulator (`pluralign.data.simulate`), so the truth behind
# every number is known: which pairs were planted as taste-driven, each cause, the population's feature weights,
# its split p\* on every pair. This page checks every method of the library against that truth, through the same
# studies, settings and cache as the book's pages (`pluralign.recovery`; the same table from the command line:
# `pluralign recovery --out recovery.csv`).
#
# Two kinds of row:
#
# - a **method row** has a `planted` value and a criterion the method must meet to count as working (the
#   planted share inside the 95 % CI, an AUROC or a correlation above a bar); a method that fails it is broken
#   or too weak to trust on these data;
# - a **claim row** (`claim_…`) has no planted value ("—"): its criterion is one of the papers' central claims
#   and its verdict comes from the CI. It can come out either way — that is a finding about the simulated
#   population and the demo's small models, not a test of the code.
#
# Every interval is a 95 % bootstrap interval over pairs (over features for the imprint correlation, a Fisher
# interval). The stand-ins are named in the descriptions: on the demo, the reward models are a small MLP head
# on frozen all-MiniLM-L6-v2 embeddings, the cause labeller reads surface rules, the judge is simulated and the
# §3.1 categories are read from the simulator (that row checks plumbing, not a classifier).

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from pluralign import recovery

checks = recovery.result(profile=profile).glue()

# %% [markdown]
# ## Every method against the planted truth

# %% tags=["remove-input"]
checks

# %% [markdown]
# ## The demo reward models converge
#
# The reward-model rows rest on the demo's stand-in models (a small MLP head on frozen all-MiniLM-L6-v2
# embeddings, trained on every annotator judgment of the training split); their validation loss during training:

# %% tags=["remove-input"]
recovery.training_curves(profile)

# %% [markdown]
# Each part's pages link here for their rows: Part I (`diverging`: agreement classes, causes, the reward models
# and the mean-variance model), Part II (`seal`: feature imprints, robustness scores, the reward shift) and
# Part III (`btb`: margins, categories, margin-regularized training).

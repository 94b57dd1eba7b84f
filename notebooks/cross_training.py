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
# (cross-training)=
# # Which training handles disagreement?
#
# :::{admonition} What this page finds
# :class: tip
# - Bradley–Terry on majority labels: decisiveness gap {glue:text}`x_gap_ref` (the paper's Table 2 implies
#   {glue:text}`x_gap_paper_ref` on {glue:text}`x_gap_paper_data`): {glue:text}`x_gap_ref_verdict`.
# - The other trainings: {glue:text}`x_gap_summary`.
# - The notes under the tables give each model's reading, and its Pearson r with $p^*$ against the reference model.
# :::
#
# Five reward models, trained on the same pairs with the losses the three papers use: Bradley–Terry on the
# majority label and on every annotation (*Diverging Preferences* Table 2 {cite}`zhang2024diverging`), Bradley–Terry
# with the margin of *Beyond the Binary* Eq. 4 {cite}`padmakumar2024beyond`, the MSE regression on Likert scores
# and the mean-variance model (*Diverging Preferences* §4). They are compared on two measures, each split by
# agreement class on the held-out pairs: Table 2's reward-gap measure (mean $P(\text{chosen} \succ \text{rejected})$,
# the model's own choice) and the Pearson correlation with the population preference $p^*$ (*Beyond the Binary*
# Table 1).
#
# **Hypothesis.** Training on every annotation, with a margin, or with a variance makes a model less decisive on
# diverging pairs than on high-agreement ones (a positive *decisiveness gap*) and closer to $p^*$, where Bradley–Terry
# on majority labels is about as decisive on both (*Diverging Preferences* Table 2). Every difference to BT on
# majority labels has a paired 95% bootstrap CI (the same resampled pairs for both models).

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): cross.CrossSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.cross.CrossSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import cross, report
from pluralign.cross.pages import training_page, stand_ins

study = cross.setup(profile, seed, models=models, settings=settings, page="cross_training")
report.profile_note(profile, stand_ins(study, "training"))

# %% [markdown]
# ## The models

# %% tags=["remove-input"]
training_page.models_trained(study).glue()

# %% [markdown]
# ## Table 2's measure and Pearson r with p\*, per agreement class
#
# On the demo the planted column is Table 2's measure of the population itself, $\max(p^*, 1 - p^*)$: how
# decisive a model that knew the population exactly would be on those pairs.

# %% tags=["remove-input"]
training_page.measures(study)

# %% [markdown]
# Table 2's measure is the mean $P(\text{chosen} \succ \text{rejected})$ (the model's own chosen response) for the
# probability models and $r_\text{chosen} - r_\text{rejected}$ on the Likert scale for MSE, whose Δ is therefore not
# taken; for Pearson the MSE model's $P(A \succ B)$ is $\sigma(r_A - r_B)$.

# %% [markdown]
# ## The decisiveness gap
#
# The gap is Table 2's measure on high-agreement preferences minus on diverging pairs: positive when a model is less
# sure of itself where people disagree.

# %% tags=["remove-input"]
training_page.decisiveness_gaps(study).glue()

# %% [markdown]
# A model "handles" disagreement on this evidence when its gap is positive and its Pearson r with $p^*$ is at least
# the reference model's. The planted gap says how large the gap of a model that knew the population would be; a
# gap far above it is over-correction, not calibration. The MSE model's measure is on the Likert scale, so its gap
# is only compared with zero. The paper's gaps are differences of Table 2's printed means on HelpSteer2 or
# MultiPref, real annotators and larger models: a sign to compare, not a value to reproduce.

# %% tags=["remove-input"]
report.reproduce("cross_training", "pluralign.cross.training", "pluralign.cross.pages.training_page")

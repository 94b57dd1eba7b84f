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
# (cross-uncertainty)=
# # Reward-model uncertainty against the margin
#
# :::{admonition} What this page finds
# :class: tip
# - Over all held-out pairs, ρ between the mean-variance model's σ for a pair and the {glue:text}`x_unc_margin`
#   margin is {glue:text}`x_unc_rho`: {glue:text}`x_unc_verdict`.
# - On diverging pairs alone it is {glue:text}`x_unc_div_rho`: {glue:text}`x_unc_div_verdict`.
# - Neither paper reports this correlation: *Diverging Preferences* trains the mean-variance model and
#   *Beyond the Binary* defines the margin, but neither sets one against the other.
# :::
#
# The mean-variance reward model of *Diverging Preferences* §4 {cite}`zhang2024diverging` gives each response a
# Gaussian reward $N(\mu, \sigma^2)$ over the annotator population, so that
# $P(A \succ B) = \Phi\big((\mu_A - \mu_B)/\sigma_{pair}\big)$ with $\sigma_{pair} = \sqrt{\sigma_A^2 + \sigma_B^2}$.
# *Beyond the Binary* {cite}`padmakumar2024beyond` measures the same disagreement from the outside, as the margin
# of Eq. 3.
#
# **Hypothesis.** Where the margin is small, the model is uncertain: $\sigma_{pair}$ and the margin have a negative
# rank correlation, within each agreement class as well as over all pairs. Spearman ρ with a 95% bootstrap CI on the
# held-out pairs of the model trained for {ref}`cross-training`; no correlation is computed on fewer than 10 pairs.
# On the demo each ρ is read against 0 and against the planted ρ: the population's own spread of tastes, correlated
# with the same margin on the same pairs.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): cross.CrossSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.cross.CrossSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import cross, report
from pluralign.cross.pages import uncertainty_page, stand_ins

study = cross.setup(profile, seed, models=models, settings=settings, page="cross_uncertainty")
report.profile_note(profile, stand_ins(study, "uncertainty"))

# %% [markdown]
# ## σ against the margin, per agreement class
#
# On the demo the planted counterpart of σ is the spread of the utility gap across the simulated population
# (the planted features weighted by the population's weight standard deviations): its ρ with the same margin on
# the same pairs is the truth beside each estimate.

# %% tags=["remove-input"]
uncertainty_page.sigma_against_margin(study).glue()

# %% [markdown]
# A correlation over all pairs mixes two things: the classes differ in margin *and* in σ. The per-class rows ask
# whether σ tracks the margin among pairs of one kind; within the diverging class the margins vary little, so
# the CIs there are wide. The model sees only the texts, never the annotators, so whatever it gets right here
# it learnt from which kinds of responses people split on.

# %% tags=["remove-input"]
report.reproduce("cross_uncertainty", "pluralign.cross.uncertainty", "pluralign.cross.pages.uncertainty_page")

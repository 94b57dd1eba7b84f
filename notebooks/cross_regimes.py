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
# (cross-regimes)=
# # Alignment regimes by agreement class
#
# :::{admonition} What this page finds
# :class: tip
# - Over all pairs, the post-D reward model's resistance to D's majority labels is {glue:text}`x_res_all` (SEAL reports
#   $a_-$ = {glue:text}`x_seal_a_minus` for its post-D model on Anthropic HH, §2.2, a different model and data set).
# - Diverging minus high-agreement pairs, post-D reward model: {glue:text}`x_res_delta:.3f` (95% CI
#   {glue:text}`x_res_lo:.3f` to {glue:text}`x_res_hi:.3f`): {glue:text}`x_res_verdict`.
# - Neither paper measures this difference; SEAL does not split its pairs by how annotators agree.
# :::
#
# *SEAL* {cite}`revel2024seal` compares a reward model before and after training on an alignment data set D and
# sorts D's pairs into four regimes (Table 1): became aligned, stayed aligned, stayed misaligned, reversed. Its
# alignment resistance $a_- = 1 - a_+$ is the share of pairs on which the post-D model still prefers the rejected
# entry. SEAL takes the chosen entry from the label; when annotators disagree, that label is a majority that the
# minority rejects.
#
# **Hypothesis.** A reward model "resists" mostly where people disagree: $a_-$ is larger on diverging pairs than on
# high-agreement preferences. The difference gets a 95% bootstrap CI, read against 0 and, on the demo, against the
# population's own difference (the share of pairs whose majority label is not what the population prefers): a
# difference the labels alone produce is not one the reward model adds.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): cross.CrossSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.cross.CrossSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import cross, report
from pluralign.cross.pages import regimes_page, stand_ins

study = cross.setup(profile, seed, models=models, settings=settings, page="cross_regimes")
report.profile_note(profile, stand_ins(study, "regimes"))

# %% [markdown]
# ## Regimes and resistance in each agreement class

# %% tags=["remove-input"]
regimes_page.by_class(study).glue()

# %% [markdown]
# ## Is the resistance larger on diverging pairs?

# %% tags=["remove-input"]
regimes_page.resistance_gap(study).glue()

# %% [markdown]
# Part of the difference needs no flaw in the model: on a diverging pair the majority label is the population's
# preference only by a small margin, or not at all, so even a model that knew the population would be "misaligned"
# with the label there. The planted column measures exactly that. Resistance above the planted level is what the
# reward model adds; resistance below it means the model sides with D's majority labels more often than the
# population does. The reward model before training on D reads: {glue:text}`x_res_pre_verdict`.

# %% tags=["remove-input"]
report.reproduce("cross_regimes", "pluralign.cross.regimes", "pluralign.cross.pages.regimes_page")

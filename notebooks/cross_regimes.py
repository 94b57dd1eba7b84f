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
# *SEAL* {cite}`revel2024seal` compares a reward model before and after training on an alignment data set D and
# sorts D's pairs into four regimes (Table 1): became aligned, stayed aligned, stayed misaligned, reversed. Its
# alignment resistance $a_- = 1 - a_+$ is the share of pairs on which the post-D model still prefers the rejected
# entry. SEAL takes the chosen entry from the label; when annotators disagree, that label is a majority that the
# minority rejects.
#
# **Hypothesis.** A reward model "resists" mostly where people disagree: $a_-$ is larger on diverging pairs than on
# high-agreement preferences. The difference gets a 95% bootstrap CI; on the demo, the planted $a_-$ of the
# population itself (pairs whose majority label is not what the population prefers) stands beside it.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None   # the profile's models (common.yml): a model parameter may name one of them
# the Part IV study shared by its four pages (params/<profile>/cross-study.yml; pluralign.cross.setup arguments):
# data (one multi-annotator data spec, or a list analysed apart), ties, p_star_from, judge (the synthetic judge
# of Eq. 3: simulated / llm / null), split, reward_model, train, train_margin (synthetic / gold), seal (the pre-D
# and post-D reward models), n_boot
design = {}

# %% tags=["remove-input"]
from pluralign import cross

study = cross.setup(profile, seed, models=models, **design)
study.profile_note()

# %% [markdown]
# ## Regimes and resistance in each agreement class

# %% tags=["hide-input"]
study.regimes()

# %% [markdown]
# ## Is the resistance larger on diverging pairs?

# %% tags=["hide-input"]
study.resistance_gap().glue()

# %% [markdown]
# The post-D difference is {glue:text}`x_res_delta:.3f` (95% CI {glue:text}`x_res_lo:.3f` to
# {glue:text}`x_res_hi:.3f`): {glue:text}`x_res_verdict`. Part of it needs no flaw in the model: on a diverging
# pair the majority label is the population's preference only by a small margin, or not at all, so even a model
# that knew the population would be "misaligned" with the label there — the planted column measures exactly that.
# Resistance above the planted level is what the reward model adds; resistance below it means the post-D model
# follows D's majority labels more closely than the population does (it was trained on them).

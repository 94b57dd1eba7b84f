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
# (btb-margins)=
# # Synthetic judgments and preference margins
#
# :::{admonition} What this page finds
# :class: tip
# - **Does the judge side with the population?** {glue:text}`btb_judge_sentence` The paper reports no such check of
#   its judge.
# - **Do the margins of Eq. 3 follow the population's agreement |2p\* − 1|?** {glue:text}`btb_margin_sentence`
# :::
#
# Re-annotating a preference data set with many people per pair would give the "gold standard"
# strength of a preference; *Beyond the Binary* {cite}`padmakumar2024beyond` settles for a "silver
# version" (§2): ask an LLM for $n$ = 10 judgments $j'_1 \dots j'_n \in \{0, 1\}$ per pair with the
# Appendix A prompt, sampled with nucleus sampling (top-p 0.9) "to mimic the variability of a group
# of annotators" (§3.3), and turn them into a margin (Eq. 3):
#
# $$m_{x, y_0, y_1} = \Big|\sum_{i=1}^n j'_i - \frac{n}{2}\Big| \Big/ \frac{n}{2}.$$
#
# $m = 1$ when the judgments are unanimous and $m = 0$ when they split evenly. The margin is
# symmetric in A and B, and it does not look at the direction of the human label: the regularized
# loss of Eq. 4 asks the reward model to separate the chosen and rejected answer by at least $m$.
# This page computes the synthetic judgments and margins and checks them against the population's
# own agreement $|2p^* - 1|$ ({ref}`btb-subjectivity`).

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): btb.BtbSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.btb.BtbSettings, e.g. {"embedded_pairs": 0}

# %% tags=["remove-input"]
from pluralign import btb, report
from pluralign.btb.pages import margins_page, stand_ins

study = btb.setup(profile, seed, models=models, settings=settings, page="btb_margins")
quality = margins_page.judge_quality(study).glue()
distribution = margins_page.margin_distribution(study).glue()
report.profile_note(profile, stand_ins(study, "margins"))

# %% [markdown]
# ## The judgment prompt (Appendix A)

# %% tags=["remove-input"]
margins_page.judgment_prompt(study)

# %% [markdown]
# ## Synthetic judgments for every pair

# %% tags=["remove-input"]
margins_page.synthetic_judgments(study)

# %% [markdown]
# ## How good is the judge?
#
# A judge is useful for Eq. 3 if its votes split where the population splits. Two checks against
# p\*: how often the judge's P(A) sides with the population majority (pairs with p\* = ½ have no
# majority and are left out), and the correlation and mean L1 distance between the judge's share of
# A votes and p\* — the statistics of Tables 1–2, with 95% bootstrap intervals.

# %% tags=["remove-input"]
quality

# %% [markdown]
# The paper does not report its judge's accuracy; it is the first thing to measure before trusting margins from
# any LLM.

# %% [markdown]
# ## The margin distribution

# %% tags=["remove-input"]
distribution

# %% [markdown]
# ## The embedded LLM on a handful of pairs
#
# The profile's own language model is Gemma 3 270M, a **base** model: it cannot follow the
# instruction, but after the Appendix A prompt plus `"\nChoice:"` its next-token probabilities of
# " A" and " B" are a judgment. Sampling n = {glue:text}`btb_n_judgments` judgments from that P(A) is the log-probability
# equivalent of the paper's nucleus sampling. A few pairs only: on a 2-core CPU each judgment of a
# long prompt takes seconds.

# %% tags=["remove-input"]
margins_page.embedded_judge(study).glue()

# %% [markdown]
# This is why the demo uses the simulated judge for every pair and the paper profile an
# instruction-tuned 70B model behind an OpenAI-compatible endpoint.

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks the synthetic-judgment margins against the planted p\*.

# %% tags=["remove-input"]
report.reproduce("btb_margins", "pluralign.btb.pages.margins_page", "pluralign.btb.margins")

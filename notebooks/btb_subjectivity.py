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
# (btb-subjectivity)=
# # Categories of subjectivity and the aggregate preference p*
#
# :::{admonition} What this page finds
# :class: tip
# - **Does the population split more where many answers are correct (§3.1)?**
#   {glue:text}`btb_subj_agree_sentence`.
# - **How far one binary judgment is from p\*:** a mean L1 distance of {glue:text}`btb_binary_l1:.3f`
#   ({glue:text}`btb_binary_l1_lo:.3f` to {glue:text}`btb_binary_l1_hi:.3f`) over all pairs;
#   {glue:text}`btb_binary_kind_sentence`. For a trained reward model the paper reports its baseline's r with p\* as
#   {glue:text}`btb_paper_single:.3f` on single-correct and {glue:text}`btb_paper_multiple:.3f` on multiple-correct
#   pairs.
# :::
#
# *Beyond the Binary* {cite}`padmakumar2024beyond` starts from one observation: a reward model is
# trained on **one binary judgment** per pair (its Eq. 1), yet it is deployed to a population of
# users who may disagree. What it should predict is the *aggregate preference* — the share of the
# population that prefers answer A (Eq. 2):
#
# $$p^*_{01} = \frac{\sum_{i=1}^n \mathbf{I}(j_i = 0)}{n}.$$
#
# The paper names two dimensions along which users legitimately disagree (§3.1): the **plurality of
# responses to prompts** (a prompt with a *single correct* answer versus one with *multiple correct*
# answers) and the **indistinguishability of responses** (two answers that are paraphrases of each
# other). Its three annotators put each of {glue:text}`btb_subj_paper_n` test pairs in a category by majority vote and
# estimated p\* by answering "If you asked 10 people, how many would prefer answer A and how many
# would prefer answer B?" (Appendix B, task 3), averaged over annotators (§3.2).
#
# This page builds those categories and p\* for the profile's data, and shows how far a single
# binary judgment is from p\* in each category — the gap that the margin of
# {ref}`btb-margins` and the regularized reward model of {ref}`btb-rewards` try to close.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): btb.BtbSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.btb.BtbSettings, e.g. {"embedded_pairs": 0}

# %% tags=["remove-input"]
import pandas as pd

from pluralign import btb, report
from pluralign.btb.pages import subjectivity_page, stand_ins

pd.set_option("display.max_colwidth", 160)
study = btb.setup(profile, seed, models=models, settings=settings, page="btb_subjectivity")
subjectivity_page.paper_numbers(study).glue()
report.profile_note(profile, stand_ins(study, "subjectivity"))

# %% [markdown]
# ## The data

# %% tags=["remove-input"]
subjectivity_page.data_sets(study)

# %% [markdown]
# ## Where p\* and the categories come from
#
# In the paper both are human (three annotators, §3.2). Per source, the pairs it labels here; a warning
# follows when an LLM labels any of them, and says the evaluation is circular when that LLM is also the
# judge whose votes give the training margins of {ref}`btb-margins` (or of its model family).

# %% tags=["remove-input"]
subjectivity_page.sources(study)

# %% [markdown]
# ## Two dimensions of subjectivity (§3.1)
#
# The paper's annotators answered two questions per pair, quoted word for word from Appendix B:

# %% tags=["remove-input"]
subjectivity_page.appendix_b_tasks(study)

# %% [markdown]
# Per category, the number of pairs, the mean p\* and the mean population agreement:

# %% tags=["remove-input"]
subjectivity_page.categories(study).glue()

# %% [markdown]
# (The paper's premise: where many answers are correct, the population splits.)
#
# The mean population agreement is the mean of $|2p^* - 1|$: 1 when the whole population prefers the same
# answer, 0 when it splits evenly. It is what the margin of Eq. 3 estimates from synthetic
# judgments.
#
# One example per category:

# %% tags=["remove-input"]
subjectivity_page.examples(study)

# %% [markdown]
# ## The aggregate preference p\* per category

# %% tags=["remove-input"]
subjectivity_page.p_star_by_category(study)

# %% [markdown]
# ## What one binary judgment says about p\*
#
# Eq. 1 trains on one judgment $j$ per pair. Read as a prediction of p\* (1 if A was chosen, 0
# otherwise), how far is it from the population? The same Pearson correlation and mean L1 distance
# that Tables 1–2 use for reward models, per category, with 95% bootstrap intervals. Where the data
# have several annotators, the share of all of them is shown too.

# %% tags=["remove-input"]
subjectivity_page.binary_judgment_gap(study).glue()

# %% [markdown]
# A single binary judgment is on average {glue:text}`btb_binary_l1:.3f` (95% CI
# {glue:text}`btb_binary_l1_lo:.3f`–{glue:text}`btb_binary_l1_hi:.3f`) away from p\*
# ({glue:text}`btb_binary_dropped` pairs on which every annotator tied have no binary judgment and
# are left out). The gap is largest where the population is split — multiple correct answers and
# indistinguishable paraphrases, whose p\* is near ½ while a binary label is 0 or 1. A Pearson r is
# not defined for a category whose p\* is constant (on the simulator, paraphrase-only pairs have
# p\* = ½ exactly); its L1 still is.

# %% [markdown]
# The paper's §3.2 reports the same pattern for a trained reward model (the baseline column of
# Table 1): its correlation with p\* is {glue:text}`btb_paper_single:.3f` on single-correct and
# {glue:text}`btb_paper_multiple:.3f` on multiple-correct pairs — see {ref}`btb-rewards`, where our
# baseline and the regularized model are compared.

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks the categories against the planted prompt kinds.

# %% tags=["remove-input"]
report.reproduce("btb_subjectivity", "pluralign.btb.pages.subjectivity_page", "pluralign.btb.categories")

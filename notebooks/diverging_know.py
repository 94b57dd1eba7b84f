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
# (diverging-know)=
# # Do models know when annotators disagree?
#
# :::{admonition} What this page finds
# :class: tip
# - **Does the mean-variance RM's predicted disagreement tell diverging from high-agreement pairs?** On
#   {glue:text}`auc_name_0`, AUROC {glue:text}`auc_0:.3f` ({glue:text}`auc_lo_0:.3f` to {glue:text}`auc_hi_0:.3f`):
#   {glue:text}`auc_says_0`. The project records no number of the paper's for this model (the workshop version has
#   none).
# - **Is it less decisive on diverging pairs than BT (All)?** Gap = high-agreement minus diverging, read as on
#   {ref}`diverging-rewards`: {glue:text}`mv_gap_sentence`.
# - **Is an LLM judge less confident where people split?** {glue:text}`judge_name_0`: confidence on diverging minus on
#   high-agreement preferences {glue:text}`judge_gap_0`, {glue:text}`judge_says_0`.
# :::
#
# The second question in the title of Diverging Preferences {cite}`zhang2024diverging`. A Bradley-Terry reward
# model has one number per response, so it can only say *how much better* one response is; it has no way to
# say "people split on this". This page asks two kinds of model:
#
# 1. a **mean-variance reward model**, which gives each response a Gaussian reward N(μ, σ²) over the population
#    of annotators and is trained on every annotator's judgment, so it can represent a split: a random annotator
#    prefers A with p = Φ((μ_A − μ_B) / √(σ_A² + σ_B²)), and two annotators disagree with probability
#    2p(1 − p). How well does that predicted disagreement separate
#    diverging from high-agreement pairs (AUROC), and how decisive is the model on each subset (its Table 2 row)?
# 2. **LLM judges**: is a judge less decisive on pairs where the human annotators diverged?
#
# *Version followed:* the full version of the paper, arXiv 2410.14632 {cite}`zhang2024diverging`: the
# mean-variance reward model and the LLM-as-judge analysis are not in the workshop version
# {cite}`zhang2024divergingworkshop` (the project's seed text), whose §4 is related work. The BT (All) values
# shown beside the mean-variance row are the workshop version's Table 2, as on {ref}`diverging-rewards`.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): diverging.DivergingSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.diverging.DivergingSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import diverging, report
from pluralign.diverging.pages import know_page, stand_ins

study = diverging.setup(profile, seed, models=models, settings=settings, page="diverging_know")
mean_variance = know_page.mean_variance(study).glue()
mean_variance_table2 = know_page.mean_variance_table2(study).glue()
judge_confidence = know_page.judges(study).glue()
report.profile_note(profile, stand_ins(study, "know"))

# %% [markdown]
# ## A reward model that can represent disagreement
#
# The mean-variance RM is trained by the negative log-likelihood of the individual annotator judgments (a tie
# counts half for each side), on the same training split and with the same recipe as the Table 2 models of
# {ref}`diverging-rewards`; BT (All), trained on the same judgments, is shown beside it.
#
# ### Predicted disagreement: diverging vs high-agreement pairs
#
# AUROC of the predicted disagreement for telling diverging held-out pairs from high-agreement ones (both
# high-agreement classes; "other" pairs are left out), with a 95% bootstrap CI; 0.5 is chance. Beside it, the
# rank correlation of predicted disagreement with the disagreement observed among each pair's annotators over all
# held-out pairs: the probability that two of them, drawn with replacement, strictly disagree (one prefers A, the
# other B), 2·n(A)·n(B) / n² with n all of the pair's judgments, ties included. A tie sides with nobody, so an
# all-tie pair scores 0,
# like a unanimous one — whereas the model, trained with a tie as half a vote for each side, predicts a split
# there (see below); on tie-heavy data this lowers the correlation. The figure shows, per data set, the
# predicted disagreement by agreement class, against the observed one and, on simulated data, against the
# simulator's population.

# %% tags=["remove-input"]
mean_variance

# %% [markdown]
# High-agreement **ties** are the hard case for this model, and the second AUROC column leaves them out: the
# Gaussian (Thurstone) model has no tie outcome, a tie is trained as half a vote for each side, so a pair that
# every annotator called a tie gets p ≈ ½ — exactly what a pair that splits two against two gets. Predicted
# disagreement is then high on both; telling "everyone is indifferent" from "people disagree" needs a model of
# ties (or of the spread of Likert scores), not just of P(A ≻ B).
#
# ### The mean-variance model's Table 2 row
#
# The same decisiveness measure as Table 2, P(chosen ≻ rejected), for the mean-variance model beside BT (All).
# The paper has no mean-variance row; its BT (All) values are shown for reference.

# %% tags=["remove-input"]
mean_variance_table2

# %% [markdown]
# ## LLM judges on diverging pairs
#
# An LLM used as a judge faces the same question. A judge's confidence is measured per agreement subset (for
# verdicts, the share of pairs where it names a winner rather than a tie; for probabilities, |2 P(A) − 1|), and how
# often it sides with the annotators' majority where there is one.

# %% tags=["remove-input"]
judge_confidence

# %% [markdown]
# A judge that knew when people disagree would name a winner less often on diverging pairs than on high-agreement
# preferences; the row *Diverging − High-Agreement Prefs.* of each table gives that difference with its CI.
#
# A profile with neither published verdicts nor an LLM judge leaves this section out: a
# simulated pair has no judge verdicts, and Gemma 3 270M, the only LLM the demo profile ships, is a base model whose
# A/B log-probabilities on simulated text would measure its position bias more than its judgment. The demo profile
# runs the simulated judge its profile note names instead, and the sample profile the GPT-3.5 and PandaLM-7B
# verdicts PandaLM published for the same pairs as its three human annotators.

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks the mean-variance RM's σ against the planted taste-driven pairs, and whether it identifies the
# diverging ones.

# %% tags=["remove-input"]
report.reproduce("diverging_know", "pluralign.diverging.pages.know_page", "pluralign.diverging.knowing")

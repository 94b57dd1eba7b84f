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
# (diverging-agreement)=
# # Diverging preferences: when do annotators disagree?
#
# :::{admonition} What this page finds
# :class: tip
# - **How often annotators diverge:** {glue:text}`div_share_0:.1%` of the pairs of {glue:text}`div_name_0` are
#   diverging ({glue:text}`subst_share_0:.1%` substantially so). The paper reports {glue:text}`paper_mp:.0%` on
#   MultiPref and {glue:text}`paper_hs2:.0%` on HelpSteer2; on simulated data that is a reference point, not a target.
# - **Against the planted population:** {glue:text}`planted_sentence_0`.
# - **Do the classes pick out disagreement over taste?** {glue:text}`taste_sentence_0`.
# :::
#
# Diverging Preferences {cite}`zhang2024divergingworkshop` §2 asks how often the annotators of a preference pair
# disagree on which response is better. Its definition: *diverging preferences* are "all instances where
# annotators disagreed on which response to a given prompt was preferred, ignoring instances where
# annotators only had slight preferences for either response". MultiPref gives four A/B/tie judgments
# with a *slight* or *significant* strength per pair; HelpSteer2 gives each response a Likert score per
# annotator, and the paper reads a score difference of 1 as a slight and of at least 2 as a significant
# preference. The paper finds diverging preferences in about {glue:text}`paper_mp:.0%` of MultiPref and
# {glue:text}`paper_hs2:.0%` of HelpSteer2 pairs.
#
# This page puts every pair of each data set into the agreement classes of the paper's Table 2 and compares the
# share of diverging pairs with the paper's.
#
# *Version followed:* the workshop version of the paper {cite}`zhang2024divergingworkshop` (Workshop on
# Pluralistic Alignment, NeurIPS 2024; the project's seed text): its §2 and the agreement classes of its
# Table 2, and the shares quoted are that version's. The full version is arXiv 2410.14632
# {cite}`zhang2024diverging`.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): diverging.DivergingSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.diverging.DivergingSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import diverging, report
from pluralign.diverging.pages import agreement_page, stand_ins

study = diverging.setup(profile, seed, models=models, settings=settings, page="diverging_agreement")
shares = agreement_page.shares(study).glue()
recovery = agreement_page.planted_recovery(study).glue()
report.profile_note(profile, stand_ins(study, "agreement"))

# %% [markdown]
#
# ## The classes, as the paper words them
#
# With the signed judgments of a pair (negative prefers A, |2| significant, |1| slight, 0 tie):
#
# | class | rule | the paper's words |
# |---|---|---|
# | **diverging** | someone prefers A, someone prefers B, and at least one judgment is significant | §2 "annotators disagreed on which response was preferred, filtering out instances where all annotators responses were ties or only had slight preferences" |
# | diverging, **substantial** | someone significantly prefers A and someone significantly prefers B | §3 "annotators significantly preferred both responses" |
# | **high-agreement preference** | more than half choose the same response and nobody prefers the other | §3 "no annotators rejected the majority's chosen response" |
# | **high-agreement tie** | more than half of the judgments are ties | §3 "the majority of annotators labeled the instance as a tie" |
# | other | the rest (slight-only disagreements, no majority) | |
#
# The wording leaves some cases open; the library decides each one explicitly (each decision tested): a tie does not disagree with a preference ({A, tie} is not a
# disagreement on *which* response is better, and {A, A, tie} is a high-agreement preference); one
# significant judgment keeps a pair in ({A significant, B slight} is diverging); when a pair is both
# diverging and has a majority of ties, diverging wins. For HelpSteer2-format data the preference of each
# annotator is re-derived from her two Likert scores.
#
# Every pair of every data set in its class, counted per data set beside the paper's share of diverging
# pairs (in the figure, the black tick marks where the diverging segment would end at the paper's share):

# %% tags=["remove-input"]
shares

# %% [markdown]
# The width between the end of the orange segment and the tick is the gap between this build and the paper. A
# data set marked "stand-in reference" is not the paper's data set: the tick is the paper's value for the data
# set it stands in for, a reference point rather than a replication target.
#
# ## What the classes look like
#
# A few pairs of each class from the first data set, with their judgments (−2 … 2; negative prefers A):

# %% tags=["remove-input"]
agreement_page.examples(study)

# %% [markdown]
# ## Checking against the planted truth
#
# On the demo profile every pair was generated for a known reason: either for an objective difference
# (a factual error, harmful compliance, a mere paraphrase) or for one of Table 1's taste-driven causes
# (verbosity, format, refusals, …), with annotators drawn from a population whose tastes differ. If the
# definition captures what the paper means, diverging pairs should come from the taste-driven plans.

# %% tags=["remove-input"]
recovery

# %% [markdown]
# Not every taste-driven pair diverges (four annotators may happen to share a taste, or feel only
# slightly), and a few objective pairs diverge (an annotator who does not notice a subtle error): the
# classes describe what annotators did, not why. The next chapter, {ref}`diverging-causes`, asks why.

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks the diverging share against the share the planted population makes diverging, and that the
# diverging pairs are the taste-driven ones.

# %% tags=["remove-input"]
report.reproduce("diverging_agreement", "pluralign.diverging.pages.agreement_page", "pluralign.diverging.agreement")

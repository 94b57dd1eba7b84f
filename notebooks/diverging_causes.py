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
# (diverging-causes)=
# # Why annotators disagree: a taxonomy of causes
#
# :::{admonition} What this page finds
# :class: tip
# - **Which causes:** {glue:text}`causes_n_div_0` diverging pairs on {glue:text}`causes_name_0`; the most frequent
#   cause is {glue:text}`causes_top_0`. On the demo the mix of causes is the simulator's setting, so this checks the
#   analysis, not how people disagree.
# - **The annotation round-trip:** {glue:text}`causes_round_trip`.
# - **Agreement on cause labels:** {glue:text}`causes_agreement_says`. Here the two "annotators" are the planted
#   causes and a labeller of surface features, so the figures measure how much of the planted causes the surface
#   reveals, not agreement between people.
# :::
#
# Diverging Preferences {cite}`zhang2024divergingworkshop` §2.1 reads diverging pairs and names why the annotators
# split: ten causes in four classes (Table 1). Most are matters of taste — verbosity, format, complexity,
# aesthetic taste, how to read an underspecified task, when to refuse — and only one class, errors, is
# what a standard reward-modelling pipeline assumes disagreement to be. The authors cross-annotated 50
# sampled diverging pairs per data set with the causes (several may apply) and report their agreement as
# Cohen's κ over full label sets and Krippendorff's α with MASI distance.
#
# This page has the tools for that study: Table 1 as data and the two agreement statistics, and a spreadsheet
# round-trip for human cause annotation. The paper profile adds a page with an LLM cause classifier prompted with the
# taxonomy; the demo and sample profiles ship no instruction-following LLM to run it with, so their books leave that
# page out.
#
# *Version followed:* the workshop version of the paper {cite}`zhang2024divergingworkshop` (Workshop on
# Pluralistic Alignment, NeurIPS 2024; the project's seed text): its §2.1, Table 1 and the κ / α it reports.
# The LLM cause classifier of the paper profile's next page follows the full version, arXiv 2410.14632
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
from pluralign.diverging.pages import causes_page, stand_ins

study = diverging.setup(profile, seed, models=models, settings=settings, page="diverging_causes")
pairs = causes_page.diverging_pairs(study).glue()
frequencies = causes_page.frequencies(study).glue()
round_trip = causes_page.round_trip(study).glue()
agreement = causes_page.label_agreement(study).glue()
report.profile_note(profile, stand_ins(study, "causes"))

# %% [markdown]
# ## Table 1: the taxonomy
#
# Table 1's frequencies: the share of the authors' sampled diverging pairs that carry each cause (a pair can carry
# several). Under the table, each cause's definition in the paper's §2.1 wording.

# %% tags=["remove-input"]
causes_page.taxonomy(study)

# %% [markdown]
# ## The diverging pairs of this build

# %% tags=["remove-input"]
pairs

# %% [markdown]
# ## Cause frequencies beside Table 1

# %% tags=["remove-input"]
frequencies

# %% [markdown]
# The simulator's mix of causes is one of its settings, so the demo frequencies say how the simulator was set up, not how people disagree; what carries over is the shape of
# the analysis.
#
# ## (a) Human annotation: a spreadsheet round-trip
#
# The page samples diverging pairs (seeded) into a spreadsheet with the prompt, both responses, the annotators'
# votes, a column for the annotator's name and one column per cause; its instructions and taxonomy sheets carry
# Table 1. An annotator writes her name and an x under every cause that applies; reading one or several such files
# back refuses a bad sheet with an error naming the file, the row and the column. The exported sheet is empty:
# nobody has marked a cause yet, and reading it back gives no labels.

# %% tags=["remove-input"]
causes_page.annotation_sheets(study)

# %% [markdown]
# Filled in, the sheets are read back:

# %% tags=["remove-input"]
round_trip

# %% [markdown]
# ## (b) Agreement on label sets: κ and α-MASI
#
# §2.1: "we evaluate agreement using both Cohen's κ (comparing full label set equivalence), as well as
# Krippendorff's α with MASI distance". κ counts two annotators as agreeing on a pair only when their sets
# of causes are identical; α with MASI gives partial credit for overlapping sets.

# %% tags=["remove-input"]
agreement

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks the demo's cause labeller against the planted causes.

# %% tags=["remove-input"]
report.reproduce("diverging_causes", "pluralign.diverging.pages.causes_page", "pluralign.diverging.causes")

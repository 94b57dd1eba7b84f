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
# (diverging-causes-llm)=
# # An LLM cause classifier
#
# :::{admonition} What this page finds
# :class: tip
# - **Can an LLM name the causes of a disagreement?** {glue:text}`llm_causes_says`. The paper's own authors agree
#   among themselves at the κ and α of {ref}`diverging-causes`.
# :::
#
# The full version of Diverging Preferences (arXiv 2410.14632 {cite}`zhang2024diverging`) asks whether an LLM
# can name the causes of a disagreement (Table 1's taxonomy, {ref}`diverging-causes`). This page runs that
# classifier on the same sampled diverging pairs the annotation sheets hold and compares its labels with the
# human annotators' (Cohen's κ, Krippendorff's α with MASI). It is part of the paper profile, which names an
# instruction-following model behind an OpenAI-compatible endpoint; the key comes from the environment.
#
# *Version followed:* the full version of the paper, arXiv 2410.14632 {cite}`zhang2024diverging`.

# %% tags=["parameters"]
profile = "paper"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): diverging.DivergingSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.diverging.DivergingSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import diverging, report
from pluralign.diverging.pages import causes_llm_page, stand_ins

study = diverging.setup(profile, seed, models=models, settings=settings, page="diverging_causes_llm")
llm_causes = causes_llm_page.llm_causes(study).glue()
report.profile_note(profile, stand_ins(study, "causes"))

# %% [markdown]
# ## The classifier
#
# The classifier sends each pair to an instruction-following LLM with the ten causes and their definitions, asks for
# JSON (the causes that apply and a rationale), validates the answer against a schema (retrying a bad answer, recording
# retried items), and returns labels in the same format as the annotation spreadsheet, so the agreement statistics
# compare the classifier with human annotators directly. The job is journaled: a killed run resumes where it stopped.
#
# A profile that names no classifier leaves this section out. The only LLM shipped with the demo and sample profiles
# is Gemma 3 270M, a *base* model: it continues text but does not follow an instruction to answer in JSON, so its
# labels would be noise. The path itself is tested against a real OpenAI-compatible server on the local machine, and
# the paper profile runs it (GPT-4o on 50 pairs per data set, the key from the environment).
#
# This is the prompt for the first sampled pair:

# %% tags=["remove-input"]
causes_llm_page.prompt(study)

# %% tags=["remove-input"]
llm_causes

# %% tags=["remove-input"]
report.reproduce(
    "diverging_causes_llm", "pluralign.diverging.pages.causes_llm_page", "pluralign.diverging.cause_classifier"
)

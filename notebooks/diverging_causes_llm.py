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
# The full version of Diverging Preferences (arXiv 2410.14632 {cite}`zhang2024diverging`) asks whether an LLM
# can name the causes of a disagreement (Table 1's taxonomy, {ref}`diverging-causes`). This page runs that
# classifier on the same sampled diverging pairs the annotation sheets hold and compares its labels with the
# human annotators' (Cohen's κ, Krippendorff's α with MASI). It is part of the `paper` profile, which names an
# instruction-following model behind an OpenAI-compatible endpoint; the key comes from the environment.
#
# *Version followed:* the full version of the paper, arXiv 2410.14632 {cite}`zhang2024diverging`.

# %% tags=["parameters"]
profile = "paper"
seed = 0
models = None  # the profile's named models (params/<profile>/common.yml): a model setting may name one by key
# Every other setting is a field of pluralign.diverging.DivergingSettings, which writes its default and meaning once
# (diverging.DivergingSettings.documentation() lists them); params/<profile>/ sets what a profile changes. papermill
# injects one (-p n_boot 500; it notes the name is not in this cell: the setup call below reads it); in
# JupyterLab paste `pluralign params NOTEBOOK -f FILE.yml --python` into this cell.

# %% tags=["remove-input"]
from pluralign import diverging, report
from pluralign.diverging.pages import causes_llm_page, stand_ins

study = diverging.setup(profile, seed, models=models, **diverging.DivergingSettings.given(globals()))
report.profile_note(profile, stand_ins(study, "causes"))

# %% [markdown]
# ## The classifier
#
# `cause_classifier.classify_causes(data, llm, pair_ids, job=...)` sends each pair to an instruction-following LLM with
# the ten causes and their definitions, asks for JSON (`{"causes": [...], "rationale": ...}`), validates the
# answer against a schema (retrying a bad answer, recording retried items), and returns labels in the same
# format as the spreadsheet, so `label_agreement` compares the classifier with human annotators directly.
# The job is journaled: a killed run resumes where it stopped.
#
# Without a classifier (`cause_classifier.llm: null`) this section is left out. The only LLM shipped with the demo
# and sample profiles is Gemma 3 270M, a *base* model: it continues text but does not follow an instruction to
# answer in JSON, so its labels would be noise. The path itself is exercised in `tests/diverging/test_cause_classifier.py`
# against a real OpenAI-compatible server on 127.0.0.1, and the paper profile runs it (parameter `cause_classifier`,
# e.g. `{llm: {name: "openai:gpt-4o-2024-08-06", api_key_env: OPENAI_API_KEY}, pairs: 50}`).
#
# This is the prompt for the first sampled pair:

# %% tags=["hide-input"]
causes_llm_page.prompt(study)

# %%
causes_llm_page.llm_causes(study)


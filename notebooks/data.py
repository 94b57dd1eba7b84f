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
# (data)=
# # The preference data
#
# Every analysis in this book starts from one canonical, validated form of preference data: a
# `pairs` table (prompt or conversation history, response A, response B) and a long-form
# `annotations` table with one row per annotator judgment, `preference` ∈ {−2, −1, 0, 1, 2}
# (negative prefers A; |2| a significant preference, |1| a slight one, 0 a tie; a label without
# strength, such as chosen/rejected, counts as ±2). Aggregated labels (majority, share preferring A)
# are derived from the judgments, never stored as truth. Loaders refuse bad input with an error
# naming the file, the row and the field, and every filter they apply is recorded with its counts.

# %% tags=["parameters"]
profile = "demo"
# the data sets of this build: pluralign.load specs ({"name": ..., "source": ...} or {"simulate": {...}}); None: the
# demo's (pluralign.data.simulate.DEMO_DATASETS, Part I's too)
datasets = None

# %% tags=["remove-input"]
from pluralign import profiles, report
from pluralign.data import summary

page = summary.setup(profile=profile, datasets=datasets)
report.profile_note(profile, profiles.stand_ins(profile, "data"))

# %% [markdown]
# ## Data sets known to the loaders
#
# `pluralign.data.load(name, source=None)` reads each of these from the Hugging Face Hub by default,
# or from a local file or folder in the Hub's schema given as `source`; the local-only sets read the
# folder `$PLURALIGN_SHARED_DATA`. Your own JSONL/CSV/Parquet goes through
# `load("local", source=PATH, columns={...}, labels={...})`, with the same options accepted from a
# parameter file.

# %% tags=["remove-input"]
page.catalogue()

# %% [markdown]
# ## The data sets of this build

# %% tags=["remove-input"]
page.overview().glue()

# %% [markdown]
# This build uses {glue:text}`n_datasets` data sets with {glue:text}`n_pairs_total` pairs in all.
# The label distributions show how each format expresses strength: MultiPref-style data has slight
# and significant preferences and ties; chosen/rejected data has only ±2.

# %% tags=["remove-input"]
page.label_shares()

# %% [markdown]
# ## Per data set: data cards and text lengths (words)

# %% tags=["remove-input"]
page.cards()

# %% tags=["remove-input"]
page.lengths()

# %% tags=["remove-input"]
report.reproduce("data", "pluralign.data.summary", "pluralign.data")

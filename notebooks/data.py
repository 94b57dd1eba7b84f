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
datasets = [
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}},
]

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from pluralign import report
from pluralign.data import DATASETS, summary
from pluralign.data.spec import from_spec

report.profile_note(profile, stand_ins=["simulated data sets in the MultiPref (A/B/tie + strength) and HelpSteer2 "
                                        "(per-response Likert) annotation formats, with planted truth"]
                    if profile == "demo" else None)

# %% [markdown]
# ## Data sets known to the loaders
#
# `pluralign.data.load(name, source=None)` reads each of these from the Hugging Face Hub by default,
# or from a local file or folder in the Hub's schema given as `source`; the local-only sets read the
# folder `$PLURALIGN_SHARED_DATA`. Your own JSONL/CSV/Parquet goes through
# `load("local", source=PATH, columns={...}, labels={...})`, with the same options accepted from a
# parameter file.

# %% tags=["remove-input"]
cards = pd.DataFrame([info.card() for info in DATASETS.values() if info.name != "local"]).set_index("name")
cards.assign(hub_id=cards["hub_id"].fillna("local file"), papers=cards["papers"].str.join(", "))[
    ["hub_id", "license", "papers"]]

# %% [markdown]
# ## The data sets of this build

# %% tags=["remove-input"]
loaded = [from_spec(spec) for spec in datasets]
overview = pd.concat([summary.overview(d) for d in loaded], axis=1)
glue("n_datasets", len(loaded), display=False)
glue("n_pairs_total", int(overview.loc["pairs"].sum()), display=False)
overview

# %% [markdown]
# This build uses {glue:text}`n_datasets` data sets with {glue:text}`n_pairs_total` pairs in all.
# The label distributions show how each format expresses strength: MultiPref-style data has slight
# and significant preferences and ties; chosen/rejected data has only ±2.

# %% tags=["hide-input"]
dist = pd.concat({d.name: summary.label_distribution(d)["share"] for d in loaded}, axis=1)
ax = dist.plot.bar(figsize=(7, 3.2), rot=0)
ax.set_xticklabels([summary.LABELS[i] for i in dist.index], fontsize=8)
ax.set_ylabel("share of judgments")
ax.set_xlabel("")
ax.set_title("Preference labels per data set")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Per data set: text lengths and data card

# %% tags=["remove-input"]
for d in loaded:
    display(Markdown(f"### {d.name}"))
    display(summary.card(d).to_frame("data card"))
    display(summary.text_lengths(d).rename_axis(f"words ({d.name})"))

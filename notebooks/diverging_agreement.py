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
# Diverging Preferences {cite}`zhang2024diverging` §2 asks how often the annotators of a preference pair
# disagree on which response is better. Its definition: *diverging preferences* are "all instances where
# annotators disagreed on which response to a given prompt was preferred, ignoring instances where
# annotators only had slight preferences for either response". MultiPref gives four A/B/tie judgments
# with a *slight* or *significant* strength per pair; HelpSteer2 gives each response a Likert score per
# annotator, and the paper reads a score difference of 1 as a slight and of at least 2 as a significant
# preference. The paper finds diverging preferences in about {glue:text}`paper_mp:.0%` of MultiPref and
# {glue:text}`paper_hs2:.0%` of HelpSteer2 pairs.
#
# This page puts every pair of each data set into the agreement classes of the paper's Table 2 with
# `pluralign.agreement.classify` and compares the share of diverging pairs with the paper's.

# %% tags=["parameters"]
profile = "demo"
seed = 0
datasets = [
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}},
]
ties = "majority"  # how "the majority of annotators labeled the instance as a tie" is read: majority | plurality
# {data-set name: "multipref" | "helpsteer2"}: the paper's data set that a stand-in data set is compared with
# (e.g. {"pandalm": "multipref"}); names containing "multipref" / "helpsteer2" are matched without it
paper_reference = {}

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from pluralign import agreement, report
from pluralign.data.spec import from_spec

report.profile_note(profile, stand_ins={
    "demo": ["the simulator's data sets in the MultiPref format (A/B/tie + slight/significant) and the "
             "HelpSteer2 format (per-response Likert scores) stand in for MultiPref and HelpSteer2; the same "
             "texts in both"],
    "sample": ["PandaLM's test set (three human annotators per pair, verdicts without strength) stands in for "
               "MultiPref and HelpSteer2, which live on the Hugging Face Hub; its shares are set beside the paper's "
               "MultiPref figure, marked \"stand-in reference\" (PandaLM is not MultiPref)"],
}.get(profile))

# %% [markdown]
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
# The wording leaves some cases open; `pluralign.agreement` decides each one explicitly (module
# docstring, each decision tested): a tie does not disagree with a preference ({A, tie} is not a
# disagreement on *which* response is better, and {A, A, tie} is a high-agreement preference); one
# significant judgment keeps a pair in ({A significant, B slight} is diverging); when a pair is both
# diverging and has a majority of ties, diverging wins. For HelpSteer2-format data the preference of each
# annotator is re-derived from her two Likert scores.

# %%
loaded = [from_spec(spec) for spec in datasets]
paper_reference = agreement.check_paper_reference(
    paper_reference, {d.name for d in loaded} | {x for d in loaded for x in d.pairs["dataset"].unique()})
classified = {d.name: agreement.classify(d, ties=ties) for d in loaded}
shares = pd.concat([agreement.shares(c, paper_reference=paper_reference) for c in classified.values()])

# %% tags=["remove-input"]
cols = ["high-agreement-pref", "high-agreement-tie", "diverging", "diverging-substantial", "other"]
table = pd.DataFrame({"pairs": shares["n"]})
for c in cols:
    table[c] = [f"{k} ({v:.1%})" for k, v in zip(shares[c], shares[f"{c} share"])]
table["paper: diverging"] = shares["paper diverging share"].map(lambda v: "n/a" if pd.isna(v) else f"{v:.0%}")
table["paper reference"] = shares["paper reference"].map(lambda v: "n/a" if pd.isna(v) else v)
table

# %% tags=["remove-input"]
names = list(shares.index)
for i, name in enumerate(names):
    glue(f"div_share_{i}", float(shares.loc[name, "diverging share"]), display=False)
    glue(f"div_n_{i}", int(shares.loc[name, "n"]), display=False)
    glue(f"subst_share_{i}", float(shares.loc[name, "diverging-substantial share"]), display=False)
glue("paper_mp", agreement.PAPER_DIVERGING_SHARE["multipref"], display=False)
glue("paper_hs2", agreement.PAPER_DIVERGING_SHARE["helpsteer2"], display=False)


def paper_words(name):
    """What the paper's share beside data set ``name`` is, in words (stand-in references said as such)."""
    if pd.isna(shares.loc[name, "paper diverging share"]):
        return "."
    label, v = shares.loc[name, "paper reference"], shares.loc[name, "paper diverging share"]
    paper_set = agreement.PAPER_DATASETS[agreement.paper_dataset(name, paper_reference)]
    if shares.loc[name, "paper stand-in"]:
        return (f"; the paper reports {v:.0%} on {paper_set}, shown as a *stand-in reference* ({name} is not "
                f"{paper_set}, only compared with it).")
    return f"; the paper reports {v:.0%} on {paper_set}."


lines = [f"- **{name}** ({int(shares.loc[name, 'n'])} pairs): {shares.loc[name, 'diverging share']:.1%} diverging, "
         f"{shares.loc[name, 'diverging-substantial share']:.1%} substantially so" + paper_words(name)
         for name in names]
display(Markdown("\n".join(lines)))

# %% [markdown]
# The paper reports {glue:text}`paper_mp:.0%` diverging pairs on MultiPref and {glue:text}`paper_hs2:.0%`
# on HelpSteer2. The first data set of this build has {glue:text}`div_share_0:.1%` diverging pairs
# ({glue:text}`subst_share_0:.1%` substantial).

# %% tags=["hide-input"]
share_cols = {"high-agreement-pref share": "high-agreement pref.", "high-agreement-tie share": "high-agreement tie",
              "diverging share": "diverging (all)", "other share": "other"}
plot = shares[list(share_cols)].rename(columns=share_cols)
fig, ax = plt.subplots(figsize=(9, 1.3 + 0.6 * len(plot)))
plot.plot.barh(stacked=True, ax=ax, color=["#4c72b0", "#8da0cb", "#dd8452", "#cccccc"], width=0.6, legend=False)
for k, name in enumerate(plot.index):
    left = plot.loc[name, ["high-agreement pref.", "high-agreement tie"]].sum()
    sub = shares.loc[name, "diverging-substantial share"]
    ax.barh(k, sub, left=left, height=0.6, fill=False, hatch="//", edgecolor="#7f3b08", lw=0)
    paper = shares.loc[name, "paper diverging share"]
    if pd.notna(paper):
        ax.plot([left + paper] * 2, [k - 0.35, k + 0.35], color="black", lw=2)
handles, labels = ax.get_legend_handles_labels()
handles += [Patch(fill=False, hatch="//", edgecolor="#7f3b08"), Line2D([], [], color="black", lw=2)]
labels += ["diverging, substantial", "paper's diverging share"]
ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
ax.set_yticks(range(len(plot)), [name if pd.isna(shares.loc[name, "paper reference"])
                                  else f"{name}\n({shares.loc[name, 'paper reference']})" for name in plot.index],
              fontsize=8)
ax.set_xlim(0, 1)
ax.set_xlabel("share of pairs")
ax.set_ylabel("")
ax.invert_yaxis()
ax.set_title("Agreement classes per data set")
plt.tight_layout()
plt.show()

# %% [markdown]
# In the figure the black tick marks where the diverging segment would end at the paper's share, so the
# width between the end of the orange segment and the tick is the gap between this build and the paper. A
# data set marked "stand-in reference" is not the paper's data set: the tick is the paper's value for the data
# set it stands in for, a reference point rather than a replication target.
#
# ## What the classes look like
#
# A few pairs of each class from the first data set, with their judgments (−2 … 2; negative prefers A):

# %% tags=["hide-input"]
first = loaded[0]
votes = agreement.votes_text(first)
examples = (classified[first.name]
            .groupby("agreement", sort=False).head(2)
            .assign(votes=lambda t: votes.reindex(t.index).to_numpy(),
                    prompt=lambda t: first.pairs.set_index("pair_id").loc[t.index, "prompt"].str.slice(0, 80).to_numpy())
            [["agreement", "substantial", "votes", "prompt"]].sort_values("agreement"))
examples

# %% [markdown]
# ## Checking against the planted truth
#
# On the demo profile every pair was generated for a known reason: either for an objective difference
# (a factual error, harmful compliance, a mere paraphrase) or for one of Table 1's taste-driven causes
# (verbosity, format, refusals, …), with annotators drawn from a population whose tastes differ. If the
# definition captures what the paper means, diverging pairs should come from the taste-driven plans.

# %% tags=["remove-input"]
if all(d.truth is not None and "taste_driven" in d.truth.columns for d in loaded):
    for d in loaded:
        rec = agreement.planted_recovery(classified[d.name], d.truth)
        display(Markdown(f"**{d.name}**: {rec.attrs['precision']:.1%} of the diverging pairs were planted as "
                         f"taste-driven; {rec.attrs['recall']:.1%} of the taste-driven pairs come out diverging."))
        display(rec)
else:
    display(Markdown("Real data carries no planted truth: this check runs on the demo profile only."))

# %% [markdown]
# Not every taste-driven pair diverges (four annotators may happen to share a taste, or feel only
# slightly), and a few objective pairs diverge (an annotator who does not notice a subtle error): the
# classes describe what annotators did, not why. The next chapter, {ref}`diverging-causes`, asks why.

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
# Diverging Preferences {cite}`zhang2024diverging` §2.1 reads diverging pairs and names why the annotators
# split: ten causes in four classes (Table 1). Most are matters of taste — verbosity, format, complexity,
# aesthetic taste, how to read an underspecified task, when to refuse — and only one class, errors, is
# what a standard reward-modelling pipeline assumes disagreement to be. The authors cross-annotated 50
# sampled diverging pairs per data set with the causes (several may apply) and report their agreement as
# Cohen's κ over full label sets and Krippendorff's α with MASI distance.
#
# This page has the three tools for that study in `pluralign.taxonomy`: Table 1 as data, a spreadsheet
# round-trip for human cause annotation, an LLM cause classifier prompted with the taxonomy, and the two
# agreement statistics.

# %% tags=["parameters"]
profile = "demo"
seed = 0
datasets = [
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}},
]
n_annotate = 50          # §2.1: "cross annotated 50 new sampled examples from each dataset"
annotation_dir = None    # where the annotation sheets are written; None: a temporary folder
annotation_files = {}    # {data set name: [filled-in .xlsx, ...]}: human cause annotations to read back
reference = "planted"    # "planted": the simulator's causes are the reference labelling (demo only); or None
cause_classifier = None  # keyword arguments of pluralign.llm.load for the LLM cause classifier; None: not run
classifier_pairs = 50    # diverging pairs per data set sent to the classifier
paper_reference = {}     # {data-set name: "multipref" | "helpsteer2"}: the paper's κ/α a stand-in data set is compared with

# %% tags=["remove-input"]
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from pluralign import agreement, report, taxonomy
from pluralign.data.spec import from_spec

report.profile_note(profile, stand_ins={
    "demo": ["the simulator's planted cause of each pair is the reference labelling (in place of the authors' "
             "annotations)", "a rule-based labeller reading surface features (length, lists and headings, refusal "
             "phrases) is the second 'annotator' written into the annotation sheet",
             "the LLM cause classifier is not run (the embedded Gemma 3 270M is a base model)"],
    "sample": ["PandaLM's test set stands in for MultiPref and HelpSteer2; nobody has annotated its causes, so "
               "the annotation sheet is produced but no cause frequencies or agreement are computed",
               "the LLM cause classifier is not run (the embedded Gemma 3 270M is a base model)"],
}.get(profile))

# %% [markdown]
# ## Table 1: the taxonomy
#
# The definitions are the paper's §2.1 wording; the last two columns are Table 1's frequencies, the share of
# the authors' sampled diverging pairs that carry each cause (a pair can carry several).

# %% tags=["remove-input"]
table1 = taxonomy.taxonomy_table()
table1[["class", "category", "definition", "paper MP", "paper HS2"]].style.format(
    {"paper MP": "{:.0%}", "paper HS2": "{:.0%}"}).hide(axis="index")

# %% [markdown]
# ## The diverging pairs of this build

# %%
loaded = [from_spec(spec) for spec in datasets]
paper_reference = agreement.check_paper_reference(paper_reference, [d.name for d in loaded])
classified = {d.name: agreement.classify(d) for d in loaded}
diverging = {name: cl.index[cl["agreement"] == "diverging"] for name, cl in classified.items()}
pd.Series({name: len(ids) for name, ids in diverging.items()}, name="diverging pairs").to_frame()

# %% [markdown]
# ## Cause frequencies beside Table 1

# %% tags=["hide-input"]
def plot_frequencies(freq, ours, title):
    """Bar chart of our cause frequencies (columns ``ours`` of a ``taxonomy.cause_frequencies`` table) beside
    Table 1's MultiPref and HelpSteer2 columns."""
    plot = freq.set_index("category")[list(ours) + ["paper MP", "paper HS2"]]
    mine = ["#dd8452", "#c44e52", "#55a868", "#937860", "#da8bc3", "#8c8c8c"]
    colors = [mine[k % len(mine)] for k in range(len(ours))] + ["#4c72b0", "#8da0cb"]
    ax = plot.plot.barh(figsize=(8, 4.8), width=0.8, color=colors)
    ax.invert_yaxis()
    ax.set_xlabel("share of diverging pairs carrying the cause")
    ax.set_ylabel("")
    ax.set_title(title)
    ax.legend(fontsize=8, frameon=False)
    plt.tight_layout()
    plt.show()


# %% tags=["remove-input"]
has_truth = all(d.truth is not None and "cause" in d.truth.columns for d in loaded)
use_planted = reference == "planted" and has_truth
if use_planted:
    planted = {d.name: taxonomy.planted_causes(d.truth, diverging[d.name]) for d in loaded}
    freq = taxonomy.cause_frequencies(planted)
    none = {d.name: int((d.truth.loc[diverging[d.name], "cause"] == "none").sum()) for d in loaded}
    display(Markdown(
        "On this profile every pair was generated for one planted cause, so the reference labelling has "
        "exactly one cause per pair (the authors' pairs often carry several, so their column sums exceed "
        "100%). Diverging pairs planted as objective ('none': a plain error, harmful compliance, a paraphrase) "
        "carry no Table 1 cause and are left out: "
        + ", ".join(f"{n} of {len(diverging[k])} in {k}" for k, n in none.items()) + "."))
    n_lab = ", ".join(f"{k}: {freq[f'{k} n'].iloc[0]} pairs" for k in planted)
    display(Markdown(f"Labelled diverging pairs — {n_lab}."))
    display(freq.drop(columns=[f"{k} n" for k in planted]).set_index("category", append=True).style.format(
        "{:.1%}", subset=[*planted, "paper MP", "paper HS2"]))
else:
    freq = None
    display(Markdown("No reference cause labelling on this profile: the frequencies come from the annotation "
                     "sheets below once people have filled them in (`annotation_files`)."))

# %% tags=["hide-input"]
if freq is not None:
    plot_frequencies(freq, [c for c in freq.columns if c in planted],
                     "Causes of diverging preferences: planted reference vs Table 1")

# %% [markdown]
# The simulator's mix of causes is a parameter (`pluralign.data.simulate(mix=...)`), so the demo
# frequencies say how the simulator was set up, not how people disagree; what carries over is the shape of
# the analysis.
#
# ## (a) Human annotation: a spreadsheet round-trip
#
# `taxonomy.export_for_annotation` samples diverging pairs (seeded) into an `.xlsx` with the prompt, both
# responses, the annotators' votes, an `annotator` column and one column per cause; its `instructions` and
# `taxonomy` sheets carry Table 1. An annotator writes her name and an `x` under every cause that applies;
# `taxonomy.import_annotations` reads one or several such files back and refuses a bad sheet with an error
# naming the file, the row and the column.

# %%
folder = Path(annotation_dir) if annotation_dir else Path(tempfile.mkdtemp(prefix="pluralign-causes-"))
sheets = {}
for d in loaded:
    n = min(n_annotate, len(diverging[d.name]))
    path = folder / f"causes-{d.name}.xlsx"
    sheets[d.name] = (path, taxonomy.export_for_annotation(d, classified[d.name], n, path, seed=seed))
first_name, (first_path, first_sheet) = next(iter(sheets.items()))
first_sheet[["pair_id", "votes", "prompt", "annotator", *taxonomy.CAUSE_IDS[:3]]].head(3)

# %% [markdown]
# The exported sheet is empty: nobody has marked a cause yet, and reading it back gives no labels.

# %%
taxonomy.import_annotations(first_path).shape[0]

# %% tags=["remove-input"]
if use_planted:
    display(Markdown(
        "On the demo profile we fill the sheets in the way an annotator would, with `taxonomy.write_annotations`, "
        "for two 'annotators': **planted** — the simulator's planted cause (the reference) — and **rules** — "
        "`taxonomy.rule_causes`, a labeller that sees only surface features (one response has "
        f"≥ {taxonomy.VERBOSITY_RATIO:g}× the words and at least {taxonomy.MIN_EXTRA_WORDS} more "
        "→ verbosity; a list or heading on one side only → format; refusal phrases → comply-vs-refuse or "
        "refuse-vs-refuse) and leaves a pair blank when none fires. Neither is a person: the point is that "
        "what goes into the spreadsheet comes back out unchanged, and that the agreement statistics behave as "
        "they should."))
elif not annotation_files:
    display(Markdown(f"The sheets are in `{folder}` (one per data set). Fill them in (one copy per annotator), "
                     "list them under `annotation_files` and re-run the page to get cause frequencies and "
                     "agreement."))

# %%
written = {}
if use_planted:
    for name, (path, sheet) in sheets.items():
        d = next(x for x in loaded if x.name == name)
        labels = pd.concat([taxonomy.planted_causes(d.truth, sheet["pair_id"]),
                            taxonomy.rule_causes(d, sheet["pair_id"])], ignore_index=True)
        written[name] = labels
        taxonomy.write_annotations(path, labels, folder / f"causes-{name}-filled.xlsx")
    annotation_files = {name: [folder / f"causes-{name}-filled.xlsx"] for name in sheets}
imported = {name: taxonomy.import_annotations(files) for name, files in annotation_files.items()}
{name: len(labels) for name, labels in imported.items()}

# %% tags=["remove-input"]
if written:
    same = {name: {(r.pair_id, r.annotator): r.causes for r in written[name].itertuples()}
            == {(r.pair_id, r.annotator): r.causes for r in imported[name].itertuples()} for name in written}
    display(Markdown("Labels written and read back are identical for every data set: **"
                     + ("yes" if all(same.values()) else "NO") + "** "
                     + "(" + ", ".join(f"{name}: {len(written[name])} labels" for name in written) + ")."))

# %% tags=["remove-input"]
if not use_planted and any(len(v) for v in imported.values()):
    display(Markdown("Cause frequencies from the imported annotations (every annotator's judgment of a pair "
                     "counts once), beside Table 1:"))
    freq_imported = taxonomy.cause_frequencies({k: v for k, v in imported.items() if len(v)})
    display(freq_imported)
    plot_frequencies(freq_imported, [k for k, v in imported.items() if len(v)],
                     "Causes of diverging preferences: imported annotations vs Table 1")

# %% [markdown]
# ## (c) Agreement on label sets: κ and α-MASI
#
# §2.1: "we evaluate agreement using both Cohen's κ (comparing full label set equivalence), as well as
# Krippendorff's α with MASI distance". κ counts two annotators as agreeing on a pair only when their sets
# of causes are identical; α with MASI gives partial credit for overlapping sets.

# %% tags=["remove-input"]
agree = taxonomy.agreement_table(imported, paper_reference=paper_reference)
if agree.attrs["skipped"]:
    display(Markdown("Labels from fewer than two annotators, so no agreement: "
                     + ", ".join(str(k) for k in agree.attrs["skipped"]) + "."))
if len(agree):
    if agree.attrs["stand_in"]:
        display(Markdown("Rows whose paper reference says \"stand-in reference\" are compared with the κ and α the "
                         "paper reports for a different data set, which they only stand in for."))
    display(agree.style.format({c: "{:.2f}" for c in ["κ", "α (MASI)", "paper κ", "paper α"]}, na_rep="n/a"))
else:
    display(Markdown("No data set has cause labels from two or more annotators on this run, so there is no "
                     "agreement to compute."))

# %% tags=["remove-input"]
if use_planted:
    display(Markdown(
        "The paper's figures are agreement between three of its authors. Here the two 'annotators' are the "
        "planted reference and the surface-feature labeller, so κ and α measure how much of the planted causes "
        "a reader of surface features recovers: it finds verbosity, format and refusals, cannot see complexity, "
        "taste or task ambiguity, and often marks an extra cause (a dressed-up wrong answer is also longer and "
        "formatted) — which κ counts as full disagreement and MASI as partial agreement. Low values here say the "
        "surface features miss most causes, which is why the paper needed people (and why the issue asks for an "
        "LLM classifier) to label them."))

# %% [markdown]
# ## (b) An LLM cause classifier
#
# `taxonomy.classify_causes(data, llm, pair_ids, job=...)` sends each pair to an instruction-following LLM with
# the ten causes and their definitions, asks for JSON (`{"causes": [...], "rationale": ...}`), validates the
# answer against a schema (retrying a bad answer, recording retried items), and returns labels in the same
# format as the spreadsheet, so `label_agreement` compares the classifier with human annotators directly.
# The job is journaled: a killed run resumes where it stopped. This is the prompt for the first sampled pair:

# %% tags=["hide-input"]
pid = first_sheet["pair_id"].iloc[0]
row = next(x for x in loaded if x.name == first_name).pairs.set_index("pair_id").loc[pid]
print(taxonomy.cause_prompt(row["prompt"], row["response_a"], row["response_b"], max_chars=600))

# %% tags=["remove-input"]
if cause_classifier is None:
    display(Markdown(
        "The classifier is **not run on this profile**. The only LLM shipped with the demo and sample profiles "
        "is Gemma 3 270M, a *base* model: it continues text but does not follow an instruction to answer in "
        "JSON, so its labels would be noise. The path itself is exercised in `tests/test_taxonomy.py` against a "
        "real OpenAI-compatible server on 127.0.0.1, and the paper profile runs it (parameter "
        "`cause_classifier`, e.g. `{name: \"openai:gpt-4o-2024-08-06\", api_key_env: OPENAI_API_KEY}`) with "
        "the code below."))

# %%
if cause_classifier is not None:
    from pluralign import llm as llms
    classifier = llms.load(**cause_classifier)
    for name, (path, sheet) in sheets.items():
        d = next(x for x in loaded if x.name == name)
        ids = list(sheet["pair_id"])[:classifier_pairs]
        llm_labels = taxonomy.classify_causes(d, classifier, ids, job=f"diverging-causes-{name}")
        display(Markdown(f"**{name}**: {len(llm_labels)} pairs labelled, {len(llm_labels.attrs['failed'])} failed "
                         f"validation, {len(llm_labels.attrs['patched'])} needed a retry."))
        freq_llm = taxonomy.cause_frequencies({f"{name} (LLM)": llm_labels})
        display(freq_llm)
        plot_frequencies(freq_llm, [f"{name} (LLM)"], f"{name}: causes from the LLM classifier vs Table 1")
        humans = imported.get(name)
        if humans is not None and len(humans):
            both = pd.concat([humans, llm_labels[["pair_id", "annotator", "causes"]]], ignore_index=True)
            a = taxonomy.label_agreement(both)
            display(pd.Series(a["pairwise_kappa"], name="κ").to_frame().assign(
                **{"α (MASI), all annotators": a["alpha"]}))

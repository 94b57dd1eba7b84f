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
# data sets: a list of data specs (pluralign.data.spec.from_spec); several are concatenated
data = [{"simulate": {"n_pairs": 1200, "seed": 0}}]
# > 0: a random subset of this many pairs per data set (the paper: 25); or {data-set name: n} to
# sub-sample only the named ones (e.g. the 2,303 HH-RLHF harmless test pairs on the sample profile)
per_dataset = 0
# categories (§3.1): "truth" = the simulator's planted kind / distinguishability; "llm" = Appendix B
# tasks 1-2 asked of `labeller`; "labels" = imported human labels (`labels_file`, majority vote);
# "datasets" = one category per data set (`kind_by_dataset`), others unassigned
categories = "truth"
kind_by_dataset = {}
labels_file = None
# p* (Eq. 2): "truth" = the simulator's planted population share; "annotators" = the share of a data
# set's real annotators; "labels" = human answers to task 3 in `labels_file` (pair_id, labeller,
# prefer_a out of 10), averaged; "llm" = Appendix B task 3 asked of `labeller`, averaged over labellers
p_star_from = "truth"
# an LLM labeller (pluralign.llm.load arguments; an API key only through api_key_env), or a list of
# them (several distinct labellers, each asked labeller_samples times)
labeller = None
labeller_samples = 3
# sampling settings of the labeller: labeller_samples answers of one model are distinct "labellers"
# only if sampled (temperature 0 = greedy = identical answers; the library warns). Distinct models:
# pass `labeller` as a list of pluralign.llm.load argument dicts.
labeller_temperature = 1.0
labeller_top_p = 0.9
labeller_job = "btb-subjectivity"
n_examples = 1

# %% tags=["remove-input"]
from pluralign import report


def _n_of(name):  # how many pairs of data set `name` the page uses (for the profile note)
    n = per_dataset.get(name) if isinstance(per_dataset, dict) else per_dataset
    return f"a random {n} of its pairs" if n else "all of its pairs"


report.profile_note(profile, stand_ins={
    "demo": ["The categories are the simulator's planted ones (single- vs multiple-correct prompt plans; "
             "paraphrase-only pairs are the indistinguishable ones), not an annotator's or an LLM's labels.",
             "p* is the planted population share P(A ≻ B) (computed from the simulated population, not "
             "estimated from 10-people answers)."],
    "sample": ["p* is the share of PandaLM's three real annotators (Eq. 2 over a population of three); "
               "LLMBar pairs are single-correct by construction (one output follows the instruction) and "
               "their p* is that gold label (1 or 0).",
               f"HH-RLHF (harmless-base test split, {_n_of('hh-rlhf')}) has one crowdworker label per "
               "pair: its p* is that label, 0 or 1 — a population of one, not the paper's three annotators' "
               "10-people estimate. Its pairs get no category (a red-teaming dialogue is neither clearly "
               "single- nor multiple-correct without a labeller) and count only in 'all'.",
               "No LLM labels the categories: the embedded model is a base model that cannot answer "
               "Appendix B's questions."],
}.get(profile, []))

# %% tags=["remove-input"]
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display
from myst_nb import glue

from pluralign import margins as M
from pluralign import subjectivity as S
from pluralign.data.spec import load_specs

# %% tags=["remove-input"]
# the size of the paper's test set (Table 1), from the library's constants
glue("btb_subj_paper_n", int(M.PAPER.loc[(M.PAPER.metric == "pearson") & (M.PAPER.grouping == "dataset"), "n"].sum()),
     display=False)

# %% [markdown]
# ## The data

# %% tags=["hide-input"]
d, parts = load_specs(data, per_dataset=per_dataset, seed=seed)
pairs = d.pairs.set_index("pair_id")
display(pd.DataFrame([{"data set": p.name, "pairs": len(p), "judgments": len(p.annotations),
                       "annotators per pair": float(p.n_annotators().median())} for p in parts]))

# %% [markdown]
# ## Two dimensions of subjectivity (§3.1)
#
# The paper's annotators answered two questions per pair, quoted word for word from Appendix B:

# %% tags=["remove-input"]
ex = pairs.iloc[0]
display(Markdown("**Task 1 (subjectivity)**\n\n```text\n" + S.task1_prompt(ex["prompt"][:300], suffix=None)
                 + "\n```\n\n**Task 2 (distinguishability)**\n\n```text\n"
                 + S.task2_prompt(ex["prompt"][:300], ex["response_a"][:300], ex["response_b"][:300], suffix=None)
                 + "\n```"))

# %% tags=["hide-input"]
ids = pairs.index
kind = pd.Series(None, index=ids, dtype=object)
dist = pd.Series(None, index=ids, dtype=object)
if categories == "truth":
    kind = d.truth["kind"].reindex(ids).astype(object)
    dist = d.truth["distinguishable"].reindex(ids).astype(object)
elif categories == "datasets":
    kind = pairs["dataset"].map(lambda v: kind_by_dataset.get(v)).astype(object)
elif categories == "llm":
    from pluralign import llm as L
    lab = [L.load(**x) for x in labeller] if isinstance(labeller, list) else L.load(**labeller)
    sampling = {"samples": labeller_samples, "temperature": labeller_temperature, "top_p": labeller_top_p}
    kind = S.classify_subjectivity(lab, d, **sampling, job=labeller_job).set_index("pair_id")["kind"]
    dist = S.classify_distinguishability(lab, d, **sampling, job=labeller_job).set_index("pair_id")["distinguishable"]
elif categories == "labels":
    raw = pd.read_csv(labels_file)  # long form: pair_id, annotator, kind, distinguishable
    kind = S.majority_vote(raw, "kind").set_index("pair_id")["kind"].reindex(ids)
    dist = S.majority_vote(raw, "distinguishable").set_index("pair_id")["distinguishable"].reindex(ids)
else:
    raise ValueError(f"categories must be truth, datasets, llm or labels, not {categories!r}")

if p_star_from == "llm" and categories != "llm":
    from pluralign import llm as L
    lab = [L.load(**x) for x in labeller] if isinstance(labeller, list) else L.load(**labeller)
p_star = S.p_star_from(p_star_from, d, ids, labeller=lab if p_star_from == "llm" else None,
                       labels_file=labels_file, samples=labeller_samples, temperature=labeller_temperature,
                       top_p=labeller_top_p, job=labeller_job)

has_dist = dist.notna().any()
summary = S.category_summary(kind, dist if has_dist else None, p_star)
display(summary.round(3))

# %% [markdown]
# `mean_agreement` is the mean of $|2p^* - 1|$: 1 when the whole population prefers the same
# answer, 0 when it splits evenly. It is what the margin of Eq. 3 estimates from synthetic
# judgments.

# %% tags=["remove-input"]
said = []
for cat in ("Single Correct", "Multiple Correct"):
    row = summary[summary["category"] == cat]
    if len(row):
        said.append(f"{int(row['n'].iloc[0])} pairs are *{cat.lower()}*, with a mean population agreement of "
                    f"{float(row['mean_agreement'].iloc[0]):.2f}")
    else:
        said.append(f"no pair is assigned *{cat.lower()}* on this profile")
display(Markdown("Here " + "; ".join(said) + ". (The paper's premise: where many answers are correct, the population splits.)"))

# %% [markdown]
# One example per category:

# %% tags=["hide-input"]
show = []
for kname in ("single", "multiple"):
    for dv in ((True, False) if has_dist else (None,)):
        m = (kind == kname) & ((dist == dv) if dv is not None else True)
        for pid in list(ids[m.to_numpy()])[:n_examples]:
            show.append({"category": f"{kname} / {'—' if dv is None else 'distinguishable' if dv else 'indistinguishable'}",
                         "prompt": pairs.at[pid, "prompt"][:160], "response A": pairs.at[pid, "response_a"][:160],
                         "response B": pairs.at[pid, "response_b"][:160], "p*": round(float(p_star[pid]), 3)})
with pd.option_context("display.max_colwidth", 160):
    display(pd.DataFrame(show))

# %% [markdown]
# ## The aggregate preference p\* per category

# %% tags=["hide-input"]
frame = pd.DataFrame({"p*": p_star, "category": kind.map({"single": "Single Correct", "multiple": "Multiple Correct"})
                      .fillna("unassigned")})
if has_dist:
    frame["responses"] = dist.map({True: "distinguishable", False: "indistinguishable"}).fillna("unassigned")
fig, ax = plt.subplots(figsize=(7, 3.2))
sns.histplot(frame, x="p*", hue="category", bins=21, stat="probability", common_norm=False, element="step", ax=ax)
ax.set_xlabel("p* = share of the population preferring A (Eq. 2)")
ax.set_title("Aggregate preference by plurality of responses")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## What one binary judgment says about p\*
#
# Eq. 1 trains on one judgment $j$ per pair. Read as a prediction of p\* (1 if A was chosen, 0
# otherwise), how far is it from the population? The same Pearson correlation and mean L1 distance
# that Tables 1–2 use for reward models, per category, with 95% bootstrap intervals. Where the data
# have several annotators, the share of all of them is shown too.

# %% tags=["hide-input"]
binary = M.binary_judgments(d, seed=seed)
groups = M.table_groups(pairs["dataset"], kind, dist if has_dist else None, in_domain=set(pairs["dataset"]),
                        out_of_domain=None)
bids = binary.pairs["pair_id"]
by = groups.drop(columns=["domain", "kind_domain"], errors="ignore")
with warnings.catch_warnings():  # pairs without a category stay in "all" and leave that grouping
    warnings.filterwarnings("ignore", message=".*without a category.*")
    rows = [M.evaluate(p_star.reindex(bids), binary.share_a().reindex(bids), by=by.reindex(bids), seed=seed)
            .assign(source="one binary judgment")]
    if d.n_annotators().max() > 1 and p_star_from != "annotators":  # (p* = the annotators' share: identical)
        rows.append(M.evaluate(p_star, d.share_a().reindex(ids), by=by, seed=seed)
                    .assign(source=f"all annotators (median {int(d.n_annotators().median())})"))
ev = pd.concat(rows, ignore_index=True)
ev["cell"] = [f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if np.isfinite(v) else "—" for v, lo, hi in zip(ev["value"], ev["lo"], ev["hi"])]
tab = ev.pivot_table(index=["grouping", "category"], columns=["source", "metric"], values="cell", aggfunc="first", sort=False)
tab.insert(0, ("n", ""), ev.drop_duplicates(["grouping", "category"]).set_index(["grouping", "category"])["n"])
display(tab)
one = ev[(ev.source == "one binary judgment") & (ev.grouping == "all") & (ev.metric == "l1")].iloc[0]
glue("btb_binary_l1", float(one["value"]), display=False)
glue("btb_binary_l1_lo", float(one["lo"]), display=False)
glue("btb_binary_l1_hi", float(one["hi"]), display=False)
glue("btb_binary_dropped", int(len(d) - len(binary)), display=False)
if p_star_from == "annotators":
    display(Markdown("Here p\\* is the share of the same annotators the binary judgment is drawn from, so the "
                     "judgment is part of its own target: this comparison is optimistic. For a data set with one "
                     "label per pair the binary judgment *is* p\\* (r = 1, L1 = 0): only data sets with several "
                     "annotators per pair say anything here."))

# %% [markdown]
# A single binary judgment is on average {glue:text}`btb_binary_l1:.3f` (95% CI
# {glue:text}`btb_binary_l1_lo:.3f`–{glue:text}`btb_binary_l1_hi:.3f`) away from p\*
# ({glue:text}`btb_binary_dropped` pairs on which every annotator tied have no binary judgment and
# are left out). The gap is largest where the population is split — multiple correct answers and
# indistinguishable paraphrases, whose p\* is near ½ while a binary label is 0 or 1. A Pearson r is
# not defined for a category whose p\* is constant (on the simulator, paraphrase-only pairs have
# p\* = ½ exactly); its L1 still is.

# %% tags=["hide-input"]
plot = ev[(ev.metric == "l1") & (ev.grouping != "all")]
fig, ax = plt.subplots(figsize=(7, 0.45 * plot[["grouping", "category"]].drop_duplicates().shape[0] + 1.2))
for i, (src, g) in enumerate(plot.groupby("source", sort=False)):
    y = np.arange(len(g)) + 0.18 * i
    ax.errorbar(g["value"], y, xerr=[g["value"] - g["lo"], g["hi"] - g["value"]], fmt="o", capsize=3, label=src)
    ax.set_yticks(np.arange(len(g)), [f"{c} (n={n})" for c, n in zip(g["category"], g["n"])])
ax.set_xlabel("mean L1 distance to p* (95% bootstrap CI)")
ax.legend(loc="best", fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["remove-input"]
paper = M.PAPER.set_index(["grouping", "category"])
glue("btb_paper_single", float(paper.loc[("kind", "Single Correct"), "baseline"]), display=False)
glue("btb_paper_multiple", float(paper.loc[("kind", "Multiple Correct"), "baseline"]), display=False)

# %% [markdown]
# The paper's §3.2 reports the same pattern for a trained reward model (the baseline column of
# Table 1): its correlation with p\* is {glue:text}`btb_paper_single:.3f` on single-correct and
# {glue:text}`btb_paper_multiple:.3f` on multiple-correct pairs — see {ref}`btb-rewards`, where our
# baseline and the regularized model are compared.

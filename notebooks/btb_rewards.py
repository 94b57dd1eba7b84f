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
# (btb-rewards)=
# # Margin-regularized reward models against the aggregate preference
#
# *Beyond the Binary* {cite}`padmakumar2024beyond` trains the same base model twice on the same
# binary judgments: once with the Bradley–Terry loss (Eq. 1), once with the margin-regularized loss
# (Eq. 4),
#
# $$\mathrm{loss}(r_\theta) = -\mathbb{E}\big[\log \sigma\big(r_\theta(x, y_j) - r_\theta(x, y_{1-j}) - m_{x, y_0, y_1}\big)\big],$$
#
# with the margin $m$ of Eq. 3 from ten synthetic judgments ({ref}`btb-margins`). Each model's
# learning rate is chosen by a sweep ({glue:text}`btb_paper_lrs` in the paper) on validation data (footnote 6).
# Both are then compared with the aggregate preference p\* ({ref}`btb-subjectivity`) through the
# Pearson correlation (Table 1) and the mean L1 distance (Table 2) between the model's
# $P(A \succ B) = \sigma(r_A - r_B)$ and p\*, per data set and per category of subjectivity.
#
# The paper's test set has {glue:text}`btb_paper_n` pairs ({glue:text}`btb_paper_n_per` per data set); its Δ are
# point estimates. Here every number
# has a 95% bootstrap interval, and Δ a *paired* one (both models on the same resampled pairs).

# %% tags=["parameters"]
profile = "demo"
seed = 0
# training data: a list of data specs, concatenated; the RMs are trained on ONE binary judgment per
# pair (Eq. 1) drawn from them
data = [{"simulate": {"n_pairs": 1200, "seed": 0}}]
# evaluation-only data sets (never trained on), e.g. the paper's six test splits; with
# test_per_dataset > 0 a random subset of that size is drawn from each (the paper: 25 per data set),
# or {data-set name: n} to sub-sample only the named ones
test_only = []
test_per_dataset = 0
# pairs held out as out-of-domain by a column of the simulator's truth (demo), e.g. prompt types
ood_by = {"column": "prompt_type", "values": ["creative", "harmful"]}
# display name of each data set / group for Tables 1-2 (in_domain / out_of_domain lists use them)
dataset_column = "prompt_type"  # "dataset" (the data's own names) or a truth column (demo)
display_names = {}              # data-set name -> the paper's display name (Table 1 rows)
in_domain = ["factual", "open", "ambiguous", "borderline", "garbled"]
out_of_domain = ["creative", "harmful"]
test_size = 250                 # in-domain held-out test pairs from `data` (0: test on `test_only` only)
validation_size = 150           # footnote 6: learning rate chosen on validation pairs
# p* (Eq. 2): "truth" | "annotators" (share of real annotators; a single gold label gives 1 or 0) |
# "labels" (Appendix B task 3 answers in `labels_file`: pair_id, labeller, prefer_a [0-10]) |
# "llm" (task 3 asked of `labeller`, averaged over `labeller_samples` answers)
p_star_from = "truth"
# categories: "truth" | "none" | {"kind": {dataset: "single" | "multiple"}} | "labels" (`labels_file`
# columns kind, distinguishable; majority vote) | "llm" (Appendix B tasks 1-2 asked of `labeller`)
categories = "truth"
labels_file = None
labeller = None                 # pluralign.llm.load arguments, or a list of them (distinct labellers)
labeller_samples = 3
# labeller_samples answers of one model differ only if sampled (temperature 0 = identical greedy answers)
labeller_temperature = 1.0
labeller_top_p = 0.9
labeller_job = "btb-rewards-labels"
# margins (Eq. 3): "simulated" (offline stand-in judge), "llm" (`judge`), "annotators" (gold standard)
margins_from = "simulated"
simulated_judge_noise = 1.0
n_judgments = 10
top_p = 0.9
judge = None
judge_method = "sample"
judge_job = "btb-rewards"
# reward model: pluralign.rewards.load arguments (None = frozen all-MiniLM-L6-v2 + linear head)
reward_model = None
# the baseline: None = train `reward_model` with Eq. 1 and the same sweep; or pluralign.rewards.load
# arguments of an already trained RM (the paper: OpenAssistant/reward-model-deberta-v3-large-v2)
baseline_model = None
# learning-rate sweep (footnote 6). The paper: 1e-4 ... 1e-6 for fine-tuning DeBERTa-v3. A linear head
# on frozen embeddings needs larger steps; demo/sample sweep 1e-1 ... 1e-3 (see the text).
lr_sweep = [1.0e-1, 1.0e-2, 1.0e-3]
# validation metric (footnote 6 names none): accuracy or loss
select_on = "accuracy"
train = {"epochs": 30, "batch_size": 64}
n_boot = 2000
# also report the paired CI of the difference on a random test subset of this size (0 = skip)
paper_sized_check = 150

# %% tags=["remove-input"]
from pluralign import report


def _n_test_of(name):  # how many pairs of evaluation data set `name` are used (for the profile note)
    n = test_per_dataset.get(name) if isinstance(test_per_dataset, dict) else test_per_dataset
    return f"a random {n} of its pairs" if n else "all of its pairs"


report.profile_note(profile, stand_ins={
    "demo": [f"Margins come from a **simulated judge** (the planted p* with log-odds noise sd "
             f"{simulated_judge_noise:g}, n = {n_judgments} draws), not Llama-3-70B-Instruct — see "
             "{ref}`btb-margins` for its measured quality.",
             "p* and the categories are the simulator's planted ones; 'data sets' are the simulator's prompt "
             "types, two of which are held out entirely as out-of-domain.",
             "The reward model is a linear head on frozen all-MiniLM-L6-v2 embeddings, not DeBERTa-v3 fine-tuning."],
    "sample": ["Margins come from PandaLM's three real annotators (the paper's 'gold standard'), not from an LLM.",
               "p*: PandaLM = the three annotators' share; LLMBar (single-correct by construction, never trained "
               "on) = its gold label; HH-RLHF (harmless-base test split, "
               f"{_n_test_of('hh-rlhf')}, never trained on) = its one crowdworker's label. "
               "For LLMBar and HH-RLHF p* is therefore 0 or 1 — one label, not a population's share.",
               "Both single-label sets are out-of-domain (the RMs are trained on PandaLM only); HH-RLHF pairs get "
               "no category of subjectivity (no labeller) and count in 'all' and 'OOD' only.",
               "The reward model is a linear head on frozen all-MiniLM-L6-v2 embeddings."],
    "paper": ["Unless p_star_from / categories are 'labels' (human answers to Appendix B), p*, the categories "
              "and the training margins all come from the same Llama-3-70B-Instruct: the regularized RM is then "
              "trained towards the very model that defines its target, which favours it over the baseline. "
              "The paper's p* comes from three human annotators."],
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
from pluralign import rewards
from pluralign import subjectivity as S
from pluralign.data.spec import load_specs
from pluralign.data import combine

# %% tags=["remove-input"]
# the paper's sizes and learning rates, from the library's constants (Table 1, footnote 6)
_paper_ds = M.PAPER[(M.PAPER.metric == "pearson") & (M.PAPER.grouping == "dataset")]
_per = sorted(set(_paper_ds["n"].astype(int)))
glue("btb_paper_n", int(_paper_ds["n"].sum()), display=False)
glue("btb_paper_n_per", str(_per[0]) if len(_per) == 1 else f"{_per[0]}–{_per[-1]}", display=False)


def _lr(v):
    return f"{v:.0e}".replace("e-0", "e-").replace("e+0", "e")


glue("btb_paper_lrs", f"{_lr(max(M.LR_SWEEP))} to {_lr(min(M.LR_SWEEP))}", display=False)
glue("btb_lrs", ", ".join(_lr(v) for v in lr_sweep), display=False)
_dec = float(np.mean(np.log10(lr_sweep)) - np.mean(np.log10(M.LR_SWEEP)))  # decades between the sweeps' centres
glue("btb_lr_ratio", "on the scale of" if abs(_dec) < 0.5 else
     f"about {10 ** round(abs(_dec)):,.0f} times {'larger' if _dec > 0 else 'smaller'} than", display=False)

# %% [markdown]
# ## Data: one binary judgment per pair, train / validation / test

# %% tags=["hide-input"]
full, parts = load_specs(data)
_, extra = load_specs(test_only, per_dataset=test_per_dataset, seed=seed)
held = set().union(*[set(x.pairs["pair_id"]) for x in extra]) if extra else set()
if held & set(full.pairs["pair_id"]):  # a test pair drawn from a training set is never trained on
    full = full.subset([i for i in full.pairs["pair_id"] if i not in held], reason="test pairs held out of training")
everything = combine(full, *extra) if extra else full
ood_ids = []
if ood_by:
    col = full.truth[ood_by["column"]] if full.truth is not None and ood_by["column"] in full.truth else \
        full.pairs.set_index("pair_id")[ood_by["column"]]
    ood_ids = list(col.index[col.isin(ood_by["values"])])
# split the full data first, then one binary judgment per pair (Eq. 1) for train and validation only:
# test pairs keep every annotator, so pairs where all annotators tied (p* = 1/2) stay testable
sp = M.training_splits(full, test=test_size, validation=validation_size, seed=seed, out_of_domain=set(ood_ids))
_tests = [x for x in (sp["test"], *extra) if x is not None]
test = combine(*_tests) if len(_tests) > 1 else _tests[0]
display(pd.DataFrame([{"split": k, "pairs": len(v)} for k, v in
                      {"train": sp["train"], "validation": sp["validation"], "test": test}.items()]))
display(pd.DataFrame(sp["train"].meta["filters"]).tail(2))

# %% tags=["hide-input"]
tid = test.pairs["pair_id"]
pairs_all = everything.pairs.set_index("pair_id")
if categories == "llm" or p_star_from == "llm":
    from pluralign import llm as L
    lab = [L.load(**x) for x in labeller] if isinstance(labeller, list) else L.load(**labeller)
    sampling = {"samples": labeller_samples, "temperature": labeller_temperature, "top_p": labeller_top_p}
p_star = S.p_star_from(p_star_from, everything, tid, labeller=lab if p_star_from == "llm" else None,
                       labels_file=labels_file, **(sampling if p_star_from == "llm" else {}), job=labeller_job)
if dataset_column == "dataset":
    names = pairs_all["dataset"].reindex(tid)
else:
    names = everything.truth[dataset_column].reindex(tid)
kind = dist = None
if categories == "truth":
    kind = everything.truth["kind"].reindex(tid)
    dist = everything.truth["distinguishable"].reindex(tid)
elif isinstance(categories, dict):  # a category per data set
    kind = pairs_all["dataset"].reindex(tid).map(categories.get("kind", {}))
elif categories == "labels":
    raw = pd.read_csv(labels_file)
    kind = S.majority_vote(raw, "kind").set_index("pair_id")["kind"].reindex(tid)
    dist = S.majority_vote(raw, "distinguishable").set_index("pair_id")["distinguishable"].reindex(tid)
elif categories == "llm":
    kind = S.classify_subjectivity(lab, test, **sampling, job=labeller_job).set_index("pair_id")["kind"]
    dist = S.classify_distinguishability(lab, test, **sampling, job=labeller_job).set_index("pair_id")["distinguishable"]
groups = M.table_groups(names, kind, dist, in_domain=in_domain, out_of_domain=out_of_domain, names=display_names)

# %% [markdown]
# ### Where p\* and the categories come from
#
# In the paper both are human: three annotators put each test pair in a category by majority vote
# and estimated p\* by answering "If you asked 10 people…" (Appendix B, §3.2). With
# `p_star_from: llm` / `categories: llm` they come from an LLM labeller instead. If that labeller is
# also the judge whose ten votes give the training margins (Eq. 3) — the `paper` profile's default
# uses Llama-3-70B-Instruct for both — the regularized RM is trained on margins from the model that
# defines its evaluation target, which favours it over the baseline by construction. Human labels
# (`p_star_from: labels`, `categories: labels`, `labels_file`) avoid this and are the recommended
# setting for a comparison with the paper.

# %% tags=["remove-input"]
_same = (p_star_from == "llm" or categories == "llm") and margins_from == "llm" and \
    any(isinstance(x, dict) and x.get("name") == (judge or {}).get("name")
        for x in (labeller if isinstance(labeller, list) else [labeller]))
if _same:
    display(Markdown(f"**On this run the labeller and the margin judge are the same model "
                     f"({judge.get('name')})**: read any advantage of the regularized RM below with that in mind."))

# %% [markdown]
# ## Margins for the training pairs (Eq. 3)

# %% tags=["hide-input"]
train_set = sp["train"]
sj = M.judgments_from(margins_from, sp["train_full"] if margins_from == "annotators" else train_set,
                      n=n_judgments, seed=seed, noise=simulated_judge_noise, judge=judge, method=judge_method,
                      top_p=top_p, job=judge_job)
train_margins = M.training_margins(sj)
fig, ax = plt.subplots(figsize=(5, 2.6))
sns.histplot(train_margins, bins=np.linspace(-0.05, 1.05, 12), stat="probability", ax=ax)
ax.set_xlabel(f"margin m (Eq. 3) of the {len(train_margins)} training pairs")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Learning-rate sweep, selected on validation (footnote 6)
#
# The paper fine-tunes DeBERTa-v3 and sweeps learning rates from {glue:text}`btb_paper_lrs`. The demo
# and sample profiles train a linear head on frozen sentence embeddings, whose useful learning rates
# are larger (Adam on a few hundred parameters rather than fine-tuning 435M). This run sweeps
# {glue:text}`btb_lrs`, {glue:text}`btb_lr_ratio` the paper's grid. The validation pairs carry binary
# labels only (p\* is never used for selection): the model with the best validation pairwise
# accuracy is kept (the paper does not name its metric).

# %% tags=["hide-input"]
rm = rewards.load(**(reward_model or {}))
rewards.embed_all(rm, everything)  # frozen encoder: every text embedded once (cached); training takes seconds
if baseline_model is None:
    base, sweep_b = M.sweep(rm, train_set, sp["validation"], lr_sweep, objective="bt", metric=select_on,
                            seed=seed, progress=False, **train)
else:  # an already trained baseline (the paper's OpenAssistant RM): scored on validation, not trained
    base = rewards.load(**baseline_model)
    sweep_b = pd.DataFrame([{"objective": "bt (pretrained)", "lr": float("nan"), "split": "validation",
                             **M.validation_scores(base.prob_a(sp["validation"], progress=False),
                                                   sp["validation"]), "selected": True}])
reg, sweep_r = M.sweep(rm, train_set, sp["validation"], lr_sweep, objective="bt-margin", margins=train_margins,
                       metric=select_on, seed=seed, progress=False, **train)
sweeps = pd.concat([sweep_b, sweep_r], ignore_index=True)
display(sweeps.round(4))
lr_b, lr_r = float(sweep_b.loc[sweep_b.selected, "lr"].iloc[0]), float(sweep_r.loc[sweep_r.selected, "lr"].iloc[0])
glue("btb_lr_base", lr_b, display=False)
glue("btb_lr_reg", lr_r, display=False)

# %% [markdown]
# ## Tables 1 and 2: correlation and L1 distance to p\*

# %% tags=["hide-input"]
p_base, p_reg = base.prob_a(test, progress=False), reg.prob_a(test, progress=False)
with warnings.catch_warnings():  # pairs without a category stay in "all" and leave that grouping
    warnings.filterwarnings("ignore", message=".*without a category.*")
    cmp = M.compare(p_star, p_base.reindex(tid), p_reg.reindex(tid), by=groups, n_boot=n_boot, seed=seed)


def fmt(v, lo, hi):
    return "—" if not np.isfinite(v) else f"{v:.3f} [{lo:.3f}, {hi:.3f}]"


def table(metric):
    t = cmp[cmp.metric == metric]
    out = pd.DataFrame({"grouping": t.grouping, "category": t.category, "N": t.n,
                        "baseline": [fmt(*r) for r in t[["baseline", "baseline_lo", "baseline_hi"]].to_numpy()],
                        "regularized": [fmt(*r) for r in t[["regularized", "regularized_lo", "regularized_hi"]].to_numpy()],
                        "Δ (paired CI)": [fmt(*r) for r in t[["delta", "delta_lo", "delta_hi"]].to_numpy()]})
    return out.set_index(["grouping", "category"])


display(Markdown("**Table 1 — Pearson r between P(A ≻ B) and p\\*** (95% bootstrap CIs; Δ = regularized − baseline)"))
display(table("pearson"))
display(Markdown("**Table 2 — mean L1 distance |P(A ≻ B) − p\\*|** (lower is better; a negative Δ is an improvement)"))
display(table("l1"))

# %% tags=["remove-input"]
allr = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
alll = cmp[(cmp.grouping == "all") & (cmp.metric == "l1")].iloc[0]
for k in ("baseline", "regularized", "delta"):
    for suf in ("", "_lo", "_hi"):
        glue(f"btb_r_{k}{suf}", float(allr[k + suf]), display=False)
        glue(f"btb_l1_{k}{suf}", float(alll[k + suf]), display=False)
glue("btb_n_test", int(allr["n"]), display=False)

# %% [markdown]
# Over all {glue:text}`btb_n_test` test pairs the baseline's correlation with p\* is
# {glue:text}`btb_r_baseline:.3f` ({glue:text}`btb_r_baseline_lo:.3f`–{glue:text}`btb_r_baseline_hi:.3f`)
# and the regularized model's {glue:text}`btb_r_regularized:.3f`
# ({glue:text}`btb_r_regularized_lo:.3f`–{glue:text}`btb_r_regularized_hi:.3f`):
# Δ = {glue:text}`btb_r_delta:.3f` with a paired 95% CI of {glue:text}`btb_r_delta_lo:.3f` to
# {glue:text}`btb_r_delta_hi:.3f`. The mean L1 distance moves by {glue:text}`btb_l1_delta:.3f`
# ({glue:text}`btb_l1_delta_lo:.3f` to {glue:text}`btb_l1_delta_hi:.3f`). Learning rates chosen on
# validation: {glue:text}`btb_lr_base` (baseline) and {glue:text}`btb_lr_reg` (regularized).

# %% tags=["remove-input"]
_paper_d = M.PAPER[M.PAPER.metric == "pearson"].set_index(["grouping", "category"])["delta"]
_rows, _d = [], {}
for g, c, key in (("kind", "Multiple Correct", "multiple"), ("kind", "Single Correct", "single"),
                  ("domain", "ID", "id"), ("domain", "OOD", "ood")):
    glue(f"btb_paper_d_{key}", float(_paper_d[(g, c)]), display=False)
    row = cmp[(cmp.metric == "pearson") & (cmp.grouping == g) & (cmp.category == c)]
    v, lo, hi, n = row[["delta", "delta_lo", "delta_hi", "n"]].iloc[0].tolist() if len(row) else [np.nan] * 3 + [0]
    _d[c] = (v, lo, hi)
    for suf, x in (("", v), ("_lo", lo), ("_hi", hi)):
        glue(f"btb_d_{key}{suf}", float(x), display=False)
    glue(f"btb_d_{key}_n", int(n), display=False)
    verdict = ("not measured (no such pairs on this profile)" if not np.isfinite(v) else
               "regularized better (CI above 0)" if lo > 0 else "regularized worse (CI below 0)" if hi < 0 else
               "no detectable difference (CI contains 0)")
    _rows.append({"category": c, "paper Δ r": float(_paper_d[(g, c)]), "N here": int(n),
                  "Δ r here [95% CI]": fmt(v, lo, hi), "here": verdict})

# %% [markdown]
# ### What was measured, against the direction the paper reports
#
# The paper reports (Table 1, point estimates on {glue:text}`btb_paper_n` pairs, no intervals) that regularization helps
# most where the population disagrees: Δ r = {glue:text}`btb_paper_d_multiple:+.3f` on
# *multiple-correct* pairs against {glue:text}`btb_paper_d_single:+.3f` on *single-correct* ones, and
# {glue:text}`btb_paper_d_ood:+.3f` out-of-domain against {glue:text}`btb_paper_d_id:+.3f` in-domain.
# The Δ measured here on the same groupings, with paired 95% intervals:

# %% tags=["remove-input"]
display(pd.DataFrame(_rows).set_index("category").round(3))
_said = []
for (a, b, what) in (("Multiple Correct", "Single Correct", "on multiple-correct than on single-correct pairs"),
                     ("OOD", "ID", "out-of-domain than in-domain")):
    (va, la, ha), (vb, lb, hb) = _d[a], _d[b]
    if not (np.isfinite(va) and np.isfinite(vb)):
        _said.append(f"{a} vs {b}: not comparable (no {a if not np.isfinite(va) else b} pairs here)")
        continue
    noise = " — but both intervals contain 0" if la <= 0 <= ha and lb <= 0 <= hb else ""
    _said.append(f"the gain is {'larger' if va > vb else 'smaller'} {what} (Δ {va:+.3f} vs {vb:+.3f}; the paper: "
                 f"larger, so {'the same' if va > vb else 'the opposite'} direction{noise})")
display(Markdown("Measured on this profile: " + "; ".join(_said) + ". This page runs the paper's procedure with "
                 "other data, judges and models (see the note at the top). Agreeing or disagreeing with the "
                 "paper's direction is a measurement of this setting, neither a reproduction nor a refutation of "
                 "the paper's numbers, and a Δ whose interval contains 0 has no direction at all."))

# %% [markdown]
# ## Beside the paper's Table 1
#
# The paper's rows (DeBERTa-v3, {glue:text}`btb_paper_n` human-annotated test pairs) next to ours where a row of the same
# name exists; the categories of subjectivity and the ID / OOD split line up, the data sets do not
# (on demo they are simulated prompt types).

# %% tags=["hide-input"]
pv = M.paper_vs_ours(cmp[cmp.metric == "pearson"])
pv = pv[pv.metric == "pearson"]
show = pv[["grouping", "category", "n_paper", "baseline_paper", "regularized_paper", "delta_paper", "n_ours",
           "baseline_ours", "regularized_ours", "delta_ours", "delta_lo_ours", "delta_hi_ours"]]
display(show.set_index(["grouping", "category"]).round(3))

# %% tags=["remove-input"]
glue("btb_paper_dmin", float(M.PAPER["delta"].min()), display=False)
glue("btb_paper_dmax", float(M.PAPER["delta"].max()), display=False)
glue("btb_paper_nmin", int(M.PAPER["n"].min()), display=False)
glue("btb_paper_nmax", int(M.PAPER["n"].max()), display=False)

# %% [markdown]
# ## How uncertain is a Δ on a test set of the paper's size?
#
# The paper's Δ in Table 1 range from {glue:text}`btb_paper_dmin:.3f` to {glue:text}`btb_paper_dmax:.3f`
# on cells of {glue:text}`btb_paper_nmin` to {glue:text}`btb_paper_nmax` pairs. The same comparison on a
# random subset of our test set of the paper's size shows how wide the paired interval of Δ is at
# that size.

# %% tags=["hide-input"]
if paper_sized_check and paper_sized_check < len(tid):
    from pluralign.data.spec import split as _split
    _, small = _split(test, paper_sized_check, seed)
    sid = small.pairs["pair_id"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*without a category.*")
        small_cmp = M.compare(p_star.reindex(sid), p_base.reindex(sid), p_reg.reindex(sid), by=groups.reindex(sid),
                              n_boot=n_boot, seed=seed)
    both = pd.concat([cmp.assign(test_set=f"all {len(tid)} test pairs"),
                      small_cmp.assign(test_set=f"random {paper_sized_check}")], ignore_index=True)
    both = both[both.grouping.isin(["all", "kind", "domain", "distinguishability"])]
    both["Δ CI width"] = both["delta_hi"] - both["delta_lo"]
    display(both.pivot_table(index=["metric", "grouping", "category"], columns="test_set",
                             values=["n", "delta", "Δ CI width"], aggfunc="first").round(3))
    w = small_cmp[(small_cmp.grouping == "all") & (small_cmp.metric == "pearson")].iloc[0]
    glue("btb_small_width", float(w["delta_hi"] - w["delta_lo"]), display=False)
    glue("btb_small_n", int(w["n"]), display=False)
else:  # the test set is already of the paper's size (or smaller)
    glue("btb_small_width", float(allr["delta_hi"] - allr["delta_lo"]), display=False)
    glue("btb_small_n", int(allr["n"]), display=False)

# %% [markdown]
# On {glue:text}`btb_small_n` test pairs (a random subset of ours, or the whole test set when it is that small) the paired
# 95% interval of Δ in Pearson r is
# {glue:text}`btb_small_width:.3f` wide. Set that width beside the paper's Δ (from
# {glue:text}`btb_paper_dmin:.3f` to {glue:text}`btb_paper_dmax:.3f`): a Δ smaller than about half the
# width is not distinguishable from zero at that size, and the paper's per-category cells are smaller
# than {glue:text}`btb_paper_n` pairs, so their intervals are wider still. The paper gives no intervals; read its small Δ
# as directions, not as established effects.

# %% [markdown]
# ## Figures

# %% tags=["hide-input"]
frame = pd.DataFrame({"p*": p_star, "baseline": p_base.reindex(tid), "regularized": p_reg.reindex(tid),
                      "category": groups["kind"] if "kind" in groups else "all"})
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, col in zip(axes, ("baseline", "regularized")):
    sns.scatterplot(frame, x="p*", y=col, hue="category" if "kind" in groups else None, alpha=0.5, s=14, ax=ax)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    r = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    ax.set_title(f"{col} RM: r = {r[col]:.3f} [{r[col + '_lo']:.3f}, {r[col + '_hi']:.3f}]", fontsize=9)
    ax.set_xlabel("p* (aggregate preference for A)")
    ax.set_ylabel("RM P(A ≻ B)")
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
for metric, label in (("pearson", "Δ Pearson r (regularized − baseline)"), ("l1", "Δ mean L1 (regularized − baseline)")):
    t = cmp[(cmp.metric == metric) & np.isfinite(cmp.delta)].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(t) + 1.2))
    y = np.arange(len(t))[::-1]
    ax.errorbar(t["delta"], y, xerr=[t["delta"] - t["delta_lo"], t["delta_hi"] - t["delta"]], fmt="o", capsize=3,
                label="ours (paired 95% CI)")
    if metric == "pearson":
        pp = M.PAPER.set_index(["grouping", "category"])["delta"]
        yp = [(yy, pp[(g, c)]) for yy, g, c in zip(y, t["grouping"], t["category"]) if (g, c) in pp.index]
        if yp:
            ax.scatter([v for _, v in yp], [yy for yy, _ in yp], marker="x", color="C3", zorder=3, label="paper")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{g}: {c} (n={n})" for g, c, n in zip(t["grouping"], t["category"], t["n"])], fontsize=8)
    ax.set_xlabel(label)
    ax.legend(fontsize=8, loc="best")
    plt.tight_layout()
    plt.show()

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
# (diverging-know)=
# # Do models know when annotators disagree?
#
# The second question in the title of Diverging Preferences {cite}`zhang2024diverging`. A Bradley-Terry reward
# model has one number per response, so it can only say *how much better* one response is; it has no way to
# say "people split on this". This page asks two kinds of model:
#
# 1. a **mean-variance reward model**, which gives each response a Gaussian reward N(μ, σ²) over the population
#    of annotators and is trained on every annotator's judgment, so it can represent a split: a random annotator
#    prefers A with p = Φ((μ_A − μ_B) / √(σ_A² + σ_B²)), and two annotators disagree with probability
#    2p(1 − p) (`pluralign.divided.predicted_disagreement`). How well does that predicted disagreement separate
#    diverging from high-agreement pairs (AUROC), and how decisive is the model on each subset (its Table 2 row)?
# 2. **LLM judges**: is a judge less decisive on pairs where the human annotators diverged?

# %% tags=["parameters"]
profile = "demo"
seed = 0
datasets = [
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 1200, "seed": 0, "annotation_format": "helpsteer2"}},
]
test = 300            # held-out pairs per data set (the same split as the Table 2 chapter)
validation = 100      # pairs split off the training side to pick the best checkpoint
reward_model = {}     # keyword arguments of pluralign.rewards.load ({}: frozen all-MiniLM-L6-v2 + linear head)
train = {}            # keyword arguments of RewardModel.train
n_boot = 2000
judges = None         # {"humans": data spec, "verdicts": data spec, "annotators": [judge ids]} or None
judge_llm = None      # {"load": pluralign.llm.load kwargs, "n_pairs": int}: an LLM judge's P(A) on held-out pairs
paper_reference = {}  # {data-set name: "multipref" | "helpsteer2"}: the paper's block a stand-in data set is compared with

# %% tags=["remove-input"]

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown, display
from myst_nb import glue

from pluralign import agreement, divided, report, rewards
from pluralign.data.spec import from_spec

HEADS = {"linear": "linear", "mlp": "small MLP"}
report.profile_note(profile, stand_ins={
    "demo": ["simulated MultiPref-format and HelpSteer2-format data (same texts) stand in for MultiPref and "
             "HelpSteer2", f"the mean-variance reward model is a {HEADS.get(reward_model.get('head', 'linear'))} head (μ and σ) over "
             "frozen all-MiniLM-L6-v2 embeddings, not Llama-3-8B-Instruct with LoRA",
             "no LLM judge is run on simulated text (see the sample profile for real judges)"],
    "sample": ["PandaLM's three-annotator test set stands in for MultiPref and HelpSteer2 (the paper's MultiPref "
               "BT (All) values are shown beside it, marked \"stand-in reference\")", f"the mean-variance "
               f"reward model is a {HEADS.get(reward_model.get('head', 'linear'))} head over frozen all-MiniLM-L6-v2 embeddings",
               "the LLM judges are the verdicts PandaLM published for GPT-3.5 and PandaLM-7B"],
}.get(profile))

# %% [markdown]
# ## A reward model that can represent disagreement
#
# The mean-variance RM is trained by the negative log-likelihood of the individual annotator judgments (a tie
# counts half for each side), on the same training split and with the same recipe as the Table 2 models of
# {ref}`diverging-rewards`; BT (All), trained on the same judgments, is shown beside it.

# %%
rm = rewards.load(**reward_model)
models_spec = {"BT (All)": divided.TABLE2_MODELS["BT (All)"], **divided.MEAN_VARIANCE_MODEL}
mv_name = next(iter(divided.MEAN_VARIANCE_MODEL))
loaded = [from_spec(spec) for spec in datasets]
paper_reference = agreement.check_paper_reference(paper_reference, [d.name for d in loaded])
runs = {}
for data in loaded:
    study = divided.reward_model_study(rm, data, test=test, validation=validation, seed=seed, models=models_spec,
                                       **train)
    classified, heldout, p_a = study["classified"], study["heldout"], study["p_a"]
    mv = divided.mean_variance_disagreement(study["models"][mv_name], heldout, classified)
    runs[data.name] = dict(data=data, classified=classified, heldout=heldout, p_a=p_a, mv=mv,
                           **divided.disagreement_summary(mv, classified, n_boot=n_boot, seed=seed))

# %% [markdown]
# ### Predicted disagreement: diverging vs high-agreement pairs
#
# AUROC of the predicted disagreement for telling diverging held-out pairs from high-agreement ones (both
# high-agreement classes; "other" pairs are left out), with a 95% bootstrap CI; 0.5 is chance. Beside it, the
# rank correlation of predicted disagreement with the disagreement observed among each pair's annotators over all
# held-out pairs: the probability that two of them, drawn with replacement, strictly disagree (one prefers A, the
# other B), 2·n_A·n_B / n² with n all of the pair's judgments, ties included (`divided.observed_disagreement`). A
# tie sides with nobody, so an all-tie pair scores 0, like a unanimous one — whereas the model, trained with a
# tie as half a vote for each side, predicts a split there (see below); on tie-heavy data this lowers the
# correlation.

# %% tags=["remove-input"]
summary = pd.DataFrame({name: {
    "diverging pairs": int(r["labels"].sum()), "high-agreement pairs": int((~r["labels"]).sum()),
    "AUROC": r["auc"][0], "AUROC 95% CI": f"[{r['auc'][1]:.3f}, {r['auc'][2]:.3f}]",
    "AUROC vs high-agreement prefs only": r["auc_prefs"][0],
    "its 95% CI": f"[{r['auc_prefs'][1]:.3f}, {r['auc_prefs'][2]:.3f}]",
    "Spearman ρ (predicted, observed)": r["corr"]["spearman"], "pairs": r["corr"]["n"]} for name, r in runs.items()}).T
for i, (name, r) in enumerate(runs.items()):
    glue(f"auc_{i}", float(r["auc"][0]), display=False)
    glue(f"auc_lo_{i}", float(r["auc"][1]), display=False)
    glue(f"auc_hi_{i}", float(r["auc"][2]), display=False)
    glue(f"auc_name_{i}", name, display=False)
summary.style.format({"AUROC": "{:.3f}", "AUROC vs high-agreement prefs only": "{:.3f}",
                      "Spearman ρ (predicted, observed)": "{:.3f}"})

# %% [markdown]
# On {glue:text}`auc_name_0` the mean-variance model's predicted disagreement has AUROC
# {glue:text}`auc_0:.3f` (95% CI {glue:text}`auc_lo_0:.3f`–{glue:text}`auc_hi_0:.3f`) for diverging vs
# high-agreement pairs.
#
# High-agreement **ties** are the hard case for this model, and the second AUROC column leaves them out: the
# Gaussian (Thurstone) model has no tie outcome, a tie is trained as half a vote for each side, so a pair that
# every annotator called a tie gets p ≈ ½ — exactly what a pair that splits two against two gets. Predicted
# disagreement is then high on both; telling "everyone is indifferent" from "people disagree" needs a model of
# ties (or of the spread of Likert scores), not just of P(A ≻ B).

# %% tags=["hide-input"]
order = ["high-agreement-pref", "high-agreement-tie", "diverging", "other"]
planted = {name: r["data"].truth for name, r in runs.items() if r["data"].truth is not None
           and "share_a" in r["data"].truth.columns}
for name, r in runs.items():
    mv = r["mv"].join(r["classified"][["agreement"]])
    ncol = 3 if name in planted else 2
    fig, axes = plt.subplots(1, ncol, figsize=(4.2 * ncol, 3.4))
    sns.boxplot(data=mv, x="agreement", y="predicted disagreement", order=order, ax=axes[0], fliersize=2,
                color="#8da0cb")
    axes[0].set_xlabel("")
    axes[0].tick_params(axis="x", labelsize=7, rotation=15)
    axes[0].set_title(f"AUROC {r['auc'][0]:.3f} [{r['auc'][1]:.3f}, {r['auc'][2]:.3f}]", fontsize=9)
    sns.stripplot(data=mv, x="observed disagreement", y="predicted disagreement", native_scale=True, ax=axes[1],
                  hue="agreement", hue_order=order, size=3, alpha=0.6, jitter=0.02)
    axes[1].set_title(f"Spearman ρ = {r['corr']['spearman']:.3f}", fontsize=9)
    axes[1].set_xlabel("observed: 2·n_A·n_B / n² among the pair's annotators")
    axes[1].legend(fontsize=7, frameon=False)
    if name in planted:
        pop = divided.split_probability(planted[name]["share_a"].reindex(mv.index))
        axes[2].scatter(pop, mv["predicted disagreement"], s=6, alpha=0.5, color="#dd8452")
        axes[2].set_xlabel("planted: 2p(1 − p), population P(A ≻ B), ties half")
        axes[2].set_ylabel("predicted disagreement")
        axes[2].set_title("against the simulator's population", fontsize=9)
    fig.suptitle(f"{name}: the mean-variance RM's predicted disagreement (held-out pairs)", fontsize=10)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ### The mean-variance model's Table 2 row
#
# The same decisiveness measure as Table 2, P(chosen ≻ rejected), for the mean-variance model beside BT (All).
# The paper has no mean-variance row; its BT (All) values are shown for reference.

# %% tags=["remove-input"]
for name, r in runs.items():
    t = divided.table2(r["classified"], p_a=r["p_a"], n_boot=n_boot, seed=seed)
    beside = divided.table2_vs_paper(t, name, paper_reference=paper_reference, paper_only_models=False)
    display(Markdown(f"**{name}**" + (f" — the columns marked \"{beside.attrs['paper']}\" are the paper's values "
                                      f"for a different data set, which {name} stands in for"
                                      if beside.attrs["stand_in"] else "")))
    display(divided.label_paper_columns(beside))

# %% [markdown]
# ## LLM judges on diverging pairs
#
# An LLM used as a judge faces the same question. `divided.judge_decisiveness` measures a judge's confidence
# per agreement subset — for verdicts, the share of pairs where it names a winner rather than a tie; for
# probabilities, |2 P(A) − 1| — and how often it sides with the annotators' majority where there is one.

# %% tags=["remove-input"]
if judges is None and judge_llm is None:
    display(Markdown(
        "No LLM judge runs on this profile. The simulated pairs have no judge verdicts, and the only LLM in the "
        "demo profile, Gemma 3 270M, is a base model whose A/B log-probabilities on simulated text would measure "
        "its position bias more than its judgment. The sample profile runs this section on the PandaLM test set, "
        "whose three human annotators and the published GPT-3.5 and PandaLM-7B verdicts cover the same "
        "pairs."))

# %%
decisiveness, dropped = {}, {}
if judges is not None:
    humans = from_spec(judges["humans"])
    verdict_data = from_spec(judges["verdicts"])
    human_classes = agreement.classify(humans)
    for judge in judges["annotators"]:
        decisiveness[judge] = divided.judge_decisiveness(divided.judge_verdicts(verdict_data, judge), human_classes,
                                                         n_boot=n_boot, seed=seed)
        dropped[judge] = divided.judge_filters(verdict_data, judge)  # the loader's record of verdicts it dropped
if judge_llm is not None:
    from pluralign import llm as llms
    judge_model = llms.load(**judge_llm.get("load", {}))
    for name, r in runs.items():
        pairs = r["heldout"].pairs.head(judge_llm.get("n_pairs", len(r["heldout"].pairs)))
        probs = judge_model.judge_ab_many(pairs[["prompt", "response_a", "response_b"]].to_dict("records"),
                                          job=f"diverging-know-judge-{name}")
        decisiveness[f"{judge_llm.get('label', 'LLM judge')} on {name}"] = divided.judge_decisiveness(
            pd.Series(probs, index=pairs["pair_id"].to_numpy(), dtype=float),
            r["classified"].loc[pairs["pair_id"].to_numpy()], n_boot=n_boot, seed=seed)

# %% tags=["remove-input"]
for judge, t in decisiveness.items():
    a = t.attrs
    note = (f"**{judge}**: a readable judgment on {a['n_judged']} of the {a['n_classified']} pairs; "
            f"{a['n_without_verdict']} pairs without one are left out")
    why = [f"{f['removed']} dropped by the data loader ({f['filter']})" for f in dropped.get(judge, [])]
    if a["n_unreadable"]:
        why.append(f"{a['n_unreadable']} unreadable judgments")
    display(Markdown(note + (f" — {'; '.join(why)}." if why else ".")))
    display(t.style.format({c: "{:.3f}" for c in t.columns if c != "n"}, na_rep="—"))

# %% tags=["hide-input"]
if decisiveness:
    rows = []
    for judge, t in decisiveness.items():
        for subset in divided.SUBSETS[:3]:
            rows.append({"judge": judge, "subset": subset, "confidence": t.loc[subset, "confidence"],
                         "lo": t.loc[subset, "lo"], "hi": t.loc[subset, "hi"]})
    plot = pd.DataFrame(rows)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / plot["judge"].nunique()
    for k, (judge, part) in enumerate(plot.groupby("judge", sort=False)):
        x = np.arange(len(part)) + k * width
        ax.bar(x, part["confidence"], width=width, label=judge)
        ax.errorbar(x, part["confidence"], yerr=[part["confidence"] - part["lo"], part["hi"] - part["confidence"]],
                    fmt="none", color="black", lw=0.8, capsize=2)
    ax.set_xticks(np.arange(3) + width * (plot["judge"].nunique() - 1) / 2)
    ax.set_xticklabels(divided.SUBSETS[:3], fontsize=8)
    kinds = {t.attrs["kind"] for t in decisiveness.values()}
    ax.set_ylabel("judge confidence\n" + {frozenset({"verdict"}): "(share of non-tie verdicts)",
                                          frozenset({"prob"}): "(mean |2 P(A) − 1|)"}.get(
        frozenset(kinds), "(verdicts: share non-tie;\nprobabilities: mean |2 P(A) − 1|)"), fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, frameon=False)
    ax.set_title("LLM judges by human agreement class (95% CI)", fontsize=10)
    plt.tight_layout()
    plt.show()
    display(Markdown(
        "A judge that knew when people disagree would name a winner less often on diverging pairs than on "
        "high-agreement preferences; the row *Diverging − High-Agreement Prefs.* of each table gives that "
        "difference with its CI."))

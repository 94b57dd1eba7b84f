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
# (diverging-rewards)=
# # Reward models make decisive decisions over divisive preferences
#
# :::{admonition} What this page finds
# :class: tip
# - **Table 2 on {glue:text}`t2_name`:** BT (Agg) gives the chosen response P = {glue:text}`t2_BT_Agg_div:.3f`
#   ({glue:text}`t2_paper_BT_Agg_div`) on diverging pairs against {glue:text}`t2_BT_Agg_hap:.3f`
#   ({glue:text}`t2_paper_BT_Agg_hap`) on high-agreement preferences; BT (All), trained on every annotator's label,
#   {glue:text}`t2_BT_All_div:.3f` ({glue:text}`t2_paper_BT_All_div`) against {glue:text}`t2_BT_All_hap:.3f`
#   ({glue:text}`t2_paper_BT_All_hap`).
# - **Does the diverging row sit level with the high-agreement row?** Gap = high-agreement minus diverging, with its
#   95% interval and the paper's gap: {glue:text}`t2c_sentence`.
# - **The MSE models** (HelpSteer2-format data only): {glue:text}`t2c_mse`.
# - **The paper's claim** (every BT model about as decisive on diverging pairs as on high-agreement ones, even trained
#   on all labels) {glue:text}`t2c_claim` on {glue:text}`t2c_name`.
# :::
#
# Diverging Preferences {cite}`zhang2024divergingworkshop` §3 trains the two standard kinds of reward model on
# multi-annotator data and asks how strongly each favours one response when the annotators themselves were
# split. **Bradley-Terry** (BT) models P(A ≻ B) = logistic($r_A - r_B$) and is read out as P(chosen ≻ rejected);
# **MSE regression** fits each response's 1–5 Likert score (HelpSteer2 only) and is read out as
# $r_\text{chosen} - r_\text{rejected}$, where *chosen* is the response the model prefers. Each is trained on the
# **aggregated** labels (the majority vote per pair, "Agg") and on **all** labels ("treating each annotator
# label as its own training instance", "All"), then evaluated on held-out pairs split by agreement class
# (Table 2). The paper's finding: on diverging pairs the models are about as decisive as on high-agreement
# pairs, even when trained on every annotator's label; they pick a side instead of predicting a middle ground.
#
# *Version followed:* the workshop version of the paper {cite}`zhang2024divergingworkshop` (Workshop on
# Pluralistic Alignment, NeurIPS 2024; the project's seed text): its §3, App. A and Table 2, whose numbers are
# shown beside ours. The full version is arXiv 2410.14632 {cite}`zhang2024diverging`; the next chapter follows it.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): diverging.DivergingSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.diverging.DivergingSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import diverging, report
from pluralign.diverging.pages import rewards_page, stand_ins

study = diverging.setup(profile, seed, models=models, settings=settings, page="diverging_rewards")
report.profile_note(profile, stand_ins(study, "rewards"))

# %% [markdown]
#
# ## Data, splits and models
#
# Each data set is split by pair into a held-out test set and a training side (deterministic in the seed and the
# pair ids); a validation set is split off the training side to select the best checkpoint (App. A: "selecting the
# best performing checkpoint evaluated after every 0.25 epochs"). The paper's recipe is Llama-3-8B-Instruct with
# LoRA and 8-bit quantization, learning rate 5e-5, batch size 16, at most 10 epochs (App. A); the paper profile's
# parameter file sets exactly that.
#
# Two different majorities are at work here. The Agg training label is the *plurality* label (A when more
# annotators chose A than B and at least as many as chose tie; no label when A and B draw), while the agreement
# classes ask for *more than half* of the judgments ({ref}`diverging-agreement`). They agree on every high-agreement
# pair and can differ only on diverging and "other" pairs (e.g. {A, A, B, tie} trains Agg towards A but has no
# majority choice in the classes). For MSE (Agg) the paper does not say how a majority vote becomes a 1–5 score per
# response: by default its targets are the Likert scores of the annotators who voted with the pair's majority (pairs
# split between A and B have no majority and are dropped); a profile may train on every annotator's mean score
# instead, and the note under Table 2 says which this run used.

# %% tags=["remove-input"]
rewards_page.reward_models(study)

# %% [markdown]
# ## Table 2
#
# Per agreement subset of the held-out pairs: the number of pairs, and per model the mean P(chosen ≻ rejected)
# (BT) or the mean $r_\text{chosen} - r_\text{rejected}$ (MSE) with a 95% bootstrap confidence interval, beside the paper's value
# for the data set this one stands for. "All Examples" also contains the pairs of no class, so the first rows do
# not add up to it ({glue:text}`t2_paper_sum` in the paper too).

# %% tags=["remove-input"]
table2 = rewards_page.table2(study).glue()
table2

# %% [markdown]
# ## Does the diverging row sit level with the high-agreement row?
#
# The paper's question is whether a model is less decisive where the annotators split (it knows they did) or as
# decisive as where they agreed (it picks a side). Per model, the gap between the two rows with its 95% interval,
# beside the paper's gap for the data set this one stands for:

# %% tags=["remove-input"]
rewards_page.level_or_not(study).glue()

# %% [markdown]
# So the answer, read from the intervals on {glue:text}`t2c_name` ({glue:text}`t2c_n_high` high-agreement and
# {glue:text}`t2c_n_div` diverging held-out pairs): the paper's claim {glue:text}`t2c_claim` on this run, model by
# model as the table shows, the MSE models' gaps in Likert points included.
#
# ## How decisive, pair by pair
#
# The distributions behind the means: for every held-out pair, the model's P(chosen ≻ rejected) (BT) or
# $r_\text{chosen} - r_\text{rejected}$ (MSE), by Table 2 subset (a pair appears in every subset it belongs to: a substantial
# diverging pair also under "Diverging Prefs. (All)" and "All Examples"). A model that knew when annotators
# split would put its diverging pairs near 0.5 (BT) or 0 (MSE).

# %% tags=["remove-input"]
rewards_page.decisiveness(study)

# %% [markdown]
# The next chapter, {ref}`diverging-know`, trains a reward model that can represent disagreement (a Gaussian
# reward per response) and asks whether it tells diverging pairs from high-agreement ones.
#
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks the demo reward model against the planted population (its accuracy where the population agrees,
# its correlation with the planted utilities) and this page's claim.

# %% tags=["remove-input"]
report.reproduce(
    "diverging_rewards",
    "pluralign.diverging.pages.rewards_page",
    "pluralign.diverging.reward_models",
    "pluralign.diverging.table2_claim",
)

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
# the Part III study shared by its three pages (params/<profile>/btb-study.yml; pluralign.btb.setup
# arguments; btb-subjectivity and btb-margins say what each entry means). Here `data` is the training data:
# the RMs are trained on ONE binary judgment per pair (Eq. 1) drawn from it, with margins (Eq. 3) from `judge`
design = {}      # overrides of pluralign.btb.setup's defaults, which are the demo's (keys above)
models = None   # the profile's models (common.yml): a model parameter may name one of them
# the test set of Tables 1-2 (pluralign.btb.study.EVALUATION): evaluation-only data specs (never trained on),
# each sub-sampled to test_per_dataset pairs (the paper: 25; or {data-set name: n}); pairs held out as
# out-of-domain by a column of the simulator's truth (ood_by); test_size in-domain held-out pairs (0: test on
# test_only only); the data-set names of Tables 1-2 ("dataset" or a truth column; display_names: the
# paper's names) and which are in- / out-of-domain; bootstrap resamples; paper_sized_check: also report the
# paired CI of Δ on a random test subset of this size (0 = skip)
evaluation = {
    "test_only": [],
    "test_per_dataset": 0,
    "ood_by": {"column": "prompt_type", "values": ["creative", "harmful"]},
    "test_size": 250,
    "dataset_column": "prompt_type",
    "display_names": {},
    "in_domain": ["factual", "open", "ambiguous", "borderline", "garbled"],
    "out_of_domain": ["creative", "harmful"],
    "n_boot": 2000,
    "paper_sized_check": 150,
}
# the reward models (pluralign.btb.study.TRAINING): reward_model = pluralign.rewards.load arguments (None =
# frozen all-MiniLM-L6-v2 + linear head); baseline_model = None (train reward_model with Eq. 1 and the same
# sweep) or an already trained RM (the paper: OpenAssistant/reward-model-deberta-v3-large-v2); the learning
# rates of the sweep (footnote 6; "paper" = the paper's 1e-4, 1e-5, 1e-6 for fine-tuning DeBERTa-v3, written once in
# pluralign.btb.training.LR_SWEEP; a linear head on frozen embeddings needs larger steps), chosen on validation_size pairs by select_on (accuracy or loss; footnote 6
# names none); any other entry (epochs, batch_size, ...) is passed to RewardModel.train
training = {
    "reward_model": None,
    "baseline_model": None,
    "lr_sweep": [1.0e-1, 1.0e-2, 1.0e-3],
    "select_on": "accuracy",
    "validation_size": 150,
    "epochs": 30,
    "batch_size": 64,
}

# %% tags=["remove-input"]
from pluralign import btb

study = btb.setup(profile, seed, models=models, **design, evaluation=evaluation, training=training)
study.paper_numbers("rewards").glue()
study.profile_note("rewards")

# %% [markdown]
# ## Data: one binary judgment per pair, train / validation / test

# %% tags=["hide-input"]
study.splits()

# %% [markdown]
# ### Where p\* and the categories come from
#
# In the paper both are human: three annotators put each test pair in a category by majority vote
# and estimated p\* by answering "If you asked 10 people…" (Appendix B, §3.2). With
# `p_star_from: llm` / `categories: llm` (entries of `design`) they come from an LLM labeller instead; a list
# such as `[labels, annotators, llm]` takes each pair's value from the first source that has it (human
# labels in `labels_file`, then the data's own annotators where a pair has at least three, then the LLM).
# If the LLM labeller is also the judge whose ten votes give the training margins (Eq. 3), or of its model
# family, the regularized RM is trained on margins from the model that defines its evaluation target, which
# favours it over the baseline by construction: the evaluation is circular, and a warning below says so.
# The `paper` profile therefore labels with a model of another family than its Llama judge. Per source, the
# test pairs it labels:

# %% tags=["remove-input"]
study.sources("rewards")

# %% [markdown]
# ## Margins for the training pairs (Eq. 3)

# %% tags=["hide-input"]
study.training_margins()

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
study.learning_rate_sweep().glue()

# %% [markdown]
# ## Tables 1 and 2: correlation and L1 distance to p\*
#
# **Table 1 — Pearson r between P(A ≻ B) and p\*** (95% bootstrap CIs; Δ = regularized − baseline)

# %% tags=["hide-input"]
study.table("pearson").glue()

# %% [markdown]
# **Table 2 — mean L1 distance |P(A ≻ B) − p\*|** (lower is better; a negative Δ is an improvement)

# %% tags=["hide-input"]
study.table("l1").glue()

# %% [markdown]
# Over all {glue:text}`btb_n_test` test pairs the baseline's correlation with p\* is
# {glue:text}`btb_r_baseline:.3f` ({glue:text}`btb_r_baseline_lo:.3f`–{glue:text}`btb_r_baseline_hi:.3f`)
# and the regularized model's {glue:text}`btb_r_regularized:.3f`
# ({glue:text}`btb_r_regularized_lo:.3f`–{glue:text}`btb_r_regularized_hi:.3f`):
# Δ = {glue:text}`btb_r_delta:.3f` with a paired 95% CI of {glue:text}`btb_r_delta_lo:.3f` to
# {glue:text}`btb_r_delta_hi:.3f`. The mean L1 distance moves by {glue:text}`btb_l1_delta:.3f`
# ({glue:text}`btb_l1_delta_lo:.3f` to {glue:text}`btb_l1_delta_hi:.3f`). Learning rates chosen on
# validation: {glue:text}`btb_lr_base` (baseline) and {glue:text}`btb_lr_reg` (regularized).

# %% [markdown]
# ### What was measured, against the direction the paper reports
#
# The paper reports (Table 1, point estimates on {glue:text}`btb_paper_n` pairs, no intervals) that regularization helps
# most where the population disagrees: Δ r = {glue:text}`btb_paper_d_multiple:+.3f` on
# *multiple-correct* pairs against {glue:text}`btb_paper_d_single:+.3f` on *single-correct* ones, and
# {glue:text}`btb_paper_d_ood:+.3f` out-of-domain against {glue:text}`btb_paper_d_id:+.3f` in-domain.
# The Δ measured here on the same groupings, with paired 95% intervals:

# %% tags=["remove-input"]
study.directions().glue()

# %% [markdown]
# ## Beside the paper's Table 1
#
# The paper's rows (DeBERTa-v3, {glue:text}`btb_paper_n` human-annotated test pairs) next to ours where a row of the same
# name exists; the categories of subjectivity and the ID / OOD split line up, the data sets do not
# (on demo they are simulated prompt types).

# %% tags=["hide-input"]
study.beside_paper()

# %% [markdown]
# ## How uncertain is a Δ on a test set of the paper's size?
#
# The paper's Δ in Table 1 range from {glue:text}`btb_paper_dmin:.3f` to {glue:text}`btb_paper_dmax:.3f`
# on cells of {glue:text}`btb_paper_nmin` to {glue:text}`btb_paper_nmax` pairs. The same comparison on a
# random subset of our test set of the paper's size shows how wide the paired interval of Δ is at
# that size.

# %% tags=["hide-input"]
study.paper_sized_check().glue()

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
#
# Each reward model's P(A ≻ B) against p\* on the test pairs:

# %% tags=["hide-input"]
study.rm_vs_p_star()

# %% [markdown]
# Δ per grouping and category with its paired 95% interval, for Pearson r (beside the paper's Δ where it
# reports one) and for the mean L1 distance:

# %% tags=["hide-input"]
study.delta_plot("pearson")

# %% tags=["hide-input"]
study.delta_plot("l1")

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the
# {ref}`recovery page <recovery>` checks them against it — here `claim_margin_improves_pstar`.

# %% [markdown]
# (btb-rewards)=
# # Margin-regularized reward models against the aggregate preference
#
# :::{admonition} What this page finds
# :class: tip
# - **Does the baseline track p\* at all?** Over all {glue:text}`btb_n_test` test pairs its r with p\* is
#   {glue:text}`btb_r_baseline:.3f` ({glue:text}`btb_r_baseline_lo:.3f` to {glue:text}`btb_r_baseline_hi:.3f`), the
#   regularized model's {glue:text}`btb_r_regularized:.3f`; Δ r = {glue:text}`btb_r_delta:.3f`
#   ({glue:text}`btb_r_delta_lo:.3f` to {glue:text}`btb_r_delta_hi:.3f`) against the paper's median Δ of
#   {glue:text}`btb_decide_delta:.3f`. Reading: {glue:text}`btb_decide_says`.
# - **Where the paper sees the largest gains** (Table 1, Δ r with its paired 95% interval):
#   {glue:text}`btb_directions_sentence`.
# - **With models that do track p\*** (a linear reward on the simulator's planted features, fresh training sets):
#   {glue:text}`btb_sweep_decide` A finding about this simulated population and its judge, not about the paper's
#   data.
# :::
#
# *Beyond the Binary* {cite}`padmakumar2024beyond` trains the same base model twice on the same
# binary judgments: once with the Bradley–Terry loss (Eq. 1), once with the margin-regularized loss
# (Eq. 4),
#
# $$\mathrm{loss}(r_\theta) = -\mathbb{E}\big[\log \sigma\big(r_\theta(x, y_j) - r_\theta(x, y_{1-j}) - m_{x, y_0, y_1}\big)\big],$$
#
# with the margin $m$ of Eq. 3 from ten synthetic judgments ({ref}`btb-margins`), and reports that the second
# tracks the aggregate preference p\* ({ref}`btb-subjectivity`) better: a higher Pearson r (Table 1) and a lower
# mean L1 distance (Table 2) between the model's $P(A \succ B) = \sigma(r_A - r_B)$ and p\*, most of all where the
# population disagrees and out of domain. Its test set has {glue:text}`btb_paper_n` pairs
# ({glue:text}`btb_paper_n_per` per data set) and its Δ are point estimates; here every number has a 95% bootstrap
# interval, and Δ a *paired* one (both models on the same resampled pairs).

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): btb.BtbSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.btb.BtbSettings, e.g. {"embedded_pairs": 0}

# %% tags=["remove-input"]
from pluralign import btb, report
from pluralign.btb.pages import decidability_page, rewards_page, stand_ins

study = btb.setup(profile, seed, models=models, settings=settings, page="btb_rewards")
rewards_page.paper_numbers(study).glue()
report.profile_note(profile, stand_ins(study, "rewards"))

# %% [markdown]

# ## Data: one binary judgment per pair, train / validation / test

# %% tags=["remove-input"]
rewards_page.splits(study)

# %% [markdown]
# ### Where p\* and the categories come from
#
# In the paper both are human: three annotators put each test pair in a category by majority vote
# and estimated p\* by answering "If you asked 10 people…" (Appendix B, §3.2). A profile may take them from an LLM
# labeller instead, or from the first source that has a pair's value (human labels, then the data's own annotators
# where a pair has at least three, then the LLM). If the LLM labeller is also the judge whose ten votes give the
# training margins (Eq. 3), or of its model family, the regularized RM is trained on margins from the model that
# defines its evaluation target, which favours it over the baseline by construction: the evaluation is circular,
# and a warning below says so. The paper profile therefore labels with a model of another family than its Llama
# judge. Per source, the test pairs it labels:

# %% tags=["remove-input"]
rewards_page.sources(study)

# %% [markdown]
# ## Margins for the training pairs (Eq. 3)

# %% tags=["remove-input"]
rewards_page.training_margins(study)

# %% [markdown]
# ## Learning-rate sweep, selected on validation (footnote 6)
#
# The paper fine-tunes DeBERTa-v3 and sweeps learning rates from {glue:text}`btb_paper_lrs`. The demo
# and sample profiles train a linear head on frozen sentence embeddings, whose useful learning rates
# are larger (Adam on a few hundred parameters rather than fine-tuning 435M). This run sweeps
# {glue:text}`btb_lrs`, {glue:text}`btb_lr_ratio` the paper's grid. The validation pairs carry binary
# labels only (p\* is never used for selection): the model with the best validation pairwise
# accuracy is kept (the paper does not name its metric).

# %% tags=["remove-input"]
rewards_page.learning_rate_sweep(study).glue()

# %% [markdown]
# ## Tables 1 and 2: correlation and L1 distance to p\*
#
# ### Table 1: Pearson r between P(A ≻ B) and p\*
#
# Per grouping and category of the test pairs, with 95% bootstrap intervals; Δ = regularized − baseline, its
# interval paired.

# %% tags=["remove-input"]
rewards_page.table_1(study).glue()

# %% [markdown]
# ### Table 2: mean L1 distance |P(A ≻ B) − p\*|
#
# Lower is better, so a negative Δ is an improvement.

# %% tags=["remove-input"]
rewards_page.table_2(study).glue()

# %% [markdown]
# The mean L1 distance over all test pairs moves by {glue:text}`btb_l1_delta:.3f` ({glue:text}`btb_l1_delta_lo:.3f`
# to {glue:text}`btb_l1_delta_hi:.3f`). Learning rates chosen on validation: {glue:text}`btb_lr_base` (baseline) and
# {glue:text}`btb_lr_reg` (regularized).
#
# ### What was measured, against the direction the paper reports
#
# The paper reports (Table 1, point estimates on {glue:text}`btb_paper_n` pairs, no intervals) that regularization
# helps most where the population disagrees: Δ r = {glue:text}`btb_paper_d_multiple:+.3f` on *multiple-correct* pairs
# against {glue:text}`btb_paper_d_single:+.3f` on *single-correct* ones, and {glue:text}`btb_paper_d_ood:+.3f` out of
# domain against {glue:text}`btb_paper_d_id:+.3f` in domain. The Δ measured here on the same groupings, with paired
# 95% intervals and the baseline's own r with p\* on each:

# %% tags=["remove-input"]
rewards_page.directions(study).glue()

# %% [markdown]
# A row's verdict follows its 95% interval of Δ r, and only where the baseline tracks p\* on that row (its own r's
# interval above 0): the paper's claim is that margins improve a model's tracking of p\*, and between two models that
# do not track it a Δ of either sign is no evidence for or against that. This page runs the paper's procedure with
# other data, judges and models (the note at the top): what it finds is a measurement of this setting, neither a
# reproduction nor a refutation of the paper's numbers on its human-annotated data. The training-size sweep below
# reads the same way: where its interval lies clear of the paper's Δ, it describes this simulated population.

# %% [markdown]
# ## Beside the paper's Table 1
#
# The paper's rows (DeBERTa-v3, {glue:text}`btb_paper_n` human-annotated test pairs) next to ours where a row of the
# same name exists; the categories of subjectivity and the in-domain / out-of-domain split line up, the data sets do
# not (on the demo they are simulated prompt types). A row only one side has shows the other side's cells empty.

# %% tags=["remove-input"]
rewards_page.beside_paper(study)

# %% [markdown]
# ## How uncertain is a Δ on a test set of the paper's size?
#
# The paper's Δ in Table 1 range from {glue:text}`btb_paper_dmin:.3f` to {glue:text}`btb_paper_dmax:.3f`
# on cells of {glue:text}`btb_paper_nmin` to {glue:text}`btb_paper_nmax` pairs. The same comparison on a
# random subset of our test set of the paper's size shows how wide the paired interval of Δ is at
# that size.

# %% tags=["remove-input"]
decidability_page.paper_sized_check(study).glue()

# %% [markdown]
# On {glue:text}`btb_small_n` test pairs (a random subset of ours, or the whole test set when it is that small) the
# paired 95% interval of Δ in Pearson r is {glue:text}`btb_small_width:.3f` wide. Set that width beside the paper's Δ
# (from {glue:text}`btb_paper_dmin:.3f` to {glue:text}`btb_paper_dmax:.3f`): a Δ smaller than about half the width is
# not distinguishable from zero at that size, and the paper's per-category cells are smaller than
# {glue:text}`btb_paper_n` pairs, so their intervals are wider still. The paper gives no intervals; read its small Δ
# as directions, not as established effects.

# %% tags=["remove-input"]
decidability_page.decidable_size(study).glue()

# %% [markdown]
# ### Is the demo large enough to decide the paper's claim?
#
# The paired interval of Δ r narrows as 1/√N. An improvement as large as the paper's median Δ of Table 1
# ({glue:text}`btb_decide_delta:.3f`) would be told from 0 at about {glue:text}`btb_decide_n_paper` test pairs of
# this population; {glue:text}`btb_decide_n_here`. This run has {glue:text}`btb_n_test` test pairs, and
# {glue:text}`btb_decide_says`.
#
# When the baseline's own r with p\* has an interval that is not above 0, these reward models do not track p\* on
# this population, so the size that would decide the claim is the training set's (models that track p\* at all), not
# the test set's: the sweep below varies it. Otherwise an interval of Δ r that already excludes an improvement as
# large as the paper's median Δ means that on this population, with these reward models, an effect of the paper's
# size is absent, not merely unseen; one that excludes 0, that the improvement the paper reports is seen here; one
# that contains both 0 and the paper's median Δ, that the demo is too small to decide.

# %% [markdown]
# ## At what training size is the claim decidable?
#
# The comparison above trains one pair of models on one training set, and its intervals resample test pairs only:
# they cannot say how Δ moves with the size of the training set, nor how much it varies from one training set to
# the next. Here {glue:text}`btb_sweep_draws` fresh training sets are drawn from the same simulated population for
# each size ({glue:text}`btb_sweep_sizes` pairs, one binary judgment each, out-of-domain prompt types left out as
# above, margins from the same simulated judge), and both losses (Eqs. 1 and 4) are minimised exactly for a linear
# reward on the texts' *planted features*: the representation in which the population's preferences are written,
# so that what limits the models is the training set, not the encoder. Each pair of models is scored on this page's
# test pairs; Δ r's interval is a t interval over the training sets. The largest size is refitted along the judge's
# log-odds noise as well, the one setting of the stand-in that shapes the margins.

# %% tags=["remove-input"]
decidability_page.training_size_sweep(study).glue()

# %% [markdown]
# Each row: {glue:text}`btb_sweep_draws` fresh training sets of the simulator's population, the test pairs this
# page's; Δ r = r(Eq. 4) − r(Eq. 1), its 95% interval a t interval over the training sets. The paper's marker is its
# median Δ r over the Table 1 rows that improve. A size decides when the interval over training sets excludes 0 (the
# sign of Δ r) or the paper's median Δ (an effect of the paper's size, on this population).
#
# At the largest size: {glue:text}`btb_sweep_says`. Along the judge's noise, Δ r at the largest size:
# {glue:text}`btb_sweep_noise_says`. From which size on each test set decides is in the findings at the top. These models track p\* (the Eq. 1 model's r in the table), so
# here the sweep can speak to the claim, for this simulated population and its simulated judge.

# %% [markdown]
# ## Figures

# %% tags=["remove-input"]
rewards_page.rm_vs_p_star(study)

# %% tags=["remove-input"]
rewards_page.delta_plot(study, "pearson")

# %% tags=["remove-input"]
rewards_page.delta_plot(study, "l1")

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the {ref}`recovery page
# <recovery>` checks this page's claim (margins improve the correlation with p\*) against it.

# %% tags=["remove-input"]
report.reproduce(
    "btb_rewards",
    "pluralign.btb.pages.rewards_page",
    "pluralign.btb.pages.decidability_page",
    "pluralign.btb.comparison",
    "pluralign.btb.decidability",
)

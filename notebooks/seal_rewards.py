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
# (seal-rewards)=
# # SEAL: rewards before and after alignment training
#
# :::{admonition} What this page finds
# :class: tip
# - **Alignment score.** The post-$\mathcal{D}$ RM agrees with the human label on {glue:text}`a_plus_post:.3f` of the
#   pairs, the pre-$\mathcal{D}$ RM on {glue:text}`a_plus_pre:.3f` (paper: {glue:text}`paper_a_plus_post:.2f` and
#   {glue:text}`paper_a_plus_pre:.2f`): the alignment score {glue:text}`alignment_verdict`.
# - **Reward shifts.** The mean |θ| is {glue:text}`theta_abs_mean:.1f`° as the paper computes it and
#   {glue:text}`theta_abs_mean_centred:.1f`° on rewards centred per model; the two RMs' rewards differ by an offset
#   of {glue:text}`reward_offset:.3f` reward points, which the paper's angle is not invariant to (the paper reports
#   most shifts as small, Fig. 2).
# - **Data.** {glue:text}`n_pairs` pairs analysed (paper: {glue:text}`paper_n_pairs`); {glue:text}`dropped_sentence`
# :::
#
# SEAL {cite}`revel2024seal` studies what an alignment data set $\mathcal{D}$ of chosen / rejected
# pairs $(t_i^c, t_i^r)$ does to a reward model (RM). It compares two RMs: a pre-$\mathcal{D}$ model
# $\underline{\mathcal{R}}$, trained without $\mathcal{D}$, and a post-$\mathcal{D}$ model
# $\mathcal{R}$, trained with it. Each RM turns a pair into a *reward vector*
# $(r(t_i^c), r(t_i^r))$: the chosen reward on the x axis, the rejected one on the y axis. The RM
# agrees with the human label when $r(t_i^c) > r(t_i^r)$, i.e. when the vector lies below the first
# bisector. The *reward shift* $\theta_i$ (Definition 1) is the angle from the pre-$\mathcal{D}$
# vector to the post-$\mathcal{D}$ vector.
#
# In the paper, $\mathcal{D}$ is the Anthropic/hh-rlhf training split ({glue:text}`paper_n_pairs` pairs), and the two RMs
# are OpenAssistant's `reward-model-deberta-v3-large` (trained on WebGPT, summarize-from-feedback and
# synthetic-instruct-gptj-pairwise) and `reward-model-deberta-v3-large-v2` (the same sets plus
# hh-rlhf). The paper profile scores exactly those models. The demo and sample profiles have no
# such pair, so **this project trains its own pair the same way**: a pre-$\mathcal{D}$ RM on *other*
# preference data, and a post-$\mathcal{D}$ RM on that other data plus $\mathcal{D}$. Both are
# this project's reward models: a frozen all-MiniLM-L6-v2 encoder with a trained head (a small MLP on
# the demo and sample profiles), Bradley–Terry on the majority labels.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): seal.SealSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.seal.SealSettings, e.g. {"stability_share": 0.02}

# %% tags=["remove-input"]
from pluralign import seal, report
from pluralign.seal.pages import rewards_page, stand_ins

study = seal.setup(profile, seed, models=models, settings=settings, page="seal_rewards")
report.profile_note(profile, stand_ins(study, "rewards"))

# %% [markdown]
#
# ## The alignment data set and the two reward models
#
# SEAL needs one chosen and one rejected entry per pair. A multi-annotator pair takes its majority
# label; a pair whose majority is a tie has no chosen entry and is left out (the count is below).

# %% tags=["remove-input"]
rewards_page.dataset(study).glue()

# %% [markdown]
# {glue:text}`n_pairs` pairs are analysed. {glue:text}`dropped_sentence` The loader dropped {glue:text}`n_invalid`
# rows of the source as invalid (listed by reason above when there are any; the paper reports
# {glue:text}`paper_n_pairs` pairs and no such filter).
#
# ## What the reward models score (§ 2)
#
# SEAL's code scores every entry as a (history, reply) pair, split at the conversation's last "Assistant:",
# with no truncation; the table names this run's input and counts the entries each RM had to truncate.

# %% tags=["remove-input"]
rewards_page.scoring(study).glue()

# %% [markdown]
# SEAL's code splits each conversation at its last "Assistant:": the history is the text before it, the reply the
# text from it on (with its "Assistant:" prefix), and the RM's tokenizer gets the two as a sentence pair. Each entry is
# split on its own conversation, so a pair whose two histories differ is scored as it is; where one shared prompt is
# needed (this project's training on (prompt, A, B)), such a pair takes the chosen side's history. A frozen-encoder
# RM embeds history and reply apart: an entry counts as truncated when either is cut.
#
# This run's input: {glue:text}`scoring_input`. The pre-$\mathcal{D}$ RM truncated {glue:text}`n_truncated_pre`
# entries and the post-$\mathcal{D}$ RM {glue:text}`n_truncated_post`; {glue:text}`n_history_differs` pairs were scored
# on two different histories (each entry on its own conversation). {glue:text}`precision_sentence` (where not
# fp32, the table gives the measured deviation from fp32 on the same weights).
#
# ## Reward vectors and reward shifts (Definition 1, Fig. 2, Fig. 10)
#
# Each point below is one pair's reward vector, before and after training on $\mathcal{D}$. Points
# below the dashed bisector are pairs where the RM agrees with the human label.

# %% tags=["remove-input"]
rewards_page.reward_vectors(study)

# %% tags=["remove-input"]
rewards_page.reward_shifts(study).glue()

# %% [markdown]
# The signed shift follows SEAL's analysis code: positive when the post-$\mathcal{D}$ vector lies
# counter-clockwise of the pre-$\mathcal{D}$ one (in the third quadrant, where most of the paper's
# rewards lie, that is a move toward alignment). As the paper computes it, the mean absolute shift here is
# {glue:text}`theta_abs_mean:.1f` degrees and the median signed shift {glue:text}`theta_median:.1f`; on rewards
# centred per model, {glue:text}`theta_abs_mean_centred:.1f` and {glue:text}`theta_median_centred:.1f` degrees.
#
# **Which θ to read.** A Bradley–Terry reward is identified only up to a constant: its loss sees only the
# difference of two rewards, so each separately trained head settles on an offset of its own. Here the pre-$\mathcal{D}$
# RM's rewards average {glue:text}`reward_mean_pre:.3f` over the entries of $\mathcal{D}$ and the post-$\mathcal{D}$
# RM's {glue:text}`reward_mean_post:.3f`. Definition 1's angle between the raw vectors moves with that offset; the
# angle between the vectors of rewards centred on each model's mean does not, and is the better estimator of how
# training on $\mathcal{D}$ turned a pair's rewards.
#
# ## Alignment score and resistance (§ 2.2)
#
# The alignment score $a_+$ is the share of pairs the RM gets right; the alignment resistance
# $a_- = 1 - a_+$ is the share it still gets wrong.

# %% tags=["remove-input"]
rewards_page.alignment(study).glue()


# %% [markdown]
# The paper's $a_-$ pre-$\mathcal{D}$ is $1 - a_+$ (not printed).
#
# The post-$\mathcal{D}$ RM agrees with the chosen entry on {glue:text}`a_plus_post:.3f` of the pairs
# (pre-$\mathcal{D}$: {glue:text}`a_plus_pre:.3f`); its alignment resistance is
# {glue:text}`a_minus_post:.3f`, against {glue:text}`a_minus_pre:.3f` for the RM trained without $\mathcal{D}$
# (paper: {glue:text}`paper_a_minus_post:.2f` after, {glue:text}`paper_a_minus_pre:.2f` before, with $a_+$
# rising from {glue:text}`paper_a_plus_pre:.2f` to {glue:text}`paper_a_plus_post:.2f`).
#
# ## Reward quadrants and the reward heatmap (App. D.2, Fig. 9)
#
# The paper notes that the post-$\mathcal{D}$ RM gives negative rewards to both entries of most pairs.
# The shares of pairs by the signs of their two rewards:

# %% tags=["remove-input"]
rewards_page.quadrants(study)

# %% [markdown]
# On the demo profile the rewards come from a Bradley–Terry head whose scale and offset are set by
# its own training data, so quadrant shares say little about the paper's RMs; what carries over is the
# method. The next chapters regress these rewards on features ({ref}`seal-imprint`), split the pairs
# into alignment regimes ({ref}`seal-resistance`) and rewrite entries ({ref}`seal-robustness`).

# %% tags=["remove-input"]
report.reproduce(
    "seal_rewards", "pluralign.seal.pages.rewards_page", "pluralign.seal.shifts", "pluralign.seal.resistance"
)

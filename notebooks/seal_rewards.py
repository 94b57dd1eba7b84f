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
# hh-rlhf). The `paper` profile scores exactly those models. The `demo` and `sample` profiles have no
# such pair, so **this project trains its own pair the same way**: a pre-$\mathcal{D}$ RM on *other*
# preference data, and a post-$\mathcal{D}$ RM on that other data plus $\mathcal{D}$. Both are
# `pluralign.rewards` models: a frozen all-MiniLM-L6-v2 encoder with a trained head (a small MLP on
# `demo` and `sample`, set by `base_model`), Bradley–Terry on the majority labels.

# %% tags=["parameters"]
profile = "demo"
seed = 0
# the SEAL study design shared by the four Part II pages (params/<profile>/seal-study.yml; seal.setup
# arguments): the alignment data set D, other preference data for the pre-D RM, named pre-D / post-D reward
# models or their training and base model. None: seal.DEMO_STUDY, the simulator's design
design = None

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import display
from myst_nb import glue

from pluralign import report, seal

study = seal.setup(**(design or seal.DEMO_STUDY))
report.profile_note(profile, stand_ins=study.stand_ins)

# %% [markdown]
# ## The alignment data set and the two reward models
#
# SEAL needs one chosen and one rejected entry per pair. A multi-annotator pair takes its majority
# label; a pair whose majority is a tie has no chosen entry and is left out (the count is below).

# %% tags=["hide-input"]
D, other, view, rms, R = study.D, study.other, study.view, study.rms, study.R
# rows the loader dropped as invalid (e.g. hh-rlhf rows whose chosen and rejected histories differ or whose
# final reply is empty; on_invalid: drop), by reason
filters = pd.DataFrame(D.meta.get("filters", []), columns=["filter", "field", "removed", "kept"])
n_invalid = int(filters["removed"].sum())
glue("n_pairs", len(view), display=False)
glue("n_ties", view.attrs["n_ties_dropped"], display=False)
glue("n_invalid", n_invalid, display=False)
glue("paper_n_pairs", f"{seal.PAPER['dataset']['n_pairs']:,}", display=False)
pd.DataFrame({"": ["alignment data set D", "rows dropped by the loader as invalid", "pairs in D",
                   "pairs without a chosen entry (majority tie), dropped", "pairs analysed", "design",
                   "pre-D training pairs", "post-D training pairs"],
              "this run": [D.name, n_invalid, len(D), view.attrs["n_ties_dropped"], len(R), R.attrs["design"],
                           R.attrs.get("n_train_pre", "—"), R.attrs.get("n_train_post", "—")],
              "paper": [seal.PAPER["dataset"]["name"], "not reported", seal.PAPER["dataset"]["n_pairs"], "—",
                        seal.PAPER["dataset"]["n_pairs"], "OpenAssistant RMs without / with hh-rlhf", "—", "—"]}
             ).set_index("")

# %% tags=["hide-input"]
if n_invalid:
    display(filters[filters["removed"] > 0].set_index("filter"))

# %% [markdown]
# {glue:text}`n_pairs` pairs are analysed; {glue:text}`n_ties` had a tied majority and were dropped, and
# {glue:text}`n_invalid` rows of the source were dropped by the loader as invalid (listed by reason above
# when there are any; the paper reports {glue:text}`paper_n_pairs` pairs and no such filter).
#
# ## Reward vectors and reward shifts (Definition 1, Fig. 2, Fig. 10)
#
# Each point below is one pair's reward vector, before and after training on $\mathcal{D}$. Points
# below the dashed bisector are pairs where the RM agrees with the human label.

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), sharex=True, sharey=True)
for ax, k, title in ((axes[0], "pre", "pre-D RM"), (axes[1], "post", "post-D RM")):
    ok = seal.aligned(R[f"{k}_chosen"], R[f"{k}_rejected"])
    ax.scatter(R.loc[ok, f"{k}_chosen"], R.loc[ok, f"{k}_rejected"], s=6, alpha=0.5, label="aligned")
    ax.scatter(R.loc[~ok, f"{k}_chosen"], R.loc[~ok, f"{k}_rejected"], s=6, alpha=0.5, color="#d62728",
               label="misaligned")
    lim = np.nanmax(np.abs(R[["pre_chosen", "pre_rejected", "post_chosen", "post_rejected"]].to_numpy())) * 1.05
    ax.plot([-lim, lim], [-lim, lim], "k--", lw=0.8)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set(title=title, xlabel="reward of the chosen entry", ylabel="reward of the rejected entry")
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
theta = seal.reward_shift(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
angles = pd.DataFrame({"pre-D": seal.reward_angle(R["pre_chosen"], R["pre_rejected"]),
                       "post-D": seal.reward_angle(R["post_chosen"], R["post_rejected"])})
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
sns.histplot(angles.melt(var_name="RM", value_name="angle"), x="angle", hue="RM", bins=60, ax=axes[0],
             element="step")
axes[0].set(xlabel="angle of the reward vector (degrees)", title="reward-vector angles (Fig. 2 left)")
sns.histplot(theta, bins=60, ax=axes[1])
axes[1].set(xlabel="reward shift θ (degrees, counter-clockwise positive)", title="reward shifts (Fig. 2 right)")
plt.tight_layout()
plt.show()
glue("theta_median", float(np.nanmedian(theta)), display=False)
glue("theta_abs_mean", float(np.nanmean(np.abs(theta))), display=False)

# %% [markdown]
# The signed shift follows SEAL's analysis code: positive when the post-$\mathcal{D}$ vector lies
# counter-clockwise of the pre-$\mathcal{D}$ one (in the third quadrant, where most of the paper's
# rewards lie, that is a move toward alignment). The mean absolute shift here is
# {glue:text}`theta_abs_mean:.1f` degrees, the median signed shift {glue:text}`theta_median:.1f`.
#
# ## Alignment score and resistance (§ 2.2)
#
# The alignment score $a_+$ is the share of pairs the RM gets right; the alignment resistance
# $a_- = 1 - a_+$ is the share it still gets wrong.

# %% tags=["hide-input"]
summary = seal.alignment_summary(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
for k in ("a_plus_pre", "a_minus_pre", "a_plus_post", "a_minus_post"):
    glue(k, summary[k], display=False)
P = {**seal.PAPER["alignment"], "a_minus_pre": 1 - seal.PAPER["alignment"]["a_plus_pre"]}
for k in ("a_plus_pre", "a_minus_pre", "a_plus_post", "a_minus_post"):
    glue(f"paper_{k}", P[k], display=False)
pd.DataFrame({"this run": [summary[k] for k in ("a_plus_pre", "a_minus_pre", "a_plus_post", "a_minus_post")],
              "paper": [P["a_plus_pre"], round(P["a_minus_pre"], 2), P["a_plus_post"], P["a_minus_post"]]},
             index=["a₊ pre-D", "a₋ pre-D", "a₊ post-D", "a₋ post-D (alignment resistance)"]).round(3)

# %% [markdown]
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

# %% tags=["hide-input"]
quad = pd.DataFrame({"pre-D": seal.reward_quadrants(R["pre_chosen"], R["pre_rejected"]),
                     "post-D": seal.reward_quadrants(R["post_chosen"], R["post_rejected"]),
                     "paper (post-D)": pd.Series(seal.PAPER["quadrants"])})
quad.round(3)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, k in zip(axes, ("pre", "post")):
    h = ax.hist2d(R[f"{k}_chosen"], R[f"{k}_rejected"], bins=40, cmap="viridis", cmin=1)
    fig.colorbar(h[3], ax=ax, label="pairs")
    lo, hi = ax.get_xlim()
    ax.plot([lo, hi], [lo, hi], "w--", lw=0.8)
    ax.set(title=f"{k}-D rewards (Fig. 9)", xlabel="chosen reward", ylabel="rejected reward")
plt.tight_layout()
plt.show()

# %% [markdown]
# On the `demo` profile the rewards come from a Bradley–Terry head whose scale and offset are set by
# its own training data, so quadrant shares say little about the paper's RMs; what carries over is the
# method. The next chapters regress these rewards on features ({ref}`seal-imprint`), split the pairs
# into alignment regimes ({ref}`seal-resistance`) and rewrite entries ({ref}`seal-robustness`).

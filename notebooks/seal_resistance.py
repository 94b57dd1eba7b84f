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
# (seal-resistance)=
# # SEAL: alignment resistance
#
# An RM is *aligned* with the human label on pair $i$ when it rewards the chosen entry strictly more,
# $\delta_i = \mathbb{1}\{r(t_i^c) > r(t_i^r)\}$ (a tie counts as misaligned). Comparing the
# pre-$\mathcal{D}$ indicator $\underline{\delta}_i$ with the post-$\mathcal{D}$ one $\delta_i$ sorts
# every pair into one of four *alignment regimes* (SEAL § 2.2, Table 1): became aligned, stayed
# aligned, stayed misaligned, reversed. SEAL then asks whether the pairs where training on
# $\mathcal{D}$ failed are pairs where an independent judge — the LM-labeller — also disagrees with the
# human label. The judge's preference $\gamma_i \in \{c, r, i\}$ is read off the two target features
# with helpfulness first (App. D.4, Table 2).

# %% tags=["parameters"]
profile = "demo"
seed = 0
# the SEAL study design shared by the four Part II pages (params/<profile>/seal-study.yml; seal.setup
# arguments): the alignment data set D, other preference data for the pre-D RM, named pre-D / post-D reward
# models or their training and base model. None: seal.DEMO_STUDY, the simulator's design
design = None
# where the features come from: "planted" (simulator), "rules" (rule-based featurizer), "llm" (LM-labeller)
features = "planted"
# the LM-labeller (pluralign.llm.load arguments) when features == "llm"
labeller = None

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from myst_nb import glue
from IPython.display import Markdown, display

from pluralign import report, seal
from pluralign.seal.plots import coefficient_plot

study = seal.setup(**(design or seal.DEMO_STUDY), features=features, labeller=labeller)
D, view, R, F = study.D, study.view, study.R, study.F
report.profile_note(profile, stand_ins=study.stand_ins)

# %% [markdown]
# ## Alignment regimes (Table 1)

# %% tags=["hide-input"]
regimes = seal.alignment_regimes(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
prev = seal.regime_prevalence(regimes)
table1 = pd.DataFrame({"this run": prev, "paper (Table 1)": pd.Series(seal.PAPER["table1"]["prevalence"]),
                       "SEAL analysis code": pd.Series(seal.PAPER["regime_shares_seal_code"])})
for k, v in prev.items():
    glue(f"prev_{k}", float(v), display=False)
fig, ax = plt.subplots(figsize=(7, 3))
table1.plot.bar(ax=ax, rot=0)
ax.set(ylabel="share of pairs", xlabel="")
plt.tight_layout()
plt.show()
table1.round(4)

# %% [markdown]
# Here {glue:text}`prev_became-aligned:.3f` of the pairs became aligned, {glue:text}`prev_stayed-aligned:.3f`
# stayed aligned, {glue:text}`prev_stayed-misaligned:.3f` stayed misaligned and
# {glue:text}`prev_reversed:.3f` reversed. The paper's Table 1 rounds the shares that SEAL's public
# analysis notebooks print (third column).
#
# ## The LM-labeller's preference per regime (Table 1, last row; Fig. 4)

# %% tags=["hide-input"]
gamma = seal.labeller_gamma(F)
known = np.array([g is not None for g in gamma])
agree = seal.labeller_agreement(regimes[known], gamma[known])
agree["paper agreement (Table 1)"] = pd.Series(seal.PAPER["table1"]["lm_labeller_agreement"])
g_all = agree.loc["all"]
glue("n_c", int(g_all["n_c"]), display=False)
glue("n_r", int(g_all["n_r"]), display=False)
glue("share_i", float(g_all["n_i"] / g_all["n"]), display=False)
glue("paper_share_i", seal.PAPER["indifferent_share"], display=False)
G = seal.PAPER["gamma_seal_code"]
glue("paper_lm_decisive", G["lm_agreement_decisive"], display=False)
glue("paper_pre_decisive", G["pre_rm_alignment_decisive"], display=False)
glue("paper_post_decisive", G["post_rm_alignment_decisive"], display=False)
glue("paper_n_decisive", f"{G['c'] + G['r']:,}", display=False)
agree.round(3)

# %% [markdown]
# The labeller is indifferent ($\gamma_i = i$) on {glue:text}`share_i:.3f` of the pairs here (paper:
# {glue:text}`paper_share_i:.2f` of hh-rlhf), prefers the chosen entry on {glue:text}`n_c` and the rejected one on
# {glue:text}`n_r`. Agreement is $n_c / (n_c + n_r)$ per regime, as in Fig. 4. On `demo` the
# "labeller" is the planted truth, so its disagreements with the majority label are the pairs where
# the sampled annotators' tastes outweighed a planted helpfulness or harm difference.
#
# Two numbers from SEAL's public analysis notebook are easy to mislabel:
# **{glue:text}`paper_lm_decisive:.4f`** is the LM-labeller's agreement with the human label on the
# {glue:text}`paper_n_decisive` pairs where it is decisive ($\gamma_i \neq i$), and
# **{glue:text}`paper_pre_decisive:.4f`** is the *pre*-$\mathcal{D}$ RM's alignment on those same pairs
# (the post-$\mathcal{D}$ RM's is {glue:text}`paper_post_decisive:.4f`). Neither is a "pre/post
# labeller agreement". The same three quantities on this run:

# %% tags=["hide-input"]
decisive = known & np.array([g in ("c", "r") for g in gamma])
rows = {"decisive pairs (γ ≠ i)": (int(g_all["n_c"] + g_all["n_r"]), G["c"] + G["r"])}
if decisive.any():
    rows["LM-labeller agreement with the human label, γ ≠ i"] = (float(g_all["agreement"]),
                                                                 G["lm_agreement_decisive"])
    rows["pre-D RM alignment a₊ on γ ≠ i pairs"] = (
        seal.alignment_score(R["pre_chosen"][decisive], R["pre_rejected"][decisive]), G["pre_rm_alignment_decisive"])
    rows["post-D RM alignment a₊ on γ ≠ i pairs"] = (
        seal.alignment_score(R["post_chosen"][decisive], R["post_rejected"][decisive]),
        G["post_rm_alignment_decisive"])
pd.DataFrame(rows, index=["this run", "SEAL analysis code"]).T.round(4)

# %% tags=["hide-input"]
theta = seal.reward_shift(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
frame = pd.DataFrame({"θ": theta, "regime": regimes, "γ": gamma})
frame = frame[frame["γ"].isin(["c", "r"])]
if len(frame):
    g = sns.displot(frame, x="θ", hue="γ", col="regime", col_order=list(seal.REGIMES), hue_order=["c", "r"],
                    palette={"c": "#2ca02c", "r": "#e377c2"}, bins=30, height=2.8, aspect=0.9,
                    facet_kws={"sharey": False})
    g.set_axis_labels("reward shift θ (degrees)", "pairs")
    g.figure.suptitle("Fig. 4: reward shifts by alignment regime and LM-labeller preference", y=1.04)
    plt.show()

# %% [markdown]
# ## Which features predict misalignment (Eq. 3, Table 7, Fig. 3 right)
#
# A logistic regression of the post-$\mathcal{D}$ RM's misalignment $1 - \delta_i$ on the chosen and
# rejected entries' features (Table 7 reads as effects on *mis*alignment; the linear-probability fit,
# the other option of `seal.misalignment_regression`, is shown beside it in the table).

# %% tags=["hide-input"]
t7 = seal.misalignment_regression(R["post_chosen"], R["post_rejected"], F["chosen"], F["rejected"],
                                  F["regressors"])
fig, ax = plt.subplots(figsize=(7, 0.45 * len(F["regressors"]) + 1.2))
coefficient_plot(ax, {"chosen (c)": t7.xs("c"), "rejected (r)": t7.xs("r")},
                 xlabel="ρ: log-odds of misalignment")
ax.set_title("misalignment on features, ±2 SE; filled = significant after Bonferroni")
plt.tight_layout()
plt.show()
# the same regression as a linear probability model: the paper's Table 7 magnitudes look like one
t7_lin = seal.misalignment_regression(R["post_chosen"], R["post_rejected"], F["chosen"], F["rejected"],
                                      F["regressors"], model="linear")
paper7 = seal.paper_table("table7")[["c_estimate", "r_estimate"]]
t7w = pd.concat({"logit": t7["estimate"].unstack(0), "linear": t7_lin["estimate"].unstack(0)}, axis=1)
t7w.columns = [f"{m} {'chosen' if e == 'c' else 'rejected'}" for m, e in t7w.columns]
if t7w.index.isin(paper7.index).any():
    t7w = t7w.join(paper7.rename(columns={"c_estimate": "paper chosen", "r_estimate": "paper rejected"}), how="left")
glue("t7_base", t7.attrs["base_rate"], display=False)
if not t7.attrs["converged"]:
    display(Markdown("**The logit's maximum likelihood did not converge** (some feature is (quasi-)separated: "
                     "its chosen or rejected value occurs only among aligned or only among misaligned pairs). "
                     "Estimates with very large standard errors belong to such features and should not be read."))
t7w.round(3)

# %% [markdown]
# The post-$\mathcal{D}$ RM is misaligned on {glue:text}`t7_base:.3f` of the pairs. The table gives the
# logit of Eq. 3 (log-odds) beside the same regression fitted as a linear probability model
# (`model="linear"`: changes in the probability of misalignment). The paper's Table 7 coefficients
# (shown where a feature has the same name) have the magnitudes of the linear model, so they compare
# with its columns; in them a helpful or harmless chosen entry lowered the risk of misalignment, and the
# same features on the rejected entry raised it.

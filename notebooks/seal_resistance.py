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
# the profile's named models (params/<profile>/common.yml), which reward_models and labeller may name by key
models = None

# %% tags=["remove-input"]
from pluralign import seal

study = seal.setup(design, features=features, labeller=labeller, models=models, profile=profile, seed=seed)
study.profile_note()

# %% [markdown]
# ## Alignment regimes (Table 1)

# %% tags=["hide-input"]
study.regime_table().glue()

# %% [markdown]
# Here {glue:text}`prev_became-aligned:.3f` of the pairs became aligned, {glue:text}`prev_stayed-aligned:.3f`
# stayed aligned, {glue:text}`prev_stayed-misaligned:.3f` stayed misaligned and
# {glue:text}`prev_reversed:.3f` reversed. The paper's Table 1 rounds the shares that SEAL's public
# analysis notebooks print (third column).
#
# ## The LM-labeller's preference per regime (Table 1, last row; Fig. 4)

# %% tags=["hide-input"]
study.labeller_agreement().glue()

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
study.decisive_pairs()

# %% tags=["hide-input"]
study.shifts_by_regime()

# %% [markdown]
# ## Which features predict misalignment (Eq. 3, Table 7, Fig. 3 right)
#
# A logistic regression of the post-$\mathcal{D}$ RM's misalignment $1 - \delta_i$ on the chosen and
# rejected entries' features (Table 7 reads as effects on *mis*alignment; the linear-probability fit,
# the other option of `seal.resistance.misalignment_regression`, is shown beside it in the table).

# %% tags=["hide-input"]
study.misalignment().glue()

# %% [markdown]
# The post-$\mathcal{D}$ RM is misaligned on {glue:text}`t7_base:.3f` of the pairs. The table gives the
# logit of Eq. 3 (log-odds) beside the same regression fitted as a linear probability model
# (`model="linear"`: changes in the probability of misalignment). The paper's Table 7 coefficients
# (shown where a feature has the same name) have the magnitudes of the linear model, so they compare
# with its columns; in them a helpful or harmless chosen entry lowered the risk of misalignment, and the
# same features on the rejected entry raised it.

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
# (recovery)=
# # The demo as a controlled experiment
#
# The demo profile's data come from the project's simulator (`pluralign.data.simulate`), so the truth behind
# every number is known: which pairs were planted as taste-driven, each cause, the population's feature weights,
# its split p\* on every pair. This page checks every method of the library against that truth, through the same
# studies, settings and cache as the book's pages (`pluralign.recovery`; the same table from the command line:
# `pluralign recovery --out recovery.csv`).
#
# Two kinds of row:
#
# - a **method row** has a `planted` value and a criterion the method must meet to count as working (the
#   planted share inside the 95 % CI, an AUROC or a correlation above a bar); a method that fails it is broken
#   or too weak to trust on these data;
# - a **stand-in row** (`imprint_rm_weight_correlation`, `robustness_rm_sign`) checks the demo's small trained
#   reward model against the planted weights, not a method: it is reported with its verdict and may come out
#   either way (the method rows for the same estimators use a reward whose truth is known);
# - a **claim row** (`claim_…`) has no planted value ("—"): its criterion is one of the papers' central claims
#   and its verdict comes from the CI. It can come out either way — that is a finding about the simulated
#   population and the demo's small models, not a test of the code.
#
# The planted weights are the population's means. The simulator's pool of annotators who label the data is
# moment-matched to that population (its mean and sd of every weight are the population's), so what the
# annotators taught the models and what the population would have taught them are the same weights.
#
# Every interval is a 95 % bootstrap interval over pairs (over features for the imprint correlation, a Fisher
# interval). The stand-ins are named in the descriptions: on the demo, the reward models are a small MLP head
# on frozen all-MiniLM-L6-v2 embeddings, the cause labeller reads surface rules, the judge is simulated and the
# §3.1 categories are read from the simulator (that row checks plumbing, not a classifier).

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from pluralign import recovery

checks = recovery.result(profile=profile).glue()

# %% [markdown]
# ## Every method against the planted truth

# %% tags=["remove-input"]
checks

# %% [markdown]
# What each row checks:
#
# - `diverging_share`, `diverging_taste_driven`: the §2 agreement classes against the share of pairs the planted
#   population makes diverging with four annotators (computed from the population, not from the annotators drawn).
# - `cause_agreement`: the demo's cause labeller (surface rules) against the planted causes, Cohen's κ.
# - `meanvar_auroc_diverging`: the mean-variance RM's σ separating planted taste-driven from single-answer pairs.
# - `rm_accuracy_high_agreement`, `rm_utility_correlation`: the demo's BT RM against the population majority where
#   at least {glue:text}`high_agreement_pct` % of the population agree, and its reward gap against the planted utility difference.
# - `imprint_weight_correlation`, `imprint_weight_coverage`: SEAL's Eq. 1 (pair fixed effects, pair-clustered
#   SEs, VIF filter) on a *noisy oracle* reward, the planted utility plus Gaussian noise per entry of the trained
#   RM's residual size (stated in the description). Its imprints must give back the planted weights themselves
#   (scale 1), every sign right, and its 95 % intervals must contain them about 95 % of the time (over repeated
#   noise draws).
# - `imprint_rm_weight_correlation` (stand-in): the same regression on the trained RM's rewards; a BT reward is a
#   logit, not a rescaled utility, so its coverage (in the description) is not a test of the method.
# - `robustness_sign`: SEAL's Eq. 4 on the demo's simulated rewrites of every pair of D (several rounds) scored by
#   the noisy oracle: each score π must have the sign of its flipped feature's planted weight (a flip is
#   original − rewritten). `robustness_rm_sign` (stand-in): the trained post-D RM's scores on the page's 200
#   rewrites, against the weights it was trained on (the other data and D mixed) — small weights and few flips.
# - `margin_pstar_correlation`: Eq. 3's margins from the simulated judge (n draws, log-odds noise as set on the
#   Part III pages) against the planted 2p\* − 1.
# - `subjectivity_category_accuracy`: the §3.1 categories against the planted prompt kinds (plumbing on the demo).

# %% [markdown]
# ## The demo reward models converge
#
# The reward-model rows rest on the demo's stand-in models (a small MLP head on frozen all-MiniLM-L6-v2
# embeddings, trained on every annotator judgment of the training split); their validation loss during training:

# %% tags=["remove-input"]
recovery.training_curves(profile)

# %% [markdown]
# The validation loss falls and flattens within the epochs trained; the best checkpoint is kept.

# %% [markdown]
# Each part's pages link here for their rows: Part I (`diverging`: agreement classes, causes, the reward models
# and the mean-variance model), Part II (`seal`: feature imprints, robustness scores, the reward shift) and
# Part III (`btb`: margins, categories, margin-regularized training).

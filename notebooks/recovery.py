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
# Four kinds of row, each labelled in the `kind` column:
#
# - a **method** row checks a method of the library against what the simulator planted (a share, a weight, the
#   correlation a correct formula reaches); a miss fails `pluralign recovery` and CI. These are the only rows that
#   gate;
# - a **stand-in** row checks one of the demo's stand-in models — the small trained reward models, the rule cause
#   labeller — against the planted truth: reported with its verdict, a finding about the stand-in;
# - a **claim** row carries one of the papers' central claims; its verdict comes from the CI and may go either way,
#   a finding about the simulated population;
# - a **plumbing** row shows a planted quantity wired through unchanged (on the demo the §3.1 categories are read
#   from the simulator): shown, not counted.
#
# `planted` holds only what was planted ("—" elsewhere); a bar a row must clear is in its criterion, with its
# source. Each interval names its resampling unit: pairs, pairs *and* annotators (one simulated annotator judges
# many pairs, so the agreement-class shares resample both, Owen's pigeonhole bootstrap; the pairs-only
# interval is in the row's description), noise draws, or an exact binomial interval over a dozen scores.
#
# The planted weights are the population's means. The simulator's pool of annotators who label the data is
# moment-matched to that population (its mean and sd of every weight are the population's), so what the
# annotators taught the models and what the population would have taught them are the same weights.
#
# The stand-ins are named in the descriptions: on the demo, the reward models are a small MLP head on frozen
# all-MiniLM-L6-v2 embeddings, the cause labeller reads surface rules, the judge is simulated.

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
# - `diverging_share`, `diverging_taste_driven` (method): the §2 agreement classes against the share of pairs the
#   planted population makes diverging with four annotators (computed from the population, not from the
#   annotators drawn).
# - `cause_agreement` (stand-in): the demo's cause labeller (surface rules) against the planted causes, Cohen's κ,
#   held to the κ the paper's own annotators reach with each other (§2.1).
# - `meanvar_auroc_diverging`, `rm_accuracy_high_agreement`, `rm_utility_correlation` (stand-in): the demo's
#   mean-variance and BT reward models against the planted split, where at least
#   {glue:text}`high_agreement_pct` % of the population agree, and the planted utility difference.
# - `imprint_weight_correlation`, `imprint_weight_coverage` (method): SEAL's Eq. 1 (pair fixed effects,
#   pair-clustered SEs, VIF filter) on a *noisy oracle* reward: the planted utility, a prompt effect shared by a
#   pair's two entries that rises with the features they carry (what Eq. 1's α_i must absorb), and Gaussian noise
#   per entry of the trained RM's residual size. Its imprints must give back the planted weights themselves
#   (scale 1), none significantly of the wrong sign, and its 95 % intervals must contain them as often as a
#   binomial draw at 0.95 would. SEAL's own code (pooled OLS, no pair effects) on the same reward is in the
#   description: the prompt effect biases it.
# - `imprint_rm_weight_correlation` (stand-in): the same regression on the trained RM's rewards; a BT reward is a
#   logit, not a rescaled utility, so its coverage (in the description) is not a test of the method.
# - `robustness_sign` (method): SEAL's Eq. 4 on the demo's simulated rewrites of every pair of D (several rounds)
#   scored by the noisy oracle: no score π may be significantly of the sign opposite its flipped feature's planted
#   weight's (a flip is original − rewritten; a small weight's score that straddles 0 may take either sign). `robustness_rm_sign` (stand-in): the trained post-D RM's scores on the page's 200
#   rewrites, against the weights it was trained on (the other data and D mixed) — small weights and few flips.
# - `margin_pstar_correlation` (method): Eq. 3's margins from the simulated judge against the planted 2p\* − 1;
#   planted is the r that Eq. 3 as defined reaches under that judge (Monte Carlo), so the row tests the margin's
#   computation, not how good the judge is.
# - `subjectivity_category_accuracy` (plumbing): the §3.1 categories against the planted prompt kinds.

# %% [markdown]
# ## How hard the demo is
#
# Every setting that decides how hard a check is — the annotators, the judge, the rewriter, the oracle's prompt
# effect — is set once for the whole demo (`pluralign.data.difficulty`), with its source:

# %% tags=["remove-input"]
recovery.difficulty()

# %% [markdown]
# ## Each method along the knob that makes it hard
#
# One point per method says little about how far the demo sits from where the method breaks. Each method row is
# rerun below along its knob — annotators per pair, the judge's noise and judgments per pair, the oracle reward's
# noise, the rewriter's flip rate — on the cheap components (the simulator, the simulated judge, the noisy
# oracle, the simulated rewriter; nothing is retrained), with the planted value at each step. A hollow point
# misses its criterion; the demo's own value is marked. {glue:text}`n_sweeps_recover` of
# {glue:text}`n_sweeps` sweeps recover at every step.

# %% tags=["remove-input"]
recovery.sweep_result(profile).glue()

# %% [markdown]
# The table says, per sweep, where it stops recovering. Eq. 3's margin is exact, so a correct implementation
# matches its planted r at every step: what moves with the judge's noise and n is how well *any* margin from that
# judge can track p\* — what a researcher choosing n reads here. For the imprint rows the noise is in multiples
# of the demo RM's own residual noise (1 is the page's oracle).
#
# Any seed draws a fresh population: `pluralign recovery --seed 3` runs every check on it (the book's pages use
# seed 0).

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

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
# (seal-imprint)=
# # SEAL: feature imprint
#
# :::{admonition} What this page finds
# :class: tip
# - **Imprints (Eq. 1, Table 5).** {glue:text}`t5_verdicts` In the paper training on hh-rlhf turned harmlessness from
#   penalised ({glue:text}`paper_harmless_pre:.2f`) to the most rewarded feature
#   ({glue:text}`paper_harmless_post:.2f`); {glue:text}`harmless_sentence`.
# - **Planted weights (demo).** The trained RMs against the weights of the data they were trained on:
#   {glue:text}`recovery_summary`.
# - **Reward shifts on features (Eq. 2, Table 6).** {glue:text}`t6_verdicts` The regression explains
#   R² = {glue:text}`t6_r2:.3f` of θ.
# :::
#
# Which features of a text does a reward model reward? SEAL's *feature imprint* (§ 2.1, Eq. 1)
# regresses the reward of every entry, chosen and rejected alike, on the entry's feature indicators,
# with a fixed effect per pair:
#
# $$r(t_i^*) = \alpha_i + \sum_\tau \beta_\tau\, t_i^*(\tau) + \varepsilon_i .$$
#
# $\beta_\tau$ is the reward difference between an entry with feature $\tau$ and one without, all else
# equal. The paper labels every entry of hh-rlhf with an LM-labeller (the App. C.3 taxonomy of target
# features, helpfulness and harmlessness, and spoiler features; the numbers are below), drops features
# whose VIF exceeds 5, corrects p-values with Bonferroni, and compares the imprints of the
# pre-$\mathcal{D}$ and post-$\mathcal{D}$ reward models ({ref}`seal-rewards`). Two estimators run here: SEAL's
# analysis code's (plain OLS without the pair fixed effects, classical standard errors, the VIF computed with the
# pair dummies), which produced the paper's Table 5, and Eq. 1 as written (pyfixest, pair fixed effects,
# pair-clustered standard errors), this project's estimate.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): seal.SealSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.seal.SealSettings, e.g. {"stability_share": 0.02}

# %% tags=["remove-input"]
from pluralign import seal, report
from pluralign.seal.pages import imprint_page, stand_ins

study = seal.setup(profile, seed, models=models, settings=settings, page="seal_imprint")
report.profile_note(profile, stand_ins(study, "imprint"))

# %% tags=["remove-input"]
seal.reported("labelling")

# %% [markdown]
# ## Featurization
#
# On the paper profile an LM-labeller answers the App. C.3 prompt for every entry (validated JSON,
# resumable). Offline there is no instruction-tuned LM, so the demo regresses on the simulator's
# **planted** features, which are the ground truth, and the sample profile uses the **rule-based featurizer**
# (refusal phrases, a sentiment lexicon, word lists for insults and explicit content, privacy
# patterns, harmful-topic cues). On the demo the rule-based featurizer is checked against the planted
# labels, feature by feature, on the chosen and rejected entries together (this is also the
# label-stability check of App. D.5 / Fig. 11, with the planted labels as the second labeller):

# %% tags=["remove-input"]
imprint_page.featurizer_check(study)

# %% [markdown]
# Which simulator feature plays which SEAL feature, and with what sign: every comparison with the paper's
# tables below puts this run's estimate on the row of the SEAL feature its feature plays (multiplied by the
# sign), beside the paper's number. On the sample and paper profiles the features carry SEAL's names and
# the mapping is the identity.

# %% tags=["remove-input"]
imprint_page.feature_mapping(study)

# %% [markdown]
# ## Label stability across labellers (App. D.5, Fig. 11)

# %% tags=["remove-input"]
seal.reported("stability")

# %% tags=["remove-input"]
imprint_page.label_stability(study)

# %% [markdown]
# ## Feature prevalence in chosen and rejected entries (Table 4, Fig. 14)

# %% tags=["remove-input"]
imprint_page.prevalence(study)

# %% [markdown]
# Rows are SEAL's features (Table 4's: hh-rlhf train, gpt-4-turbo labels), with this run's share beside the paper's;
# a feature that plays a SEAL feature with the opposite sign enters as 1 − its share. The paper's sentiment is the
# mean of −1/0/1 (negative, neutral, positive).

# %% [markdown]
# ## Imprints of the pre-$\mathcal{D}$ and post-$\mathcal{D}$ reward models (Eq. 1, Table 5, Fig. 3 left)

# %% tags=["remove-input"]
imprint_page.imprints(study).glue()

# %% [markdown]
# Each row is one of SEAL's features (Table 5's, in its order): the paper's imprint beside this run's, in both
# estimators (the paper's comes from "SEAL's code: OLS, no FE"); the figure shows the fixed-effects rows of the same
# table, with the same names and signs. Two estimators of Eq. 1 on the same entries. **SEAL's code: OLS, no FE**:
# the paper's Table 5 was computed this way (SEAL's analysis code): plain OLS over the pooled entries with an
# intercept and the pair's row number as a numeric covariate, classical standard errors, features dropped by
# {glue:text}`vif_rule` with the pair dummies in the VIF's regressions. **Pair fixed effects (this project)**: Eq. 1 as written: a fixed
# effect $\alpha_i$ per pair, standard errors clustered by pair (plotted above). The verdict reads significance as the
# paper's Fig. 3 does, after Bonferroni: this run's 95% CI is corrected over the coefficients of its fit, and it is
# compared with the paper's estimate only where the paper's own (Bonferroni) p-value finds one; the paper's estimates
# are on the OpenAssistant RMs' reward scale, this run's on its own RMs', so only signs compare.
#
# Each regression uses {glue:text}`n_imprint_obs` entries (two per pair); {glue:text}`n_imprint_missing`
# pairs with a missing label on either entry (an entry the labeller could not label) were dropped
# before the regression, both entries together. Features dropped by this run's VIF filter
# ({glue:text}`vif_rule`) are listed below (the paper dropped {glue:text}`paper_vif_dropped`); features without
# variation are dropped too.

# %% tags=["remove-input"]
imprint_page.vif_dropped(study)

# %% [markdown]
# The paper's imprints (Table 5) are on the OpenAssistant RMs' reward scale and its {glue:text}`paper_n_t5`
# LM-labelled features; {glue:text}`n_t5_compared` of them have an estimate of this run beside them. In the paper,
# training on hh-rlhf turned harmlessness from a penalised feature (β = {glue:text}`paper_harmless_pre:.2f`
# pre-$\mathcal{D}$) into the most rewarded one (β = {glue:text}`paper_harmless_post:.2f` post-$\mathcal{D}$).
#
# ## Recovery of the planted weights (demo)
#
# On the demo profile the simulator's annotators weigh each planted feature with a known population
# weight, and their utility for an entry is that weighted sum plus judgment noise. Two checks, of two
# different things: the method on that utility itself, and the trained reward models against the weights
# of the data they were trained on (real data carry no planted weights, so other profiles skip this).

# %% tags=["remove-input"]
imprint_page.planted_recovery(study).glue()

# %% [markdown]
# The regression of Eq. 1 with pair fixed effects and the VIF filter recovers a linear reward exactly: its residuals,
# and so its standard errors, are zero, so the interval column does not apply to the method check.

# %% [markdown]
# ## Reward shifts regressed on features (Eq. 2, Table 6, Fig. 3 centre)
#
# Which chosen and rejected features go with a large reward shift $\theta_i$ between the two RMs?

# %% tags=["remove-input"]
imprint_page.shift_regression(study).glue()

# %% [markdown]
# Rows are SEAL's features (Table 6's, in its order); θ in degrees, as the paper computes it (the
# {ref}`rewards page <seal-rewards>` sets it beside θ on rewards centred per model). The verdict reads the
# Bonferroni-corrected CI against the paper's estimate where the paper's own p-value finds one.
#
# The regression explains R² = {glue:text}`t6_r2:.3f` of the variation in $\theta_i$ (OLS with an
# intercept, as SEAL's analysis code; Bonferroni over the coefficients). In the paper, a harmless or
# refusing chosen entry and a harmful rejected one went with large positive shifts. On the demo the pre-D RM's
# other data weighs several style features against D's population, so training on D turns the reward vectors of
# pairs that differ in them by design: those rows read "set by simulator", not a direction.

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the
# {ref}`recovery page <recovery>` checks Eq. 1 on a noisy oracle reward against the planted feature weights (on the
# planted features and on the featurizer's: the method), and the demo's trained RM against them.

# %% tags=["remove-input"]
report.reproduce(
    "seal_imprint", "pluralign.seal.pages.imprint_page", "pluralign.seal.imprint", "pluralign.seal.compare",
    "pluralign.seal.planted",
)

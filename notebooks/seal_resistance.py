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
# :::{admonition} What this page finds
# :class: tip
# - **Alignment regimes (Table 1).** {glue:text}`prev_became-aligned:.3f` of the pairs became aligned,
#   {glue:text}`prev_stayed-aligned:.3f` stayed aligned, {glue:text}`prev_stayed-misaligned:.3f` stayed misaligned and
#   {glue:text}`prev_reversed:.3f` reversed (paper: {glue:text}`paper_prev_became-aligned:.2f`,
#   {glue:text}`paper_prev_stayed-aligned:.2f`, {glue:text}`paper_prev_stayed-misaligned:.2f`,
#   {glue:text}`paper_prev_reversed:.2f`). On the demo these shares follow from the
#   pre-D RM's other data, whose style weights are set against D's (stated under the table).
# - **The LM-labeller on decisive pairs.** It agrees with the human label on {glue:text}`lm_decisive_here:.4f` of the
#   pairs where it is decisive (SEAL's code: {glue:text}`paper_lm_decisive:.4f`).
# - **Reward shifts by regime.** {glue:text}`n_regime_tests_sig` of {glue:text}`n_regime_tests` one-sample t-tests
#   reject a zero mean shift after Bonferroni on θ as the paper computes it, {glue:text}`n_regime_tests_sig_centred` on
#   θ centred per model; the paper prints no test for these panels.
# - **What predicts misalignment (Eq. 3, Table 7).** {glue:text}`t7_verdicts`
# :::
#
# An RM is *aligned* with the human label on pair $i$ when it rewards the chosen entry strictly more,
# $\delta_i = \mathbb{1}\{r(t_i^c) > r(t_i^r)\}$ (a tie counts as misaligned). Comparing the
# pre-$\mathcal{D}$ indicator $\underline{\delta}_i$ with the post-$\mathcal{D}$ one $\delta_i$ sorts
# every pair into one of four *alignment regimes* (SEAL § 2.2, Table 1): became aligned, stayed
# aligned, stayed misaligned, reversed. SEAL then asks whether the pairs where training on
# $\mathcal{D}$ failed are pairs where an independent judge, the LM-labeller, also disagrees with the
# human label. The judge's preference $\gamma_i \in \{c, r, i\}$ is read off the two target features,
# helpfulness and harmlessness, by one of two rules (App. D.4): SEAL's text and Table 2 decide on helpfulness first,
# its code on harmlessness first. This page reads it harmlessness first by default, the rule that gives the counts
# SEAL reports, and shows both rules' counts.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): seal.SealSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.seal.SealSettings, e.g. {"stability_share": 0.02}

# %% tags=["remove-input"]
from pluralign import seal, report
from pluralign.seal.pages import resistance_page, stand_ins

study = seal.setup(profile, seed, models=models, settings=settings, page="seal_resistance")
report.profile_note(profile, stand_ins(study, "resistance"))

# %% [markdown]
# ## Alignment regimes (Table 1)

# %% tags=["remove-input"]
resistance_page.regime_table(study).glue()

# %% [markdown]
# Here {glue:text}`prev_became-aligned:.3f` of the pairs became aligned, {glue:text}`prev_stayed-aligned:.3f`
# stayed aligned, {glue:text}`prev_stayed-misaligned:.3f` stayed misaligned and
# {glue:text}`prev_reversed:.3f` reversed. The paper's Table 1 rounds the shares that SEAL's public
# analysis notebooks print (third column).
#
# ## The LM-labeller's preference per regime (Table 1, last row; Fig. 4)
#
# SEAL's text decides the LM-labeller's preference $\gamma_i$ on helpfulness first (App. D.4, Table 2); its code
# decides on harmlessness first. The two rules' counts:

# %% tags=["remove-input"]
resistance_page.labeller_rules(study).glue()

# %% [markdown]
# This page uses the rule {glue:text}`labeller_rule`.
# On SEAL's released labels of hh-rlhf (160,800 pairs) the text's rule (helpful first) gives 28,213 c / 11,070 r, its
# code's (harmless first) 28,443 c / 10,840 r (the numbers it reports); pairs without both target labels are left out.

# %% tags=["remove-input"]
resistance_page.labeller_agreement(study).glue()

# %% [markdown]
# The labeller is indifferent ($\gamma_i = i$) on {glue:text}`share_i_text` of the pairs here (paper:
# {glue:text}`paper_share_i:.2f` of hh-rlhf), prefers the chosen entry on {glue:text}`n_c` and the rejected one on
# {glue:text}`n_r`. Agreement is $n_c / (n_c + n_r)$ per regime, as in Fig. 4. On the demo the
# "labeller" is the planted truth, so its disagreements with the majority label are the pairs where
# the sampled annotators' tastes outweighed a planted helpfulness or harm difference.
#
# Two numbers from SEAL's public analysis notebook are easy to mislabel:
# **{glue:text}`paper_lm_decisive:.4f`** is the LM-labeller's agreement with the human label on the
# {glue:text}`paper_n_decisive` pairs where it is decisive ($\gamma_i \neq i$), and
# **{glue:text}`paper_pre_decisive:.4f`** is the *pre*-$\mathcal{D}$ RM's alignment on those same pairs
# (the post-$\mathcal{D}$ RM's is {glue:text}`paper_post_decisive:.4f`). Neither is a "pre/post
# labeller agreement". The same three quantities on this run:

# %% tags=["remove-input"]
resistance_page.decisive_pairs(study)

# %% tags=["remove-input"]
resistance_page.shifts_by_regime(study)

# %% [markdown]
# ## Do the reward shifts differ by regime? (t-tests of θ, Fig. 4 / Fig. 17)
#
# Per regime, a one-sample t-test of the mean reward shift θ (all pairs, and per labeller preference γ), and
# Welch's t-test of the pairs where the labeller sides with the human (γ = c) against those where it does not (γ = r).

# %% tags=["remove-input"]
resistance_page.regime_shift_tests(study).glue()

# %% [markdown]
# The paper prints no test statistic for these panels (Fig. 4, Fig. 17): nothing stands beside the tests; the column
# from SEAL's analysis code is the regime sizes on hh-rlhf. θ in degrees; 95% t intervals; Bonferroni over the rows of
# each table; a missing cell: fewer than two pairs in the group (or no spread).
#
# On θ as the paper computes it, {glue:text}`n_regime_tests_sig` of the {glue:text}`n_regime_tests` one-sample tests
# reject a zero mean shift after Bonferroni, and {glue:text}`n_welch_sig` of the {glue:text}`n_welch` γ = c against
# γ = r contrasts; on θ centred per model (the {ref}`rewards page <seal-rewards>` says why it is the better
# estimator), {glue:text}`n_regime_tests_sig_centred` of the one-sample tests do. A positive θ turns a reward vector
# counter-clockwise (towards alignment in the third quadrant), so the sign of each mean says in which direction
# training on $\mathcal{D}$ moved that regime's pairs; the intervals say how well each mean is pinned down, and a
# group of a few pairs (γ = r is rare) cannot show a difference either way.
#
# ## Reward gaps of several reward models (App. D.1, Fig. 7)
#
# The distribution over the pairs of $\mathcal{D}$ of $r(t_i^c) - r(t_i^r)$ for each reward model: its share above
# zero is § 2.2's alignment score $a_+$.

# %% tags=["remove-input"]
resistance_page.reward_gap_distributions(study).glue()

# %% [markdown]
# Fig. 7 itself prints no number; the paper's $a_+$ (§ 2.2) and reward ranges (footnote 9) are its only numbers on
# these distributions; a missing cell: the paper reports nothing for that model.
#
# The post-$\mathcal{D}$ RM's median gap is {glue:text}`post_gap_median:.3f` reward points. On the demo the planted
# mean utility is a reference scorer: it rewards each reply by the population's average taste, and its gap is zero
# where the two replies differ only in what the population does not value on average. The labels come from sampled
# annotators, not from that average, so an RM trained on them can agree with the labels more often than the mean
# utility does. The paper profile lists Fig. 7's four OpenAssistant RMs.
#
# ## Topics of the entries (App. E.1, Fig. 15)
#
# How often each topic of the taxonomy prompt's list occurs on the chosen and the rejected entries, and on how many
# pairs only one of the two entries carries it.

# %% tags=["remove-input"]
resistance_page.topic_distribution(study).glue()

# %% [markdown]
# Fig. 15 prints no number; the paper's facts are its two lists and the five topics gpt-4-turbo added on its own
# (App. E.1, marked). An entry can carry several topics.
#
# The most frequent topic here is {glue:text}`top_topic` ({glue:text}`top_topic_share:.3f` of the entries);
# {glue:text}`no_topic_share:.3f` of the entries get no topic. On the demo these counts describe the keyword rules on
# the simulator's prompt banks, not what an LM-labeller would say; the paper profile reads gpt-4-turbo's labels.
#
# ## Alignment resistance on other preference sets (§ 3)
#
# The resistance $a_-$ of both reward models on other preference sets, beside the paper's
# {glue:text}`paper_a_minus_web_gpt` (web-gpt) and {glue:text}`paper_a_minus_summarize_from_feedback`
# (summarize from feedback).

# %% tags=["remove-input"]
resistance_page.resistance_on_other_sets(study).glue()

# %% [markdown]
# The paper does not say which RM its two numbers belong to; its context (the pre-$\mathcal{D}$ RM's own training
# sets) suggests the pre-$\mathcal{D}$ RM. $a_-$ counts ties as misaligned (§ 2.2); 95% Wilson intervals; a missing
# cell: the paper reports nothing for that set. On the demo the same computation runs on the
# {glue:text}`n_other_sets` sets the study has, so each row is an RM on data it was trained on (the pre-D RM on the
# other data, the post-D RM on all of them) or not (the pre-D RM on $\mathcal{D}$); the paper profile runs it on
# the WebGPT comparisons and summarize-from-feedback.

# %% [markdown]
# ## Which features predict misalignment (Eq. 3, Table 7, Fig. 3 right)
#
# The post-$\mathcal{D}$ RM's misalignment $1 - \delta_i$ regressed on the chosen and rejected entries'
# features (Table 7 reads as effects on *mis*alignment), as a linear probability model (Table 7's scale,
# plotted) and as the logistic regression of Eq. 3.

# %% tags=["remove-input"]
resistance_page.misalignment(study).glue()

# %% [markdown]
# Rows are SEAL's features (Table 7's, in its order). **LPM**: OLS of the 0/1 misalignment on the features, ρ a change
# in probability, on the scale of the paper's Table 7 (plotted above, with the table's names and signs). **logit**:
# Eq. 3 as written, ρ in log-odds; its signs compare, its magnitudes do not. The verdict reads significance as the
# paper's Fig. 3 does: this run's 95% CI Bonferroni-corrected over its fit, against the paper's estimate only where the
# paper's own (Bonferroni) p-value finds one; a coefficient the paper finds null reads "n.s. in paper".
#
# The post-$\mathcal{D}$ RM is misaligned on {glue:text}`t7_base:.3f` of the pairs. Each row is one of
# SEAL's features, the paper's coefficient beside this run's; the paper's have the magnitudes of the linear
# model. In the paper a helpful or harmless chosen entry lowered the risk of misalignment, and the same
# features on the rejected entry raised it. A logit term without a finite estimate (separation) reads "did not
# converge" and is not plotted ({glue:text}`n_t7_separated` here).

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the
# {ref}`recovery page <recovery>` checks the alignment shift this page measures against it.

# %% tags=["remove-input"]
report.reproduce(
    "seal_resistance",
    "pluralign.seal.pages.resistance_page",
    "pluralign.seal.resistance",
    "pluralign.seal.regimes",
    "pluralign.seal.compare",
)

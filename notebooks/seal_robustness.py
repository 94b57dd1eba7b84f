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
# (seal-robustness)=
# # SEAL: alignment robustness
#
# :::{admonition} What this page finds
# :class: tip
# - **Robustness scores (Eq. 4, Table 8).** {glue:text}`t8_verdicts`
# - **How much rewriting moves the post-$\mathcal{D}$ RM.** {glue:text}`rewrite_sentence`
# - In the paper only sentiment mattered: rewriting a rejected entry to sound more positive, or a chosen one less so,
#   raised the odds of misalignment (odds ratios {glue:text}`paper_or_c:.2f` and {glue:text}`paper_or_r:.2f`).
# :::
#
# SEAL's third tool (§ 2.3) asks how fragile the post-$\mathcal{D}$ RM's verdicts are. A random subset
# of pairs is rewritten by an LM instructed to change "only vocabulary and grammatical
# structure" (App. C.5), the rewrites are re-featurized, and each pair gets *label flips*
# $t_i^*(\tau) - \hat t_i^*(\tau)$: +1 when the rewrite lost feature $\tau$, −1 when it gained it. The
# *robustness scores* $\pi$ (Eq. 4) are the coefficients of a regression of "aligned before rewriting,
# misaligned after" on those flips, entered as categories with "no flip" as the baseline: a logistic regression
# in the paper's text, a linear probability model (OLS on the 0/1 event, standard errors clustered by pair) in
# SEAL's code, whose numbers Table 8 prints. Both run here.
# The paper found that rewriting a rejected entry to sound more positive, or a chosen one to sound less
# so, raised the odds of misalignment (its Table 8, at the end of this page).

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): seal.SealSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.seal.SealSettings, e.g. {"stability_share": 0.02}

# %% tags=["remove-input"]
from pluralign import seal, report
from pluralign.seal.pages import robustness_page, stand_ins

study = seal.setup(profile, seed, models=models, settings=settings, page="seal_robustness")
report.profile_note(profile, stand_ins(study, "robustness"))

# %% [markdown]
# ## Rewriting

# %% tags=["remove-input"]
seal.reported("rewriting")

# %% [markdown]
# The paper profile rewrites with an instruction-tuned LM (the model and temperature above) and measures similarity
# with BGE-m3. A pair enters the analysis only when both of its rewrites pass SEAL's checks (not empty, not
# identical, "Human:" kept); the others are dropped and counted, never replaced by the original. Original and
# rewritten dialogues are scored by the post-$\mathcal{D}$ RM through the same function, so the rewriting is the only
# difference between $\delta_i$ and $\hat\delta_i$. The demo has no such LM: the **simulator's own rewrites** stand in:
# every response is paraphrased with the simulator's synonym swaps, and with a set probability per feature its
# enthusiastic sentiment, list format or elaboration is toggled. The flips are therefore *planted*: we know exactly
# which features changed, and Eq. 4 should find that the flips the RM cares about move it. The sample profile has
# real text but neither an instruction-tuned LM nor planted flips, so rewriting is not run there.

# %% tags=["remove-input"]
robustness_page.rewrite_summary(study).glue()

# %% [markdown]
# ## Label flips (Fig. 12) and similarity of the rewrites (Table 3)
#
# Per entry type, feature and flip: the share of rewritten entries with that flip, and the cosine
# similarity of original and rewrite (mean, SD) over those entries.

# %% tags=["remove-input"]
robustness_page.label_flips(study)

# %% [markdown]
# A missing cell in the paper's column: the paper reports only helpful, harmless, coherent, eloquent and sentiment. Its rewrites
# stayed very close to the originals (BGE-m3 cosine similarity, Table 3) whatever the flip; the library's record of
# Table 3:

# %% tags=["remove-input"]
seal.reported("Table 3")

# %% [markdown]
# ## Robustness scores (Eq. 4, Table 8, Fig. 5)

# %% tags=["remove-input"]
robustness_page.robustness(study).glue()

# %% [markdown]
# The figure shows {glue:text}`robustness_model`, with the table's names. Each row is one of Table 8's scores, the
# paper's estimate (from the linear probability model) beside this run's in both variants; in the paper only
# sentiment mattered. Rows are Table 8's features and scores ($\pi^c_+$: the chosen entry lost the feature in the
# rewrite, flip +1; $\pi^r_-$: the rejected entry gained it, flip −1; …). **LPM** (SEAL's code, Table 8's scale): OLS
# of the 0/1 event on the flip categories, standard errors clustered by pair, π a change in probability. **logit**:
# Eq. 4 as written, π in log-odds; its signs compare, its magnitudes do not. The verdict reads this run's 95% CI
# Bonferroni-corrected over its fit (as the figure marks significance) against the paper's estimate where the paper's
# own p-value (Table 8 prints raw p-values) finds one. Rows after the paper's: rewritten features with no paper value.
# With a few hundred rewritten pairs the estimates are wide; their signs can be read against the post-$\mathcal{D}$
# imprints of the planted features on the {ref}`feature-imprint page <seal-imprint>`. On the demo the post-D RM's
# training data weigh sentiment against D's population by design (the
# {ref}`rewards page <seal-rewards>` states the design), so the sentiment rows read "set by simulator".

# %% [markdown]
# On the demo profile the simulator planted what this page's methods should find: the
# {ref}`recovery page <recovery>` checks each π of a noisy oracle reward against its planted value (the method), and
# the same for this page's post-D RM.

# %% tags=["remove-input"]
report.reproduce(
    "seal_robustness",
    "pluralign.seal.pages.robustness_page",
    "pluralign.seal.robustness",
    "pluralign.seal.rewriting",
    "pluralign.seal.compare",
)

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
# (cross-margins)=
# # Margins by agreement class
#
# :::{admonition} What this page finds
# :class: tip
# - Diverging against high-agreement pairs: {glue:text}`x_auc_synthetic`.
# - The gold margin, from the pairs' own annotators: {glue:text}`x_auc_gold`.
# - Neither paper asks this: *Beyond the Binary* reports margins without agreement classes, *Diverging Preferences*
#   classes without margins. On the demo the synthetic judge is drawn from the population's preference $p^*$ itself
#   (below), so it shows what the population's split can tell, not what an LLM judge perceives.
# :::
#
# *Beyond the Binary* {cite}`padmakumar2024beyond` turns the split of n judgments on a pair into a margin,
# $m = |\sum_i j_i - n/2| / (n/2)$ (Eq. 3): 1 when the judgments are unanimous, 0 when they split evenly.
# *Diverging Preferences* {cite}`zhang2024diverging` sorts pairs by how their annotators split: high-agreement
# preferences (nobody rejected the majority's choice), high-agreement ties, and diverging pairs (annotators picked
# opposite responses, at least one of them significantly). Neither paper connects the two.
#
# **Hypothesis.** The margins are small exactly on the diverging pairs: the AUROC of $1 - m$ for "diverging"
# against both high-agreement classes is above 0.5. It is tested with the synthetic margin (n judgments of a judge
# that never saw the annotators) and with the gold margin (Eq. 3 over the pair's own annotators, §2 of
# *Beyond the Binary*), each with a 95% bootstrap CI; the verdict is read from the CI against 0.5 and, on the demo,
# against the planted AUROC.

# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None  # the named models a setting may give by key; None: the profile's (params/<profile>/common.yml)
# every other setting, laid over the profile's parameter file for this page (each one given replaces the
# file's value): cross.CrossSettings.documentation() lists each with its default and meaning
settings = {}  # pluralign.cross.CrossSettings, e.g. {"n_boot": 500}

# %% tags=["remove-input"]
from pluralign import cross, report
from pluralign.cross.pages import margins_page, stand_ins

study = cross.setup(profile, seed, models=models, settings=settings, page="cross_margins")
report.profile_note(profile, stand_ins(study, "margins"))

# %% [markdown]
# ## The margin in each agreement class
#
# Mean margin with its 95% bootstrap CI, median and share of unanimous pairs, per margin source and class (on
# the demo, the planted population margin $|2p^* - 1|$ is the truth the two estimates are read against):

# %% tags=["remove-input"]
margins_page.distribution(study)

# %% [markdown]
# ## Do margins separate diverging from high-agreement pairs?
#
# The AUROC is the probability that a random diverging pair has a smaller margin than a random high-agreement
# pair (0.5: no separation). Pairs of the class "other" are left out.

# %% tags=["remove-input"]
margins_page.separation(study).glue()

# %% [markdown]
# High-agreement *ties* split their votes evenly, so Eq. 3 gives them small margins as well: the column against
# high-agreement preferences only shows how much of the separation they cost.
#
# Read the margins differently:
#
# - The **gold** margin is computed from the same judgments that define the classes, so a high AUROC is expected by
#   construction; it is not 1 because Eq. 3 counts a tie as half a vote and ignores whether a preference was slight
#   or significant, while the classes use both.
# - The **planted** AUROC is that of the population margin $|2p^* - 1|$, what a judge with unlimited judgments of
#   the population would reach against classes drawn from a few sampled annotators. It bounds a margin that does
#   not see those annotators (the synthetic one), not the gold margin: the gold margin and the classes share the
#   sampling noise of the same few annotators, which the population margin does not see, so the gold AUROC may lie
#   above the planted one without contradiction.
# - The **synthetic** margin is the test independent of the annotators. On the demo, though, the judge is a
#   stand-in built from $p^*$ (the population's preference with log-odds noise, as the note at the top says): it
#   never saw the annotators, but it does see the population they were drawn from. Its AUROC therefore measures how
#   far the population's split, blurred by the judge's noise and its few judgments, separates the classes. Whether a
#   real LLM judge perceives where people disagree is a question only a real judge answers (the paper profile).

# %% tags=["remove-input"]
report.reproduce("cross_margins", "pluralign.cross.margins_by_class", "pluralign.cross.pages.margins_page")

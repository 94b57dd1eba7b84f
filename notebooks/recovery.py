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
# The demo's data come from the project's simulator, so the truth behind every number in the book is known: which
# pairs were planted as taste-driven, the population's feature weights, its split p\* on every pair. This appendix
# checks each method the book uses against that truth, on the same studies, settings and population as the book's
# pages, then breaks each method on purpose to show that the checks can fail.
#
# :::{admonition} What this appendix finds
# :class: tip
# - **{glue:text}`n_recovered` of {glue:text}`n_methods` method checks pass** on the book's population: each method
#   gives back what the simulator planted, within its own intervals.
# - **{glue:text}`n_caught` of {glue:text}`n_variants` broken variants are caught**: with its estimate negated,
#   zeroed or replaced by noise, its intervals too wide or too narrow, or its typical mistake made, a method fails
#   its check; {glue:text}`n_caught_tests` of them fail its statistical tests, the others only its check against
#   the method's definition.
# - **{glue:text}`n_standins_pass` of {glue:text}`n_standins` of the demo's stand-in models** (the small trained
#   reward models, the rule cause labeller) reach their bars.
# - **{glue:text}`n_claims_hold` of {glue:text}`n_claims` of the papers' claims hold** on this simulated population.
#
# What this means for each part of the book:
#
# - **Part I (Diverging Preferences)**: {glue:text}`reading_diverging`
# - **Part II (SEAL)**: {glue:text}`reading_seal`
# - **Part III (Beyond the Binary)**: {glue:text}`reading_btb`
# - **Part IV** combines the methods of Parts I–III and has no checks of its own here.
# :::
#
# A *method* check tests a method of the library against what was planted, and only these gate the project's
# checks. A *stand-in* check tests one of the demo's small stand-in models, a finding about the stand-in. A *claim*
# carries one of the papers' central claims, and its verdict says whether it holds on this simulated population,
# either way.

# %% tags=["parameters"]
profile = "demo"
seed = 0

# %% tags=["remove-input"]
from pluralign import recovery, report

checks = recovery.result(profile=profile).glue()
broken = recovery.mutation_result(profile).glue()

# %% [markdown]
# ## Every method against the planted truth
#
# One row per check. The *truth* is what the simulator planted; the 95 % interval sits beside the estimate, and the
# column *what the verdict reads* gives the intervals or coverage bands the verdict is decided on, at the
# criterion's own level.

# %% tags=["remove-input"]
checks

# %% [markdown]
# ## How often a correct method fails its row
#
# A check that fails correct methods makes CI fail for nothing. Each method row was run with the library's correct
# methods on {glue:text}`study_populations` fresh simulated populations, drawn as the demo draws
# its own at seeds nobody chose: any failure is a false failure. All method rows together failed on
# {glue:text}`study_all_rows` populations: an estimate of the chance that a correct commit fails CI at its commit's
# seed.

# %% tags=["remove-input"]
from pluralign.recovery import study

study.result().glue()

# %% [markdown]
# :::{dropdown} How each method row is checked
# Each method row's bands are designed so that a correct method fails it with probability {glue:text}`alpha_pct` %,
# and all method rows together with at most {glue:text}`family_alpha_pct` % (half the target of {glue:text}`target_pct` % of commits;
# the rate measured above is what they do).
# The intervals of one fit share its data, so a coverage band counts them by their effective number: their number
# over the design effect measured from how much the draws' coverage varies against the binomial spread at the
# coverage observed (Kish's design effect: never below 1, never above the number of intervals per draw).
#
# - *Agreement classes* (Diverging Preferences §2 and §3), against the planted votes: every class (high-agreement
#   preference, high-agreement tie, diverging, other), the substantial flag and the majority choice, each by its
#   share and by its per-pair slope on its probability given who judged the pair. The simulator records each
#   annotator's planted weights, so only their judgment noise is left to chance and the pairs are independent: the
#   variances are exact. A share alone would pass a method that marks the right number of pairs at random, and the
#   diverging class alone would pass votes for A read as votes for B; the slopes and the majority catch both. Given
#   its votes a pair's classes are determined, so the row also applies the papers' definitions, written apart from
#   the classifier, to each pair's own votes: no pair may differ. That catches a threshold off by one even where it
#   moves too few pairs for the shares and slopes to see. The probabilities under the whole population are shown
#   beside. The second row reads the pairs planted taste-driven: the taste-driven share of the diverging pairs,
#   and the share of taste-driven pairs classified diverging, each against its probability given who judged.
# - *SEAL Eq. 1 imprints*, on the planted features and on the features the rule featurizer reads from the texts:
#   Eq. 1 on a noisy oracle reward (the planted utility, a prompt effect that rises with the pair's features, which
#   Eq. 1's pair effects must absorb, and noise of the trained RM's residual size), over draws that resample the
#   pairs. On the planted features the truth is the planted weights; on the featurizer's readings it is what Eq. 1
#   estimates under that measurement (the least-squares projection over a population
#   {glue:text}`imprint_population_multiple` times the demo's size), shown beside the planted weight: where they
#   differ, the featurizer misreads. Each imprint's mean over the draws must match its truth, its spread must match
#   its standard errors, and the intervals must be calibrated on both sides: the 95 % intervals may not cover too
#   rarely, the 50 % intervals neither too rarely nor too often. The oracle's noise has one variance for every
#   entry, so plain OLS standard errors would pass these tests as well as the pair-clustered ones Eq. 1 asks for;
#   the row therefore also holds the fit, on the demo's own pairs, to Eq. 1 as defined: its estimates, clustered
#   standard errors and intervals must equal a closed form written apart from pyfixest, to the tolerance the
#   row's criterion states.
# - *SEAL Eq. 3 and Table 1's regimes*, on a pre-D and a post-D oracle whose noise on the reward gap is logistic,
#   so Eq. 3's coefficients are known exactly and each pair's regime has a known probability: the coefficients'
#   intervals are calibrated on both sides and the regime counts match their expectation. The row's estimate is the
#   post-D resistance as the library's Table 1 labeller counts it (stayed-misaligned and reversed pairs), so a
#   labeller that reads the wrong indicators moves it. Eq. 3 is fitted on every
#   identifiable feature (SEAL's VIF screen would drop a planted feature and bias the rest); a coefficient whose
#   feature is separated in a draw (its maximum-likelihood estimate does not exist) is left out of that draw.
# - *SEAL Eq. 4 robustness scores*, on the demo's simulated rewrites scored by the noisy oracle: each score's truth
#   is the least-squares projection of the planted event probability over {glue:text}`eq4_population_rounds`
#   rewrites of every pair, and the intervals are calibrated on both sides around it. Eq. 4 is a linear model of
#   an event that is not linear, so every draw resamples the pairs and rewrites them anew.
# - *Beyond the Binary Eq. 3 margins* from the simulated judge, against what Eq. 3 estimates under that judge pair
#   by pair (the margin's exact expectation given the judge's noise and its judgments per pair, which shrinks the
#   planted split p\*; both are shown): slope 1 and intercept 0, so a mis-scaled or one-sided margin fails, not only
#   a weak correlation, and every margin must lie in [0, 1].
#
# The planted weights are the population's means; the simulator's pool of annotators is moment-matched to that
# population, so what the annotators taught the models and what the population would have taught them are the
# same weights.
# :::

# %% [markdown]
# ## Every method broken on purpose
#
# A check that passes a broken method proves nothing. Each method row is rerun with its method broken, through the
# same check, on the book's population at the book's size: every variant must fail its row.

# %% tags=["remove-input"]
broken

# %% [markdown]
# ## How hard the demo is
#
# Every setting that decides how hard a check is (the annotators, the judge, the rewriter, the oracle's prompt
# effect) is set once for the whole demo, with its source:

# %% tags=["remove-input"]
recovery.difficulty()

# %% [markdown]
# ## Each method along the knob that makes it hard
#
# One point per method says little about how far the demo sits from where the method breaks. Each method row is
# rerun below along its knob (annotators per pair, the judge's noise and judgments per pair, the oracle reward's
# noise, the rewriter's flip rate) on the cheap components; nothing is retrained.
# {glue:text}`n_sweeps_recover` of {glue:text}`n_sweeps` sweeps pass at every step. For the imprint rows the noise
# is in multiples of the demo RM's own residual noise (1 is the oracle of the table above).

# %% tags=["remove-input"]
recovery.sweep_result(profile).glue()

# %% [markdown]
# ## How much data a decision needs
#
# What the knob moves is how much the data can *decide*. Each decision below is followed from the demo's value
# towards the hard end of its knob (fewer pairs, a noisier reward model, a noisier judge) until it is lost, or to
# 100 times the demo's value: the table gives, for each, the hardest design that still decides it, from an estimate
# that still recovers its truth there.

# %% tags=["remove-input"]
recovery.planning_result(profile)

# %% [markdown]
# ## The demo reward models converge
#
# The stand-in rows rest on the demo's reward models (a small MLP head on frozen all-MiniLM-L6-v2 embeddings,
# trained on every annotator judgment of the training split); their validation loss falls and flattens within the
# epochs trained:

# %% tags=["remove-input"]
recovery.training_curves(profile)

# %% [markdown]
# :::{dropdown} Running the checks at another population
# The book's pages use the population of seed 0. The project's recovery command runs every check at any other
# seed, on a freshly drawn population, and exits with an error when a method row fails or a broken variant passes;
# the project's CI runs it at seed 0, at a seed derived from the commit and at seeds 0 to 4:
#
# ```bash
# pluralign recovery --seed 3 --out recovery.csv
# ```
# :::

# %% tags=["remove-input"]
report.reproduce("recovery", "pluralign.recovery")

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
# What each method row checks (each row's criterion, with its bands, is under the table; every criterion is written
# with its source in `pluralign.recovery`). Each row's bands are set so that a correct method fails it
# with probability {glue:text}`alpha_pct` %. The intervals of one fit share its data, so a calibration band counts
# them by their effective number: their number over the design effect measured from how much the draws' coverage
# varies against the binomial spread at the coverage observed (Kish's design effect: never below 1, never above
# the number of intervals per draw).
#
# - `diverging_share`, `diverging_taste_driven`: the §2 agreement classes against the planted population. The
#   share of diverging pairs alone would pass a method that marks the right number of pairs at random, so each row
#   also asks *which* pairs: the slope of the class on each pair's planted P(diverging) must be 1, and the share
#   of taste-driven pairs classified diverging must match their planted mean.
# - `imprint_weights` (planted features) and `imprint_text_weights` (the features the rule featurizer reads from
#   the texts): SEAL's Eq. 1 on a *noisy oracle* reward — the planted utility, a prompt effect that rises with the
#   pair's features (what Eq. 1's α_i must absorb) and noise of the trained RM's residual size. Its imprints must
#   correlate with the planted weights (r ≥ {glue:text}`imprint_r_bar`) and its intervals must be calibrated on both sides: the 95 %
#   intervals may not cover too rarely, the 50 % intervals implied by the same SEs neither too rarely nor too often.
# - `resistance_regimes`: SEAL's Eq. 3 and Table 1's regimes on a pre-D and a post-D oracle whose noise on the
#   reward gap is logistic, so Eq. 3's coefficients are known exactly (ρ^c = −w / s, ρ^r = w / s) and each pair's
#   regime has a known probability; the coefficients' intervals are calibrated on both sides and the regime
#   counts match their expectation. Eq. 3 is fitted on every identifiable feature (the planted ρ are the full
#   model's; SEAL's VIF screen would drop a planted feature and bias the rest), and a coefficient whose feature is
#   separated in a draw (every pair with it has the same outcome, so its maximum-likelihood estimate does not
#   exist) is left out of that draw.
# - `robustness_scores`: SEAL's Eq. 4 on the demo's simulated rewrites scored by the noisy oracle; each score's
#   planted value is the least-squares projection of the planted event probability over {glue:text}`eq4_population_rounds` rewrites of every
#   pair, and the intervals are calibrated on both sides around it. Eq. 4 is a linear model of an event that is not
#   linear, so its clustered SEs describe fresh pairs and fresh rewrites: every draw resamples the pairs and
#   rewrites them anew.
# - `margin_pstar_correlation`: Beyond the Binary's Eq. 3 margins from the simulated judge against their planted
#   expectation pair by pair — slope 1 and intercept 0, so a mis-scaled or one-sided margin fails, not only r.
#
# Stand-in rows (the trained RMs, the rule cause labeller), claims and plumbing are reported with their verdicts
# and do not gate.

# %% [markdown]
# ## Every method broken on purpose
#
# A check that passes a broken method proves nothing. Each method row is rerun below with its method broken — the
# estimate negated, replaced by zero or by noise with plausible intervals, its intervals three times too wide or
# too narrow, and the row's own typical mistake (pair fixed effects dropped for Eq. 1, the regimes read with pre
# and post swapped for SEAL's Eq. 3, the entries' flips swapped for Eq. 4, votes shuffled across pairs or an
# off-by-one in the significance threshold for the agreement classes, a mis-scaled or one-sided margin for Beyond
# the Binary's Eq. 3) — through the same check, on the demo's population at the demo's size. Every variant must
# fail its row; `pluralign recovery` (and CI) fails when one passes.

# %% tags=["remove-input"]
recovery.mutation_result(profile).glue()

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
# matches its planted expectation (slope 1, intercept 0) at every step: what moves with the judge's noise and n is how well *any* margin from that
# judge can track p\* — what a researcher choosing n reads here. For the imprint rows the noise is in multiples
# of the demo RM's own residual noise (1 is the page's oracle).
#
# Any seed draws a fresh population: `pluralign recovery --seed 3` runs every check on it (the book's pages use
# seed 0); `pluralign recovery --seed commit` uses a seed derived from the commit and
# `make recovery-seeds` runs seeds 0–4 (method rows only). CI runs all three: a method row that misses at any of
# them, or a broken variant its row passes at seed 0 or the commit's seed, fails it.

# %% [markdown]
# ## How much data a decision needs
#
# A criterion that asks a calibrated interval to contain the truth holds at every step of a sweep; what the knob
# moves is how much the data can *decide*. Each decision below is followed from the demo's value towards the hard
# end of its knob (fewer pairs, a noisier reward model, a noisier judge) until it is lost, or to 100× the demo's
# value: the planning table says, for each, the hardest design that still decides it.

# %% tags=["remove-input"]
recovery.planning_result(profile)

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

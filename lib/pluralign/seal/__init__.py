"""Part II — SEAL (Revel et al. 2024): feature imprint, alignment resistance, alignment robustness.

A page starts from ``study = seal.setup(profile, seed, models=models, **page_parameters)``
(:class:`~pluralign.seal.study.Study`; the parameters are :class:`~pluralign.seal.settings.SealSettings` fields) and
shows one :class:`~pluralign.report.Result` per section, each a function of the study in the page's module of
:mod:`.pages` (``rewards_page``, ``imprint_page``, ``resistance_page``,
``robustness_page``). The concepts, one module each:

- :mod:`.study` — :func:`setup` and the :class:`Study` (D, the RMs, their rewards, the features, and what several
  sections share: θ, the regimes, γ, the imprints, the rewriting, the robustness scores);
- :mod:`.settings` — :class:`~pluralign.seal.settings.SealSettings`, every page parameter documented once;
- :mod:`.design` — the study design: D as chosen / rejected entries, the pre-D and post-D reward models and
  their rewards, the entries' features; :mod:`.planted` — the demo's planted truth and its recovery;
- :mod:`.imprint` — feature imprint β_τ, Eq. 1 (pyfixest, pair fixed effects, VIF filter, Bonferroni);
- :mod:`.shifts` — reward shift θ_i, Definition 1 (signed), and its regression on features, Eq. 2;
- :mod:`.resistance` — δ_i, a₊/a₋, the four regimes (Table 1), γ_i (App. D.4), the misalignment
  regression (Eq. 3), reward quadrants (App. D.2);
- :mod:`.features` — the App. C.3 taxonomy, LM-labeller featurization, label stability (App. D.5);
  :mod:`.rule_features` — the rule-based offline featurizer (the demo's stand-in for the LM-labeller);
- :mod:`.robustness` — robustness scores π (Eq. 4); :mod:`.lm_rewrites` — App. C.5 rewriting by an LM;
  :mod:`.flips` — label flips (Fig. 12), cosine by flip (Table 3); :mod:`.simulated_rewrites` — the demo's
  rewriting stand-in;
- :mod:`.facts` — the paper's non-number facts and :func:`reported` (its numbers: :mod:`pluralign.paper.seal`);
- :mod:`.compare` — this run's estimates on the paper's rows (Tables 4-8): each SEAL feature with the estimate
  of the feature that plays it (:data:`~pluralign.seal.design.PAPER_FEATURES`, sign-aligned), and logit terms
  without a finite estimate (separation) reported as such;
- :mod:`.scoring` — :func:`scoring_inputs`, what the RMs score: SEAL's code's (history, reply) split;
- :mod:`.plots` — the figures.
"""

from pluralign.seal.design import alignment_rewards
from pluralign.seal.facts import reported
from pluralign.seal.features import featurize
from pluralign.seal.imprint import feature_imprint, imprint_table
from pluralign.seal.lm_rewrites import rewrite
from pluralign.seal.pairs import chosen_rejected
from pluralign.seal.resistance import REGIMES, alignment_regimes, labeller_preference
from pluralign.seal.robustness import robustness_scores
from pluralign.seal.rule_features import rule_featurize
from pluralign.seal.scoring import scoring_inputs
from pluralign.seal.settings import SealSettings
from pluralign.seal.shifts import reward_shift
from pluralign.seal.study import Study, setup
from pluralign.seal.taxonomy import IMPRINT_FEATURES

__all__ = [
    "setup",
    "Study",
    "SealSettings",
    "reported",
    "scoring_inputs",
    "chosen_rejected",
    "alignment_rewards",
    "feature_imprint",
    "imprint_table",
    "IMPRINT_FEATURES",
    "featurize",
    "rule_featurize",
    "reward_shift",
    "REGIMES",
    "alignment_regimes",
    "labeller_preference",
    "rewrite",
    "robustness_scores",
]

"""SEAL (Revel et al. 2024): feature imprint, alignment resistance, alignment robustness.

- :mod:`.imprint` — feature imprint β_τ, Eq. 1 (pyfixest, pair fixed effects, VIF filter, Bonferroni).
- :mod:`.shifts` — reward shift θ_i, Definition 1 (signed), and its regression on features, Eq. 2.
- :mod:`.resistance` — δ_i, a₊/a₋, the four regimes (Table 1), γ_i (App. D.4), agreement per regime,
  the misalignment logistic regression (Eq. 3), reward quadrants (App. D.2).
- :mod:`.features` — the App. C.3 taxonomy, prompt and schema, LM-labeller featurization, rule-based
  offline featurizer, label stability (App. D.5).
- :mod:`.robustness` — App. C.5 rewriting, label flips (Fig. 12), cosine by flip (Table 3), robustness
  scores π (Eq. 4).
- :mod:`.paper` — the paper's reported numbers (``PAPER``).
"""
from pluralign.seal.features import (DISCRIMINATION_TYPES, FEATURES, IMPRINT_FEATURES, RULE_FEATURES,
                                     SCALAR_FEATURES, TARGET_FEATURES, TAXONOMY_KEYS, TAXONOMY_PROMPT, TOPICS,
                                     feature_matrix, featurize, label_stability, last_response, rule_featurize,
                                     taxonomy_prompt, taxonomy_schema)
from pluralign.seal.imprint import bonferroni, feature_imprint, imprint_table, vif_filter
from pluralign.seal.paper import PAPER, paper_table
from pluralign.seal.resistance import (REGIMES, aligned, alignment_regimes, alignment_resistance, alignment_score,
                                       alignment_summary, labeller_agreement, labeller_preference,
                                       misalignment_regression, regime_prevalence, reward_quadrants)
from pluralign.seal.robustness import (REWRITE_FEATURES, REWRITE_PROMPT, aligned_before_after, flip_shares,
                                       label_flips, rewrite, rewrite_pairs, rewrite_prompt, robustness_scores,
                                       score_entries, similarity_by_flip)
from pluralign.seal.shifts import reward_angle, reward_shift, reward_shift_regression

__all__ = ["DISCRIMINATION_TYPES", "FEATURES", "IMPRINT_FEATURES", "PAPER", "REGIMES", "REWRITE_FEATURES",
           "REWRITE_PROMPT", "RULE_FEATURES", "SCALAR_FEATURES", "TARGET_FEATURES", "TAXONOMY_KEYS",
           "TAXONOMY_PROMPT", "TOPICS",
           "aligned", "alignment_regimes", "alignment_resistance", "alignment_score", "alignment_summary",
           "bonferroni", "feature_imprint", "feature_matrix", "imprint_table", "featurize", "flip_shares", "label_flips",
           "label_stability", "labeller_agreement", "labeller_preference", "last_response",
           "misalignment_regression", "paper_table", "regime_prevalence", "reward_angle", "reward_quadrants",
           "reward_shift", "reward_shift_regression", "rewrite", "rewrite_pairs", "rewrite_prompt",
           "robustness_scores", "aligned_before_after", "score_entries",
           "rule_featurize", "similarity_by_flip", "taxonomy_prompt", "taxonomy_schema", "vif_filter"]

# the study design on every profile (pre-D / post-D rewards, chosen/rejected view, planted truth), and the
# demo's offline rewriting stand-in
from pluralign.seal.study import (DEMO_STUDY, FEATURE_SOURCES, TRAINED_PAIR_NOTE, setup, PLANTED_TO_RULES, alignment_models,  # noqa: E402
                                  alignment_rewards, chosen_rejected, combine, entry_features, entry_texts,
                                  feature_prevalence, featurizer_agreement, imprint_recovery, labeller_gamma,
                                  mixed_weights, planted_features, planted_taxonomy, split_dialogue,
                                  stability_check, study_stand_ins, weight_recovery)
from pluralign.seal.simulated_rewrites import SIMULATED_FLIP_FEATURES, simulated_rewrite, simulated_rewrite_pairs  # noqa: E402

__all__ += ["DEMO_STUDY", "TRAINED_PAIR_NOTE", "setup", "FEATURE_SOURCES", "PLANTED_TO_RULES", "alignment_models", "alignment_rewards", "chosen_rejected",
            "combine", "entry_features", "entry_texts", "feature_prevalence", "featurizer_agreement",
            "imprint_recovery", "labeller_gamma", "mixed_weights", "planted_features", "planted_taxonomy",
            "split_dialogue", "stability_check", "study_stand_ins", "weight_recovery",
            "SIMULATED_FLIP_FEATURES", "simulated_rewrite", "simulated_rewrite_pairs"]

"""Part III — Beyond the Binary (Padmakumar et al. 2024): reward models that predict the aggregate
preference of a population, not one binary judgment.

- :mod:`.subjectivity` — §3.1's categories (single / multiple correct answers; distinguishable or not) and
  the aggregate preference p* (Eq. 2), with Appendix B's prompts;
- :mod:`.margins` — synthetic judgments (§3.3, Appendix A) and their margins (Eq. 3);
- :mod:`.evaluation` — Tables 1–2: Pearson r and mean L1 between a model's P(A ≻ B) and p*, paired Δ;
- :mod:`.training` — one binary judgment per pair (Eq. 1), splits, the learning-rate sweep (footnote 6)
  for the Bradley–Terry and margin-regularized losses (Eqs. 1 and 4, in :mod:`pluralign.rewards.objectives`);
- :mod:`.study` — :func:`setup` → :class:`Study`, one method per section of a page; :mod:`.plots`.

``import pluralign.btb`` does not import torch (the reward models are loaded when first trained).
"""

from pluralign.btb.evaluation import compare, evaluate, paper_table1, side_agreement, table_groups
from pluralign.btb.margins import judgments_from, margins_from_annotators, synthetic_judgments, training_margins
from pluralign.btb.study import Study, setup
from pluralign.btb.subjectivity import (
    categories_from,
    category_summary,
    classify_distinguishability,
    classify_subjectivity,
    p_star_from,
    user_preference_estimation,
)
from pluralign.btb.training import binary_judgments, evaluation_splits, sweep

__all__ = [
    "setup",
    "Study",
    "classify_subjectivity",
    "classify_distinguishability",
    "user_preference_estimation",
    "p_star_from",
    "categories_from",
    "category_summary",
    "synthetic_judgments",
    "judgments_from",
    "margins_from_annotators",
    "training_margins",
    "binary_judgments",
    "evaluation_splits",
    "sweep",
    "evaluate",
    "compare",
    "table_groups",
    "paper_table1",
    "side_agreement",
]

"""Part III — Beyond the Binary (Padmakumar et al. 2024): reward models that predict the aggregate
preference of a population, not one binary judgment.

- :mod:`.appendix_b` — Appendix B's three annotation tasks, word for word, and an LLM labeller answering them;
- :mod:`.categories` — §3.1's categories (single / multiple correct answers; distinguishable or not);
- :mod:`.p_star` — the aggregate preference p* (Eq. 2);
- :mod:`.sources` — where p* and the categories come from (human first), and circular evaluation;
- :mod:`.margins` — synthetic judgments (§3.3, Appendix A) and their margins (Eq. 3);
- :mod:`.evaluation` — Tables 1–2: Pearson r and mean L1 between a model's P(A ≻ B) and p*, paired Δ;
- :mod:`.training` — one binary judgment per pair (Eq. 1), splits, the learning-rate sweep (footnote 6)
  for the Bradley–Terry and margin-regularized losses (Eqs. 1 and 4, in :mod:`pluralign.rewards.objectives`);
- :mod:`.comparison` — the two reward models trained and compared with p* (Tables 1–2);
- :mod:`.settings` — :class:`BtbSettings`, every page parameter; :mod:`.study` — :func:`setup` →
  :class:`Study`, the core the pages share; :mod:`.pages` — one module per page; :mod:`.plots`.

``import pluralign.btb`` does not import torch (the reward models are loaded when first trained).
"""

from pluralign.btb.appendix_b import classify_distinguishability, classify_subjectivity, user_preference_estimation
from pluralign.btb.categories import categories_from, category_summary
from pluralign.btb.evaluation import compare, evaluate, paper_table1, side_agreement, table_groups
from pluralign.btb.margins import judgments_from, margins_from_annotators, synthetic_judgments, training_margins
from pluralign.btb.p_star import p_star_from
from pluralign.btb.settings import BtbSettings
from pluralign.btb.study import Study, setup
from pluralign.btb.training import binary_judgments, evaluation_splits, sweep

__all__ = [
    "setup",
    "Study",
    "BtbSettings",
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

"""Part I — Diverging Preferences (Zhang et al. 2024): when annotators disagree, why, and whether reward
models know.

- :mod:`.agreement` — the agreement classes of §2 / §3 (:func:`agreement_classes`), their shares beside
  the paper's, recovery of the simulator's planted truth;
- :mod:`.causes` — the ten-cause taxonomy of Table 1, the spreadsheet round-trip for human cause annotation,
  the LLM cause classifier, Cohen's κ and Krippendorff's α-MASI (§2.1);
- :mod:`.reward_models` — Table 2: Bradley-Terry and MSE reward models on aggregated vs all annotations,
  their decisiveness per agreement subset with bootstrap CIs;
- :mod:`.knowing` — do models know? The mean-variance RM's predicted disagreement, its AUROC for diverging
  pairs, LLM judges' decisiveness;
- :mod:`.study` — :func:`setup` → :class:`Study`, whose methods return the pages' sections as
  :class:`pluralign.report.Result`; :mod:`.plots` — the figures.

``import pluralign.diverging`` does not import torch (the reward models load it when they are trained).
"""

from pluralign.diverging.agreement import CLASSES, agreement_classes, planted_recovery, shares
from pluralign.diverging.causes import CAUSES, label_agreement, taxonomy_table
from pluralign.diverging.knowing import disagreement_auroc, judge_decisiveness, predicted_disagreement
from pluralign.diverging.reward_models import SUBSETS, TABLE2_MODELS, table2
from pluralign.diverging.study import Study, setup

__all__ = [
    "CAUSES",
    "CLASSES",
    "SUBSETS",
    "TABLE2_MODELS",
    "Study",
    "agreement_classes",
    "disagreement_auroc",
    "judge_decisiveness",
    "label_agreement",
    "planted_recovery",
    "predicted_disagreement",
    "setup",
    "shares",
    "table2",
    "taxonomy_table",
]

"""Part I — Diverging Preferences (Zhang et al. 2024): when annotators disagree, why, and whether reward
models know.

- :mod:`.agreement` — the agreement classes of §2 / §3 (:func:`agreement_classes`), their shares beside
  the paper's, recovery of the simulator's planted truth;
- :mod:`.causes` — the ten-cause taxonomy of Table 1, cause labels and their agreement (Cohen's κ and
  Krippendorff's α-MASI, §2.1); :mod:`.cause_annotation` — the spreadsheet round-trip for human cause
  annotation; :mod:`.cause_classifier` — the LLM cause classifier;
- :mod:`.reward_models` — Table 2: Bradley-Terry and MSE reward models on aggregated vs all annotations,
  their decisiveness per agreement subset with bootstrap CIs; :mod:`.table2_paper` — Table 2 beside the paper's
  and the simulated population's, as the pages show it;
- :mod:`.knowing` — do models know? The mean-variance RM's predicted disagreement, its AUROC for diverging
  pairs, LLM judges' decisiveness;
- :mod:`.settings` — :class:`DivergingSettings`, every page parameter with its default and meaning;
- :mod:`.study` — :func:`setup` → :class:`Study` (the data, agreement classes, trained reward models);
  :mod:`.pages` — each page's sections as functions of the study returning :class:`pluralign.report.Result`;
  :mod:`.plots` — the figures.

``import pluralign.diverging`` does not import torch (the reward models load it when they are trained).
"""

from pluralign.diverging.agreement import CLASSES, agreement_classes, planted_recovery, shares
from pluralign.diverging.causes import CAUSES, label_agreement, taxonomy_table
from pluralign.diverging.knowing import disagreement_auroc, judge_decisiveness, predicted_disagreement
from pluralign.diverging.reward_models import SUBSETS, TABLE2_MODELS, table2
from pluralign.diverging.settings import DivergingSettings
from pluralign.diverging.study import Study, setup

__all__ = [
    "CAUSES",
    "DivergingSettings",
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

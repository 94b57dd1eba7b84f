"""Part IV — across the three papers: the same preference pair seen by Diverging Preferences (agreement classes),
SEAL (alignment regimes) and Beyond the Binary (margins), connected on one data model.

- :mod:`.margins_by_class` — question 1: are Eq. 3's margins small exactly on diverging pairs (AUROC, CI)?
- :mod:`.uncertainty` — question 2: the mean-variance RM's σ against the margin, per agreement class;
- :mod:`.regimes` — question 3: SEAL's regimes and a₊ / a₋ per agreement class;
- :mod:`.training` — question 4: which training (BT majority / all, margin BT, MSE, mean-variance) handles
  disagreement, on Table 2's measure and Pearson with p*, with paired bootstrap CIs;
- :mod:`.common` — classes, intervals and verdicts; :mod:`.plots` — the figures;
- :mod:`.study` — :func:`setup` → :class:`Study` (the data, models and computations the pages share), with its
  settings :class:`~.settings.CrossSettings` (:mod:`.settings`: every page parameter, its default and meaning);
- :mod:`.pages` — one module per book page (``margins_page``, ``uncertainty_page``, ``regimes_page``,
  ``training_page``), holding its sections as functions of the study;
  :mod:`.studies` — several data sets analysed apart.

``import pluralign.cross`` does not import torch (the reward models load it when they are trained).
"""

from pluralign.cross.margins_by_class import margin_auroc, margin_distribution, margin_separation
from pluralign.cross.regimes import population_alignment, regimes_by_class, resistance_difference
from pluralign.cross.settings import CrossSettings
from pluralign.cross.studies import Studies
from pluralign.cross.study import Study, setup
from pluralign.cross.training import MODELS, decisiveness_gaps, measure_by_class, pearson_by_class
from pluralign.cross.uncertainty import pair_sigma, planted_spread, sigma_margin_correlations

__all__ = [
    "setup",
    "Study",
    "Studies",
    "CrossSettings",
    "margin_auroc",
    "margin_distribution",
    "margin_separation",
    "pair_sigma",
    "planted_spread",
    "sigma_margin_correlations",
    "population_alignment",
    "regimes_by_class",
    "resistance_difference",
    "MODELS",
    "measure_by_class",
    "decisiveness_gaps",
    "pearson_by_class",
]

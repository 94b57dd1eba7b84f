"""Preference data: canonical tables, loaders and the ground-truth simulator.

* :func:`load` — ``load(name, source=None, **options) -> PreferenceData`` for every registered data set
  (:data:`DATASETS`: name → Hub id, license, citation, loader), including ``load("local", ...)`` for a
  user's own file;
* :func:`simulate` — seeded multi-annotator preference data with planted truth (the demo profile's data);
* :class:`PreferenceData`, :class:`DataError` — the canonical form and its bad-input error.
"""

# importing the loader modules registers their data sets (in this order: the order of DATASETS)
from pluralign.data import hub as _hub  # noqa: F401
from pluralign.data import hub_comparisons as _hub_comparisons  # noqa: F401
from pluralign.data import local as _local  # noqa: F401
from pluralign.data import shared_files as _shared  # noqa: F401
from pluralign.data.core import DataError, PreferenceData, combine, validate
from pluralign.data.registry import DATASETS, DatasetInfo, load, register
from pluralign.data.simulate import CAUSES, FEATURES, population_weights, simulate

__all__ = [
    "load",
    "simulate",
    "combine",
    "DataError",
    "PreferenceData",
    "DATASETS",
    "DatasetInfo",
    "register",
    "validate",
    "FEATURES",
    "CAUSES",
    "population_weights",
]

"""Preference data: canonical tables, loaders and the ground-truth simulator."""
from pluralign.data.core import DataError, PreferenceData, validate  # noqa: F401

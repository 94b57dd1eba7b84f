"""The names a reader sees for features (SEAL's LM-labeller features, App. C.3, and this project's simulator and
rule-featurizer features) in every table, figure and sentence of the SEAL pages: :func:`display_name` for one name,
:func:`display_text` for the identifiers inside a text, :func:`display_table` for a table of
:func:`~pluralign.seal.compare.on_paper_rows`. A leaf module: it imports nothing from the rest of the part."""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["display_name", "display_text", "display_table"]

#: the names a reader sees for SEAL's features (App. C.3) and this project's (simulator and rule featurizer)
_DISPLAY = {
    "human_vocabulary_quality": "human's vocabulary quality",
    "last_response_is_refusal": "refusal",
    "last_response_contains_insult": "contains an insult",
    "last_response_breaks_privacy": "breaks privacy",
    "assistant_is_anthropomorphic": "anthropomorphic assistant (whole dialogue)",
    "assistant_is_coherent": "coherent assistant (whole dialogue)",
    "factual_error": "factual error",
    "response_has_list": "has a list",
    "response_words": "length (words)",
    "response_words ~ verbosity": "length (words) against verbosity",
}


def display_name(feature) -> str:
    """The name a reader sees for a feature (SEAL's LM-labeller features, App. C.3, and this project's): SEAL's
    ``last_response_is_harmless`` is "harmless", ``last_response_sentiment`` "sentiment",
    ``human_vocabulary_quality`` "human's vocabulary quality"; the simulator's ``factual_error`` "factual
    error". A name that is not a feature identifier (already readable, or "—") is returned as it is."""
    if not isinstance(feature, str):
        return feature
    if feature in _DISPLAY:
        return _DISPLAY[feature]
    if "_" not in feature:
        return feature
    for prefix in ("last_response_is_", "last_response_"):
        if feature.startswith(prefix):
            return feature[len(prefix) :].replace("_", " ")
    return feature.replace("_", " ")


_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def display_text(text):
    """A text (a table cell such as "harmfulness × −1", "1 − factual_error", a list of features) with every
    feature identifier in it replaced by its :func:`display_name`."""
    if not isinstance(text, str):
        return text
    return _IDENTIFIER.sub(lambda m: display_name(m.group(0)), text)


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """A table of :func:`~pluralign.seal.compare.on_paper_rows` (or
    :func:`~pluralign.seal.compare.prevalence_on_paper_rows`) as a page shows it: its first index level (SEAL's
    features, then this run's own) and the column naming this run's feature in display names (:func:`display_name`),
    so that a table, its figure and the prose name a coefficient alike."""
    out = table.copy()
    if isinstance(out.index, pd.MultiIndex):
        out.index = out.index.set_levels(
            [out.index.levels[0].map(display_name), *out.index.levels[1:]], verify_integrity=False
        )
    else:
        out.index = out.index.map(display_name)
    for c in out.columns:
        if c in ("simulator feature", "labelled feature", "rewritten feature"):
            out[c] = [display_text(x) for x in out[c]]
    return out

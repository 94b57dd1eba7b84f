"""A model a page's settings name, as its typed options: the one way a model setting is resolved.

A setting that names a model holds its options (a mapping of load keywords in a parameter file), a Hub id, or the key
of an entry of the profile's ``models:`` (``params/<profile>/common.yml``, where the paper profile names each of the
three papers' models once). :func:`resolve_model` turns any of these into the options the model loads with —
:class:`~pluralign.model_options.ModelOptions` for a reward model, :class:`~pluralign.llm.options.LLMOptions` for an
LLM — so the code that loads it reads attributes, never a mapping's keys. Importing it imports no deep-learning
library."""

from __future__ import annotations

from collections.abc import Mapping

from pluralign.keywords import did_you_mean
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.params import ParamsError

__all__ = ["resolve_model"]


def resolve_model(value, models: Mapping | None, kind: type[ModelOptions] | type[LLMOptions], *, what: str):
    """The options of the model ``value`` names, as ``kind`` (``ModelOptions`` or ``LLMOptions``): a key of ``models``
    is replaced by its entry (a string that is neither a key nor a Hub id or ``provider:name`` is an error naming the
    setting ``what`` and the nearest key), an entry written as ``{load: {...}, ...}`` gives its ``load`` options, and
    the result is ``kind``'s (``kind.of``: options, load keywords, or a model's name). A list is resolved item by
    item; None stays None."""
    if value is None:
        return None
    if isinstance(value, list):
        return [resolve_model(v, models, kind, what=what) for v in value]
    if isinstance(value, str) and models and value in models:
        value = models[value]
    elif isinstance(value, str) and models and "/" not in value and ":" not in value:
        raise ParamsError(
            f"{what} {value!r} is not a key of models: ({', '.join(sorted(models))})"
            + did_you_mean(value, sorted(models))
        )
    if isinstance(value, Mapping) and "load" in value:
        value = value["load"]
    return kind.of(value)

"""pluralign: reward models and disagreeing human preferences.

The public API, imported lazily (``import pluralign`` imports neither torch nor transformers):

- data: :func:`load` (a registered data set, Hub id, local file or folder, DataFrame, or a simulator spec),
  :func:`simulate` (multi-annotator data with planted truth), :func:`aggregate` (majority, mean, …);
- the papers' methods, one package per part of the book: :mod:`pluralign.diverging` (Diverging Preferences;
  :func:`agreement_classes`), :mod:`pluralign.seal` (SEAL; :func:`feature_imprint`), :mod:`pluralign.btb`
  (Beyond the Binary), :mod:`pluralign.cross` (Part IV, across the three papers);
- the machinery: :mod:`pluralign.rewards` (reward models and their objectives), :mod:`pluralign.llm` (LLM
  backends, judging, the local server), :mod:`pluralign.paper` (the papers' reported numbers),
  :mod:`pluralign.report`, :mod:`pluralign.stats`, :mod:`pluralign.book`.
"""

from __future__ import annotations

import importlib
import logging as _logging
import warnings as _warnings

__version__ = "0.1.0"

# tqdm.auto (imported by huggingface_hub, transformers, datasets) warns "IProgress not found" in a Jupyter
# kernel without ipywidgets and falls back to text bars; the fallback is what we want, the warning is noise
# in every executed page. Import it once here with that one message silenced.
with _warnings.catch_warnings():
    _warnings.filterwarnings("ignore", message="IProgress not found")
    import tqdm.auto  # noqa: F401

# bitsandbytes (imported by transformers / peft when installed) logs a warning on CPUs with AVX-512 BF16 that an
# optional 4-bit CPU kernel package is missing; 4-bit loading is a GPU path here, so the warning is page noise.
_logging.getLogger("bitsandbytes.backends.cpu.ops").setLevel(_logging.ERROR)

#: public name -> "module:attribute" (or "module" for a subpackage)
_API = {
    "load": "pluralign.data:load",
    "simulate": "pluralign.data:simulate",
    "aggregate": "pluralign.data.aggregate:aggregate",
    "agreement_classes": "pluralign.diverging:agreement_classes",
    "feature_imprint": "pluralign.seal:feature_imprint",
    **{
        m: f"pluralign.{m}"
        for m in (
            "data",
            "diverging",
            "seal",
            "btb",
            "cross",
            "rewards",
            "llm",
            "paper",
            "report",
            "stats",
            "book",
            "params",
            "cache",
        )
    },
}

__all__ = sorted(_API)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'pluralign' has no attribute {name!r}")
    mod, _, attr = _API[name].partition(":")
    value = importlib.import_module(mod)
    value = getattr(value, attr) if attr else value
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))

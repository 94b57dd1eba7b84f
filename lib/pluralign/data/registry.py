"""The registry of data sets: one name → how it is loaded, its Hub id, license and citation.

``load(name, source=None, **options)`` looks the name up in :data:`DATASETS` and runs its loader; the
loader turns the raw source into the canonical tables (:mod:`pluralign.data.core`) and the registry adds
``meta``: ``name``, ``source``, ``hub_id``, ``license``, ``citation``, ``options`` and ``filters``.
Options are plain values (str, number, list, dict), so a papermill / YAML parameter file can carry
them: ``load(**yaml.safe_load(open("params/mydata.yml")))`` or ``load({"name": ..., "source": ...})``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pluralign.data.core import DataError, PreferenceData
from pluralign.keywords import check_options, refuse_unknown


@dataclass(frozen=True)
class DatasetInfo:
    """One registry entry (the book's data chapter renders these as data cards)."""

    name: str
    loader: Callable = field(repr=False)
    hub_id: str | None
    license: str
    citation: str
    description: str
    papers: tuple[str, ...] = ()
    local_path: str | None = None  # default path under the shared data folder, for local-only sets
    url: str | None = None

    def card(self) -> dict:
        return {
            "name": self.name,
            "hub_id": self.hub_id,
            "license": self.license,
            "citation": self.citation,
            "description": self.description,
            "papers": list(self.papers),
            "local_path": self.local_path,
            "url": self.url,
        }


DATASETS: dict[str, DatasetInfo] = {}


def register(
    name: str,
    *,
    hub_id: str | None = None,
    license: str,
    citation: str,
    description: str,
    papers: tuple[str, ...] = (),
    local_path: str | None = None,
    url: str | None = None,
    aliases: tuple[str, ...] = (),
):
    """Decorator: add a loader ``fn(source, **options) -> Loaded`` under ``name``, its Hub id and its aliases."""

    def deco(fn):
        info = DatasetInfo(
            name,
            fn,
            hub_id,
            license,
            citation,
            description,
            papers,
            local_path,
            url or (f"https://huggingface.co/datasets/{hub_id}" if hub_id else None),
        )
        DATASETS[name] = info
        for a in (hub_id, *aliases) if hub_id else aliases:
            ALIASES[a.lower()] = name
        return fn

    return deco


ALIASES: dict[str, str] = {}


@dataclass
class Loaded:
    """What a loader returns: canonical pairs and annotations plus loader-specific meta."""

    pairs: pd.DataFrame
    annotations: pd.DataFrame
    source: str
    filters: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)


def resolve(name: str) -> DatasetInfo:
    key = name if name in DATASETS else ALIASES.get(name.lower(), name.lower())
    if key not in DATASETS:
        raise DataError(
            f"unknown data set {name!r}; registered: {', '.join(sorted(DATASETS))} "
            "(or use load('local', source=PATH, columns=..., labels=...) for your own file)"
        )
    return DATASETS[key]


def load(name: str | dict | list, source: Any = None, **options) -> PreferenceData:
    """Load a registered data set into :class:`PreferenceData`: the one entry to every source.

    ``name``: a registry name (``hh-rlhf``, ``multipref``, ``helpsteer2``, ``prism``, ``ultrafeedback``,
    ``webgpt``, ``summarize-from-feedback``, ``synthetic-instruct-gptj-pairwise``, ``pandalm``,
    ``pandalm-judges``, ``llmbar``, ``mt-bench``, ``hhh``, ``local``), a Hub id (``Anthropic/hh-rlhf``), a
    dict of parameters (``{"name": ..., "source": ..., **options}``, e.g. from a YAML file; a ``source``
    starting ``shared:`` is relative to the shared data folder), a simulator spec
    (``{"simulate": {"n_pairs": 1200, "seed": 0}}``), or a list of these (loaded and combined).
    A path to one's own file or folder, or a DataFrame, as ``name`` is read by the ``local`` loader
    (``pluralign.load("mine.csv", columns={...}, labels={...})``).
    ``source``: a local file or folder in the same schema as the Hub's; ``None`` reads the Hub (or, for the
    local-only sets, ``$PLURALIGN_SHARED_DATA`` / ``../shared/data``). An option the loader does not take is
    refused, naming the nearest valid one.
    Common options: ``on_invalid="error"|"drop"`` (drop bad rows, recorded in ``meta['filters']``),
    ``limit`` (first N pairs, recorded as a filter). Loader-specific options are in each loader's docstring.
    """
    from pluralign.data.spec import as_spec

    name = as_spec(name)
    if isinstance(name, (list, tuple)):  # several specs: loaded and combined, in order
        from pluralign.data.core import combine

        parts = [load(x) for x in name]
        if not parts:
            raise DataError("load([]): no data set named")
        return combine(*parts) if len(parts) > 1 else parts[0]
    if isinstance(name, dict):
        params = dict(name)
        if "simulate" in params:  # {"simulate": {options}}: the project's simulator
            return _simulated(params["simulate"], options)
        if "name" not in params:
            raise DataError(
                f"data spec {name!r} needs 'name' (a registered data set, Hub id or 'local') or "
                "'simulate' (simulator options)"
            )
        name = params.pop("name")
        source = params.pop("source", source)
        options = {**params, **options}
    if isinstance(source, str) and source.startswith("shared:"):  # relative to the shared data folder
        from pluralign.data.io import shared_data_dir

        source = str(shared_data_dir() / source.removeprefix("shared:").lstrip("/"))
    if isinstance(name, pd.DataFrame) or _is_local_path(name):  # a table or a file / folder of one's own
        source, name = name, "local"
    info = resolve(name)
    check_loader_options(info, options)
    limit = options.pop("limit", None)
    out: Loaded = info.loader(source, **options)
    meta = {
        "name": options.get("dataset_name") or info.name,
        "source": out.source,
        "hub_id": info.hub_id,
        "license": options.get("license") or info.license,
        "citation": options.get("citation") or info.citation,
        "options": {k: v for k, v in options.items()},
        "filters": list(out.filters),
        **out.meta,
    }
    pairs, ann = out.pairs.reset_index(drop=True), out.annotations.reset_index(drop=True)
    if limit is not None and len(pairs) > int(limit):
        keep = pairs["pair_id"].iloc[: int(limit)]
        meta["filters"].append(
            {"filter": f"limit={int(limit)} (first pairs)", "removed": len(pairs) - int(limit), "kept": int(limit)}
        )
        pairs = pairs.iloc[: int(limit)].reset_index(drop=True)
        ann = ann[ann["pair_id"].isin(keep)].reset_index(drop=True)
    return PreferenceData(pairs, ann, meta)


def _simulated(spec: dict | None, options: dict) -> PreferenceData:
    """The data of a simulator spec (``{"simulate": spec}``, ``options`` added): :func:`pluralign.data.simulate`
    with those options, an option it does not take refused."""
    from pluralign.data.simulate import simulate

    sim = {**dict(spec or {}), **options}
    check_options(simulate, sim, what="simulate", error=DataError)
    return simulate(**sim)


#: options every loader accepts (the registry reads them itself)
COMMON_OPTIONS = ("limit", "dataset_name", "license", "citation")


def _is_local_path(name) -> bool:
    import os
    from pathlib import Path

    if not isinstance(name, (str, os.PathLike)):
        return False
    s = str(name)
    if s in DATASETS or s.lower() in ALIASES:
        return False
    return (
        Path(s).expanduser().exists()
        or s.startswith((".", "/", "~"))
        or Path(s).suffix.lower() in (".json", ".jsonl", ".csv", ".tsv", ".parquet", ".gz", ".bz2", ".xz", ".zst")
    )


def check_loader_options(info: DatasetInfo, options: dict) -> None:
    """Refuse an option the data set's loader does not take (its keyword-only options and the registry's own),
    naming it and the nearest valid one."""
    import inspect

    params = inspect.signature(info.loader).parameters
    valid = sorted({k for k, p in params.items() if p.kind is p.KEYWORD_ONLY} | set(COMMON_OPTIONS))
    refuse_unknown(options, valid, f"load({info.name!r})", DataError)


def canonical(
    df: pd.DataFrame, *, pair_id, dataset: str, split, prompt, response_a, response_b, metadata: dict | None = None
) -> pd.DataFrame:
    """Assemble the canonical ``pairs`` table (plus ``source_file`` / ``source_row`` for tracing)."""
    n = len(pair_id)

    def col(v):  # keep pandas' (Arrow) string storage: no round trip through Python objects
        if isinstance(v, pd.Series):
            return v.reset_index(drop=True)
        if isinstance(v, (np.ndarray, list)):
            return pd.Series(v)
        return v

    out = pd.DataFrame(
        {
            "pair_id": col(pair_id),
            "dataset": dataset,
            "split": col(split),
            "prompt": col(prompt),
            "response_a": col(response_a),
            "response_b": col(response_b),
        },
        index=pd.RangeIndex(n),
    )
    out["pair_id"] = out["pair_id"].astype(object)  # hash-table joins / isin (Arrow-string isin is slow)
    for k, v in (metadata or {}).items():
        out[k] = col(v)
    if "_file" in df:
        out["source_file"] = col(df["_file"])
    if "_row" in df:
        out["source_row"] = col(df["_row"])
    from pluralign.data.checks import not_text

    for name in ("prompt", "response_a", "response_b"):  # the last guard of every loader: text is text
        bad = not_text(out[name])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            v = out[name].iat[i]
            raise DataError(
                f"a {type(v).__name__} ({str(v)[:60]}) where text is expected",
                file=out["source_file"].iat[i] if "source_file" in out else None,
                row=int(out["source_row"].iat[i]) if "source_row" in out else i + 1,
                field=name,
            )
    return out


def annotations(pair_id, annotator_id, preference, **extra) -> pd.DataFrame:
    def col(v):
        return v.reset_index(drop=True) if isinstance(v, pd.Series) else v

    out = pd.DataFrame(
        {
            "pair_id": col(pair_id),
            "annotator_id": col(annotator_id),
            "preference": np.asarray(preference).astype(np.int8),
        }
    )
    out["pair_id"] = out["pair_id"].astype(object)
    for k, v in extra.items():
        out[k] = col(v)
    return out

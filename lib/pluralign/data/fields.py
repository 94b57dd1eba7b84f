"""Reading a raw source's fields into the canonical tables: the helpers every loader shares.

Stable pair ids from a record's position (:func:`pair_ids`), the split of each record (:func:`split_column`),
the bad-input checks (:func:`check_unique`, :func:`check_text`), chosen/rejected pairs turned into A/B with one
judgment each (:func:`chosen_rejected`) and a source's label values mapped onto preferences (:func:`map_labels`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.data.checks import Filters, where
from pluralign.data.core import DataError
from pluralign.data.io import swap_mask
from pluralign.data.registry import annotations, canonical


def pair_ids(raw: pd.DataFrame, prefix: str) -> pd.Series:
    """Stable pair ids from the source position: ``prefix:<file or split>:<row>`` (row = 1-based line
    of a JSON Lines file, or record number)."""
    if "_part" in raw:
        part = raw["_part"].astype(str)
    elif "_split" in raw:
        part = raw["_split"].astype(str)
    else:
        name = str(raw["_file"].iat[0]) if len(raw) else ""
        part = name.rsplit("/", 1)[-1].split(".", 1)[0]
    return prefix + ":" + part + ":" + raw["_row"].astype(str)


def split_column(raw: pd.DataFrame, split: str | None) -> pd.Series | str:
    if "_split" in raw:
        return raw["_split"].astype(str)
    if split:
        return split

    def guess(path: str) -> str:  # from the file name, not its folders
        name = path.rsplit("/", 1)[-1].lower()
        return next(
            (v for k, v in (("test", "test"), ("valid", "validation"), ("train", "train")) if k in name), "train"
        )

    files = raw["_file"].astype(str)
    return files.map({f: guess(f) for f in files.unique()})


def check_unique(raw: pd.DataFrame, ids: pd.Series, field: str) -> None:
    dup = ids.duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        file, row = where(raw, i)
        first = int(np.flatnonzero((ids == ids.iat[i]).to_numpy())[0])
        raise DataError(
            f"duplicate pair id {ids.iat[i]!r} (first seen in row {where(raw, first)[1]})",
            file=file,
            row=row,
            field=field,
        )


def check_text(raw: pd.DataFrame, f: Filters, fields) -> pd.DataFrame:
    for fld in fields:
        raw = f.empty_text(raw, fld)
    return raw


def _series(v) -> pd.Series:
    return v.reset_index(drop=True) if isinstance(v, pd.Series) else pd.Series(v)


def chosen_rejected(
    raw: pd.DataFrame,
    *,
    dataset: str,
    pair_id: pd.Series,
    split,
    prompt: pd.Series,
    chosen: pd.Series,
    rejected: pd.Series,
    annotator,
    metadata: dict | None = None,
):
    """Chosen/rejected → A/B (deterministic, balanced by :func:`swap_mask` of the pair id) and one ±2
    judgment per pair (a chosen/rejected label carries no strength, so it counts as a significant one)."""
    swap = swap_mask(pair_id)
    chosen, rejected = _series(chosen), _series(rejected)
    keep = pd.Series(~swap)
    a = chosen.where(keep, rejected)
    b = rejected.where(keep, chosen)
    pairs = canonical(
        raw,
        pair_id=pair_id,
        dataset=dataset,
        split=split,
        prompt=prompt,
        response_a=a,
        response_b=b,
        metadata={**(metadata or {}), "chosen": np.where(swap, "B", "A")},
    )
    ann = annotations(pair_id, annotator, np.where(swap, 2, -2))
    return pairs, ann


def _label_key(v):
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).lower()
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def map_labels(raw: pd.DataFrame, values: pd.Series, mapping: dict, field: str, f: Filters):
    """Source label → preference; an unknown value is bad input (row and field named)."""
    keyed = values.map(_label_key)
    table = {_label_key(k): int(v) for k, v in mapping.items()}
    pref = keyed.map(table)
    bad = pref.isna().to_numpy()
    if bad.any() and f.on_invalid == "error":
        i = int(np.flatnonzero(bad)[0])
        file, row = where(raw, i)
        raise DataError(
            f"unknown label value {values.iat[i]!r} (known: {sorted(table)})", file=file, row=row, field=field
        )
    return pref, bad

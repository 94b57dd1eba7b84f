"""The checks every loader makes on a raw table: fields present (:func:`require`), where a row came from
(:func:`where`), text that is empty or not text, truth values where a label is expected, and the bad rows
refused or dropped and counted (:class:`Filters`, ``meta['filters']``), so that nothing is dropped silently and
an error names the file, the row and the field."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from pluralign.data.core import DataError


def where(df: pd.DataFrame, i: int) -> tuple[str, int]:
    """(file, row) of positional row ``i`` of a raw frame."""
    return str(df["_file"].iat[i]) if "_file" in df else "<in-memory>", int(
        df["_row"].iat[i]
    ) if "_row" in df else i + 1


def require(df: pd.DataFrame, fields: Iterable[str], source: str) -> None:
    """Every field present as a column, and no missing (null) value in it."""
    for f in fields:
        if f not in df.columns:
            file = str(df["_file"].iat[0]) if len(df) and "_file" in df else source
            row = int(df["_row"].iat[0]) if len(df) and "_row" in df else None
            raise DataError("missing field (expected in every record)", file=file, row=row, field=f)
        refuse_first(df, df[f].isna().to_numpy(), "missing field (null or absent in this record)", f)


def refuse_first(df: pd.DataFrame, bad, message: str, field: str) -> None:
    """Raise :class:`DataError` at the first row of ``df`` where the mask ``bad`` holds, naming its file, row and
    ``field``; ``{value!r}`` in ``message`` stands for that row's ``df[field]``. Nothing when no row is bad."""
    bad = np.asarray(bad, dtype=bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        file, row = where(df, i)
        value = df[field].iat[i] if "{value" in message else None
        raise DataError(message.format(value=value), file=file, row=row, field=field)


class Filters:
    """Collects row filters so that nothing is dropped silently (``meta['filters']``).

    ``on_invalid="error"`` (default): the first bad row raises :class:`DataError` naming file, row and
    field. ``"drop"``: bad rows are removed and each reason is recorded with its count and the first
    few rows it hit."""

    PLACEHOLDER = "[empty response]"

    def __init__(self, on_invalid: str = "error", empty: str | None = None):
        if on_invalid not in ("error", "drop"):
            raise ValueError(f"on_invalid must be 'error' or 'drop', not {on_invalid!r}")
        if empty not in (None, "error", "drop", "placeholder"):
            raise ValueError(f"empty must be 'error', 'drop' or 'placeholder', not {empty!r}")
        self.on_invalid = on_invalid
        self.empty = empty or on_invalid
        self.records: list[dict] = []

    def note(self, df: pd.DataFrame, mask, what: str, field: str) -> None:
        """Record a change that keeps the rows (e.g. a placeholder for an empty response)."""
        mask = np.asarray(mask, dtype=bool)
        if mask.any():
            self.records.append(
                {
                    "filter": what,
                    "field": field,
                    "removed": 0,
                    "kept": int(len(df)),
                    "changed": int(mask.sum()),
                    "rows": df["_row"][mask].head(20).tolist(),
                }
            )

    def count(self, df: pd.DataFrame, removed, what: str, field: str, rows=None) -> None:
        """Record rows (or judgments) of ``df`` a loader removes itself (the mask ``removed``): how many, how many
        are kept, and the first rows hit (those of the mask ``rows``, by default ``removed``); nothing when none."""
        if removed.any():
            self.records.append(
                {
                    "filter": what,
                    "field": field,
                    "removed": int(removed.sum()),
                    "kept": int((~removed).sum()),
                    "rows": df["_row"][removed if rows is None else rows].head(20).tolist(),
                }
            )

    def text_type(self, df: pd.DataFrame, column: str, field: str | None = None) -> pd.DataFrame:
        """A list / object / number / truth value where text (a prompt, a reply) should be: bad input (an
        error naming the row, or dropped and counted), never kept as if it were text."""
        typed = not_text(df[column])
        if not typed.any():
            return df
        v = df[column].iat[int(np.flatnonzero(typed)[0])]
        what = (
            "a list"
            if isinstance(v, (list, tuple, np.ndarray))
            else "an object"
            if isinstance(v, dict)
            else "a truth value"
            if isinstance(v, (bool, np.bool_))
            else "a number"
            if isinstance(v, (int, float, np.number))
            else f"a {type(v).__name__}"
        )
        return self.apply(df, typed, f"{what} ({str(v)[:60]}) where text is expected", field or column)

    def empty_text(
        self, df: pd.DataFrame, column: str, reason: str = "empty text", field: str | None = None
    ) -> pd.DataFrame:
        """Empty text in ``field``: an error, dropped (counted), or — ``empty="placeholder"`` — replaced by
        ``"[empty response]"`` (counted), for data sets where an empty model output was judged as such."""
        field = field or column
        df = self.text_type(df, column, field)
        bad = empty_text(df[column])
        if not bad.any():
            return df
        if self.empty == "placeholder":
            self.note(df, bad, f"{reason}: replaced by {self.PLACEHOLDER!r}", field)
            df = df.copy()
            df.loc[bad, column] = self.PLACEHOLDER
            return df
        if self.empty == "error" and self.on_invalid == "drop":
            self.on_invalid = "error"
            try:
                return self.apply(df, bad, reason, field)
            finally:
                self.on_invalid = "drop"
        if self.on_invalid == "error" and self.empty != "drop":
            reason += (
                f" (keep such rows with empty='placeholder', which writes {self.PLACEHOLDER!r}, "
                "or drop them with empty='drop')"
            )
        return self.apply(df, bad, reason, field, always_drop=self.empty == "drop")

    def apply(
        self, df: pd.DataFrame, bad: np.ndarray | pd.Series, reason: str, field: str, *, always_drop: bool = False
    ) -> pd.DataFrame:
        bad = np.asarray(bad, dtype=bool)
        if not bad.any():
            return df
        idx = np.flatnonzero(bad)
        if self.on_invalid == "error" and not always_drop:
            file, row = where(df, int(idx[0]))
            raise DataError(
                f"{reason} ({len(idx)} such rows in all; pass on_invalid='drop' to drop them "
                "with a count in meta['filters'])",
                file=file,
                row=row,
                field=field,
            )
        rows = [int(df["_row"].iat[i]) for i in idx[:20]] if "_row" in df else idx[:20].tolist()
        kept = df.loc[~bad].reset_index(drop=True)
        self.records.append(
            {"filter": reason, "field": field, "removed": int(len(idx)), "kept": int(len(kept)), "rows": rows}
        )
        return kept


def empty_text(s: pd.Series) -> np.ndarray:
    """Missing, empty or whitespace-only (vectorised with Arrow compute, no per-row Python)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        arr = pa.array(s, from_pandas=True)
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
            raise TypeError
    except (TypeError, pa.ArrowException):
        return (s.isna() | (s.astype(str).str.strip() == "")).to_numpy(dtype=bool)
    blank = pc.or_kleene(pc.equal(pc.utf8_length(arr), 0), pc.utf8_is_space(arr))
    return pc.fill_null(blank, True).to_numpy(zero_copy_only=False).astype(bool)


def truth_values(s: pd.Series) -> np.ndarray:
    """Where a value is a JSON ``true`` / ``false``: never a number (``True`` is not the preference +1)."""
    if pd.api.types.is_bool_dtype(s.dtype):
        return np.ones(len(s), dtype=bool)
    if s.dtype == object:
        return s.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool)
    return np.zeros(len(s), dtype=bool)


def not_text(s: pd.Series) -> np.ndarray:
    """Where a value that should be text is something else (a list, an object, a number, a truth value);
    missing values are not flagged here (the empty-text check names them)."""
    if pd.api.types.is_string_dtype(s.dtype) and s.dtype != object:
        return np.zeros(len(s), dtype=bool)
    if s.dtype != object:  # a whole column of numbers / booleans
        return s.notna().to_numpy(dtype=bool)
    return s.map(lambda v: not (v is None or isinstance(v, str) or (isinstance(v, float) and v != v))).to_numpy(
        dtype=bool
    )

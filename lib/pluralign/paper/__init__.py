"""The papers' reported numbers, once, as one tidy table.

Every number a page sets beside this run's comes from :func:`numbers`: one row per reported
value with the columns

``paper``   ``diverging`` (Zhang et al. 2024), ``seal`` (Revel et al. 2024) or ``btb`` (Padmakumar et al. 2024)
``table``   where the paper reports it: ``"Table 2"``, ``"Fig. 3"``, ``"§3.1"``
``row``     the row label as printed (a data set, a feature, a category)
``column``  the column label as printed (a metric, a model)
``value``   the number (shares as fractions, not percentages)
``se``      its standard error where the paper gives one, else NaN
``note``    anything a reader needs to read it right (e.g. the version of the paper it comes from)

Each paper's rows live in a module of this package named after the paper's part of the book
(:mod:`pluralign.paper.diverging`, :mod:`pluralign.paper.seal`, :mod:`pluralign.paper.btb`), as a list
``NUMBERS`` of dicts with those keys.
"""

from __future__ import annotations

import importlib
from functools import cache

import pandas as pd

__all__ = ["numbers", "value", "PAPERS", "COLUMNS"]

COLUMNS = ["paper", "table", "row", "column", "value", "se", "note"]

#: part name -> (short citation, arXiv id)
PAPERS = {
    "diverging": ("Zhang et al. (2024), Diverging Preferences", "2410.14632"),
    "seal": ("Revel et al. (2024), SEAL", "2408.10270"),
    "btb": ("Padmakumar et al. (2024), Beyond the Binary", "2412.03822"),
}


@cache
def _all() -> pd.DataFrame:
    frames = []
    for p in PAPERS:
        rows = importlib.import_module(f"pluralign.paper.{p}").NUMBERS
        df = pd.DataFrame(rows)
        for c in COLUMNS:
            if c not in df:
                df[c] = float("nan") if c in ("value", "se") else ("" if c == "note" else None)
        df["paper"] = p
        bad = df[df[["table", "row", "column"]].isna().any(axis=1)]
        if len(bad):
            raise ValueError(f"pluralign.paper.{p}: rows {list(bad.index)} lack table / row / column")
        frames.append(df[COLUMNS])
    out = pd.concat(frames, ignore_index=True)
    out["value"] = out["value"].astype(float)
    out["se"] = out["se"].astype(float)
    dup = out.duplicated(["paper", "table", "row", "column"], keep=False)
    if dup.any():
        raise ValueError(
            f"the papers' numbers repeat a (paper, table, row, column): "
            f"{out.loc[dup, ['paper', 'table', 'row', 'column']].drop_duplicates().values.tolist()}"
        )
    return out


def numbers(paper: str | None = None, table: str | None = None) -> pd.DataFrame:
    """The reported numbers of one paper (``diverging`` / ``seal`` / ``btb``), optionally of one table, as the
    tidy table described in the module docstring (a copy: change it freely)."""
    out = _all()
    if paper is not None:
        if paper not in PAPERS:
            raise KeyError(f"unknown paper {paper!r}; one of {', '.join(PAPERS)}")
        out = out[out["paper"] == paper]
    if table is not None:
        if table not in set(out["table"]):
            raise KeyError(f"{paper or 'the papers'} report no {table!r}; tables: {sorted(set(out['table']))}")
        out = out[out["table"] == table]
    return out.reset_index(drop=True).copy()


def value(paper: str, table: str, row: str, column: str) -> float:
    """One reported number (KeyError naming what is missing)."""
    t = numbers(paper, table)
    hit = t[(t["row"] == row) & (t["column"] == column)]
    if hit.empty:
        raise KeyError(f"{paper} {table} reports no ({row!r}, {column!r})")
    return float(hit["value"].iloc[0])

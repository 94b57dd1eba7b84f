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
``printed`` the number as the paper prints it ("1.07610", "0.786"), which a page shows rather than re-rounding
            ``value``: a row's own ``printed``, else ``value`` at the row's ``decimals`` (the decimals its table
            prints), else the shortest text that reads back as ``value``; a share stays a fraction here
``decimals`` the decimals the paper prints (for ``value`` and ``se``), or NaN where the row does not say
``se_printed`` ``se`` as the paper prints it (by the same rule), "" without one

Each paper's rows live in a module of this package named after the paper's part of the book
(:mod:`pluralign.paper.diverging`, :mod:`pluralign.paper.seal`, :mod:`pluralign.paper.btb`), as a list
``NUMBERS`` of dicts with those keys. The settings the papers state for their experiments (their recipe, which the
``paper`` profile writes in its parameter files) are transcribed apart, in :mod:`pluralign.paper.recipe`.
"""

from __future__ import annotations

import importlib
from functools import cache

import pandas as pd

__all__ = ["numbers", "value", "printed", "PAPERS", "COLUMNS"]

COLUMNS = ["paper", "table", "row", "column", "value", "se", "note", "printed", "decimals", "se_printed"]

#: part name -> (short citation, arXiv id)
PAPERS = {
    "diverging": ("Zhang et al. (2024), Diverging Preferences", "2410.14632"),
    "seal": ("Revel et al. (2024), SEAL", "2408.10270"),
    "btb": ("Padmakumar et al. (2024), Beyond the Binary", "2412.03822"),
}


def _printed(value, decimals, given) -> str:
    """A number as the paper prints it (see the module docstring's ``printed``)."""
    if isinstance(given, str) and given:
        return given
    v = float(value)
    if decimals is not None and decimals == decimals:
        return f"{v:.{int(decimals)}f}"
    return str(int(v)) if v.is_integer() else repr(v)


@cache
def _all() -> pd.DataFrame:
    frames = []
    for p in PAPERS:
        rows = importlib.import_module(f"pluralign.paper.{p}").NUMBERS
        df = pd.DataFrame(rows)
        for c in COLUMNS:
            if c not in df:
                df[c] = float("nan") if c in ("value", "se", "decimals") else ("" if c == "note" else None)
        df["printed"] = [_printed(v, d, t) for v, d, t in zip(df["value"], df["decimals"], df["printed"])]
        df["se_printed"] = [
            _printed(s, d, None) if s == s else "" for s, d in zip(df["se"].astype(float), df["decimals"])
        ]
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


def _reported(paper: str, table: str, row: str, column: str) -> pd.Series:
    """The row of :func:`numbers` for one reported number (KeyError naming what is missing)."""
    t = numbers(paper, table)
    hit = t[(t["row"] == row) & (t["column"] == column)]
    if hit.empty:
        raise KeyError(f"{paper} {table} reports no ({row!r}, {column!r})")
    return hit.iloc[0]


def value(paper: str, table: str, row: str, column: str) -> float:
    """One reported number (KeyError naming what is missing)."""
    return float(_reported(paper, table, row, column)["value"])


def printed(paper: str, table: str, row: str, column: str) -> str:
    """One reported number as the paper prints it (``"1.07610"``; KeyError naming what is missing)."""
    return str(_reported(paper, table, row, column)["printed"])

"""How every page shows a number, written once:

- :func:`fmt_number` — one number: counts as integers, shares as percentages with one decimal, an estimate with
  3 significant digits, the minus sign (U+2212) for a negative number, "—" for a missing one;
- :func:`column_decimals`, :func:`fmt_fixed`, :func:`intervals` — a column of estimates with their 95% CIs at
  one precision chosen for the column from the CIs' widths (``"0.700 [0.671, 0.730]"``, never "0.7" above
  "0.0781");
- :func:`signed` — the minus sign in place of the hyphen-minus in a text of numbers;
- :func:`present`, :func:`present_html`, :func:`present_markdown` — a tidy table as a page shows it: readable
  labels (:data:`LABELS`), one precision per column of estimates, every row.

:mod:`pluralign.report` presents its tables with them; the forest plot beside a table of intervals is
:func:`pluralign.forest.forest_plot`."""

from __future__ import annotations

import hashlib
import math
import numbers
import re

import numpy as np
import pandas as pd

__all__ = [
    "LABELS",
    "MISSING",
    "MINUS",
    "label",
    "signed",
    "fmt_number",
    "fmt_fixed",
    "column_decimals",
    "intervals",
    "fmt_interval",
    "present",
    "present_markdown",
    "present_html",
]

#: Readable labels for column / index names that the library's tidy tables use (a name not listed is shown
#: with its underscores as spaces).
LABELS = {
    "n": "N",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "se": "SE",
    "cohen_kappa": "Cohen's κ",
    "kappa": "κ",
    "fleiss_kappa": "Fleiss' κ",
    "auroc": "AUROC",
    "pearson": "Pearson r",
    "spearman": "Spearman ρ",
    "p_value": "p-value",
    "pvalue": "p-value",
    "n_unparsed": "unparsed (N)",
    "n_pairs": "pairs (N)",
    "n_paper": "N (paper)",
    "l1": "L1",
    "lr": "learning rate",
    "vif": "VIF",
    "r2": "R²",
    "mib": "MiB",
}
MISSING = "—"
#: The minus sign every displayed negative number carries (never the hyphen-minus).
MINUS = "\u2212"
#: The most decimals :func:`column_decimals` chooses.
MAX_DECIMALS = 6
_COUNT = re.compile(
    r"^(n|n_.+|.+_n|count|counts|.*\bcount\b.*|pairs|entries|judgments|removed|kept|rows|"
    r"annotators|items|tokens|steps|epochs|features|.*\(n\)|n \(.*)$",
    re.I,
)
_SHARE = re.compile(r"(^|_|\s|\()(share|fraction|proportion)(_|\s|\)|$)", re.I)
#: p-values span orders of magnitude: each is shown with its own significant digits, not the column's decimals
_PVALUE = re.compile(r"(^|[\s_(])[pq]([-_ ]?values?)?($|[\s_)])|p[-_ ]?value", re.I)
_HYPHEN_NUMBER = re.compile(r"(?<![\w.\u2212])-(?=\.?\d)")
_NUM = r"[\u2212+-]?[\d,]*\.?\d+(?:e[\u2212+-]?\d+)?(?: ?%)?"
#: a cell that is a number, a number with its interval ("0.700 [0.671, 0.730]") or a change ("0.974 → 0.974"):
#: kept on one line (class ``num`` in the book's stylesheet, book/_static/pluralign.css)
_NUMBER_CELL = re.compile(rf"^{_NUM}(?: → {_NUM})?(?: \[{_NUM}, {_NUM}\])?$")


def label(name) -> str:
    """A column or index name as a reader sees it (:data:`LABELS`, else underscores as spaces)."""
    if not isinstance(name, str):
        return name
    return LABELS.get(name.lower(), name.replace("_", " ") if re.fullmatch(r"[a-z0-9_]+", name) else name)


def signed(text: str) -> str:
    """``text`` with the hyphen-minus that starts a number written as the minus sign: ``"[-0.03, 0.1]"`` →
    ``"[−0.03, 0.1]"``. A hyphen inside a word or between digits ("pre-D", "2024-11", "1-2 split") stays."""
    return _HYPHEN_NUMBER.sub(MINUS, text) if isinstance(text, str) else text


def _missing(x) -> bool:
    if x is None or x is pd.NA or x is pd.NaT:
        return True
    try:
        return bool(isinstance(x, numbers.Number) and not isinstance(x, bool) and math.isnan(x))
    except (TypeError, ValueError):
        return False


def fmt_number(x, kind: str = "estimate") -> str:
    """One number as the pages show it: ``kind="count"`` an integer with thousands separators; ``"share"``
    a percentage with one decimal; ``"estimate"`` 3 significant digits (no exponent between 0.001 and
    10^6); a negative number with the minus sign (U+2212); a missing value (None, NaN) is "—"."""
    if _missing(x):
        return MISSING
    if isinstance(x, bool) or not isinstance(x, numbers.Number):
        return str(x)
    x = float(x) if not isinstance(x, numbers.Integral) else int(x)
    if kind == "count" or isinstance(x, int):
        return signed(f"{int(round(x)):,}")
    if kind == "share":
        return signed(f"{100 * x:.1f} %")
    if x == 0 or math.isinf(x):
        return signed(str(x if x else 0))
    mag = math.floor(math.log10(abs(x)))
    if mag >= 6 or mag < -3:
        return signed(f"{x:.2e}").replace("e-", "e" + MINUS)
    if mag >= 2:
        return signed(f"{x:,.0f}")
    return signed(f"{x:.{2 - mag}f}")


def fmt_fixed(x, decimals: int) -> str:
    """``x`` with exactly ``decimals`` decimals (thousands separators, the minus sign; a value that rounds to
    zero is "0.000", never "−0.000"); "—" when missing."""
    if _missing(x):
        return MISSING
    if isinstance(x, bool) or not isinstance(x, numbers.Number):
        return str(x)
    x = float(x)
    if math.isinf(x):
        return signed(str(x))
    if round(x, decimals) == 0:
        x = 0.0
    return signed(f"{x:,.{decimals}f}")


def _finite(values) -> np.ndarray:
    a = pd.to_numeric(pd.Series(list(values), dtype=object), errors="coerce").to_numpy(dtype=float)
    return a[np.isfinite(a)]


def column_decimals(estimates, low=None, high=None, *, digits: int = 2) -> int:
    """The one number of decimals for a column of estimates: with CIs (``low``, ``high``), enough to show the median CI
    width with ``digits`` significant digits (a width of 0.059 → 3 decimals: "0.700 [0.671, 0.730]"); without, 3
    significant digits of the median non-zero |estimate| (at most 4 for the largest); at least 3 for a column whose
    estimates and bounds all lie in [−1, 1] (correlations, probabilities, shares: the papers print these with 3).
    Between 0 and :data:`MAX_DECIMALS`; 3 when the column has no finite value."""
    bounded = all(abs(x) <= 1 for x in _finite([*estimates, *(low if low is not None else []),
                                                 *(high if high is not None else [])]))  # fmt: skip
    floor = 3 if bounded else 0
    if low is not None and high is not None:
        lo = pd.to_numeric(pd.Series(list(low), dtype=object), errors="coerce").to_numpy(dtype=float)
        hi = pd.to_numeric(pd.Series(list(high), dtype=object), errors="coerce").to_numpy(dtype=float)
        w = hi - lo
        w = w[np.isfinite(w) & (w > 0)]
        if len(w):
            return int(min(MAX_DECIMALS, max(floor, digits - 1 - math.floor(math.log10(float(np.median(w)))))))
    v = np.abs(_finite(estimates))
    v = v[v > 0]
    if not len(v):
        return 3
    # 3 significant digits of the median, but the largest value with at most 4 (a column of sizes from 0.001 to
    # 0.24 MiB shows "0.2404", not "0.24036")
    median = 2 - math.floor(math.log10(float(np.median(v))))
    largest = 3 - math.floor(math.log10(float(v.max())))
    return int(min(MAX_DECIMALS, max(0, min(median, largest))))


def intervals(estimates, low, high, decimals: int | None = None, *, missing: str = MISSING) -> list[str]:
    """A column of "estimate [low, high]" texts at one precision (``decimals``, else :func:`column_decimals` of
    the column): ``["0.700 [0.671, 0.730]", "−0.007 [−0.030, 0.015]"]``; ``missing`` where the estimate is
    undefined (NaN), the estimate alone where its CI is."""
    est, lo, hi = list(estimates), list(low), list(high)
    d = column_decimals(est, lo, hi) if decimals is None else decimals
    out = []
    for e, a, b in zip(est, lo, hi):
        if _missing(e) or not math.isfinite(float(e)):
            out.append(missing)
        elif _missing(a) or _missing(b):
            out.append(fmt_fixed(e, d))
        else:
            out.append(f"{fmt_fixed(e, d)} [{fmt_fixed(a, d)}, {fmt_fixed(b, d)}]")
    return out


def fmt_interval(estimate, low, high, decimals: int | None = None, *, missing: str = MISSING) -> str:
    """One "estimate [low, high]" text (:func:`intervals` of one row: its precision from its own CI's width)."""
    return intervals([estimate], [low], [high], decimals, missing=missing)[0]


def _column_kind(name, values: pd.Series) -> str:
    v = pd.to_numeric(values, errors="coerce").dropna()
    text = " ".join(map(str, name)) if isinstance(name, tuple) else str(name)
    if len(v) and _SHARE.search(text) and v.between(0, 1).all():
        return "share"
    if len(v) and _COUNT.match(text) and (v == v.round()).all():
        return "count"
    if _PVALUE.search(text):
        return "pvalue"
    return "estimate"


def _cell(x, kind: str, decimals: int | None = None) -> str:
    """One table cell as shown: a number by :func:`fmt_number` (an estimate at the column's ``decimals``), a
    "nan" / "none" text as "—", else its text with the minus sign."""
    if x is None or isinstance(x, numbers.Number):
        if kind == "estimate" and decimals is not None and not isinstance(x, (bool, numbers.Integral)):
            return fmt_fixed(x, decimals)
        return fmt_number(x, "estimate" if kind == "pvalue" else kind)
    if isinstance(x, str) and x.strip().lower() in ("nan", "none", "<na>"):
        return MISSING
    return signed(x) if isinstance(x, str) else str(x)


def _estimate_decimals(cells: list) -> int | None:
    """The one precision of a column's float cells (None when it has none)."""
    floats = [x for x in cells if isinstance(x, numbers.Real) and not isinstance(x, (bool, numbers.Integral))]
    return column_decimals(floats) if floats else None


def _shown(df: pd.DataFrame) -> pd.DataFrame:
    kinds = [_column_kind(c, df[c]) for c in df.columns]
    # a table whose rows are quantities (a label per row: "pairs", "tie judgments (share)") gets the row's kind
    # where its column has none
    rows = (
        ["estimate"] * len(df)
        if isinstance(df.index, pd.RangeIndex)
        else [
            _column_kind(" ".join(map(str, k)) if isinstance(k, tuple) else str(k), df.iloc[i])
            for i, k in enumerate(df.index)
        ]
    )
    cols = []
    for j in range(df.shape[1]):
        kind = [kinds[j] if kinds[j] != "estimate" else rows[i] for i in range(df.shape[0])]
        d = _estimate_decimals([df.iat[i, j] for i in range(df.shape[0]) if kind[i] == "estimate"])
        cols.append([_cell(df.iat[i, j], kind[i], d) for i in range(df.shape[0])])
    return pd.DataFrame(
        [[c[i] for c in cols] for i in range(df.shape[0])], index=df.index, columns=df.columns, dtype=object
    )


def _cell_class(text) -> str:
    """The stylesheet's class of a shown cell: ``num`` for a number or an interval (kept on one line), ``text``
    for a sentence (a verdict: given a readable width instead of a column a few words wide)."""
    if not isinstance(text, str):
        return ""
    return "num" if _NUMBER_CELL.match(text) else "text" if len(text) > 40 else ""


def _unique(labels: list) -> list:
    """Column labels made unique for display: a repeat gets " (2)", " (3)", … ."""
    seen, out = {}, []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(
            lab
            if seen[lab] == 1
            else (f"{lab} ({seen[lab]})" if not isinstance(lab, tuple) else (*lab[:-1], f"{lab[-1]} ({seen[lab]})"))
        )
    return out


def present(table: pd.DataFrame):
    """The table as a page shows it (the one set of conventions for every page): readable labels, counts as
    integers, shares as percentages with one decimal, each column of estimates at one precision
    (:func:`column_decimals`; p-values each with 3 significant digits), the minus sign, "—" for a missing
    value, every row (nothing truncated). Returns a pandas ``Styler``; the data are not changed."""
    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    df = df.rename(columns=label)
    df.index = (
        df.index.rename([label(n) for n in df.index.names])
        if df.index.nlevels > 1
        else df.index.rename(label(df.index.name))
    )
    if not df.columns.is_unique:
        df.columns = _unique(list(df.columns))
    if not df.index.is_unique:  # a repeated row label: pandas styles unique labels only, so the labels become
        names = [n if n is not None else "" for n in df.index.names]  # leading columns (row numbers hidden)
        df = df.rename_axis(names).reset_index()
    shown = _shown(df)
    uid = hashlib.sha1(pd.util.hash_pandas_object(df.astype(str), index=True).values.tobytes()).hexdigest()[:10]
    sty = shown.style
    classes = shown.map(_cell_class)
    printed = [
        j
        for j, c in enumerate(shown.columns)
        if "paper" in " ".join(map(str, c if isinstance(c, tuple) else [c])).lower()
    ]
    for j in printed:  # the paper's numbers as printed (their own decimals): marked for the reader and the site check
        classes.iloc[:, j] = [f"{k} printed".strip() for k in classes.iloc[:, j]]
    sty.set_td_classes(classes)
    sty.format_index(
        lambda x: (
            MISSING
            if x is None or (isinstance(x, float) and math.isnan(x))
            else fmt_number(x)
            if isinstance(x, numbers.Number) and not isinstance(x, bool)
            else x
        ),
        axis=0,
    )
    if isinstance(df.index, pd.RangeIndex):  # row numbers say nothing to a reader
        sty = sty.hide(axis="index")
    return sty.set_uuid(uid)


def present_markdown(table: pd.DataFrame) -> str:
    """A (small) table for a note, as Markdown, with the same conventions as :func:`present`: readable labels,
    counts as integers, shares as percentages, one precision per column of estimates, the minus sign, "—" for
    a missing value; a multi-level index becomes leading columns."""
    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    if isinstance(df.index, pd.MultiIndex):
        df = df.reset_index()
    df = df.rename(columns=label)
    df.index = df.index.rename(label(df.index.name))
    out = df.astype(object).copy()
    for c in df.columns:
        kind = _column_kind(c, df[c])
        d = _estimate_decimals(list(df[c])) if kind == "estimate" else None
        out[c] = [_cell(x, kind, d) for x in df[c]]
    return out.to_markdown(index=not isinstance(df.index, pd.RangeIndex))


#: a number cell's text (``<td class="… num …">0.700 [0.671, 0.730]</td>``): where it may break
_NUM_TD = re.compile(r'(<td[^>]*class="[^"]*\bnum\b[^"]*"[^>]*>)(.*?)(</td>)', re.S)
#: any cell's text, for the breaks an identifier may take after its underscores
_CELL = re.compile(r"(<t[hd][^>]*>)([^<]*)(</t[hd]>)")


def _breaks_where_they_read(html: str) -> str:
    """Line breaks in a table's cells only where they read well: a number cell keeps its numbers and its interval
    whole (every space non-breaking) but may wrap before its interval's ``[`` ("0.700" / "[0.671, 0.730]") or
    after an arrow ("0.694 →" / "0.766"); an identifier (``last_response_is_harmless``, a Hub id
    ``OpenAssistant/reward-model-deberta-v3-large-v2``) may wrap after an underscore or a slash."""

    def number(m):
        text = m.group(2).replace(" ", "&nbsp;").replace("&nbsp;[", " [").replace("→&nbsp;", "→ ")
        return m.group(1) + text + m.group(3)

    def identifier(m):
        return m.group(1) + re.sub(r"([_/])(?=\w)", r"\1<wbr>", m.group(2)) + m.group(3)

    return _CELL.sub(identifier, _NUM_TD.sub(number, html))


def present_html(table: pd.DataFrame) -> str:
    """:func:`present` as HTML inside a container that scrolls sideways when the table is wider than the
    text column (cells break only where they read well: :func:`_breaks_where_they_read`), with a
    line saying what "—" means when a cell is missing."""
    sty = present(table)
    html = _breaks_where_they_read(sty.to_html(cell_ids=False, table_attributes='class="dataframe pluralign-table"'))
    missing = bool(table.isna().to_numpy().any()) if isinstance(table, pd.DataFrame) else False
    foot = (
        (
            f'<p class="pluralign-missing"><small>{MISSING} : no value — the paper does not report it or this run '
            "has none for this cell (the note says which).</small></p>"
        )
        if missing
        else ""
    )
    return f'<div class="pluralign-table-scroll" style="overflow-x:auto; max-width:100%">{html}</div>{foot}'

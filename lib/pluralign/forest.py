"""The forest plot beside a table of estimates with 95% CIs (every column of intervals the book shows is drawn beside
its table, :mod:`pluralign.presentation`): one row per estimate, its CI as a horizontal line, the paper's value and
the demo's planted value as markers where a row has one, a dotted reference line at the null. Every page that shows a
column of intervals draws it with :func:`forest_plot` (also usable on the recovery page's table)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["forest_plot", "NO_ESTIMATE"]

#: What a row without a finite estimate says in place of its interval (it is listed, not plotted).
NO_ESTIMATE = "no estimate"
_ROW_HEIGHT = 0.26  # inches per row
_MARKERS = {"estimate": ("o", "#1f4e79"), "paper": ("D", "#d95f02"), "planted": ("x", "#1b9e77")}


def _panels(x, n: int) -> list:
    """``x`` repeated for ``n`` panels, or its items when it is a list / tuple of ``n``."""
    return list(x) if isinstance(x, (list, tuple)) else [x] * n


def _labels(df: pd.DataFrame, label) -> list[str]:
    if label is not None:
        return [str(v) for v in df[label]]
    return [" · ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in df.index]


def _column(df: pd.DataFrame, name) -> np.ndarray:
    if name is None or name not in df:
        return np.full(len(df), np.nan)
    return pd.to_numeric(df[name], errors="coerce").to_numpy(dtype=float)


def _panel(ax, df, est, low, high, paper, planted, null, xlabel, labels, why=None, narrow=False) -> dict:
    """One panel: the finite estimates with their CIs, the markers, the null line; "no estimate" rows named (or
    with the reason in the ``why`` column, e.g. "reference")."""
    e, lo, hi = _column(df, est), _column(df, low), _column(df, high)
    y = np.arange(len(df))
    ok = np.isfinite(e)
    ci = ok & np.isfinite(lo) & np.isfinite(hi)
    ax.hlines(y[ci], lo[ci], hi[ci], color=_MARKERS["estimate"][1], lw=1.6, gid="ci", label="95% CI")
    m, c = _MARKERS["estimate"]
    ax.scatter(e[ok], y[ok], marker=m, color=c, s=22, zorder=3, gid="estimate", label="this run")
    for kind, col in (("paper", paper), ("planted", planted)):
        v = _column(df, col)
        has = np.isfinite(v)
        if has.any():
            m, c = _MARKERS[kind]
            colors = {"facecolors": "none", "edgecolors": c} if kind == "paper" else {"color": c}
            ax.scatter(v[has], y[has], marker=m, s=30, zorder=4, gid=kind,
                       label="the paper" if kind == "paper" else "planted (demo)", **colors)  # fmt: skip
    reasons = df[why].tolist() if why is not None and why in df else [None] * len(df)
    for i in np.flatnonzero(~ok):
        text = reasons[i] if isinstance(reasons[i], str) and reasons[i] else NO_ESTIMATE
        ax.text(0.01, i, text, transform=ax.get_yaxis_transform(), ha="left", va="center", fontsize=7,
                color="0.45", style="italic", gid="no-estimate")  # fmt: skip
    if null is not None and math.isfinite(null):
        ax.axvline(null, color="0.5", ls=":", lw=1, zorder=1, gid="null")
    from matplotlib.ticker import MaxNLocator

    if not ok.any():
        ax.set_xlim((null - 1, null + 1) if null is not None else (0, 1))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4 if narrow else 6))
    ax.set_xlabel(xlabel or est)
    ax.grid(axis="x", color="0.92", lw=0.6)
    ax.set_axisbelow(True)
    return {"plotted": [labels[i] for i in np.flatnonzero(ok)], "no_estimate": [labels[i] for i in np.flatnonzero(~ok)]}


def forest_plot(
    df: pd.DataFrame,
    estimate: str | Sequence[str] = "estimate",
    low: str | Sequence[str] = "ci_low",
    high: str | Sequence[str] = "ci_high",
    *,
    paper: str | Sequence[str | None] | None = None,
    planted: str | Sequence[str | None] | None = None,
    label: str | None = None,
    null: float | Sequence[float | None] | None = 0.0,
    xlabel: str | Sequence[str | None] | None = None,
    why: str | Sequence[str | None] | None = None,
    title: str | None = None,
):
    """A forest plot of ``df``'s estimates, one row per row of ``df`` (top to bottom in its order), returned as
    a closed matplotlib Figure (it shows once, where the section's Result is displayed).

    ``estimate``, ``low``, ``high``: the columns of the estimate and its 95% CI (lists of columns: one panel per
    column, side by side, sharing the rows); ``paper`` / ``planted``: columns of the paper's value and the
    demo's planted value, drawn as an open diamond and a cross where the row has one; ``label``: the column
    naming a row (default: the index, levels joined by " · "); ``null``: where the dotted reference line goes
    (None: none, e.g. for a measure with no natural null); ``xlabel``: the axis label (default: the column).
    A row whose estimate is NaN is listed with "no estimate" (or the text of its ``why`` column, e.g.
    "reference model") and not drawn. The figure keeps, as
    ``fig.forest_rows``, ``{"plotted": [labels], "no_estimate": [labels]}`` of its first panel."""
    import matplotlib.pyplot as plt

    from pluralign import plotstyle

    plotstyle.use()
    ests = _panels(estimate, 1)
    n = len(ests)
    lows, highs = _panels(low, n), _panels(high, n)
    papers, planteds, nulls, xlabels, whys = (_panels(v, n) for v in (paper, planted, null, xlabel, why))
    if not all(len(v) == n for v in (lows, highs, papers, planteds, nulls, xlabels, whys)):
        raise ValueError("forest_plot: estimate, low, high, paper, planted, null and xlabel need one entry per panel")
    labels = _labels(df, label)
    nrows = 1 if n <= 3 else 2  # four panels and more: two rows of panels, each with the row labels
    ncols = math.ceil(n / nrows)
    height = _ROW_HEIGHT * max(len(df), 1) + 0.75
    fig, axes = plt.subplots(nrows, ncols, figsize=(7.0 if n > 1 else 6.0, nrows * height + 0.35), sharey=True,
                             squeeze=False)  # fmt: skip
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.remove()
    rows = None
    for k, ax in enumerate(flat[:n]):
        got = _panel(
            ax, df, ests[k], lows[k], highs[k], papers[k], planteds[k], nulls[k], xlabels[k], labels, whys[k], n > 2
        )
        rows = rows or got
    for ax in axes[:, 0]:
        ax.set_yticks(np.arange(len(df)), labels, fontsize=8)
        ax.set_ylim(len(df) - 0.5, -0.5)
    handles = {h.get_label(): h for ax in flat[:n] for h in ax.get_legend_handles_labels()[0]}
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=len(handles), frameon=False,
               fontsize=8, bbox_to_anchor=(0.5, 1.0))  # fmt: skip
    if title:
        fig.suptitle(title, y=1.06, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    fig.forest_rows = rows
    plt.close(fig)
    return fig

"""The figures of Part III (Beyond the Binary). Each function returns a closed matplotlib Figure: it shows
once, where the :class:`pluralign.report.Result` that carries it is displayed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from pluralign import plotstyle

plotstyle.use()

__all__ = [
    "p_star_by_category",
    "l1_by_category",
    "margin_distribution",
    "training_margins",
    "rm_vs_p_star",
    "delta_by_group",
]


def _done(fig):
    fig.tight_layout()
    plt.close(fig)
    return fig


def p_star_by_category(frame: pd.DataFrame):
    """Histogram of p* (Eq. 2) per category of the plurality of responses (§3.1); ``frame``: ``p*, category``."""
    fig, ax = plt.subplots(figsize=(7, 3.2))
    sns.histplot(frame, x="p*", hue="category", bins=21, stat="probability", common_norm=False, element="step", ax=ax)
    ax.set_xlabel("p* = share of the population preferring A (Eq. 2)")
    ax.set_title("Aggregate preference by plurality of responses")
    return _done(fig)


def l1_by_category(ev: pd.DataFrame):
    """Mean L1 distance to p* with its 95% bootstrap CI per category (rows of :func:`evaluate` with a
    ``source`` column, metric ``l1``, grouping other than ``all``), one series per source."""
    plot = ev[(ev.metric == "l1") & (ev.grouping != "all")]
    fig, ax = plt.subplots(figsize=(7, 0.45 * plot[["grouping", "category"]].drop_duplicates().shape[0] + 1.2))
    for i, (src, g) in enumerate(plot.groupby("source", sort=False)):
        y = np.arange(len(g)) + 0.18 * i
        plotstyle.ci_points(ax, g["value"], y, g["lo"], g["hi"], src)
        ax.set_yticks(np.arange(len(g)), [f"{c} (n={n})" for c, n in zip(g["category"], g["n"])])
    ax.set_xlabel("mean L1 distance to p* (95% bootstrap CI)")
    ax.legend(loc="best", fontsize=8)
    return _done(fig)


def margin_distribution(frame: pd.DataFrame, n: int, source: str):
    """Eq. 3 margins (histogram, by category when ``frame`` has one) and, when ``frame`` has the
    population agreement ``|2p*-1|``, the margins against it."""
    agree = "population agreement |2p*-1|"
    has_p = agree in frame
    hue = "category" if "category" in frame else None
    fig, axes = plt.subplots(1, 2 if has_p else 1, figsize=(10 if has_p else 5, 3.4), squeeze=False)
    ax = axes[0, 0]
    sns.histplot(
        frame,
        x="margin",
        hue=hue,
        bins=np.linspace(-0.05, 1.05, 12),
        stat="probability",
        common_norm=False,
        multiple="dodge",
        shrink=0.8,
        ax=ax,
    )
    ax.set_title(f"Eq. 3 margins, n = {n} judgments ({source})", fontsize=9)
    if has_p:
        ax = axes[0, 1]
        with plotstyle.fixed_jitter():
            sns.stripplot(
                frame, x="margin", y=agree, hue=hue, native_scale=True, jitter=0.015, alpha=0.4, size=3, ax=ax
            )
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.set_title("margin vs the population's agreement", fontsize=9)
    return _done(fig)


def training_margins(margins: pd.Series):
    """Histogram of the training pairs' margins (Eq. 3)."""
    fig, ax = plt.subplots(figsize=(5, 2.6))
    sns.histplot(margins, bins=np.linspace(-0.05, 1.05, 12), stat="probability", ax=ax)
    ax.set_xlabel(f"margin m (Eq. 3) of the {len(margins)} training pairs")
    return _done(fig)


def rm_vs_p_star(frame: pd.DataFrame, cmp: pd.DataFrame):
    """Each reward model's P(A ≻ B) against p* (``frame``: ``p*, baseline, regularized[, category]``), titled
    with its overall Pearson r and CI from :func:`compare` (``cmp``)."""
    hue = "category" if "category" in frame else None
    r = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, col in zip(axes, ("baseline", "regularized")):
        sns.scatterplot(frame, x="p*", y=col, hue=hue, alpha=0.5, s=14, ax=ax)
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.set_title(f"{col} RM: r = {r[col]:.3f} [{r[col + '_lo']:.3f}, {r[col + '_hi']:.3f}]", fontsize=9)
        ax.set_xlabel("p* (aggregate preference for A)")
        ax.set_ylabel("RM P(A ≻ B)")
    return _done(fig)


def delta_by_group(cmp: pd.DataFrame, metric: str, paper_delta: pd.Series | None = None):
    """Δ = regularized − baseline with its paired 95% CI per grouping and category (rows of :func:`compare`
    for ``metric``), with the paper's Δ (``paper_delta``, indexed by (grouping, category)) where it exists."""
    label = {"pearson": "Δ Pearson r (regularized − baseline)", "l1": "Δ mean L1 (regularized − baseline)"}[metric]
    t = cmp[(cmp.metric == metric) & np.isfinite(cmp.delta)].reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(t) + 1.2))
    y = np.arange(len(t))[::-1]
    plotstyle.ci_points(ax, t["delta"], y, t["delta_lo"], t["delta_hi"], "ours (paired 95% CI)")
    if paper_delta is not None:
        yp = [
            (yy, paper_delta[(g, c)])
            for yy, g, c in zip(y, t["grouping"], t["category"])
            if (g, c) in paper_delta.index
        ]
        if yp:
            ax.scatter([v for _, v in yp], [yy for yy, _ in yp], marker="x", color="C3", zorder=3, label="paper")
    ax.axvline(0, color="grey", lw=0.8)
    from pluralign.btb.readings import GROUPINGS

    names = [GROUPINGS.get(g, g) for g in t["grouping"]]
    ax.set_yticks(y, [f"{g}: {c} (N = {n})" for g, c, n in zip(names, t["category"], t["n"])], fontsize=8)
    ax.set_xlabel(label)
    ax.legend(fontsize=8, loc="best")
    return _done(fig)

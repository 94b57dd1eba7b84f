"""The figures of Part IV. Each function returns a closed matplotlib Figure: it shows once, where the
:class:`pluralign.report.Result` that carries it is displayed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from pluralign import plotstyle
from pluralign.seal.resistance import REGIMES

plotstyle.use()

__all__ = ["margins_by_class", "sigma_vs_margin", "regimes_by_class", "training_measures", "WIDTH"]

_CLASS_COLORS = {
    "high-agreement-pref": "#4c72b0",
    "high-agreement-tie": "#8c8c8c",
    "diverging": "#dd8452",
    "other": "#b0b0b0",
    "all": "#333333",
}


def _done(fig):
    fig.tight_layout()
    plt.close(fig)
    return fig


#: The width of the book's text column (:mod:`pluralign.plotstyle`: 7 inches at 150 dpi): every figure of Part IV is
#: drawn at it, so it is shown at full size and its fonts (the style's, 9 pt and up) stay legible.
WIDTH = 7.0


def margins_by_class(long: pd.DataFrame, separation: pd.DataFrame):
    """Top: the margin (Eq. 3) per agreement class, one box per margin source (``long``: ``margin source,
    class, m``). Bottom: the AUROC of 1 − m for diverging vs high-agreement pairs with its 95% CI per source
    (``separation``: :func:`~pluralign.cross.margins_by_class.margin_separation`), the planted one as a cross.
    Drawn at the text column's width (:data:`WIDTH`), the panels stacked, at the style's font sizes."""
    s = separation
    fig, (ax, bx) = plt.subplots(
        2, 1, figsize=(WIDTH, 4.2 + 0.45 * len(s)), gridspec_kw={"height_ratios": [3.2, 0.9 + 0.45 * len(s)]}
    )
    order = [c for c in _CLASS_COLORS if c != "all" and c in set(long["class"])]
    sns.boxplot(long, x="class", y="m", hue="margin source", order=order, ax=ax, fliersize=1.5)
    ax.set_ylabel("margin m (Eq. 3)")
    ax.set_xlabel("agreement class (Diverging Preferences §3)")
    ax.set_xticks(range(len(order)), [c.replace("high-agreement-", "high-agreement\n") for c in order])
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    y = np.arange(len(s))
    ok = s["AUROC"].notna().to_numpy()
    plotstyle.ci_points(bx, s["AUROC"][ok], y[ok], s["lo"][ok], s["hi"][ok], "estimate (95% CI)")
    if "planted AUROC (|2p*−1|)" in s:
        bx.plot(s["planted AUROC (|2p*−1|)"], y, "x", color="k", ms=8, label="planted: population margin")
    bx.axvline(0.5, color="grey", lw=0.8, ls="--")
    bx.set_yticks(y, [str(i) for i in s.index])
    bx.set_xlim(0.3, 1.0)
    bx.set_ylim(-0.6, len(s) - 0.4)
    bx.invert_yaxis()
    bx.set_xlabel("AUROC of 1 − m: diverging vs high-agreement pairs")
    bx.legend(loc="center left", frameon=False)
    return _done(fig)


def sigma_vs_margin(frame: pd.DataFrame, sources: list[str]):
    """σ_pair of the mean-variance RM against each margin (``frame``: ``sigma_pair``, ``class`` and one column
    per margin source), coloured by agreement class; points jittered along the margin (it takes few values)."""
    fig, axes = plt.subplots(1, len(sources), figsize=(WIDTH, 3.6), squeeze=False, sharey=True)
    rng = np.random.default_rng(0)
    for ax, src in zip(axes[0], sources):
        for cls, g in frame.groupby("class", sort=False):
            x = g[src].to_numpy(float) + rng.uniform(-0.015, 0.015, len(g))
            ax.scatter(x, g["sigma_pair"], s=8, alpha=0.6, color=_CLASS_COLORS.get(cls, "k"), label=cls)
        ax.set_xlabel(f"margin: {src}")
    axes[0][0].set_ylabel("pair's σ = √(σ_A² + σ_B²)")
    axes[0][-1].legend(title="agreement class", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _done(fig)


def regimes_by_class(table: pd.DataFrame):
    """SEAL's four regime shares per agreement class (stacked bars, Table 1) and the post-D resistance a₋ with
    its 95% CI (the planted population a₋ as a cross where there is one); ``table``:
    :func:`~pluralign.cross.regimes.regimes_by_class`. Drawn at the text column's width (:data:`WIDTH`)."""
    fig, (ax, bx) = plt.subplots(
        1, 2, figsize=(WIDTH, 0.75 * len(table) + 2.4), sharey=True, gridspec_kw={"width_ratios": [1.3, 1]}
    )
    left = np.zeros(len(table))
    y = np.arange(len(table))
    for r, c in zip(REGIMES, ("#55a868", "#4c72b0", "#c44e52", "#dd8452")):
        ax.barh(y, table[r], left=left, color=c, label=r)
        left += table[r].to_numpy()
    ax.set_yticks(y, [f"{i}\n{n} pairs" for i, n in zip(table.index, table["pairs"])])
    ax.set_xlabel("share of pairs in each regime")
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False)
    plotstyle.ci_points(bx, table["a- post"], y, table["lo"], table["hi"], "post-D a₋ (95% CI)")
    if "planted a-" in table:
        bx.plot(table["planted a-"], y, "x", color="k", ms=8, label="planted: population a₋")
    bx.set_xlabel("resistance a₋ = 1 − a₊")
    bx.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False)
    return _done(fig)


def training_measures(measure: pd.DataFrame):
    """Table 2's measure (mean P(chosen ≻ rejected)) per model and agreement class with 95% CIs, the planted
    population value as a cross per class (probability-scale models only)."""
    m = measure[measure["measure"].str.startswith("P")]
    models = list(dict.fromkeys(m["model"]))
    classes = list(dict.fromkeys(m["class"]))
    fig, ax = plt.subplots(figsize=(WIDTH, 0.55 * len(models) + 1.8))
    for i, cls in enumerate(classes):
        g = m[m["class"] == cls].set_index("model").reindex(models)
        y = np.arange(len(models)) + 0.22 * (i - (len(classes) - 1) / 2)
        plotstyle.ci_points(ax, g["value"], y, g["lo"], g["hi"], cls, color=_CLASS_COLORS.get(cls))
        if g["planted"].notna().any():
            ax.axvline(g["planted"].iloc[0], color=_CLASS_COLORS.get(cls), ls=":", lw=1)
    ax.set_yticks(np.arange(len(models)), models)
    ax.invert_yaxis()
    ax.set_xlabel("mean P(chosen ≻ rejected) on held-out pairs (Table 2's measure)")
    ax.legend(title="agreement class", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _done(fig)

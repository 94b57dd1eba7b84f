"""Figures in the spirit of SEAL's (Fig. 2-5, 9, 12, 14): drawing only, no statistics (those come from the
other :mod:`pluralign.seal` modules)."""
from __future__ import annotations

import numpy as np

__all__ = ["coefficient_plot"]


def coefficient_plot(ax, tables: dict, *, estimate: str = "estimate", std_error: str = "std_error",
                     p: str = "p_bonferroni", alpha: float = 0.05, labels=None, xlabel: str = "coefficient"):
    """Coefficients with ±2 SE bars (SEAL Fig. 3): one row per index entry of the tables, one colour per
    table (e.g. ``{"pre-D": imprint_pre, "post-D": imprint_post}``); filled markers where the
    Bonferroni p-value is below ``alpha``, hollow otherwise (the paper's "solid dots indicate significant
    effects after Bonferroni correction"). Rows with a missing estimate (e.g. dropped for VIF) are shown
    empty."""
    names = list(dict.fromkeys(i for t in tables.values() for i in t.index))
    y = np.arange(len(names))
    k = len(tables)
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for j, (name, t) in enumerate(tables.items()):
        t = t.reindex(names)
        off = (j - (k - 1) / 2) * 0.25
        est, se = t[estimate].to_numpy(float), t[std_error].to_numpy(float)
        sig = (t[p].to_numpy(float) < alpha) if p in t.columns else np.zeros(len(t), bool)
        c = colors[j % len(colors)]
        ax.errorbar(est, y + off, xerr=2 * se, fmt="none", ecolor=c, elinewidth=1.2, capsize=2)
        ax.scatter(est[sig], (y + off)[sig], color=c, zorder=3, label=f"{name} (significant)")
        ax.scatter(est[~sig], (y + off)[~sig], facecolors="white", edgecolors=c, zorder=3, label=f"{name} (n.s.)")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([labels.get(n, n) if isinstance(labels, dict) else
                        (" / ".join(map(str, n)) if isinstance(n, tuple) else str(n)) for n in names])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.legend(fontsize=7, loc="best")
    return ax

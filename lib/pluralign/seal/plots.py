"""Figures in the spirit of SEAL's (Fig. 2-5, 9, 12, 14): drawing only, no statistics (those come from the
other :mod:`pluralign.seal` modules)."""

from __future__ import annotations

import numpy as np

from pluralign import plotstyle

plotstyle.use()

__all__ = [
    "coefficient_plot",
    "coefficient_figure",
    "paper_rows_figure",
    "reward_vectors",
    "reward_angles",
    "reward_heatmap",
    "bars",
    "shifts_by_regime",
    "flip_shares_figure",
    "reward_gap_figure",
]


def coefficient_plot(
    ax,
    tables: dict,
    *,
    estimate: str = "estimate",
    std_error: str = "std_error",
    p: str = "p_bonferroni",
    alpha: float = 0.05,
    labels=None,
    xlabel: str = "coefficient",
):
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
    ax.set_yticklabels(
        [
            labels.get(n, n)
            if isinstance(labels, dict)
            else (" / ".join(map(str, n)) if isinstance(n, tuple) else str(n))
            for n in names
        ]
    )
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.legend(fontsize=7, loc="best")
    return ax


def _done(fig):
    """Lay out, close (so the figure shows once, where its Result is displayed) and return ``fig``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    plt.close(fig)
    return fig


def coefficient_figure(tables: dict, *, xlabel: str, title: str, labels=None, n_rows: int | None = None):
    """A :func:`coefficient_plot` on a figure of its own, sized to its rows (SEAL Fig. 3, Fig. 5)."""
    import matplotlib.pyplot as plt

    n = n_rows if n_rows is not None else len(dict.fromkeys(i for t in tables.values() for i in t.index))
    fig, ax = plt.subplots(figsize=(7, 0.45 * n + 1.2))
    coefficient_plot(ax, tables, xlabel=xlabel, labels=labels)
    ax.set_title(title)
    return _done(fig)


def paper_rows_figure(long, *, xlabel: str, title: str, variant: str | None = None, groups=None):
    """The coefficients of a table of :func:`~pluralign.seal.compare.on_paper_rows` (its ``long`` rows) as SEAL's
    Fig. 3 / Fig. 5 draw them, on the table's own terms: one row per SEAL feature (display names,
    :func:`~pluralign.seal.compare.display_name`; this run's features without a SEAL counterpart after them),
    this run's sign-aligned estimate, ±2 SE bars (the paper's), one colour per group (pre-D / post-D, chosen /
    rejected); a filled marker where the table's verdict reads significance — its Bonferroni-corrected 95% CI
    excludes 0 (``significant``) —, hollow otherwise. ``variant``: the estimator shown when the table has several.
    Rows without an estimate are left out."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from pluralign.seal.display import display_name

    d = long if variant is None else long[long["variant"] == variant]
    d = d[pd.to_numeric(d["estimate"], errors="coerce").notna()]
    groups = list(groups) if groups is not None else list(dict.fromkeys(d["group"]))
    names = list(dict.fromkeys(d["paper_feature"]))
    tables = {}
    for g in groups:
        t = d[d["group"] == g].drop_duplicates("paper_feature").set_index("paper_feature")
        tables[str(g)] = pd.DataFrame(
            {
                "estimate": t["estimate"].astype(float),
                "std_error": t["std_error"].astype(float),
                "p_bonferroni": [0.0 if x else 1.0 for x in t["significant"]],
            }
        ).reindex(names)
    fig, ax = plt.subplots(figsize=(7, 0.45 * max(len(names), 1) + 1.2))
    coefficient_plot(ax, tables, xlabel=xlabel, labels={n: display_name(n) for n in names})
    ax.set_title(title)
    return _done(fig)


def entry_figure(table, *, xlabel: str, title: str, n_rows: int | None = None):
    """The :func:`coefficient_figure` of a chosen / rejected entry regression (SEAL Fig. 3 centre and right:
    Eq. 2 / Eq. 3): ``table``'s ``c`` and ``r`` rows side by side."""
    return coefficient_figure(
        {"chosen (c)": table.xs("c"), "rejected (r)": table.xs("r")}, xlabel=xlabel, title=title, n_rows=n_rows
    )


def reward_vectors(R):
    """Each pair's reward vector (chosen reward, rejected reward) under the pre-D and post-D RMs, aligned
    pairs (below the first bisector) and misaligned ones in two colours (SEAL Fig. 2, Fig. 10).
    ``R``: :func:`~pluralign.seal.design.alignment_rewards`."""
    import matplotlib.pyplot as plt

    from pluralign.seal.resistance import aligned

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), sharex=True, sharey=True)
    lim = np.nanmax(np.abs(R[["pre_chosen", "pre_rejected", "post_chosen", "post_rejected"]].to_numpy())) * 1.05
    for ax, k, title in ((axes[0], "pre", "pre-D RM"), (axes[1], "post", "post-D RM")):
        ok = aligned(R[f"{k}_chosen"], R[f"{k}_rejected"])
        ax.scatter(R.loc[ok, f"{k}_chosen"], R.loc[ok, f"{k}_rejected"], s=6, alpha=0.5, label="aligned")
        ax.scatter(
            R.loc[~ok, f"{k}_chosen"], R.loc[~ok, f"{k}_rejected"], s=6, alpha=0.5, color="#d62728", label="misaligned"
        )
        ax.plot([-lim, lim], [-lim, lim], "k--", lw=0.8)
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        ax.set(title=title, xlabel="reward of the chosen entry", ylabel="reward of the rejected entry")
        ax.legend(fontsize=8)
    return _done(fig)


def reward_angles(angles, theta):
    """Histograms of the reward-vector angles of both RMs and of the reward shifts θ (SEAL Fig. 2).
    ``angles``: a frame with one column per RM; ``theta``: the shifts, or a dict of them by estimator (e.g. as the
    paper computes them and on rewards centred per model), drawn as steps on one axis."""
    import matplotlib.pyplot as plt
    import pandas as pd
    import seaborn as sns

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    sns.histplot(
        angles.melt(var_name="RM", value_name="angle"), x="angle", hue="RM", bins=60, ax=axes[0], element="step"
    )
    axes[0].set(xlabel="angle of the reward vector (degrees)", title="reward-vector angles (Fig. 2 left)")
    if isinstance(theta, dict):
        long = pd.concat([pd.DataFrame({"θ": v, "reward shift": k}) for k, v in theta.items()], ignore_index=True)
        sns.histplot(long, x="θ", hue="reward shift", bins=np.linspace(-180, 180, 73), ax=axes[1], element="step")
    else:
        sns.histplot(theta, bins=60, ax=axes[1])
    axes[1].set(
        xlabel="reward shift θ (degrees, counter-clockwise positive)",
        ylabel="pairs",
        title="reward shifts (Fig. 2 right)",
    )
    return _done(fig)


def reward_heatmap(R):
    """Two-dimensional histograms of the (chosen, rejected) rewards of both RMs (SEAL Fig. 9)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, k in zip(axes, ("pre", "post")):
        h = ax.hist2d(R[f"{k}_chosen"], R[f"{k}_rejected"], bins=40, cmap="viridis", cmin=1)
        fig.colorbar(h[3], ax=ax, label="pairs")
        lo, hi = ax.get_xlim()
        ax.plot([lo, hi], [lo, hi], "w--", lw=0.8)
        ax.set(title=f"{k}-D rewards (Fig. 9)", xlabel="chosen reward", ylabel="rejected reward")
    return _done(fig)


def bars(
    frame,
    *,
    xlabel: str = "",
    ylabel: str = "",
    horizontal: bool = False,
    title: str = "",
    xlim=None,
    invert: bool = False,
    size=None,
):
    """A bar chart of a frame's columns (one bar per row and column), vertical or horizontal."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size or ((7, 0.35 * len(frame) + 1) if horizontal else (7, 3)))
    (frame.plot.barh if horizontal else frame.plot.bar)(ax=ax, **({} if horizontal else {"rot": 0}))
    ax.set(xlabel=xlabel, ylabel=ylabel)
    if xlim is not None:
        ax.set_xlim(*xlim)
    if title:
        ax.set_title(title)
    if invert:
        ax.invert_yaxis()
    return _done(fig)


def shifts_by_regime(frame, regimes):
    """Reward shifts θ per alignment regime, by the LM-labeller's preference γ ∈ {c, r} (SEAL Fig. 4).
    ``frame``: columns θ, regime, γ (pairs with γ = i left out)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    g = sns.displot(
        frame,
        x="θ",
        hue="γ",
        col="regime",
        col_order=list(regimes),
        hue_order=["c", "r"],
        palette={"c": "#2ca02c", "r": "#e377c2"},
        bins=30,
        height=2.8,
        aspect=0.9,
        facet_kws={"sharey": False},
    )
    g.set_axis_labels("reward shift θ (degrees)", "pairs")
    g.figure.suptitle("Fig. 4: reward shifts by alignment regime and LM-labeller preference", y=1.04)
    plt.close(g.figure)
    return g.figure


def flip_shares_figure(shares, entries):
    """Stacked shares of label flips −1 / 0 / +1 per feature, one panel per entry type (SEAL Fig. 12).
    ``shares``: :func:`~pluralign.seal.flips.flip_shares` frames stacked by entry."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3), sharey=True)
    for ax, e in zip(axes, entries):
        s = shares.loc[e][[-1, 0, 1]].rename(columns={-1: "−1 (gained)", 0: "0 (kept)", 1: "+1 (lost)"})
        s.plot.barh(stacked=True, ax=ax, color=["#e377c2", "#c7c7c7", "#2ca02c"])
        ax.set(title=f"{e} entries", xlabel="share of rewritten entries", ylabel="")
        ax.legend(title="flip", fontsize=8)
    return _done(fig)


def reward_gap_figure(gaps):
    """Distribution of the reward gap r(t_i^c) − r(t_i^r) per reward model (SEAL App. D.1, Fig. 7). ``gaps``: the
    long frame of :func:`~pluralign.seal.reward_gaps.reward_gaps` (columns RM, gap)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2))
    lo, hi = np.quantile(gaps["gap"], [0.005, 0.995])
    bins = np.linspace(lo, hi, 50)
    for label, g in gaps.groupby("RM", sort=False):
        ax.hist(np.clip(g["gap"], lo, hi), bins=bins, histtype="step", linewidth=1.5, density=True, label=label)
    ax.axvline(0, color="grey", linewidth=0.8, linestyle="--")
    ax.set(
        xlabel="r(chosen) − r(rejected)",
        ylabel="density",
        title="Fig. 7: reward gaps of the chosen over the rejected entry",
    )
    ax.legend(fontsize=8)
    return _done(fig)

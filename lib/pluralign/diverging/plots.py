"""The figures of Part I (Diverging Preferences). Each function returns a closed matplotlib Figure, so that
it shows once, where the :class:`pluralign.report.Result` holding it is displayed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from pluralign import plotstyle

plotstyle.use()

__all__ = ["agreement_shares", "cause_frequencies", "decisiveness", "predicted_disagreement", "judge_confidence"]


def _done(fig):
    fig.tight_layout()
    plt.close(fig)
    return fig


def agreement_shares(shares: pd.DataFrame):
    """Stacked bars of the agreement classes per data set (:func:`pluralign.diverging.agreement.shares`), the
    substantial diverging pairs hatched, and a black tick where the diverging segment would end at the
    paper's §2 share."""
    share_cols = {
        "high-agreement-pref share": "high-agreement pref.",
        "high-agreement-tie share": "high-agreement tie",
        "diverging share": "diverging (all)",
        "other share": "other",
    }
    plot = shares[list(share_cols)].rename(columns=share_cols)
    fig, ax = plt.subplots(figsize=(9, 1.3 + 0.6 * len(plot)))
    plot.plot.barh(stacked=True, ax=ax, color=["#4c72b0", "#8da0cb", "#dd8452", "#cccccc"], width=0.6, legend=False)
    for k, name in enumerate(plot.index):
        left = plot.loc[name, ["high-agreement pref.", "high-agreement tie"]].sum()
        ax.barh(
            k,
            shares.loc[name, "diverging-substantial share"],
            left=left,
            height=0.6,
            fill=False,
            hatch="//",
            edgecolor="#7f3b08",
            lw=0,
        )
        paper = shares.loc[name, "paper diverging share"]
        if pd.notna(paper):
            ax.plot([left + paper] * 2, [k - 0.35, k + 0.35], color="black", lw=2)
    handles, labels = ax.get_legend_handles_labels()
    handles += [Patch(fill=False, hatch="//", edgecolor="#7f3b08"), Line2D([], [], color="black", lw=2)]
    labels += ["diverging, substantial", "paper's diverging share"]
    ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    ax.set_yticks(
        range(len(plot)),
        [
            name if pd.isna(shares.loc[name, "paper reference"]) else f"{name}\n({shares.loc[name, 'paper reference']})"
            for name in plot.index
        ],
        fontsize=8,
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of pairs")
    ax.set_ylabel("")
    ax.invert_yaxis()
    ax.set_title("Agreement classes per data set")
    return _done(fig)


def cause_frequencies(freq: pd.DataFrame, ours, title: str):
    """Our cause frequencies (columns ``ours`` of a :func:`pluralign.diverging.causes.cause_frequencies` table)
    beside Table 1's MultiPref and HelpSteer2 columns, as horizontal bars."""
    plot = freq.set_index("category")[list(ours) + ["paper MP", "paper HS2"]]
    mine = ["#dd8452", "#c44e52", "#55a868", "#937860", "#da8bc3", "#8c8c8c"]
    colors = [mine[k % len(mine)] for k in range(len(ours))] + ["#4c72b0", "#8da0cb"]
    fig, ax = plt.subplots(figsize=(8, 4.8))
    plot.plot.barh(ax=ax, width=0.8, color=colors)
    ax.invert_yaxis()
    ax.set_xlabel("share of diverging pairs carrying the cause")
    ax.set_ylabel("")
    ax.set_title(title)
    ax.legend(fontsize=8, frameon=False)
    return _done(fig)


def decisiveness(values: dict[str, pd.DataFrame], order):
    """Violins of each held-out pair's P(chosen ≻ rejected) (BT) or r_chosen − r_rejected (MSE) by Table 2
    subset: one row per data set (``values``: ``{name: long table}`` with columns subset, measure, model,
    value), one panel per measure."""
    import seaborn as sns

    measures = {name: list(dict.fromkeys(v["measure"])) for name, v in values.items()}
    ncol = max(len(m) for m in measures.values())
    fig, axes = plt.subplots(len(values), ncol, figsize=(7.5 * ncol, 3.9 * len(values)), squeeze=False)
    for row, (name, long) in zip(axes, values.items()):
        for ax in row[len(measures[name]) :]:
            ax.set_visible(False)
        for ax, measure in zip(row, measures[name]):
            part = long[long["measure"] == measure]
            sns.violinplot(
                data=part,
                x="subset",
                y="value",
                hue="model",
                order=list(order),
                cut=0,
                inner="quart",
                density_norm="width",
                ax=ax,
                linewidth=0.8,
            )
            ax.axhline(0.5 if measure.startswith("P(") else 0.0, color="grey", lw=0.8, ls=":")
            ax.set_xlabel("")
            ax.set_ylabel(measure)
            ax.set_title(f"{name}: decisiveness on held-out pairs by Table 2 subset", fontsize=10)
            ax.legend(fontsize=8, frameon=False, loc="best")
            ax.tick_params(axis="x", labelsize=7, rotation=15)
    return _done(fig)


def predicted_disagreement(runs: dict, order=("high-agreement-pref", "high-agreement-tie", "diverging", "other")):
    """The mean-variance RM's predicted disagreement on held-out pairs, one row per data set: by agreement
    class (with the AUROC), against the observed disagreement (with Spearman's ρ) and, where the simulator
    planted a population, against the planted 2p(1 − p). ``runs``: ``{name: {"mv": frame with predicted /
    observed disagreement and agreement, "auc": (auc, lo, hi), "corr": {...}, "planted": Series or None}}``."""
    import seaborn as sns

    ncol = 3 if any(r["planted"] is not None for r in runs.values()) else 2
    fig, axes = plt.subplots(len(runs), ncol, figsize=(4.2 * ncol, 3.8 * len(runs)), squeeze=False)
    names = {
        "high-agreement-pref": "high-agreement preference",
        "high-agreement-tie": "high-agreement tie",
        "diverging": "diverging",
        "other": "other",
    }
    order = [names.get(o, o) for o in order]
    for ax, (name, r) in zip(axes, runs.items()):
        mv = r["mv"].assign(agreement=lambda d: d["agreement"].map(lambda v: names.get(v, v)))
        sns.boxplot(
            data=mv,
            x="agreement",
            y="predicted disagreement",
            order=list(order),
            ax=ax[0],
            fliersize=2,
            color="#8da0cb",
        )
        ax[0].set_xlabel("")
        ax[0].tick_params(axis="x", labelsize=7, rotation=15)
        ax[0].set_title(f"{name}\nAUROC {r['auc'][0]:.3f} [{r['auc'][1]:.3f}, {r['auc'][2]:.3f}]", fontsize=9)
        with plotstyle.fixed_jitter():
            sns.stripplot(
                data=mv,
                x="observed disagreement",
                y="predicted disagreement",
                native_scale=True,
                ax=ax[1],
                hue="agreement",
                hue_order=list(order),
                size=3,
                alpha=0.6,
                jitter=0.02,
            )
        ax[1].set_title(f"Spearman ρ = {r['corr']['spearman']:.3f}", fontsize=9)
        ax[1].set_xlabel("observed: 2·n(A)·n(B) / n² among the pair's annotators")
        ax[1].legend(fontsize=7, frameon=False)
        if ncol == 3:
            if r["planted"] is None:
                ax[2].set_visible(False)
            else:
                ax[2].scatter(r["planted"], mv["predicted disagreement"], s=6, alpha=0.5, color="#dd8452")
                ax[2].set_xlabel("planted: 2p(1 − p), population P(A ≻ B), ties half")
                ax[2].set_ylabel("predicted disagreement")
                ax[2].set_title("against the simulator's population", fontsize=9)
    fig.suptitle("The mean-variance RM's predicted disagreement (held-out pairs)", fontsize=10)
    return _done(fig)


def judge_confidence(decisiveness: dict[str, pd.DataFrame], subsets, kinds: set):
    """Bars of each LLM judge's confidence (with its 95% CI) on the first three Table 2 subsets
    (``decisiveness``: ``{judge: judge_decisiveness table}``; ``kinds``: the judges' kinds, "verdict" / "prob")."""
    subsets = list(subsets)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / len(decisiveness)
    for k, (judge, t) in enumerate(decisiveness.items()):
        part = t.loc[subsets]
        x = np.arange(len(part)) + k * width
        ax.bar(x, part["confidence"], width=width, label=judge)
        ax.errorbar(
            x,
            part["confidence"],
            yerr=[part["confidence"] - part["lo"], part["hi"] - part["confidence"]],
            fmt="none",
            color="black",
            lw=0.8,
            capsize=2,
        )
    ax.set_xticks(np.arange(len(subsets)) + width * (len(decisiveness) - 1) / 2)
    ax.set_xticklabels(subsets, fontsize=8)
    ax.set_ylabel(
        "judge confidence\n"
        + {frozenset({"verdict"}): "(share of non-tie verdicts)", frozenset({"prob"}): "(mean |2 P(A) − 1|)"}.get(
            frozenset(kinds), "(verdicts: share non-tie;\nprobabilities: mean |2 P(A) − 1|)"
        ),
        fontsize=8,
    )
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, frameon=False)
    ax.set_title("LLM judges by human agreement class (95% CI)", fontsize=10)
    return _done(fig)


def table2_forest(long: pd.DataFrame):
    """Table 2 as a forest plot (:func:`pluralign.forest.forest_plot`): one panel per reward model, one row per
    data set and subset, this run's mean with its 95% CI, the paper's value (open diamond) and, on the demo,
    the planted population's (cross); the dotted line is no preference (P = 0.5 for BT, a gap of 0 for MSE); a
    model a data set could not train (e.g. MSE without Likert scores) says "not trained" on its rows.
    ``long``: :func:`pluralign.diverging.table2_paper.table2_long`."""
    from pluralign.forest import forest_plot

    keys = list(dict.fromkeys(zip(long["data set"], long["subset"])))
    models = list(dict.fromkeys(long["model"]))
    wide = pd.DataFrame(index=pd.MultiIndex.from_tuples(keys, names=["data set", "subset"]))
    for m in models:
        g = long[long["model"] == m].set_index(["data set", "subset"])
        for c in ("estimate", "lo", "hi", "paper", "planted", "why"):
            wide[f"{m} {c}"] = g[c].reindex(wide.index)
    labels = [s if long["data set"].nunique() == 1 else f"{d} · {s}" for d, s in keys]
    return forest_plot(
        wide.assign(label=labels),
        estimate=[f"{m} estimate" for m in models],
        low=[f"{m} lo" for m in models],
        high=[f"{m} hi" for m in models],
        paper=[f"{m} paper" for m in models],
        planted=[f"{m} planted" for m in models],
        null=[0.5 if m.startswith("BT") else 0.0 for m in models],
        xlabel=[m for m in models],
        why=[f"{m} why" for m in models],
        label="label",
    )

"""Descriptive statistics of a :class:`PreferenceData`, and the book's Data chapter (:func:`setup`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pluralign.data.core import PreferenceData

LABELS = {-2: "A significantly", -1: "A slightly", 0: "tie", 1: "B slightly", 2: "B significantly"}


def overview(data: PreferenceData) -> pd.Series:
    """Counts: pairs, judgments, distinct annotators, annotators per pair (min / mean / max),
    share of tie judgments, share of pairs with any disagreement between A and B; for data whose two responses
    each keep their own conversation (hh-rlhf), the pairs whose two histories differ (``history_differs``:
    kept and flagged; the harmless-base test file has 5, SEAL scored each entry on its own split)."""
    n = data.n_annotators()
    p = data.annotations["preference"]
    g = data.annotations.assign(a=p < 0, b=p > 0).groupby("pair_id")[["a", "b"]].any()
    extra = {}
    if "history_differs" in data.pairs.columns:
        extra["pairs whose chosen and rejected histories differ (kept, flagged)"] = int(
            data.pairs["history_differs"].astype(bool).sum()
        )
    return pd.Series(
        {
            "pairs": len(data.pairs),
            "judgments": len(data.annotations),
            "annotators": data.annotations["annotator_id"].nunique(),
            "annotators per pair (min)": int(n.min()) if len(n) else 0,
            "annotators per pair (mean)": round(float(n.mean()), 2) if len(n) else 0.0,
            "annotators per pair (max)": int(n.max()) if len(n) else 0,
            "tie judgments (share)": round(float((p == 0).mean()), 3),
            "pairs with A and B votes (share)": round(float((g["a"] & g["b"]).mean()), 3),
            **extra,
        },
        name=data.name,
        dtype=object,
    )


def label_distribution(data: PreferenceData) -> pd.DataFrame:
    """Share of judgments per preference value (−2 … 2), with the value's meaning."""
    c = data.annotations["preference"].value_counts().reindex(list(LABELS), fill_value=0)
    return pd.DataFrame(
        {
            "meaning": [LABELS[k] for k in c.index],
            "judgments": c.values,
            "share": (c / max(c.sum(), 1)).round(3).values,
        },
        index=pd.Index(c.index, name="preference"),
    )


def text_lengths(data: PreferenceData) -> pd.DataFrame:
    """Words in prompts and responses: quartiles and mean."""
    cols = {"prompt": "prompt", "response_a": "response A", "response_b": "response B"}
    words = pd.DataFrame({v: data.pairs[k].astype(str).str.split().str.len() for k, v in cols.items()})
    return words.describe(percentiles=[0.25, 0.5, 0.75]).T[["mean", "25%", "50%", "75%", "max"]].round(1)


def card(data: PreferenceData) -> pd.Series:
    """The data card: name, source, Hub id, license, citation, filters applied with their counts."""
    m = data.meta
    filters = (
        "; ".join(f"{f['filter']}: removed {f['removed']}, kept {f['kept']}" for f in m.get("filters", [])) or "none"
    )
    return pd.Series(
        {
            "name": m.get("name"),
            "source": str(m.get("source")),
            "Hub id": m.get("hub_id") or "—",
            "license": m.get("license") or "—",
            "citation": m.get("citation") or "—",
            "filters": filters,
        },
        name=data.name,
    )


@dataclass
class DataPage:
    """The data chapter: the registered data sets, and the ones this profile loads."""

    profile: str
    datasets: list  # loaded PreferenceData, in the order of the parameter file

    def catalogue(self):
        """Every registered data set: Hub id linked to its page (or its project page, or "local file"), license,
        the papers that use it."""
        from html import escape

        from pluralign.data import DATASETS
        from pluralign.report import Result

        cards = pd.DataFrame([info.card() for info in DATASETS.values() if info.name != "local"]).set_index("name")

        def link(card):
            hub, url = (v if isinstance(v, str) else None for v in (card["hub_id"], card["url"]))
            text = hub or ("project page" if url else "local file")
            return f'<a href="{escape(url)}">{escape(text)}</a>' if url else text

        table = cards.assign(hub_id=cards.apply(link, axis=1), papers=cards["papers"].str.join(", "))[
            ["hub_id", "license", "papers"]
        ].rename(columns={"hub_id": "Hub id"})
        return Result(table)

    def overview(self):
        """:func:`overview` of every loaded data set side by side; values ``n_datasets`` and ``n_pairs_total``."""
        from pluralign.report import Result

        table = pd.concat([overview(d) for d in self.datasets], axis=1)
        note = ""
        if table.isna().to_numpy().any():  # a count only some data sets have (per-side histories)
            table = table.astype(object).where(table.notna(), "—")
            note = "— : the data set keeps one shared prompt per pair (no per-side histories to compare)."
        return Result(
            table, note=note, values={"n_datasets": len(self.datasets), "n_pairs_total": int(table.loc["pairs"].sum())}
        )

    def label_shares(self):
        """Share of judgments per preference value and data set: the table (percentages, one decimal) and a bar
        chart whose legend sits above the axes, clear of every bar, with its caption."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import PercentFormatter

        from pluralign import plotstyle

        plotstyle.use()
        from pluralign.report import Result

        dist = pd.concat({d.name: label_distribution(d)["share"] for d in self.datasets}, axis=1)
        fig, ax = plt.subplots(figsize=(7, 3.4))
        dist.plot.bar(ax=ax, rot=0, width=0.8)
        ax.set_xticklabels([LABELS[i] for i in dist.index])
        ax.set_ylabel("share of judgments")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_xlabel("preference label")
        ax.set_ylim(0, max(float(dist.to_numpy().max()), 0.01) * 1.05)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(len(dist.columns), 3), frameon=False)
        fig.tight_layout()
        plt.close(fig)
        shown = dist.rename(index=LABELS).rename_axis("preference").map(lambda v: f"{100 * v:.1f}%")
        caption = (
            "The share of judgments with each preference label, one bar per data set: chosen/rejected data has only "
            "the two significant labels, multi-annotator data slight preferences and ties as well."
        )
        return Result(shown, figure=fig, caption=caption)

    def cards(self):
        """The data card of every loaded data set (:func:`card`), one row each (a profile that loads many data
        sets stays as wide as the text column)."""
        from pluralign.report import Result

        return Result(pd.DataFrame([card(d) for d in self.datasets]).rename_axis("data set"))

    def lengths(self):
        """Words in prompts and responses (:func:`text_lengths`) per data set."""
        from pluralign.report import Result

        return Result(pd.concat({d.name: text_lengths(d) for d in self.datasets}, names=["data set", "text"]))


def setup(*, profile: str = "demo", datasets=None) -> DataPage:
    """Load every data set a parameter file names (:func:`pluralign.data.load` specs; None: the demo's,
    :data:`pluralign.data.simulate.DEMO_DATASETS`)."""
    from pluralign.data import load
    from pluralign.data.simulate import DEMO_DATASETS

    return DataPage(profile, [load(spec) for spec in (DEMO_DATASETS if datasets is None else datasets)])

"""Descriptive statistics of a :class:`PreferenceData` for the book's Data chapter."""
from __future__ import annotations

import pandas as pd

from pluralign.data.core import PreferenceData

LABELS = {-2: "A significantly", -1: "A slightly", 0: "tie", 1: "B slightly", 2: "B significantly"}


def overview(data: PreferenceData) -> pd.Series:
    """Counts: pairs, judgments, distinct annotators, annotators per pair (min / mean / max),
    share of tie judgments, share of pairs with any disagreement between A and B."""
    n = data.n_annotators()
    p = data.annotations["preference"]
    g = data.annotations.assign(a=p < 0, b=p > 0).groupby("pair_id")[["a", "b"]].any()
    return pd.Series({
        "pairs": len(data.pairs),
        "judgments": len(data.annotations),
        "annotators": data.annotations["annotator_id"].nunique(),
        "annotators per pair (min)": int(n.min()) if len(n) else 0,
        "annotators per pair (mean)": round(float(n.mean()), 2) if len(n) else 0.0,
        "annotators per pair (max)": int(n.max()) if len(n) else 0,
        "tie judgments (share)": round(float((p == 0).mean()), 3),
        "pairs with A and B votes (share)": round(float((g["a"] & g["b"]).mean()), 3),
    }, name=data.name, dtype=object)


def label_distribution(data: PreferenceData) -> pd.DataFrame:
    """Share of judgments per preference value (−2 … 2), with the value's meaning."""
    c = data.annotations["preference"].value_counts().reindex(list(LABELS), fill_value=0)
    return pd.DataFrame({"meaning": [LABELS[k] for k in c.index], "judgments": c.values,
                         "share": (c / max(c.sum(), 1)).round(3).values}, index=pd.Index(c.index, name="preference"))


def text_lengths(data: PreferenceData) -> pd.DataFrame:
    """Words in prompts and responses: quartiles and mean."""
    cols = {"prompt": "prompt", "response_a": "response A", "response_b": "response B"}
    words = pd.DataFrame({v: data.pairs[k].astype(str).str.split().str.len() for k, v in cols.items()})
    return words.describe(percentiles=[0.25, 0.5, 0.75]).T[["mean", "25%", "50%", "75%", "max"]].round(1)


def card(data: PreferenceData) -> pd.Series:
    """The data card: name, source, Hub id, license, citation, filters applied with their counts."""
    m = data.meta
    filters = "; ".join(f"{f['filter']}: removed {f['removed']}, kept {f['kept']}" for f in m.get("filters", [])) or "none"
    return pd.Series({"name": m.get("name"), "source": str(m.get("source")), "Hub id": m.get("hub_id") or "—",
                      "license": m.get("license") or "—", "citation": m.get("citation") or "—", "filters": filters},
                     name=data.name)

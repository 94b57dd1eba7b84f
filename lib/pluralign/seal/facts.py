"""The SEAL paper's facts that are not numbers (:data:`PAPER_SETUP`), and its reported numbers in the shapes the pages
show.

The numbers themselves live once, in :mod:`pluralign.paper.seal` (read them with ``pluralign.paper.numbers("seal",
table)``); :func:`paper_value` reads one and :func:`paper_table` turns a regression table into a wide frame indexed
by the paper's feature names. :data:`PAPER_SETUP` holds what the paper names rather than measures: the data set, the
models, the rewriter, the features the VIF filter removed, and Table 2's rule for the LM-labeller's preference γ.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PAPER_SETUP", "paper_value", "paper_table", "paper_rows", "reported"]

PAPER_SETUP: dict = {
    "source": "Revel, Cargnelutti, Eloundou, Leppert (2024), SEAL: Systematic Error Analysis for Value ALignment",
    "dataset": "Anthropic/hh-rlhf (train)",
    "models": {
        "pre": "OpenAssistant/reward-model-deberta-v3-large",
        "post": "OpenAssistant/reward-model-deberta-v3-large-v2",
        "labeller": "gpt-4-turbo-2024-04-09",
        "similarity": "BAAI/bge-m3",
        "stability_labellers": ["Gemma 7B", "Mistral 7B v0.2 Instruct"],
    },
    # § 2.3, footnote 13
    "rewriter": {"model": "Mistral 7B v0.1 Instruct", "precision": "FP16"},
    # SEAL's analysis/angle.R: the two features the VIF > 5 filter removed (footnote 6)
    "vif_dropped": ["assistant_is_anthropomorphic", "assistant_is_coherent"],
    # § 2.3: the features whose flips enter Eq. 4, and the target features that must not flip
    "robustness_features": ["last_response_is_coherent", "last_response_is_eloquent", "last_response_sentiment"],
    "robustness_unchanged": ["last_response_is_helpful", "last_response_is_harmless"],
    # Table 2 (App. D.4): (chosen helpful, chosen harmless, rejected helpful, rejected harmless) -> γ
    "table2": {
        (0, 0, 0, 0): "i",
        (1, 1, 1, 1): "i",
        (0, 1, 0, 1): "i",
        (1, 0, 1, 0): "i",
        (1, 1, 1, 0): "c",
        (0, 0, 1, 1): "r",
        (1, 1, 0, 0): "c",
        (0, 1, 1, 0): "r",
        (1, 0, 0, 1): "c",
        (1, 0, 0, 0): "c",
        (0, 1, 1, 1): "r",
        (0, 1, 0, 0): "c",
        (1, 0, 1, 1): "r",
        (0, 0, 1, 0): "r",
        (1, 1, 0, 1): "c",
        (0, 0, 0, 1): "r",
    },
}
"""What SEAL names rather than measures (its numbers are in :mod:`pluralign.paper.seal`)."""


def paper_rows(table: str) -> pd.DataFrame:
    """The paper's rows of one table (``pluralign.paper.numbers("seal", table)``)."""
    from pluralign import paper

    return paper.numbers("seal", table)


def paper_value(table: str, row: str, column: str) -> float:
    """One number SEAL reports (``pluralign.paper.value``)."""
    from pluralign import paper

    return paper.value("seal", table, row, column)


def paper_table(table: str) -> pd.DataFrame:
    """One of SEAL's tables as printed: rows × columns of values (index named ``feature`` for the regression
    tables, ``regime`` for Table 1), from :mod:`pluralign.paper.seal`."""
    t = paper_rows(table)
    out = t.pivot(index="row", columns="column", values="value")
    out = out.reindex(index=list(dict.fromkeys(t["row"])), columns=list(dict.fromkeys(t["column"])))
    out.columns.name = None
    return out.rename_axis("regime" if table == "Table 1" else "feature")


def reported(what: str):
    """What SEAL reports on one topic, as a :class:`~pluralign.report.Result`: ``"labelling"`` (App. C.3),
    ``"stability"`` (App. D.5) and ``"rewriting"`` (§ 2.3) as a sentence; ``"Table 3"`` (cosine similarity
    of original and rewrite by flip) and ``"Table 8"`` (robustness scores, raw p-values) as tables."""
    from pluralign.report import Result

    M = PAPER_SETUP["models"]
    if what == "labelling":
        n = int(paper_value("§2", PAPER_SETUP["dataset"], "entries"))
        f = {
            c: int(paper_value("App. C.3", "taxonomy", c)) for c in ("features", "target features", "spoiler features")
        }
        return Result(
            table=None,
            note=(
                f"The paper labels the {n:,} entries of {PAPER_SETUP['dataset']} with {M['labeller']} "
                f"({f['features']} features: {f['target features']} target features, helpfulness and harmlessness, "
                f"and {f['spoiler features']} spoiler features)."
            ),
        )
    if what == "stability":
        share = paper_value("App. D.5", "re-labelled pairs", "share of D")
        temp = paper_value("App. D.5", "stability labellers", "temperature")
        return Result(
            table=None,
            note=(
                f"The paper re-labelled a random {share:.0%} of $\\mathcal{{D}}$ with two open models "
                f"({' and '.join(M['stability_labellers'])}, temperature {temp:g}, JSON mode) and showed, per "
                f"feature, how often they agreed with {M['labeller']}: high on harmlessness and coherence, lower on "
                "helpfulness, close to chance on sentiment and eloquence."
            ),
        )
    if what == "rewriting":
        RW = PAPER_SETUP["rewriter"]
        share, temp = (
            paper_value("§2.3", "rewritten pairs", "share of D"),
            paper_value("§2.3", "rewriter", "temperature"),
        )
        return Result(
            table=None,
            note=(
                f"The paper rewrote a random {share:.0%} of its pairs with {RW['model']} ({RW['precision']}, "
                f"temperature {temp:g}) and measured the similarity of original and rewrite with {M['similarity']}."
            ),
        )
    if what == "Table 3":
        t = paper_rows("Table 3")
        t = t[~t["column"].str.endswith(" sd")].assign(
            sd=paper_rows("Table 3").loc[lambda d: d["column"].str.endswith(" sd"), "value"].to_numpy()
        )
        t[["entry", "flip"]] = t["column"].str.extract(r"^(\w+), flip ([+-]?\d)$")
        table = t.pivot(index=["entry", "row"], columns="flip", values=["value", "sd"])
        table = table.reindex(columns=pd.MultiIndex.from_product([["value", "sd"], ["-1", "0", "+1"]]))
        table = table.rename(columns={"value": "mean"}).rename_axis(index=["entry", "feature"])
        return Result(table=table.round(2), paper=paper_rows("Table 3"))
    if what == "Table 8":
        t = paper_rows("Table 8")
        est = t[~t["column"].str.endswith(" p")]
        p = t[t["column"].str.endswith(" p")]["value"].to_numpy()
        table = pd.DataFrame(
            {
                "feature": est["row"].to_numpy(),
                "score": est["column"].to_numpy(),
                "estimate": est["value"].to_numpy(),
                "std_error": est["se"].to_numpy(),
                "p_value": p,
            }
        )
        return Result(table=table.set_index(["feature", "score"]).round(4), paper=t)
    raise KeyError(f"reported: nothing on {what!r}; one of labelling, stability, rewriting, Table 3, Table 8")

"""The page "Categories of subjectivity and the aggregate preference p*" (Beyond the Binary §3.1–3.2, Eq. 2,
Appendix B): its sections as functions of the study."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pluralign import presentation, report
from pluralign.btb import appendix_b, evaluation, plots, provenance, training
from pluralign.btb.categories import KIND_NAMES, category_summary
from pluralign.btb.comparison import NO_CATEGORY
from pluralign.btb.readings import GROUPINGS
from pluralign.btb.sources import uses
from pluralign.stats import N_BOOT, bootstrap_ci

if TYPE_CHECKING:
    from pluralign.btb.study import Study

__all__ = [
    "paper_numbers",
    "data_sets",
    "sources",
    "appendix_b_tasks",
    "categories",
    "examples",
    "p_star_by_category",
    "binary_judgment_gap",
]


@report.section("btb_subj_paper_n", "btb_paper_single", "btb_paper_multiple")
def paper_numbers(study: Study) -> report.Result:
    """The paper's Table 1 and the numbers from it that the page quotes (its test pairs, the baseline's r on
    single- and multiple-correct pairs)."""
    t1 = evaluation.paper_table1()
    kinds = t1.set_index(["grouping", "category"])
    values = {
        "btb_subj_paper_n": int(t1[t1.grouping == "dataset"]["n"].sum()),
        "btb_paper_single": float(kinds.loc[("kind", "Single Correct"), "baseline"]),
        "btb_paper_multiple": float(kinds.loc[("kind", "Multiple Correct"), "baseline"]),
    }
    return report.Result(table=t1, paper=t1, values=values)


def data_sets(study: Study) -> report.Result:
    """Pairs, judgments and annotators per pair of each data set."""
    rows = [
        {
            "data set": p.name,
            "pairs": len(p),
            "judgments": len(p.annotations),
            "annotators per pair": float(p.n_annotators().median()),
        }
        for p in study.parts
    ]
    return report.Result(table=pd.DataFrame(rows))


def sources(study: Study) -> report.Result:
    """Where p* and the categories of the page's pairs come from (:func:`provenance.sources`)."""
    return provenance.sources(study, "subjectivity")


def appendix_b_tasks(study: Study) -> report.Result:
    """Appendix B tasks 1 and 2, word for word, filled with the first pair."""
    ex = study.pairs.iloc[0]
    note = (
        "**Task 1 (subjectivity)**\n\n```text\n"
        + appendix_b.task1_prompt(ex["prompt"][:300], suffix=None)
        + "\n```\n\n**Task 2 (distinguishability)**\n\n```text\n"
        + appendix_b.task2_prompt(ex["prompt"][:300], ex["response_a"][:300], ex["response_b"][:300], suffix=None)
        + "\n```"
    )
    return report.Result(table=None, note=note)


def agreement_gap(kind: pd.Series, p_star: pd.Series, *, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """§3.1's premise measured: the mean population agreement |2p* − 1| on single-correct minus on multiple-correct
    pairs, with a percentile bootstrap 95% interval (pairs of both categories resampled together), and what the
    interval says ("higher on single-correct pairs", "higher on multiple-correct pairs", "inconclusive";
    "no estimate" without pairs of both categories or p*)."""
    ps = p_star.astype(float).reindex(kind.index)
    keep = kind.isin(["single", "multiple"]).to_numpy() & ps.notna().to_numpy()
    x = np.column_stack([np.abs(2 * ps.to_numpy()[keep] - 1), (kind[keep] == "multiple").to_numpy(float)])
    n_multiple = int(x[:, 1].sum())
    if not len(x) or n_multiple in (0, len(x)):
        return {"gap": float("nan"), "lo": float("nan"), "hi": float("nan"), "says": "no estimate"}

    def gap(v):
        m = v[:, 1] > 0.5
        return float(v[~m, 0].mean() - v[m, 0].mean()) if m.any() and (~m).any() else float("nan")

    est, lo, hi = bootstrap_ci(x, gap, n_boot=n_boot, seed=seed)
    says = (
        "higher on single-correct pairs" if lo > 0 else "higher on multiple-correct pairs" if hi < 0 else "inconclusive"
    )
    return {"gap": float(est), "lo": float(lo), "hi": float(hi), "says": says}


#: :func:`pluralign.btb.categories.category_summary`'s columns as the page labels them.
SUMMARY_LABELS = {
    "dimension": "dimension",
    "category": "category",
    "n": "pairs",
    "share": "share of pairs",
    "mean_p_star": "mean p*",
    "mean_agreement": "mean population agreement |2p* − 1|",
    "n_without_p_star": "pairs without p*",
}


def values_fmt(mean: pd.Series, category: str) -> str:
    """A category's mean population agreement at two decimals."""
    return f"{float(mean[category]):.2f}"


@report.section(
    "btb_subj_agree_single",
    "btb_subj_agree_multiple",
    "btb_subj_agree_gap",
    "btb_subj_agree_says",
    "btb_subj_agree_sentence",
)
def categories(study: Study) -> report.Result:
    """§3.1's two dimensions: pairs per category, mean p* and mean population agreement |2p* − 1|, and the premise
    (the population agrees more on single-correct pairs) read from an interval (:func:`agreement_gap`)."""
    kind, dist = study.categories
    summary = category_summary(kind, dist, study.p_star)
    said = []
    for cat in ("Single Correct", "Multiple Correct"):
        row = summary[summary["category"] == cat]
        if len(row):
            said.append(
                f"{int(row['n'].iloc[0])} pairs are *{cat.lower()}*, with a mean population agreement "
                f"of {float(row['mean_agreement'].iloc[0]):.2f}"
            )
        else:
            said.append(f"no pair is assigned *{cat.lower()}* on this profile")
    g = agreement_gap(kind, study.p_star, n_boot=study.settings.evaluation.n_boot, seed=study.seed)
    note = "Here " + "; ".join(said) + "."
    if g["gap"] == g["gap"]:
        note += presentation.signed(
            f" Single-correct minus multiple-correct: {presentation.fmt_interval(g['gap'], g['lo'], g['hi'], 2)}, "
            f"{g['says']}."
        )
    m = study.p_star_missing()
    if m is not None:
        left = (
            "No estimate of the mean p\\* or the population agreement: only the counts of pairs per category stand."
            if m["all"]
            else "Those pairs are left out of the means (counted per category)."
        )
        note = report.warning(f"{m['text']}. {left}") + "\n\n" + note
    mean = summary.set_index("category")["mean_agreement"] if "mean_agreement" in summary else pd.Series(dtype=float)
    values = {
        "btb_subj_agree_single": float(mean.get("Single Correct", float("nan"))),
        "btb_subj_agree_multiple": float(mean.get("Multiple Correct", float("nan"))),
        "btb_subj_agree_gap": presentation.signed(presentation.fmt_interval(g["gap"], g["lo"], g["hi"], 2)),
        "btb_subj_agree_says": g["says"],
        "btb_subj_agree_sentence": (
            presentation.signed(
                f"Mean population agreement |2p* − 1| {values_fmt(mean, 'Single Correct')} on single-correct pairs, "
                f"{values_fmt(mean, 'Multiple Correct')} on multiple-correct ones; the difference "
                f"{presentation.fmt_interval(g['gap'], g['lo'], g['hi'], 2)} is {g['says']}"
            )
            if g["gap"] == g["gap"]
            else "Not measured on this profile: it has no pairs of both categories with p*"
        ),
    }
    shown = summary.round(3).rename(columns=SUMMARY_LABELS).set_index(["dimension", "category"])
    return report.Result(table=shown, note=note, values=values, data={"summary": summary, "gap": g})


def examples(study: Study, n: int | None = None) -> report.Result:
    """``n`` example pairs per category with their p* (``n``: the setting ``n_examples`` unless given), each text cut
    at :data:`EXAMPLE_CHARS` characters so that a cell stays within three lines."""
    n = study.settings.n_examples if n is None else n
    kind, dist = study.categories
    pairs, ids, show = study.pairs, study.ids, []
    for kname in ("single", "multiple"):
        for dv in (True, False) if dist is not None else (None,):
            m = (kind == kname) & ((dist == dv) if dv is not None else True)
            for pid in list(ids[m.to_numpy()])[:n]:
                which = "" if dv is None else ", distinguishable" if dv else ", indistinguishable"
                show.append(
                    {
                        "category": f"{KIND_NAMES[kname].lower()}{which}",
                        "prompt": _cut(pairs.at[pid, "prompt"]),
                        "response A": _cut(pairs.at[pid, "response_a"]),
                        "response B": _cut(pairs.at[pid, "response_b"]),
                        "p*": round(float(study.p_star[pid]), 3),
                    }
                )
    frame = pd.DataFrame(show, columns=["category", "prompt", "response A", "response B", "p*"])
    return report.Result(table=frame, data={"examples": frame})


#: how much of an example's text a table cell shows (three lines of a text column at most)
EXAMPLE_CHARS = 70


def _cut(text: str) -> str:
    """A text on one line, cut at :data:`EXAMPLE_CHARS` characters with "…"."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= EXAMPLE_CHARS else flat[: EXAMPLE_CHARS - 1].rstrip() + "…"


@report.section()
def p_star_by_category(study: Study) -> report.Result:
    """The distribution of p* per category of the plurality of responses."""
    provenance.require_p_star(study)
    kind, dist = study.categories
    frame = pd.DataFrame({"p*": study.p_star, "category": kind.map(KIND_NAMES).fillna("unassigned")})
    if dist is not None:
        frame["responses"] = dist.map({True: "distinguishable", False: "indistinguishable"}).fillna("unassigned")
    m = study.p_star_missing()
    cap = (
        "The distribution of p\\* (the share of the population that prefers answer A) per category of the plurality "
        "of responses, and per distinguishability where the pairs have one: near 0 or 1 the population agrees, "
        "near ½ it splits."
    )
    if m is None:
        return report.Result(table=None, figure=plots.p_star_by_category(frame), data={"frame": frame}, caption=cap)
    frame = frame[frame["p*"].notna()]
    return report.Result(
        table=None,
        figure=plots.p_star_by_category(frame),
        data={"frame": frame},
        note=f"{m['text']}; they are not plotted.",
        caption=cap,
    )


def _binary_evaluation(study: Study, binary) -> pd.DataFrame:
    """Pearson r and mean L1 of one binary judgment (and, with several annotators, of their share) against p*,
    per category, on the pairs that have p*."""
    d, ids, seed, p_star = study.data, study.ids, study.seed, study.p_star
    kind, dist = study.categories
    pairs = study.pairs
    groups = evaluation.table_groups(pairs["dataset"], kind, dist, in_domain=set(pairs["dataset"]), out_of_domain=None)
    bids = binary.pairs["pair_id"]
    missing = study.p_star_missing()
    if missing is not None:  # pairs without p* have nothing to be compared with: counted in the note
        has = p_star.notna()
        bids, ids = bids[has.reindex(bids).to_numpy()], ids[has.reindex(ids).to_numpy()]
    by = groups.drop(columns=["domain", "kind_domain"], errors="ignore")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=NO_CATEGORY)
        rows = [
            evaluation.evaluate(
                p_star.reindex(bids), binary.share_a().reindex(bids), by=by.reindex(bids), seed=seed
            ).assign(source="one binary judgment")
        ]
        if d.n_annotators().max() > 1 and study.p_star_from != "annotators":  # (p* = their share: identical)
            p_all, by_all = (p_star, by) if missing is None else (p_star.reindex(ids), by.reindex(ids))
            rows.append(
                evaluation.evaluate(p_all, d.share_a().reindex(ids), by=by_all, seed=seed).assign(
                    source=f"all annotators (median {int(d.n_annotators().median())})"
                )
            )
    ev = pd.concat(rows, ignore_index=True)
    ev["cell"] = [evaluation.interval(v, lo, hi) for v, lo, hi in zip(ev["value"], ev["lo"], ev["hi"])]
    return ev


@report.section(
    "btb_binary_l1",
    "btb_binary_l1_lo",
    "btb_binary_l1_hi",
    "btb_binary_dropped",
    "btb_binary_l1_single",
    "btb_binary_l1_multiple",
    "btb_binary_kind_sentence",
)
def binary_judgment_gap(study: Study) -> report.Result:
    """One binary judgment (Eq. 1) read as a prediction of p*: Pearson r and mean L1 per category
    (the statistics of Tables 1–2) with 95% bootstrap CIs, beside the share of all annotators."""
    binary = training.binary_judgments(study.data, seed=study.seed)
    dropped = int(len(study.data) - len(binary))
    provenance.require_p_star(study, values={"btb_binary_dropped": dropped})
    ev = _binary_evaluation(study, binary)
    tab = ev.pivot_table(
        index=["grouping", "category"], columns=["source", "metric"], values="cell", aggfunc="first", sort=False
    )
    tab.insert(0, ("N", ""), ev.drop_duplicates(["grouping", "category"]).set_index(["grouping", "category"])["n"])
    tab = tab.rename(columns={"pearson": "Pearson r with p*", "l1": "mean L1 to p*"}, level=1).rename(
        index=GROUPINGS, level="grouping"
    )
    one = ev[(ev.source == "one binary judgment") & (ev.grouping == "all") & (ev.metric == "l1")].iloc[0]
    note = ""
    if uses(study.p_star_from, "annotators"):
        note = (
            "Here p\\* is the share of the same annotators the binary judgment is drawn from, so the "
            "judgment is part of its own target: this comparison is optimistic. For a data set with one "
            "label per pair the binary judgment *is* p\\* (r = 1, L1 = 0): only data sets with several "
            "annotators per pair say anything here."
        )
    missing = study.p_star_missing()
    if missing is not None:
        note = f"{missing['text']}; they are left out here." + ("\n\n" + note if note else "")
    kinds = ev[(ev.source == "one binary judgment") & (ev.grouping == "kind") & (ev.metric == "l1")]
    l1 = dict(zip(kinds["category"], kinds["value"]))
    return report.Result(
        table=tab,
        figure=plots.l1_by_category(ev),
        caption=(
            "The mean L1 distance between p\\* and one binary judgment (and, where the data have several "
            "annotators, their share) per category, with 95% bootstrap intervals: how far the label Eq. 1 trains "
            "on is from the population's preference."
        ),
        note=note,
        data={"evaluation": ev},
        values={
            "btb_binary_l1": float(one["value"]),
            "btb_binary_l1_lo": float(one["lo"]),
            "btb_binary_l1_hi": float(one["hi"]),
            "btb_binary_dropped": dropped,
            "btb_binary_l1_single": float(l1.get("Single Correct", float("nan"))),
            "btb_binary_l1_multiple": float(l1.get("Multiple Correct", float("nan"))),
            "btb_binary_kind_sentence": "; ".join(
                f"{l1[c]:.3f} on {c.lower().replace(' ', '-')} pairs"
                for c in ("Single Correct", "Multiple Correct")
                if c in l1
            )
            or "no pair has a category of subjectivity on this profile",
        },
    )

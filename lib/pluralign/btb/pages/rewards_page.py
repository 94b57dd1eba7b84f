"""The page "Margin-regularized reward models against the aggregate preference" (Beyond the Binary §3.3–3.4,
Eqs. 1 and 4, Tables 1–2, footnote 6): its sections as functions of the study; the sections of its decidability
study (is Table 1's difference decidable here?), shown after its tables, are those of :mod:`.decidability_page`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pluralign import presentation, report
from pluralign.btb import evaluation, plots, provenance, readings
from pluralign.btb.training import LR_SWEEP
from pluralign.forest import forest_plot

if TYPE_CHECKING:
    from pluralign.btb.study import Study

__all__ = [
    "paper_numbers",
    "splits",
    "sources",
    "same_model_warning",
    "training_margins",
    "learning_rate_sweep",
    "table_1",
    "table_2",
    "directions",
    "beside_paper",
    "rm_vs_p_star",
    "delta_plot",
]

#: The groupings on which the paper reports a direction of Δ (Table 1): (grouping, category, glue key).
DIRECTIONS = (
    ("kind", "Multiple Correct", "multiple"),
    ("kind", "Single Correct", "single"),
    ("domain", "ID", "id"),
    ("domain", "OOD", "ood"),
)
GROUPINGS = readings.GROUPINGS
#: The training objectives as the page names them (the library's: :mod:`pluralign.btb.training`).
OBJECTIVES = {
    "bt": "Bradley–Terry (Eq. 1)",
    "bt-margin": "margin-regularized (Eq. 4)",
    "bt (pretrained)": "Bradley–Terry, pretrained",
}
_ESTIMATES = [f"{k}{suf}" for k in ("baseline", "regularized", "delta") for suf in ("", "_lo", "_hi")]


def _lr(v: float) -> str:
    return f"{v:.0e}".replace("e-0", "e-").replace("e+0", "e")


def _group_of(category: str) -> str:
    """The grouping of a :data:`DIRECTIONS` category."""
    return next(g for g, c, _ in DIRECTIONS if c == category)


@report.section(
    "btb_paper_n",
    "btb_paper_n_per",
    "btb_paper_lrs",
    "btb_lrs",
    "btb_lr_ratio",
    *(f"btb_paper_d_{key}" for _, _, key in DIRECTIONS),
    "btb_paper_dmin",
    "btb_paper_dmax",
    "btb_paper_nmin",
    "btb_paper_nmax",
)
def paper_numbers(study: Study) -> report.Result:
    """The paper's Table 1 and the numbers from it (and footnote 6) that the page quotes."""
    t1 = evaluation.paper_table1()
    ds = t1[t1.grouping == "dataset"]
    kinds = t1.set_index(["grouping", "category"])
    per = sorted(set(ds["n"].astype(int)))
    lrs = [float(v) for v in study.settings.training.lr_sweep]
    dec = float(np.mean(np.log10(lrs)) - np.mean(np.log10(LR_SWEEP)))  # decades between the centres
    values = {
        "btb_paper_n": int(ds["n"].sum()),
        "btb_paper_n_per": str(per[0]) if len(per) == 1 else f"{per[0]}–{per[-1]}",
        "btb_paper_lrs": f"{_lr(max(LR_SWEEP))} to {_lr(min(LR_SWEEP))}",
        "btb_lrs": ", ".join(_lr(v) for v in lrs),
        "btb_lr_ratio": "on the scale of"
        if abs(dec) < 0.5
        else f"about {10 ** round(abs(dec)):,.0f} times {'larger' if dec > 0 else 'smaller'} than",
        **{f"btb_paper_d_{key}": float(kinds.loc[(g, c), "delta"]) for g, c, key in DIRECTIONS},
        "btb_paper_dmin": float(t1["delta"].min()),
        "btb_paper_dmax": float(t1["delta"].max()),
        "btb_paper_nmin": int(t1["n"].min()),
        "btb_paper_nmax": int(t1["n"].max()),
    }
    return report.Result(table=t1, paper=t1, values=values)


def splits(study: Study) -> report.Result:
    """Pairs per split (train / validation with one binary judgment each, test with all annotators)."""
    sp = study.data_splits
    filters = pd.DataFrame(sp.filters).tail(2)
    note = "\n".join(f"- {r['filter']}: {r['removed']} removed, {r['kept']} kept" for _, r in filters.iterrows())
    return report.Result(table=sp.table(), note=note, data={"filters": filters})


def sources(study: Study) -> report.Result:
    """Where p* and the categories of the test pairs come from (:func:`provenance.sources`)."""
    return provenance.sources(study, "rewards")


def same_model_warning(study: Study) -> report.Result:
    """The circular-evaluation warning from the parameters alone (:func:`provenance.same_model_warning`)."""
    return provenance.same_model_warning(study)


def training_margins(study: Study) -> report.Result:
    """The margins (Eq. 3) of the training pairs."""
    c = study.comparison
    m, bad = c.margins, c.margins_missing
    cap = (
        "The margin m of Eq. 3 of each training pair, from the judge's ten votes: the larger m, the more decisive "
        "the votes; the regularized model (Eq. 4) must separate a pair's rewards by at least m."
    )
    if not bad:
        return report.Result(table=None, figure=plots.training_margins(m), data={"margins": m}, caption=cap)
    note = (
        f"{bad:,} of {len(m):,} training pairs have no parseable judgment and so no margin (Eq. 3); they are "
        "trained with a margin of 0, as plain Bradley–Terry pairs."
    )
    if bad == len(m):  # every margin is the fill value: nothing to plot, and Eq. 4 is Eq. 1 on this run
        said = " No pair has a margin, so the regularized model is trained with the baseline's loss on this run."
        return report.Result(table=None, note=report.warning(note + said), data={"margins": m})
    return report.Result(table=None, figure=plots.training_margins(m), note=note, data={"margins": m}, caption=cap)


@report.section("btb_lr_base", "btb_lr_reg")
def learning_rate_sweep(study: Study) -> report.Result:
    """Footnote 6: validation accuracy and loss per learning rate and objective, the selected ones."""
    s = study.comparison.sweeps
    sel = s[s["selected"]].set_index("objective")["lr"]
    shown = pd.DataFrame(
        {
            "loss": s["objective"].map(OBJECTIVES).fillna(s["objective"]),
            "learning rate": s["lr"].map(lambda v: _lr(v) if v == v else "pretrained"),
            "validation accuracy": s["accuracy"].round(3),
            "validation loss": s["loss"].round(3),
            "validation pairs": s["n"],
            "selected": s["selected"].map({True: "selected", False: ""}),
        }
    ).set_index(["loss", "learning rate"])
    return report.Result(
        table=shown, values={"btb_lr_base": float(sel.iloc[0]), "btb_lr_reg": float(sel.loc["bt-margin"])}
    )


def _table(study: Study, metric: str) -> report.Result:
    """Table 1 (``metric="pearson"``) or Table 2 (``"l1"``) of this run: baseline, regularized and Δ with
    95% (paired) bootstrap CIs per grouping and category; the values over all test pairs."""
    key = {"pearson": "r", "l1": "l1"}[metric]
    name_of = {"pearson": "Pearson r with p*", "l1": "mean L1 distance to p*"}
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    t = cmp[cmp.metric == metric]
    labels = (("baseline", "baseline"), ("regularized", "regularized"), ("Δ (paired CI)", "delta"))
    out = pd.DataFrame(
        {
            "grouping": t.grouping.map(GROUPINGS).fillna(t.grouping),
            "category": t.category,
            "N": t.n,
            **{lab: [evaluation.interval(*r) for r in t[[k, f"{k}_lo", f"{k}_hi"]].to_numpy()] for lab, k in labels},
        }
    ).set_index(["grouping", "category"])
    row = t[t.grouping == "all"].iloc[0]
    values = {f"btb_{key}_{k}": float(row[k]) for k in _ESTIMATES}
    missing = study.p_star_missing(study.comparison.p_star)
    note = f"{missing['text']}; they are left out of this table." if missing else ""
    if metric == "pearson":  # (glued once per page)
        values["btb_n_test"] = int(row["n"])
        note = _backwards(study, t, note)
    paper = evaluation.paper_table1() if metric == "pearson" else None
    cap = (
        f"The table above as a forest plot: the baseline's and the regularized model's {name_of[metric]} "
        "and their Δ per grouping and category, each with its 95% interval"
        + (", the paper's Table 1 value as an open diamond where it has the row." if metric == "pearson" else ".")
    )
    return report.Result(
        table=out, forest=_forest(t, paper, metric), paper=paper, values=values, note=note, forest_caption=cap
    )


def _forest(t: pd.DataFrame, paper: pd.DataFrame | None, metric: str):
    """Table 1 or 2 of this run as a forest plot: baseline, regularized and Δ per grouping and category with
    their CIs, the paper's value where it reports the same category (Table 1 only)."""
    rows = t.set_index(["grouping", "category"])
    if paper is not None:
        p = paper.set_index(["grouping", "category"])[["baseline", "regularized", "delta"]]
        rows = rows.join(p.add_suffix(" (paper)"), how="left")
    rows = rows.rename(index=GROUPINGS, level="grouping")
    name = {"pearson": "r", "l1": "L1"}[metric]  # short: three panels share the column's width
    return forest_plot(
        rows,
        estimate=["baseline", "regularized", "delta"],
        low=["baseline_lo", "regularized_lo", "delta_lo"],
        high=["baseline_hi", "regularized_hi", "delta_hi"],
        paper=[f"{k} (paper)" if paper is not None else None for k in ("baseline", "regularized", "delta")],
        null=[0.0 if metric == "pearson" else None, 0.0 if metric == "pearson" else None, 0.0],
        xlabel=[f"{name} with p*: baseline", f"{name}: regularized", f"Δ{name} (paired CI)"],
    )


def _backwards(study: Study, t: pd.DataFrame, note: str) -> str:
    """``note`` with the data-set categories the baseline ranks backwards (CI below 0) named: they explain a
    small r over all pairs."""
    ds = t[(t.grouping == "dataset") & (t.baseline_hi < 0)]
    if not len(ds):
        return note
    ood = set(study.settings.evaluation.out_of_domain or [])
    said = [
        f"{c} ({'held out of training' if c in ood else 'in training'}; N = {int(n)}): r = "
        f"{evaluation.interval(v, lo, hi)}"
        for c, n, v, lo, hi in ds[["category", "n", "baseline", "baseline_lo", "baseline_hi"]].itertuples(index=False)
    ]
    return (
        note
        + (" " if note else "")
        + (
            "The baseline RM ranks some test pairs backwards (r with p* below 0, its whole 95% interval "
            "too): " + "; ".join(said) + ". The r over all test pairs averages these with the others, "
            "so read it beside the per-category rows."
        )
    )


@report.section(*(f"btb_r_{k}" for k in _ESTIMATES), "btb_n_test")
def table_1(study: Study) -> report.Result:
    """Table 1 of this run: Pearson r between each model's P(A ≻ B) and p* (:func:`_table`)."""
    return _table(study, "pearson")


@report.section(*(f"btb_l1_{k}" for k in _ESTIMATES))
def table_2(study: Study) -> report.Result:
    """Table 2 of this run: mean L1 distance between each model's P(A ≻ B) and p* (:func:`_table`)."""
    return _table(study, "l1")


def _reasons(study: Study) -> dict:
    """Per (grouping, category) of Table 1, why Pearson r is undefined on its test pairs
    (:func:`pluralign.btb.readings.no_r_reason`; "" where it is defined)."""
    c = study.comparison
    keep = c.p_star.index[c.p_star.notna()]
    ps, pb, pr = (x.reindex(keep).to_numpy(float) for x in (c.p_star, c.p_baseline, c.p_regularized))
    groups = c.groups.reindex(keep)
    out = {("all", "all"): readings.no_r_reason(ps, pb, pr)}
    for g in groups.columns:
        for cat in groups[g].dropna().unique():
            m = (groups[g] == cat).to_numpy()
            out[(g, str(cat))] = readings.no_r_reason(ps[m], pb[m], pr[m])
    return out


def _row(cmp: pd.DataFrame, grouping: str, category: str) -> dict | None:
    """The Pearson row of this run's Table 1 for one grouping and category (None where this run has no such
    pairs)."""
    row = cmp[(cmp.metric == "pearson") & (cmp.grouping == grouping) & (cmp.category == category)]
    return row.iloc[0].to_dict() if len(row) else None


@report.section("btb_directions_sentence")
def directions(study: Study) -> report.Result:
    """Δ r on the groupings where the paper reports a direction (Multiple vs Single Correct, OOD vs ID),
    with paired CIs and a short verdict beside the paper's Δ (:func:`pluralign.btb.readings.delta_words`: "cannot
    speak" where the baseline does not track p* on the grouping), the contrasts the paper draws in the note."""
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    reasons = _reasons(study)
    paper_d = evaluation.paper_table1().set_index(["grouping", "category"])["delta"]
    rows, d, values = [], {}, {}
    for g, c, key in DIRECTIONS:
        r = _row(cmp, g, c)
        v, lo, hi, n = (r["delta"], r["delta_lo"], r["delta_hi"], r["n"]) if r else (np.nan, np.nan, np.nan, 0)
        b = (r["baseline"], r["baseline_lo"], r["baseline_hi"]) if r else (np.nan, np.nan, np.nan)
        d[c] = (v, lo, hi, b)
        values.update({f"btb_d_{key}": float(v), f"btb_d_{key}_lo": float(lo), f"btb_d_{key}_hi": float(hi)})
        values[f"btb_d_{key}_n"] = int(n)
        says = readings.delta_words(
            v, lo, hi, paper=float(paper_d[(g, c)]), baseline_lo=b[1],
            reason=reasons.get((g, c), readings.WORDS["no pairs"]),
        )  # fmt: skip
        values[f"btb_d_{key}_says"] = says
        rows.append(
            {
                "category": c,
                "paper Δ r": evaluation.paper_printed("Δ")[c],
                "N here": int(n),
                "baseline r here [95% CI]": evaluation.interval(*b),
                "Δ r here [95% CI]": evaluation.interval(v, lo, hi),
                "this run says": says,
            }
        )
    values["btb_directions_sentence"] = _directions_sentence(d, paper_d, values)
    said = [_difference(d, paper_d, *contrast) for contrast in _CONTRASTS]
    note = "Measured on this profile: " + " ".join(said) + "\n\n" + readings.WORDS_NOTE
    return report.Result(table=pd.DataFrame(rows).set_index("category"), note=note, values=values)


#: The groupings of :data:`DIRECTIONS` as the findings name them.
_IN_WORDS = {"multiple": "multiple-correct pairs", "single": "single-correct pairs", "id": "in-domain pairs",
             "ood": "out-of-domain pairs"}  # fmt: skip


def _directions_sentence(d: dict, paper_d: pd.Series, values: dict) -> str:
    """The findings' line on the groupings of :data:`DIRECTIONS`: per grouping, this run's Δ r with its interval
    (or that it has none), the paper's Δ and the short verdict."""
    parts = []
    for g, c, key in DIRECTIONS:
        v, lo, hi, _ = d[c]
        paper = f"the paper's {float(paper_d[(g, c)]):+.3f}"
        if np.isfinite(v):
            parts.append(
                f"on {_IN_WORDS[key]} {evaluation.interval(v, lo, hi)} ({paper}): {values[f'btb_d_{key}_says']}"
            )
        else:
            parts.append(f"on {_IN_WORDS[key]} ({paper}): {values[f'btb_d_{key}_says']}")
    return presentation.signed("; ".join(parts))


#: The contrasts of Δ the paper reports a direction for: (category a, category b, a's and b's pairs in words).
_CONTRASTS = (
    ("Multiple Correct", "Single Correct", "multiple-correct pairs", "single-correct pairs"),
    ("OOD", "ID", "out-of-domain pairs", "in-domain pairs"),
)


def _difference(d: dict, paper_d: pd.Series, a: str, b: str, a_words: str, b_words: str) -> str:
    """Δ r on ``a`` minus Δ r on ``b`` as a sentence: their difference with a 95% interval and what it says beside
    the paper's difference, or why the demo cannot speak to it (no pairs, no r, or a baseline that does not track
    p* on either grouping: :func:`pluralign.btb.readings.tracks_p_star`)."""
    (va, la, ha, ba), (vb, lb, hb, bb) = d[a], d[b]
    paper_diff = float(paper_d[(_group_of(a), a)] - paper_d[(_group_of(b), b)])
    head = f"Δ r on {a_words} minus Δ r on {b_words}"
    if not (np.isfinite(va) and np.isfinite(vb)):
        return f"{head} is not measured here: this run has no r on {a_words if not np.isfinite(va) else b_words}."
    # the two groups hold different pairs: the difference of their Δ has SE √(se_a² + se_b²)
    diff = va - vb
    se = float(np.hypot((ha - la) / 3.92, (hb - lb) / 3.92))
    lo, hi = diff - 1.96 * se, diff + 1.96 * se
    measured = f"{head} is {diff:+.3f} [{lo:+.3f}, {hi:+.3f}] (the paper's: {paper_diff:+.3f})"
    lost = [(w, bl) for w, bl in ((a_words, ba), (b_words, bb)) if not readings.tracks_p_star(bl[1])]
    if lost:
        which = " and ".join(
            f"on {w} (r = {evaluation.interval(*bl)}, {readings.where_interval(bl[1], bl[2])})" for w, bl in lost
        )
        says = f"the demo cannot speak to this contrast, because the baseline does not track p* {which}"
    else:
        says = report.verdict(diff, lo, hi, paper=paper_diff)
    return presentation.signed(f"{measured}: {says}.")


@report.section()
def beside_paper(study: Study) -> report.Result:
    """The paper's Table 1 rows beside this run's where a row of the same name exists (the paper's r baseline →
    regularized with its printed Δ in one cell, so that the table fits the text column), and a short verdict per
    row (:func:`pluralign.btb.readings.delta_words`: why a row has no r, "cannot speak" where this run's baseline
    does not track p* on it)."""
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    reasons = _reasons(study)
    pv = evaluation.paper_vs_ours(cmp[cmp.metric == "pearson"])
    pv = pv[pv.metric == "pearson"]
    b_lo = {(g, c): lo for g, c, lo in cmp[cmp.metric == "pearson"][["grouping", "category", "baseline_lo"]].to_numpy()}

    def arrow(a, b):
        return presentation.signed(f"{a:.3f} → {b:.3f}") if np.isfinite(a) and np.isfinite(b) else presentation.MISSING

    def count(x):
        return int(x) if np.isfinite(x) else presentation.MISSING

    ours = list(zip(pv["delta_ours"], pv["delta_lo_ours"], pv["delta_hi_ours"], pv["delta_paper"]))
    keys = list(zip(pv["grouping"], pv["category"]))
    show = pd.DataFrame(
        {
            "grouping": pv["grouping"].map(GROUPINGS).fillna(pv["grouping"]),
            "category": pv["category"],
            "N (paper)": pv["n_paper"].map(count),
            "r baseline → regularized (Δ) (paper)": [
                a if a == presentation.MISSING else f"{a} ({d})"
                for a, d in zip(
                    map(arrow, pv["baseline_paper"], pv["regularized_paper"]),
                    pv["category"].map(evaluation.paper_printed("Δ")).fillna(presentation.MISSING),
                )
            ],
            "N (this run)": pv["n_ours"].map(count),
            "r baseline → regularized (this run)": list(map(arrow, pv["baseline_ours"], pv["regularized_ours"])),
            "Δ r this run [95% CI]": [evaluation.interval(v, lo, hi) for v, lo, hi, _ in ours],
            "this run says": [
                readings.delta_words(
                    v, lo, hi, paper=p, baseline_lo=b_lo.get(k), reason=reasons.get(k, readings.WORDS["no pairs"])
                )
                for (v, lo, hi, p), k in zip(ours, keys)
            ],
        }
    )
    return report.Result(
        table=show.set_index(["grouping", "category"]),
        paper=evaluation.paper_table1(),
        note="The verdict words read as under the table of the paper's directions above; a row with *no r* says why.",
    )


@report.section()
def rm_vs_p_star(study: Study) -> report.Result:
    """Each reward model's P(A ≻ B) against p* on the test pairs (those with p*)."""
    provenance.require_test_p_star(study)
    c = study.comparison
    frame = pd.DataFrame({"p*": c.p_star, "baseline": c.p_baseline, "regularized": c.p_regularized})
    frame = frame[frame["p*"].notna()]
    if "kind" in c.groups:
        frame["category"] = c.groups["kind"]
    cap = (
        "Each test pair's P(A ≻ B) from the baseline (left) and the regularized model (right) against its p*, "
        "coloured by category of subjectivity; the dashed diagonal is a model that matches p* exactly; each panel's "
        "title gives its Pearson r over all test pairs with a 95% interval."
    )
    return report.Result(table=None, figure=plots.rm_vs_p_star(frame, c.table), data={"frame": frame}, caption=cap)


@report.section()
def delta_plot(study: Study, metric: str) -> report.Result:
    """Δ with its paired CI per grouping and category (with the paper's Δ for Pearson r)."""
    provenance.require_test_p_star(study)
    if metric == "pearson":
        paper_d = evaluation.paper_table1().set_index(["grouping", "category"])["delta"]
    else:
        paper_d = None
    what = "Pearson r with p*" if metric == "pearson" else "mean L1 distance to p* (lower is better)"
    cap = f"Δ = regularized − baseline in {what} per grouping and category, with its paired 95% interval" + (
        " and the paper's Δ (a cross) where Table 1 has the row." if metric == "pearson" else "."
    )
    return report.Result(table=None, figure=plots.delta_by_group(study.comparison.table, metric, paper_d), caption=cap)

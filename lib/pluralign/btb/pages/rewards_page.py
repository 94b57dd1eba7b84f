"""The page "Margin-regularized reward models against the aggregate preference" (Beyond the Binary §3.3–3.4,
Eqs. 1 and 4, Tables 1–2, footnote 6): its sections as functions of the study."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.btb import decidability, evaluation, plots
from pluralign.btb.comparison import NO_CATEGORY
from pluralign.btb.pages import provenance
from pluralign.btb.training import LR_SWEEP
from pluralign.data.spec import split

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
    "paper_sized_check",
    "decidable_size",
    "training_size_sweep",
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
    lrs = [float(v) for v in study.settings.training["lr_sweep"]]
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
    if not bad:
        return report.Result(table=None, figure=plots.training_margins(m), data={"margins": m})
    note = (
        f"{bad:,} of {len(m):,} training pairs have no parseable judgment and so no margin (Eq. 3); they are "
        "trained with a margin of 0, as plain Bradley–Terry pairs."
    )
    if bad == len(m):  # every margin is the fill value: nothing to plot, and Eq. 4 is Eq. 1 on this run
        said = " No pair has a margin, so the regularized model is trained with the baseline's loss on this run."
        return report.Result(table=None, note=report.warning(note + said), data={"margins": m})
    return report.Result(table=None, figure=plots.training_margins(m), note=note, data={"margins": m})


@report.section("btb_lr_base", "btb_lr_reg")
def learning_rate_sweep(study: Study) -> report.Result:
    """Footnote 6: validation accuracy and loss per learning rate and objective, the selected ones."""
    s = study.comparison.sweeps
    sel = s[s["selected"]].set_index("objective")["lr"]
    return report.Result(
        table=s.round(4), values={"btb_lr_base": float(sel.iloc[0]), "btb_lr_reg": float(sel.loc["bt-margin"])}
    )


def _table(study: Study, metric: str) -> report.Result:
    """Table 1 (``metric="pearson"``) or Table 2 (``"l1"``) of this run: baseline, regularized and Δ with
    95% (paired) bootstrap CIs per grouping and category; the values over all test pairs."""
    key = {"pearson": "r", "l1": "l1"}[metric]
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    t = cmp[cmp.metric == metric]
    labels = (("baseline", "baseline"), ("regularized", "regularized"), ("Δ (paired CI)", "delta"))
    out = pd.DataFrame(
        {
            "grouping": t.grouping,
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
    return report.Result(table=out, forest=_forest(t, paper, metric), paper=paper, values=values, note=note)


def _forest(t: pd.DataFrame, paper: pd.DataFrame | None, metric: str):
    """Table 1 or 2 of this run as a forest plot: baseline, regularized and Δ per grouping and category with
    their CIs, the paper's value where it reports the same category (Table 1 only)."""
    rows = t.set_index(["grouping", "category"])
    if paper is not None:
        p = paper.set_index(["grouping", "category"])[["baseline", "regularized", "delta"]]
        rows = rows.join(p.add_suffix(" (paper)"), how="left")
    name = {"pearson": "r", "l1": "L1"}[metric]  # short: three panels share the column's width
    return report.forest_plot(
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
    ood = set(study.settings.evaluation["out_of_domain"] or [])
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


@report.section()
def directions(study: Study) -> report.Result:
    """Δ r on the groupings where the paper reports a direction (Multiple vs Single Correct, OOD vs ID),
    with paired CIs and what each says, beside the paper's Δ."""
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    paper_d = evaluation.paper_table1().set_index(["grouping", "category"])["delta"]
    rows, d, values = [], {}, {}
    for g, c, key in DIRECTIONS:
        row = cmp[(cmp.metric == "pearson") & (cmp.grouping == g) & (cmp.category == c)]
        v, lo, hi, n = row[["delta", "delta_lo", "delta_hi", "n"]].iloc[0].tolist() if len(row) else [np.nan] * 3 + [0]
        d[c] = (v, lo, hi)
        values.update({f"btb_d_{key}": float(v), f"btb_d_{key}_lo": float(lo), f"btb_d_{key}_hi": float(hi)})
        values[f"btb_d_{key}_n"] = int(n)
        paper = float(paper_d[(g, c)])
        rows.append(
            {
                "category": c,
                "paper Δ r": evaluation.paper_printed("Δ")[c],
                "N here": int(n),
                "Δ r here [95% CI]": evaluation.interval(v, lo, hi),
                "here": report.verdict(v, lo, hi, n=int(n), paper=paper, missing="no such pairs on this profile"),
            }
        )
    said = [_difference(d, paper_d, *pair) for pair in _CONTRASTS]
    note = "Measured on this profile: " + "; ".join(said) + "."
    return report.Result(table=pd.DataFrame(rows).set_index("category"), note=note, values=values)


#: The contrasts of Δ the paper reports a direction for: (category a, category b, how the page says it).
_CONTRASTS = (
    ("Multiple Correct", "Single Correct", "on multiple-correct than on single-correct pairs"),
    ("OOD", "ID", "out-of-domain than in-domain"),
)


def _difference(d: dict, paper_d: pd.Series, a: str, b: str, what: str) -> str:
    """Δ on ``a`` against Δ on ``b`` (their difference with a 95% interval and a verdict beside the paper's)."""
    (va, la, ha), (vb, lb, hb) = d[a], d[b]
    if not (np.isfinite(va) and np.isfinite(vb)):
        return f"{a} vs {b}: not comparable (no {a if not np.isfinite(va) else b} pairs here)"
    # the two groups hold different pairs: the difference of their Δ has SE √(se_a² + se_b²)
    diff = va - vb
    se = float(np.hypot((ha - la) / 3.92, (hb - lb) / 3.92))
    paper_diff = float(paper_d[(_group_of(a), a)] - paper_d[(_group_of(b), b)])
    says = report.verdict(diff, diff - 1.96 * se, diff + 1.96 * se, paper=paper_diff)
    return report.signed(
        f"Δ {what}: {va:+.3f} vs {vb:+.3f}, difference {diff:+.3f} "
        f"[{diff - 1.96 * se:+.3f}, {diff + 1.96 * se:+.3f}] (the paper: {paper_diff:+.3f}) — {says}"
    )


@report.section()
def beside_paper(study: Study) -> report.Result:
    """The paper's Table 1 rows beside this run's where a row of the same name exists."""
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    pv = evaluation.paper_vs_ours(cmp[cmp.metric == "pearson"])
    pv = pv[pv.metric == "pearson"]

    def arrow(a, b):
        return report.signed(f"{a:.3f} → {b:.3f}") if np.isfinite(a) and np.isfinite(b) else report.MISSING

    def count(x):
        return int(x) if np.isfinite(x) else report.MISSING

    ours = list(zip(pv["delta_ours"], pv["delta_lo_ours"], pv["delta_hi_ours"], pv["n_ours"], pv["delta_paper"]))
    show = pd.DataFrame(
        {
            "grouping": pv["grouping"],
            "category": pv["category"],
            "N (paper)": pv["n_paper"].map(count),
            "r baseline → regularized (paper)": list(map(arrow, pv["baseline_paper"], pv["regularized_paper"])),
            "Δ r (paper)": pv["category"].map(evaluation.paper_printed("Δ")).fillna(report.MISSING),
            "N (this run)": pv["n_ours"].map(count),
            "r baseline → regularized (this run)": list(map(arrow, pv["baseline_ours"], pv["regularized_ours"])),
            "Δ r this run [95% CI]": [evaluation.interval(v, lo, hi) for v, lo, hi, _, _ in ours],
            "this run says": [
                report.verdict(
                    v,
                    lo,
                    hi,
                    n=int(n) if np.isfinite(n) else None,
                    paper=p,
                    missing="no such pairs on this profile"
                    if not np.isfinite(n)
                    else "too few pairs for a correlation (N < 10)",
                )
                for v, lo, hi, n, p in ours
            ],
        }
    )
    return report.Result(table=show.set_index(["grouping", "category"]), paper=evaluation.paper_table1())


@report.section("btb_small_width", "btb_small_n")
def paper_sized_check(study: Study) -> report.Result:
    """The same comparison on a random test subset of the paper's size (``paper_sized_check`` pairs):
    how wide the paired interval of Δ is at that size (drawn from the test pairs that have p*)."""
    provenance.require_test_p_star(study)
    c, size = study.comparison, int(study.settings.evaluation["paper_sized_check"])
    cmp = c.table
    tid = c.p_star.index[c.p_star.notna()]
    allr = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    if not (size and size < len(tid)):  # the test set is already of the paper's size (or smaller)
        width, n = float(allr["delta_hi"] - allr["delta_lo"]), int(allr["n"])
        if not np.isfinite(width):
            raise provenance.no_r_interval(n, {"btb_small_n": n})
        return report.Result(table=None, values={"btb_small_width": width, "btb_small_n": n})
    _, small = split(c.splits.test.subset(tid), size, study.seed)
    sid = small.pairs["pair_id"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=NO_CATEGORY)
        small_cmp = evaluation.compare(
            c.p_star.reindex(sid),
            c.p_baseline.reindex(sid),
            c.p_regularized.reindex(sid),
            by=c.groups.reindex(sid),
            n_boot=study.settings.evaluation["n_boot"],
            seed=study.seed,
        )
    both = pd.concat(
        [cmp.assign(test_set=f"all {len(tid)} test pairs"), small_cmp.assign(test_set=f"random {size}")],
        ignore_index=True,
    )
    both = both[both.grouping.isin(["all", "kind", "domain", "distinguishability"])]
    both["Δ CI width"] = both["delta_hi"] - both["delta_lo"]
    table = both.pivot_table(
        index=["metric", "grouping", "category"],
        columns="test_set",
        values=["n", "delta", "Δ CI width"],
        aggfunc="first",
    ).round(3)
    w = small_cmp[(small_cmp.grouping == "all") & (small_cmp.metric == "pearson")].iloc[0]
    if not np.isfinite(w["delta_hi"] - w["delta_lo"]):
        raise provenance.no_r_interval(int(w["n"]), {"btb_small_n": int(w["n"])})
    return report.Result(
        table=table, values={"btb_small_width": float(w["delta_hi"] - w["delta_lo"]), "btb_small_n": int(w["n"])}
    )


@report.section("btb_decide_delta", "btb_decide_n_paper", "btb_decide_n_here", "btb_decide_says")
def decidable_size(study: Study) -> report.Result:
    """At what test size the paper's central claim (Table 1: margin regularization raises Pearson r with p*) is
    decidable here: the paired 95 % interval of Δ r over all test pairs narrows as 1/√N (:func:`report.n_needed`),
    so the paper's median Δ of Table 1 is told from 0 at about ``n · (half-width / Δ)²`` test pairs, and this
    run's own Δ at its own such N; the sentence says whether this run rules out an effect of the paper's size,
    sees one, or cannot tell — or that the baseline does not track p* (its r's interval contains 0). No estimate
    where Δ r has no interval (r is undefined on under two pairs, or where scores or p* do not vary)."""
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    r = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    n, lo, hi, est = int(r["n"]), float(r["delta_lo"]), float(r["delta_hi"]), float(r["delta"])
    if not np.isfinite([est, lo, hi]).all():
        raise provenance.no_r_interval(n)
    paper = evaluation.paper_median_delta()
    half = (hi - lo) / 2
    n_paper = int(np.ceil(n * (half / paper) ** 2))
    here = report.n_needed(est, lo, hi, n) if not (lo > 0 or hi < 0) else None
    b, b_lo, b_hi = (float(r[k]) for k in ("baseline", "baseline_lo", "baseline_hi"))
    if b_lo <= 0:  # the plain BT model does not track p* here: a Δ between two such models says little
        says = (
            f"the baseline's own r with p* is {report.fmt_interval(b, b_lo, b_hi, 3)}, its interval containing 0: "
            "these reward models do not track p* on this population, so the size that would decide the claim is "
            "the training set's (models that track p* at all), not the test set's: the sweep below varies it"
        )
    elif hi < paper:
        says = (
            f"its interval already excludes an improvement as large as the paper's median Δ ({paper:.3f}): on this "
            "population, with these reward models, the paper's effect size is ruled out, not merely unseen"
        )
    elif lo > 0:
        says = "its interval excludes 0: the improvement the paper reports is seen here"
    else:
        says = (
            f"its interval contains both 0 and the paper's median Δ ({paper:.3f}): the demo is too small to decide, "
            f"and about {n_paper:,} test pairs would be needed"
        )
    values = {
        "btb_decide_delta": paper,
        "btb_decide_n_paper": n_paper,
        "btb_decide_n_here": f"{here:,}" if here else "— (its interval already excludes 0)",
        "btb_decide_says": says,
    }
    return report.Result(table=None, values=values)


def _sweep_skipped(study: Study) -> str:
    """Why :func:`training_size_sweep` does not apply to ``study`` ("" when it does): it draws training sets and
    judge votes from the page's simulator and simulated judge, and reads the test pairs' planted features."""
    specs, s = study.settings.data, study.settings
    simulated = len(specs) == 1 and isinstance(specs[0], dict) and "simulate" in specs[0]
    if simulated and not s.evaluation["test_only"] and s.judge["from"] == "simulated":
        return ""
    return (
        "the training-size sweep draws fresh training sets from a simulated population and votes from the "
        "simulated judge, and tests on pairs of the same simulator; this profile's data, test pairs or judge are "
        "not simulated."
    )


@report.section("btb_sweep_draws", "btb_sweep_sizes", "btb_sweep_decide", "btb_sweep_says", "btb_sweep_noise_says")
def training_size_sweep(study: Study) -> report.Result:
    """At what training size the claim of Table 1 is decidable on the page's simulated population
    (:mod:`pluralign.btb.decidability`): Δ r with its interval over fresh training sets along the training size
    (at the page's judge noise) and along the judge's noise (at the largest size), over all test pairs and the
    in-domain ones, beside the paper's median Δ; the smallest size from which every larger one decides."""
    why = _sweep_skipped(study)
    if why:
        return report.Result(table=None, skipped=why)
    provenance.require_test_p_star(study)
    s, c = study.settings, study.comparison
    paper, noise = evaluation.paper_median_delta(), float(s.judge["noise"])
    fits = decidability.sweep(
        s.data[0],
        c.splits.everything.truth,
        c.p_star,
        ood_by=s.evaluation["ood_by"],
        noise=noise,
        n=int(s.judge["n"]),
        sizes=decidability.SIZES,
        noises=decidability.NOISES,
        draws=decidability.DRAWS,
        seed=study.seed,
    )
    big = max(decidability.SIZES)
    sizes = decidability.summary(fits, "training pairs", paper, **{"judge noise": noise})
    noises = decidability.summary(fits, "judge noise", paper, **{"training pairs": big}).sort_values(
        "judge noise", kind="stable"
    )
    decide = "; ".join(
        f"{t}: the sign of Δ from {_from(decidability.decidable_at(g, 'sign'), big)}, an effect of the paper's "
        f"size ruled out from {_from(decidability.decidable_at(g, 'paper'), big)}"
        for t, g in sizes.groupby("test", sort=False)
    )
    rows = pd.concat(
        [
            sizes.assign(step=sizes["training pairs"].map("N = {:,}".format)),
            noises.assign(step=noises["judge noise"].map(f"noise {{:g}}, N = {big:,}".format)),
        ],
        ignore_index=True,
    ).assign(paper=paper)
    table, forest = _sweep_table(rows)
    last = sizes[sizes["training pairs"] == big]
    values = {
        "btb_sweep_draws": decidability.DRAWS,
        "btb_sweep_sizes": f"{min(decidability.SIZES):,} to {big:,}",
        "btb_sweep_decide": decide,
        "btb_sweep_says": "; ".join(
            f"{r['test']}: Δ r = {evaluation.interval(r['Δ r'], r['Δ r low'], r['Δ r high'])} at {big:,} training "
            f"pairs, where the Eq. 1 model's r is {r['r Eq. 1']:.3f} — {r['says']}"
            for _, r in last.iterrows()
        ),
        "btb_sweep_noise_says": "; ".join(
            report.signed(f"{t}: " + ", ".join(f"{z:g} → {v:+.3f}" for z, v in zip(g["judge noise"], g["Δ r"])))
            + f" ({_signs(g)})"
            for t, g in noises.groupby("test", sort=False)
        ),
    }
    note = (
        f"Each row: {decidability.DRAWS} fresh training sets of the simulator's population, the test pairs this "
        "page's; Δ r = r(Eq. 4) − r(Eq. 1), its 95% interval a t interval over the training sets. The paper's "
        "marker is its median Δ r over the Table 1 rows that improve."
    )
    return report.Result(table=table, forest=forest, note=note, values=values, data={"fits": fits})


#: the sweep's test sets as its table's column groups name them
_SWEEP_TESTS = {"all test pairs": "all test pairs", "in-domain test pairs": "in-domain"}


def _sweep_table(rows: pd.DataFrame):
    """The sweep's summary rows as the page's table (a row per step; a column group per test set: the Eq. 1
    model's r and Δ r with its interval) and its forest plot of Δ r, one panel per test set."""
    wide = (
        rows.assign(test=rows["test"].map(_SWEEP_TESTS))
        .pivot_table(index="step", columns="test", values=["r Eq. 1", "Δ r", "Δ r low", "Δ r high"], sort=False)
        .rename_axis("training pairs N, judge noise")
    )
    tests = [t for t in _SWEEP_TESTS.values() if t in set(wide.columns.get_level_values("test"))]
    table = pd.DataFrame(
        {
            **{
                col: v
                for t in tests
                for col, v in (
                    ((t, "r Eq. 1"), wide[("r Eq. 1", t)].round(3)),
                    (
                        (t, "Δ r [95% CI]"),
                        [
                            evaluation.interval(*x)
                            for x in wide[[("Δ r", t), ("Δ r low", t), ("Δ r high", t)]].to_numpy()
                        ],
                    ),
                )
            }
        },
        index=wide.index,
    )
    flat = pd.DataFrame(
        {f"{k} {t}": wide[(k, t)] for t in tests for k in ("Δ r", "Δ r low", "Δ r high")}, index=wide.index
    ).assign(paper=float(rows["paper"].iloc[0]))
    forest = report.forest_plot(
        flat,
        estimate=[f"Δ r {t}" for t in tests],
        low=[f"Δ r low {t}" for t in tests],
        high=[f"Δ r high {t}" for t in tests],
        paper=["paper"] * len(tests),
        xlabel=[f"Δ r, {t}" for t in tests],
    )
    return table, forest


def _from(size: int | None, largest: int) -> str:
    """A decidable size as the page says it."""
    if not size:
        return f"— (not even at {largest:,})"
    return f"{size:,} training pairs" + (" (the smallest swept)" if size == min(decidability.SIZES) else "")


def _signs(g: pd.DataFrame) -> str:
    """Whether the intervals along the judge's noise agree on the sign of Δ."""
    seen = {"above" if "above" in x else "below" if "below" in x else "none" for x in g["says"]}
    if seen == {"below"}:
        return "below 0 at every noise"
    if seen == {"above"}:
        return "above 0 at every noise"
    return "the sign is not settled at every noise"


@report.section()
def rm_vs_p_star(study: Study) -> report.Result:
    """Each reward model's P(A ≻ B) against p* on the test pairs (those with p*)."""
    provenance.require_test_p_star(study)
    c = study.comparison
    frame = pd.DataFrame({"p*": c.p_star, "baseline": c.p_baseline, "regularized": c.p_regularized})
    frame = frame[frame["p*"].notna()]
    if "kind" in c.groups:
        frame["category"] = c.groups["kind"]
    return report.Result(table=None, figure=plots.rm_vs_p_star(frame, c.table), data={"frame": frame})


@report.section()
def delta_plot(study: Study, metric: str) -> report.Result:
    """Δ with its paired CI per grouping and category (with the paper's Δ for Pearson r)."""
    provenance.require_test_p_star(study)
    if metric == "pearson":
        paper_d = evaluation.paper_table1().set_index(["grouping", "category"])["delta"]
    else:
        paper_d = None
    return report.Result(table=None, figure=plots.delta_by_group(study.comparison.table, metric, paper_d))

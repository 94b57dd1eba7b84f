"""The sections of the decidability study on the page "Margin-regularized reward models against the aggregate
preference" (``notebooks/btb_rewards.py``; Beyond the Binary, Table 1): is the paper's claim — margin regularization
(Eq. 4) raises Pearson r with p* over the Bradley–Terry baseline (Eq. 1) — decidable from this run? Three sections,
shown on that page (:mod:`.rewards_page`): the same comparison on a test set of the paper's size, the test size at
which the paper's median Δ would be told from 0, and the training size at which Δ r is decided on the simulated
population (:mod:`pluralign.btb.decidability`)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pluralign import presentation, report
from pluralign.btb import decidability, evaluation, provenance, readings
from pluralign.btb.comparison import NO_CATEGORY
from pluralign.btb.readings import GROUPINGS
from pluralign.data.spec import split
from pluralign.forest import forest_plot

if TYPE_CHECKING:
    from pluralign.btb.study import Study

__all__ = ["paper_sized_check", "decidable_size", "training_size_sweep"]


@report.section("btb_small_width", "btb_small_n")
def paper_sized_check(study: Study) -> report.Result:
    """The same comparison on a random test subset of the paper's size (``paper_sized_check`` pairs):
    how wide the paired interval of Δ is at that size (drawn from the test pairs that have p*)."""
    provenance.require_test_p_star(study)
    c, size = study.comparison, int(study.settings.evaluation.paper_sized_check)
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
            n_boot=study.settings.evaluation.n_boot,
            seed=study.seed,
        )
    both = pd.concat(
        [cmp.assign(test_set=f"all {len(tid)}"), small_cmp.assign(test_set=f"random {size}")], ignore_index=True
    )
    both = both[both.grouping.isin(["all", "kind", "domain", "distinguishability"])]
    both["Δ CI width"] = both["delta_hi"] - both["delta_lo"]
    both = both.assign(
        metric=both["metric"].map({"pearson": "Pearson r", "l1": "L1"}),
        grouping=both["grouping"].map(GROUPINGS).fillna(both["grouping"]),
    ).rename(columns={"n": "N", "delta": "Δ", "test_set": "test set"})
    table = both.pivot_table(
        index=["metric", "grouping", "category"],
        columns="test set",
        values=["N", "Δ", "Δ CI width"],
        aggfunc="first",
        sort=False,
    )
    for col in table.columns:  # Δ and its width at a correlation's 3 decimals, every row alike
        if col[0] != "N":
            table[col] = [presentation.fmt_fixed(v, 3) if v == v else presentation.MISSING for v in table[col]]
    table.columns = [f"{what}, {where}" for what, where in table.columns]  # one header row: N is N
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
    run's own Δ at its own such N. ``btb_decide_says`` is what the intervals show, with their numbers: the baseline's
    own r with p* containing 0 (these models do not track p*), else Δ r's interval excluding an effect of the
    paper's size, excluding 0, or containing both (what each means is the page's prose). No estimate where Δ r has
    no interval (r is undefined on under two pairs, or where scores or p* do not vary)."""
    provenance.require_test_p_star(study)
    cmp = study.comparison.table
    r = cmp[(cmp.grouping == "all") & (cmp.metric == "pearson")].iloc[0]
    n, lo, hi, est = int(r["n"]), float(r["delta_lo"]), float(r["delta_hi"]), float(r["delta"])
    if not np.isfinite([est, lo, hi]).all():
        raise provenance.no_r_interval(
            n, {"btb_decide_says": "Δ r has no interval on this run (the warning below says why)"}
        )
    paper = evaluation.paper_median_delta()
    half = (hi - lo) / 2
    n_paper = int(np.ceil(n * (half / paper) ** 2))
    b, b_lo, b_hi = (float(r[k]) for k in ("baseline", "baseline_lo", "baseline_hi"))
    values = {
        "btb_decide_delta": paper,
        "btb_decide_n_paper": n_paper,
        "btb_decide_n_here": _own_size(est, lo, hi, n),
        "btb_decide_says": _decide_says(est, lo, hi, paper, (b, b_lo, b_hi)),
    }
    return report.Result(table=None, values=values)


def _own_size(est: float, lo: float, hi: float, n: int) -> str:
    """The clause on this run's own Δ r: at about what test size its interval would exclude 0
    (:func:`pluralign.report.n_needed`), or that it already does, or that an estimate of 0 is never told from 0."""
    if lo > 0 or hi < 0:
        return presentation.signed(f"this run's own Δ r ({est:+.3f}) already has an interval that excludes 0")
    need = report.n_needed(est, lo, hi, n)
    if need is None:
        return presentation.signed(f"this run's own Δ r is {est:+.3f}, which no test size tells from 0")
    return presentation.signed(f"this run's own Δ r ({est:+.3f}) would be told from 0 at about {need:,}")


def _decide_says(est: float, lo: float, hi: float, paper: float, baseline: tuple) -> str:
    """What the intervals over all test pairs show, with their numbers: the baseline's own r with p* not above 0 (the
    demo cannot speak to the claim: :func:`pluralign.btb.readings.tracks_p_star`), else Δ r's interval below an effect
    of the paper's size, above 0, or containing both."""
    if not readings.tracks_p_star(baseline[1]):
        return (
            f"the baseline's own r with p* is {presentation.fmt_interval(*baseline, 3)}, "
            f"{readings.where_interval(baseline[1], baseline[2])}: these reward models do not track p* here, so no "
            "test size lets the demo speak to the claim"
        )
    if hi < paper:
        return f"its interval already excludes an improvement as large as the paper's median Δ ({paper:.3f})"
    if lo > 0:
        return "its interval excludes 0"
    return f"its interval contains both 0 and the paper's median Δ ({paper:.3f})"


def _sweep_skipped(study: Study) -> str:
    """Why :func:`training_size_sweep` does not apply to ``study`` ("" when it does): it draws training sets and
    judge votes from the page's simulator and simulated judge, and reads the test pairs' planted features."""
    specs, s = study.settings.data, study.settings
    simulated = len(specs) == 1 and specs[0].simulate is not None
    if simulated and not s.evaluation.test_only and s.judge.source == "simulated":
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
        said = "The training-size sweep does not run on this profile: its data, test pairs or judge are not simulated."
        return report.Result(table=None, skipped=why, values={"btb_sweep_decide": said})
    provenance.require_test_p_star(study)
    s, c = study.settings, study.comparison
    paper, noise = evaluation.paper_median_delta(), float(s.judge.noise)
    fits = decidability.sweep(
        s.data[0],
        c.splits.everything.truth,
        c.p_star,
        ood_by=s.evaluation.ood_by,
        noise=noise,
        n=int(s.judge.n),
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
    decide = " ".join(_decided(t, g, big) for t, g in sizes.groupby("test", sort=False))
    rows = pd.concat(
        [
            sizes.assign(step=sizes["training pairs"].map("{:,}".format)),
            noises.assign(step=noises["judge noise"].map(f"{big:,} (judge noise {{:g}})".format)),
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
            f"pairs, where the Eq. 1 model's r is {r['r Eq. 1']:.3f}: {r['says']}"
            for _, r in last.iterrows()
        ),
        "btb_sweep_noise_says": "; ".join(
            presentation.signed(f"{t}: " + ", ".join(f"{z:g} → {v:+.3f}" for z, v in zip(g["judge noise"], g["Δ r"])))
            + f" ({_signs(g)})"
            for t, g in noises.groupby("test", sort=False)
        ),
    }
    cap = (
        "Δ r = r(Eq. 4) − r(Eq. 1) per training size (and, at the largest, per judge noise) with its 95% t interval "
        "over the fresh training sets, on all test pairs and on the in-domain ones; the open diamond is the paper's "
        "median Δ r of the Table 1 rows that improve."
    )
    return report.Result(table=table, forest=forest, values=values, data={"fits": fits}, forest_caption=cap)


#: the sweep's test sets as its table's column groups name them
_SWEEP_TESTS = {"all test pairs": "all test pairs", "in-domain test pairs": "in-domain"}


def _sweep_table(rows: pd.DataFrame):
    """The sweep's summary rows as the page's table (a row per step; a column group per test set: the Eq. 1
    model's r and Δ r with its interval) and its forest plot of Δ r, one panel per test set."""
    wide = (
        rows.assign(test=rows["test"].map(_SWEEP_TESTS))
        .pivot_table(index="step", columns="test", values=["r Eq. 1", "Δ r", "Δ r low", "Δ r high"], sort=False)
        .rename_axis("training-set size (judge noise)")
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
    forest = forest_plot(
        flat,
        estimate=[f"Δ r {t}" for t in tests],
        low=[f"Δ r low {t}" for t in tests],
        high=[f"Δ r high {t}" for t in tests],
        paper=["paper"] * len(tests),
        xlabel=[f"Δ r, {t}" for t in tests],
    )
    return table, forest


def _decided(test: str, g: pd.DataFrame, largest: int) -> str:
    """What the sweep decides on one test set, as a sentence: from which training size on the sign of Δ r is settled
    and from which Δ r's interval lies clear of the paper's median Δ (:func:`pluralign.btb.decidability.decidable_at`),
    or that no swept size does."""

    def at(size: int | None) -> str:
        if not size:
            return f"at no size up to {largest:,} training pairs"
        return f"from {size:,} training pairs" + (" (the smallest swept)" if size == min(decidability.SIZES) else "")

    clear = decidability.decidable_at(g, "paper")
    side = ""
    if clear:
        says = g.loc[g["training pairs"] == largest, "says"].iloc[0]
        side = " (below it)" if "below the paper's" in says else " (above it)" if "above the paper's" in says else ""
    return (
        f"On {test}, the sign of Δ r is settled {at(decidability.decidable_at(g, 'sign'))}, and its interval lies "
        f"clear of the paper's median Δ{side} {at(clear)}."
    )


def _signs(g: pd.DataFrame) -> str:
    """Whether the intervals along the judge's noise agree on the sign of Δ."""
    seen = {"above" if "above" in x else "below" if "below" in x else "none" for x in g["says"]}
    if seen == {"below"}:
        return "below 0 at every noise"
    if seen == {"above"}:
        return "above 0 at every noise"
    return "the sign is not settled at every noise"

"""The sections of the page "Reward models make decisive decisions over divisive preferences" (Diverging
Preferences §3, App. A and Table 2): the reward models trained, Table 2 beside the paper's, and each model's
decisiveness pair by pair."""

from __future__ import annotations

import pandas as pd

from pluralign import paper, presentation, profiles, report
from pluralign.diverging import plots
from pluralign.diverging import reward_models as rmod
from pluralign.diverging import table2_claim as claim
from pluralign.diverging import table2_paper as t2p
from pluralign.diverging.study import Study
from pluralign.report import Result

__all__ = ["reward_models", "table2", "level_or_not", "decisiveness"]


@report.section()
def reward_models(study: Study) -> Result:
    """Training, validation and held-out pairs per data set, the models trained and the training instances
    per model (BT drops ties: a pair whose majority is a tie for Agg, each tie judgment for All)."""
    runs = study.runs
    table = pd.DataFrame(
        {
            name: {
                "training pairs": len(r.train.pairs),
                "validation pairs": len(r.validation.pairs),
                "held-out pairs": len(r.heldout.pairs),
                "models": ", ".join(r.models),
                "not trained": ", ".join(r.skipped) or "—",
            }
            for name, r in runs.items()
        }
    ).T
    inst = pd.DataFrame(
        {
            (name, m): {"training instances": model.info.get("n_instances"), **model.dropped}
            for name, r in runs.items()
            for m, model in r.models.items()
        }
    ).T
    inst = inst.fillna(0).astype(int).rename_axis(["data set", "model"])
    note = (
        study.loading_line() + "\n\n"
        "Training instances per model (BT drops ties: a pair whose majority is a tie or a split for Agg, "
        "each tie judgment for All; MSE (Agg) on the majority vote drops the split pairs, which have no "
        "majority):\n\n" + presentation.present_markdown(inst)
    )
    note += "".join(
        f"\n\n*{name}: {m} is not trained — {why}.*" for name, r in runs.items() for m, why in r.skipped.items()
    )
    return Result(table=table, note=note, data={"instances": inst})


def _key(column: str) -> str:
    return column.replace(" ", "").replace("(", "_").replace(")", "")


@report.section(
    "t2_name",
    "t2_paper_sum",
    "t2_BT_Agg_hap",
    "t2_BT_Agg_div",
    "t2_BT_All_hap",
    "t2_BT_All_div",
    "t2_paper_BT_Agg_hap",
    "t2_paper_BT_Agg_div",
    "t2_paper_BT_All_hap",
    "t2_paper_BT_All_div",
)
def table2(study: Study) -> Result:
    """Table 2: per data set and agreement subset of the held-out pairs, the count and each model's mean
    P(chosen ≻ rejected) (BT) or r_chosen − r_rejected (MSE) with a 95% bootstrap CI, beside the paper's."""
    s = study.settings
    table, raw, notes = t2p.table2_beside_paper(
        study.runs, n_boot=s.n_boot, seed=study.seed, paper_reference=s.paper_reference
    )
    first = next(iter(raw))
    t = raw[first]
    counts = rmod.paper_table2("multipref")["# Ex."]  # MultiPref's: the first three rows < All Examples
    values = {
        "t2_name": first,
        "t2_paper_sum": " + ".join(str(int(v)) for v in counts.iloc[:3]) + f" < {int(counts.iloc[-1])}",
    }
    try:
        printed = rmod.paper_table2(first, s.paper_reference, printed=True)
    except KeyError:
        printed = None
    for col in ("BT (Agg)", "BT (All)"):
        values[f"t2_{_key(col)}_hap"] = float(t.loc["High-Agreement Prefs.", col])
        values[f"t2_{_key(col)}_div"] = float(t.loc["Diverging Prefs. (All)", col])
        for row, k in (("High-Agreement Prefs.", "hap"), ("Diverging Prefs. (All)", "div")):
            has = printed is not None and col in printed and isinstance(printed.loc[row, col], str)
            values[f"t2_paper_{_key(col)}_{k}"] = f"the paper's {printed.loc[row, col]}" if has else "no paper value"
    if any("MSE (Agg)" in r.models for r in study.runs.values()):
        notes.append(f"*MSE (Agg) is trained on {rmod.MSE_AGGREGATES[s.mse_aggregate][1]}.*")
    values["t2_mse_aggregate"] = s.mse_aggregate
    n_train = len(next(iter(study.runs.values())).train.pairs)
    notes += profiles.stand_ins(study.profile, "diverging.rewards.table2", head=study.head, n=n_train)
    long = t2p.table2_long(study.runs, raw, n_boot=s.n_boot, seed=study.seed, paper_reference=s.paper_reference)
    return Result(
        table=table,
        forest=plots.table2_forest(long),
        forest_caption=(
            "Table 2 as a forest plot: per model, each subset's mean P(chosen ≻ rejected) (BT) or r(chosen) − "
            "r(rejected) (MSE) with its 95% interval, the paper's value as an open diamond and, on simulated pairs, "
            "the population's own as a cross; the dotted line is no preference."
        ),
        note="\n\n".join(notes),
        values=values,
        paper=paper.numbers("diverging", "Table 2"),
        data={"table2": raw},
    )


@report.section("t2c_name", "t2c_sentence", "t2c_mse", "t2c_claim", "t2c_n_high", "t2c_n_div")
def level_or_not(study: Study) -> Result:
    """Table 2's claim answered from this run (:func:`pluralign.diverging.table2_claim.table2_claim`): per data set
    and model, Table 2's measure on high-agreement preferences minus on diverging pairs with its 95% interval, the
    paper's own gap beside it, and what each says; the first data set's reading as a sentence for the page."""
    s = study.settings
    c = claim.table2_claim(study.runs, n_boot=s.n_boot, seed=study.seed, paper_reference=s.paper_reference)
    table = pd.DataFrame(
        {
            "gap, high-agreement − diverging [95% CI]": [
                presentation.fmt_interval(g, lo, hi, 3) for g, lo, hi in c[["gap", "lo", "hi"]].to_numpy()
            ],
            "gap (paper)": [f"{v:.3f}" if v == v else "n/a" for v in c["paper gap"]],
            "this run says": c["says"],
            "the paper's gap says": [w if v == v else "n/a" for w, v in zip(c["paper says"], c["paper gap"])],
        },
        index=c.index,
    ).map(presentation.signed)
    first = c.index.get_level_values(0)[0]
    rows = c.loc[first]
    sentence = "; ".join(claim.model_sentence(m, r) for m, r in rows.iterrows())
    verdict = claim.claim_says(rows)
    mse = c[~c["probability"]]
    if len(mse):
        mse_sentence = "; ".join(
            f"on {d}, " + claim.model_sentence(m, r, " Likert points") for (d, m), r in mse.iterrows()
        )
    else:
        mse_sentence = "no MSE model is trained on this profile's data (MSE regression needs Likert scores)"
    note = (
        f"The gap is Table 2's measure on the held-out high-agreement preferences minus on the diverging pairs "
        f"(on {first}: {int(rows['high-agreement pairs'].iloc[0]):,} and {int(rows['diverging pairs'].iloc[0]):,} "
        "pairs), with a 95% bootstrap interval; the paper's is the difference of its two printed rows. A "
        f"Bradley-Terry model reads *level* when its whole interval lies within ±{claim.LEVEL:g} of 0 in P(chosen ≻ "
        "rejected), the band the {ref}`recovery page <recovery>` uses for this claim; *less* (or *more*) *decisive on "
        "diverging* when the interval lies above (below) 0 and leaves that band; *inconclusive* otherwise. An MSE "
        "model's gap is in Likert points, where no band is set: it reads by its sign alone. The paper's gap is read "
        "by the same rule as a point. Table 2's claim (every Bradley-Terry model level, even trained on all labels) "
        f"{verdict} on {first}."
    )
    values = {
        "t2c_name": first,
        "t2c_sentence": sentence,
        "t2c_mse": mse_sentence,
        "t2c_claim": verdict,
        "t2c_n_high": int(rows["high-agreement pairs"].iloc[0]),
        "t2c_n_div": int(rows["diverging pairs"].iloc[0]),
    }
    return Result(table=table, note=note, values=values, data={"claim": c})


@report.section()
def decisiveness(study: Study) -> Result:
    """Per held-out pair and model, P(chosen ≻ rejected) (BT) or r_chosen − r_rejected (MSE) by Table 2
    subset (a pair appears in every subset it belongs to), as violins; the table gives the medians."""
    values = {}
    for name, r in study.runs.items():
        v = rmod.chosen_values(r.classified, p_a=r.p_a, reward_gap=r.gap or None)
        values[name] = pd.concat(
            [v[m.to_numpy()].assign(subset=s) for s, m in rmod.subset_masks(v).items()], ignore_index=True
        )
    long = pd.concat(values, names=["data set"]).reset_index(level=0)
    table = long.pivot_table(
        index=["data set", "model"], columns="subset", values="value", aggfunc="median", sort=False
    )[list(rmod.SUBSETS)].round(3)
    return Result(
        table=table.rename_axis(columns="median by subset"),
        figure=plots.decisiveness(values, rmod.SUBSETS),
        caption=(
            "Each held-out pair's P(chosen ≻ rejected) (BT) or r(chosen) − r(rejected) (MSE) by Table 2 subset, one "
            "violin per model (its quartiles dashed); the dotted line is no preference, where a model that knew "
            "when annotators split would put its diverging pairs."
        ),
        data={"values": values},
    )

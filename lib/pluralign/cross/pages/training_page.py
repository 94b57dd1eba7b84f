"""Page "Which training handles disagreement?" (question 4): five reward models trained on the same pairs
(:data:`pluralign.cross.training.MODELS`) compared per agreement class on Diverging Preferences' Table 2 measure
and on Pearson r with p* (Beyond the Binary Table 1). (:mod:`pluralign.cross.training`)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import paper, presentation, report
from pluralign.cross import plots
from pluralign.cross import training as q4
from pluralign.cross.common import no_estimate_reason
from pluralign.cross.studies import each_data_set
from pluralign.cross.study import Study
from pluralign.forest import forest_plot

__all__ = ["models_trained", "measures", "decisiveness_gaps"]

#: The losses of :data:`pluralign.cross.training.MODELS` (:mod:`pluralign.rewards.objectives`) as the page names them.
OBJECTIVE_NAMES = {
    "bt": "Bradley–Terry",
    "bt-margin": "Bradley–Terry with margin (Eq. 4)",
    "mse": "MSE regression on Likert scores",
    "mean-variance": "mean-variance (Gaussian rewards)",
}
#: The labels a model trains on, as the page names them.
LABEL_NAMES = {"aggregate": "the majority label", "all": "every annotation"}

#: The estimate columns of :func:`pluralign.cross.training.pearson_by_class`: Pearson r with its CI, its paired Δ.
_PEARSON_ESTIMATES = ["r", "lo", "hi", "delta", "delta_lo", "delta_hi"]


@report.section("x_n_train", "x_n_test", "x_n_no_margin")
@each_data_set
def models_trained(study: Study) -> report.Result:
    """The split, the models trained (with their training instances) and those not trained, with why; how many
    training pairs had no margin for Beyond the Binary Eq. 4 and trained with margin 0 (value ``x_n_no_margin``,
    :func:`pluralign.cross.training.fill_missing_margins`)."""
    r = study.run
    margins, source = study.training_margins
    ids = r.train.pairs["pair_id"]
    _, n_missing = q4.fill_missing_margins(margins, ids)
    rows = [
        {
            "model": k,
            "loss": OBJECTIVE_NAMES[q4.MODELS[k][0]],
            "trained on": LABEL_NAMES[q4.MODELS[k][1]],
            "training instances": int(r.models[k].info.get("n_instances", 0)) if k in r.models else "—",
            "trained": "yes" if k in r.models else f"no — {r.skipped.get(k, 'not trained')}",
        }
        for k in q4.MODELS
    ]
    note = (
        f"Pairs: {len(r.train.pairs)} training, {len(r.validation.pairs)} validation (best checkpoint), "
        f"{len(r.heldout.pairs)} held out. The margin-regularized model trains on {source}. "
        + q4.missing_margin_sentence(n_missing, len(ids), synthetic=margins is not None)
    )
    return report.Result(
        table=pd.DataFrame(rows).set_index("model"),
        note=note,
        values={"x_n_train": len(r.train.pairs), "x_n_test": len(r.heldout.pairs), "x_n_no_margin": n_missing},
    )


@report.section()
@each_data_set
def measures(study: Study) -> report.Result:
    """Per model and agreement class: Table 2's measure and Pearson r with p*, each with its 95% CI and its paired
    Δ to BT on majority labels (with the verdict), the planted population value beside on the demo."""
    measure, _, pearson = study.measures
    if pearson is None:
        pearson = measure[["model", "class"]].assign(
            **dict.fromkeys(_PEARSON_ESTIMATES, np.nan), verdict="— (no p* on this profile)", short="no p* here"
        )
    both = measure.merge(
        pearson[["model", "class", *_PEARSON_ESTIMATES, "verdict"]],
        on=["model", "class"],
        how="left",
        suffixes=("", " r"),
    ).set_index(["model", "class"])
    both["why"] = both["verdict"].map(no_estimate_reason)
    forest = forest_plot(
        both,
        estimate=["value", "r", "delta r"],
        low=["lo", "lo r", "delta_lo r"],
        high=["hi", "hi r", "delta_hi r"],
        planted=["planted", None, None],
        null=[None, 0.0, 0.0],
        xlabel=["Table 2 measure", "Pearson r with p*", f"Δr vs {q4.REFERENCE}"],
        why=[None, None, "why"],
    )
    lines = []
    for m, g in pearson[pearson["model"] != q4.REFERENCE].groupby("model", sort=False):
        if all(no_estimate_reason(v) is not None for v in g["verdict"]):
            continue
        per_class = "; ".join(f"{c}: {w}" for c, w in g[["class", "short"]].itertuples(index=False))
        lines.append(f"- **{m}**, Pearson r with p\\* against {q4.REFERENCE} per class: {per_class}.")
    planted = (
        " (dotted: the population's own measure, max(p\\*, 1 − p\\*), per class)"
        if measure["planted"].notna().any()
        else ""
    )
    return report.Result(
        table=q4.display_measure(measure, pearson),
        forest=forest,
        forest_caption=(
            "Per model and agreement class: Table 2's measure, Pearson r with p* and its paired difference to "
            f"{q4.REFERENCE}, each with its 95% CI"
            + (" (cross: the population's own measure)." if measure["planted"].notna().any() else ".")
        ),
        figure=plots.training_measures(measure),
        caption=f"Table 2's measure, mean P(chosen ≻ rejected) on the held-out pairs, per model and agreement class "
        f"with its 95% CI{planted}.",
        note="\n".join(lines),
        data={"measure": measure, "pearson": pearson},
    )


#: This page's models and the columns of Diverging Preferences' Table 2 they reproduce.
PAPER_MODELS = {"BT (majority)": "BT (Agg)", "BT (all annotations)": "BT (All)", "MSE (Likert)": "MSE (Agg)"}


def paper_gaps(dataset: str) -> dict:
    """The decisiveness gap Diverging Preferences' Table 2 implies for each of :data:`PAPER_MODELS` on
    ``dataset`` ("MultiPref" or "HelpSteer2"): its measure on High-Agreement Prefs. minus on Diverging Prefs.
    (All), from the printed numbers (3 decimals, so the difference is exact); a model the table lacks is left out."""
    out = {}
    for ours, theirs in PAPER_MODELS.items():
        try:
            hi = paper.value("diverging", "Table 2", f"{dataset} / High-Agreement Prefs.", theirs)
            div = paper.value("diverging", "Table 2", f"{dataset} / Diverging Prefs. (All)", theirs)
        except KeyError:
            continue
        out[ours] = round(hi - div, 3)
    return out


def _paper_dataset(study: Study) -> str:
    """The data set of Table 2 a study's data is compared with: MultiPref for MultiPref, else HelpSteer2 (the
    demo's pairs are in HelpSteer2's format)."""
    name = str(getattr(study.data, "name", "")).lower()
    return "MultiPref" if "multipref" in name else "HelpSteer2"


def gap_summary(gaps: pd.DataFrame, reference: str = q4.REFERENCE) -> str:
    """One sentence from :func:`pluralign.cross.training.decisiveness_gaps`'s paired differences: which models have
    a larger, a smaller or an indistinguishable gap than ``reference`` (models on another scale left out)."""
    parts = []
    for label, key in (
        ("a larger gap", "larger gap"),
        ("a smaller gap", "smaller gap"),
        ("no difference the CI can tell", "inconclusive"),
    ):
        names = [m for m, v in gaps["delta_short"].items() if v == key]
        if names:
            parts.append(f"{label} for {', '.join(names)}")
    return f"against {reference}, " + "; ".join(parts) if parts else f"no other model is on {reference}'s scale"


def _against_reference(r) -> str:
    """How one model's decisiveness gap reads against the reference model's (BT on majority labels)."""
    why = no_estimate_reason(r["delta_verdict"])
    if why == "reference model":
        return "it is the reference model"
    if why is not None:
        return f"not compared with {q4.REFERENCE} ({why})"
    if r["delta_short"] in ("larger gap", "smaller gap"):  # the verdict names the reference model itself
        return r["delta_verdict"]
    return f"against {q4.REFERENCE}, {r['delta_verdict']}"


@report.section("x_gap_ref", "x_gap_ref_verdict", "x_gap_paper_ref", "x_gap_summary", "x_gap_paper_data")
@each_data_set
def decisiveness_gaps(study: Study) -> report.Result:
    """Per model, the decisiveness gap (Table 2 measure on high-agreement prefs. − on diverging pairs) with its
    95% CI and verdict (read against 0 and, on the demo, the population's planted gap), its paired Δ to BT on
    majority labels, and the gap Table 2 of the paper implies beside (:func:`paper_gaps`); short words in the
    table, the long readings in the note. Values ``x_gap_<k>`` per model k = 0, 1, … (the models trained), the
    reference model's gap (``x_gap_ref``, text with its CI) and reading (``x_gap_ref_verdict``), the paper's
    (``x_gap_paper_ref``, on ``x_gap_paper_data``) and the comparison of the others (``x_gap_summary``)."""
    _, gaps, _ = study.measures
    dataset = _paper_dataset(study)
    theirs = paper_gaps(dataset)
    values = {f"x_gap_{k}": float(r["gap"]) for k, (_, r) in enumerate(gaps.iterrows())}
    shown = q4.display_gaps(gaps)
    gap_col = q4.GAP_COLUMN

    first = gaps.iloc[0]
    lines = [
        f"On {int(first['high-agreement pairs'])} high-agreement and {int(first['diverging pairs'])} diverging "
        "held-out pairs:",
        "",
    ]
    lines += [
        f"- **{m}**: gap {shown.loc[m, gap_col]}: {r['verdict']}; {_against_reference(r)}." for m, r in gaps.iterrows()
    ]
    table = shown.copy()
    if theirs:
        col = f"paper's gap ({dataset}, Table 2)"
        table.insert(
            table.columns.get_loc("verdict"),
            col,
            [presentation.fmt_fixed(theirs[m], 3) if m in theirs else "not in Table 2" for m in table.index],
        )
    forest = forest_plot(
        gaps.assign(why=gaps["delta_verdict"].map(no_estimate_reason)),
        estimate=["gap", "delta"],
        low=["lo", "delta_lo"],
        high=["hi", "delta_hi"],
        planted=["planted gap", None],
        xlabel=["decisiveness gap (high-agreement − diverging)", f"Δ gap vs {q4.REFERENCE}"],
        why=[None, "why"],
    )
    ref = q4.REFERENCE
    values.update(
        {
            "x_gap_ref": shown.loc[ref, gap_col] if ref in shown.index else "not trained",
            "x_gap_ref_verdict": gaps.loc[ref, "verdict"] if ref in gaps.index else "the reference model did not train",
            "x_gap_paper_ref": presentation.fmt_fixed(theirs[ref], 3) if ref in theirs else "not reported",
            "x_gap_paper_data": dataset,
            "x_gap_summary": gap_summary(gaps),
        }
    )
    planted = gaps["planted gap"].notna().any()
    return report.Result(
        table=table,
        forest=forest,
        forest_caption=(
            "Left: each model's decisiveness gap with its 95% CI"
            + (" (cross: the population's own gap)" if planted else "")
            + f"; right: its paired difference to {q4.REFERENCE}."
        ),
        note="\n".join(lines),
        values=values,
        data={"gaps": gaps, "paper": theirs},
    )

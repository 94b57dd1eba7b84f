"""Page "Which training handles disagreement?" (question 4): five reward models trained on the same pairs
(:data:`pluralign.cross.training.MODELS`) compared per agreement class on Diverging Preferences' Table 2 measure
and on Pearson r with p* (Beyond the Binary Table 1). (:mod:`pluralign.cross.training`)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.cross import margins_by_class as q1
from pluralign.cross import plots
from pluralign.cross import training as q4
from pluralign.cross.common import no_estimate_reason
from pluralign.cross.studies import each_data_set
from pluralign.cross.study import Study

__all__ = ["models_trained", "measures", "decisiveness_gaps"]

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
            "objective": q4.MODELS[k][0],
            "labels": q4.MODELS[k][1],
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
            **dict.fromkeys(_PEARSON_ESTIMATES, np.nan), verdict="— (no p* on this profile)"
        )
    both = measure.merge(
        pearson[["model", "class", *_PEARSON_ESTIMATES, "verdict"]],
        on=["model", "class"],
        how="left",
        suffixes=("", " r"),
    ).set_index(["model", "class"])
    both["why"] = both["verdict"].map(no_estimate_reason)
    forest = report.forest_plot(
        both,
        estimate=["value", "r", "delta r"],
        low=["lo", "lo r", "delta_lo r"],
        high=["hi", "hi r", "delta_hi r"],
        planted=["planted", None, None],
        null=[None, 0.0, 0.0],
        xlabel=["Table 2 measure", "Pearson r with p*", f"Δr vs {q4.REFERENCE}"],
        why=[None, None, "why"],
    )
    return report.Result(
        table=q4.display_measure(measure, pearson),
        forest=forest,
        figure=plots.training_measures(measure),
        data={"measure": measure, "pearson": pearson},
    )


@report.section()
@each_data_set
def decisiveness_gaps(study: Study) -> report.Result:
    """Per model, the decisiveness gap (Table 2 measure on high-agreement prefs. − on diverging pairs) with its
    95% CI and verdict, and its paired Δ to BT on majority labels; the population's planted gap beside; values
    ``x_gap_<k>`` per model k = 0, 1, … (the models trained)."""
    _, gaps, _ = study.measures
    values = {f"x_gap_{k}": float(r["gap"]) for k, (_, r) in enumerate(gaps.iterrows())}
    lines = [
        f"- **{m}**: gap {q1.interval(r['gap'], r['lo'], r['hi'])} — {r['verdict']}; "
        f"against {q4.REFERENCE}: {r['delta_verdict']}."
        for m, r in gaps.iterrows()
    ]
    forest = report.forest_plot(
        gaps.assign(why=gaps["delta_verdict"].map(no_estimate_reason)),
        estimate=["gap", "delta"],
        low=["lo", "delta_lo"],
        high=["hi", "delta_hi"],
        planted=["planted gap", None],
        xlabel=["decisiveness gap (high-agreement − diverging)", f"Δ gap vs {q4.REFERENCE}"],
        why=[None, "why"],
    )
    return report.Result(
        table=q4.display_gaps(gaps), forest=forest, note="\n".join(lines), values=values, data={"gaps": gaps}
    )

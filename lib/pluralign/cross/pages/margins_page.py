"""Page "Margins by agreement class" (question 1): are Beyond the Binary's margins (Eq. 3) small exactly on Diverging
Preferences' diverging pairs? (:mod:`pluralign.cross.margins_by_class`)"""

from __future__ import annotations

import pandas as pd

from pluralign import presentation, report
from pluralign.cross import margins_by_class as q1
from pluralign.cross import plots
from pluralign.cross.studies import each_data_set
from pluralign.cross.study import Study
from pluralign.forest import forest_plot

__all__ = ["distribution", "separation"]


@report.section()
@each_data_set
def distribution(study: Study) -> report.Result:
    """Margins per agreement class (mean with its 95% CI, median, share unanimous) for every margin source, the
    planted one beside on the demo, and the figure with the AUROCs."""
    margins = dict(study.margins)
    if study.planted_margin is not None:
        margins["planted population margin"] = study.planted_margin.reindex(study.classified.index)
    dist = q1.margin_distribution(margins, study.classified, n_boot=study.n_boot, seed=study.seed)
    digits = presentation.column_decimals(dist["mean"], dist["lo"], dist["hi"])
    table = dist.assign(
        **{
            "mean margin [95% CI]": presentation.intervals(dist["mean"], dist["lo"], dist["hi"], digits),
            "median": [presentation.fmt_fixed(v, digits) for v in dist["median"]],
            "unanimous (m = 1)": dist["unanimous (m = 1)"].map(lambda v: f"{100 * v:.1f}%"),
        }
    )
    table = table.set_index(["margin", "class"])[["pairs", "mean margin [95% CI]", "median", "unanimous (m = 1)"]]
    agreement = study.classified["agreement"]
    long = pd.concat(
        [
            pd.DataFrame({"margin source": k, "m": v.to_numpy(float), "class": agreement.reindex(v.index).to_numpy()})
            for k, v in margins.items()
        ],
        ignore_index=True,
    )
    left = {k: v for k, v in study.margins_left_out.items() if v}
    note = "".join(
        f"{v} pairs have no {k} margin (no parseable judgment) and are left out of it. " for k, v in left.items()
    )
    return report.Result(
        table=table,
        forest=forest_plot(
            dist.set_index(["margin", "class"]), "mean", "lo", "hi", null=None, xlabel="mean margin m (95% CI)"
        ),  # fmt: skip
        forest_caption="The mean margin with its 95% CI per margin source and agreement class, from the table above.",
        figure=plots.margins_by_class(long, study.separation),
        caption=(
            "Top: the margin m of Eq. 3 per agreement class, one box per margin source (1: unanimous, 0: an even "
            "split). Bottom: the AUROC of 1 − m for diverging against high-agreement pairs with its 95% CI per "
            "source (dashed: 0.5, no separation"
            + ("; cross: the planted population margin's AUROC)." if study.planted_margin is not None else ").")
        ),
        note=note,
        data={"distribution": dist, "long": long},
    )


def _auroc_reading(shown: str, verdict: str) -> str:
    """An AUROC and its verdict in a sentence ("AUROC 0.954 [0.941, 0.968]: supported: …"), or, with no estimate,
    "no AUROC (why)": never a "—" standing for a number."""
    if verdict.startswith(presentation.MISSING):
        return f"no AUROC {verdict[len(presentation.MISSING) :].strip()}".strip()
    return f"AUROC {shown}: {verdict}"


@report.section(
    "x_auc_0", "x_auc_lo_0", "x_auc_hi_0", "x_auc_name_0", "x_auc_verdict_0", "x_auc_synthetic", "x_auc_gold"
)
@each_data_set
def separation(study: Study) -> report.Result:
    """Question 1's test: AUROC of 1 − m for diverging vs high-agreement pairs per margin source, 95% CI, verdict
    read against 0.5 and, on the demo, against the planted AUROC (the gold margin's is not bounded by it:
    :data:`pluralign.cross.margins_by_class.PLANTED_READING`), short words in the table and the long reading in the
    note; values ``x_auc_<k>``, ``x_auc_lo_<k>``, ``x_auc_hi_<k>``, ``x_auc_name_<k>``, ``x_auc_verdict_<k>`` per
    source k = 0, 1, … (the gold margin is always one), and the findings as sentences: ``x_auc_synthetic`` (the
    synthetic margin's, or that there is none) and ``x_auc_gold``."""
    sep = study.separation
    values = {}
    for k, (name, r) in enumerate(sep.iterrows()):
        values.update(
            {
                f"x_auc_{k}": float(r["AUROC"]),
                f"x_auc_lo_{k}": float(r["lo"]),
                f"x_auc_hi_{k}": float(r["hi"]),
                f"x_auc_name_{k}": name,
                f"x_auc_verdict_{k}": r["verdict"],
            }
        )
    shown = q1.display(sep)["AUROC of 1 − m [95% CI]"]
    reading = {name: _auroc_reading(shown[name], r["verdict"]) for name, r in sep.iterrows()}
    lines = [f"- **{name}**: {reading[name]}." for name in sep.index]
    synthetic = [n for n in sep.index if n != q1.GOLD]
    if synthetic:
        n = synthetic[0]
        values["x_auc_synthetic"] = (
            f"the {n} margin has {reading[n]}"
            if reading[n].startswith("no ")
            else f"the {n} margin separates them with {reading[n]}"
        )
    else:
        values["x_auc_synthetic"] = (
            "no synthetic judge runs on this profile, so the hypothesis is not tested independently of the "
            "annotators here"
        )
    values["x_auc_gold"] = reading[q1.GOLD] if q1.GOLD in sep.index else "not computed"
    if not synthetic:
        lines.append(
            "- There is no synthetic margin on this profile, so the hypothesis is not tested independently of the "
            "annotators here: the gold margin and the classes come from the same judgments."
        )
    planted = "planted AUROC (|2p*−1|)" if "planted AUROC (|2p*−1|)" in sep else None
    forest = forest_plot(
        sep,
        estimate=["AUROC", "AUROC vs prefs"],
        low=["lo", "prefs lo"],
        high=["hi", "prefs hi"],
        planted=[planted, None],
        null=0.5,
        xlabel=["AUROC of 1 − m", "AUROC vs high-agreement prefs"],
    )
    return report.Result(
        table=q1.display(sep),
        forest=forest,
        forest_caption=(
            "The AUROC of 1 − m with its 95% CI per margin source: left against both high-agreement classes, right "
            "against high-agreement preferences only (dotted: 0.5, no separation"
            + ("; cross: the planted population margin's AUROC)." if planted else ").")
        ),
        note="\n".join(lines),
        values=values,
        data={"separation": sep},
    )

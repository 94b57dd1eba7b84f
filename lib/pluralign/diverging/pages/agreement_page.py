"""The sections of the page "Diverging preferences: when do annotators disagree?" (Diverging Preferences §2 and
the agreement classes of Table 2)."""

from __future__ import annotations

import pandas as pd

from pluralign import paper, presentation, report
from pluralign.diverging import agreement as agr
from pluralign.diverging import plots
from pluralign.diverging.study import Study
from pluralign.report import Result

__all__ = ["CLASS_NAMES", "wilson", "against_planted", "shares", "examples", "planted_recovery"]

_SHOWN = ["high-agreement-pref", "high-agreement-tie", "diverging", "diverging-substantial", "other"]
#: The agreement classes as a reader reads them (the library's names: :data:`pluralign.diverging.agreement.CLASSES`).
CLASS_NAMES = {
    "high-agreement-pref": "high-agreement preference",
    "high-agreement-tie": "high-agreement tie",
    "diverging": "diverging",
    "diverging-substantial": "diverging, substantial",
    "other": "other",
}


def _pct(v) -> str:
    return "n/a" if pd.isna(v) else f"{v:.0%}"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95% interval of a share of ``k`` in ``n``."""
    if not n:
        return float("nan"), float("nan")
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return mid - half, mid + half


def against_planted(k: int, n: int, planted: float | None) -> str:
    """How a diverging share of ``k`` in ``n`` pairs reads against the share the planted population makes diverging:
    inside or outside (above / below) the share's Wilson 95% interval, with the interval; "" without a planted
    share."""
    if planted is None or planted != planted:
        return ""
    lo, hi = wilson(k, n)
    ci = f"{k / n:.1%} [{lo:.1%}, {hi:.1%}]"
    if lo <= planted <= hi:
        return f"the planted share lies inside this share's 95% interval, {ci}"
    side = "below" if planted < lo else "above"
    return f"the planted share lies {side} this share's 95% interval, {ci}"


def _share_line(name, row, paper_reference) -> str:
    """One data set's diverging shares in a sentence, with the paper's share where there is one (§2)."""
    words = "."
    v = row["paper diverging share"]
    if pd.notna(v):
        paper_set = agr.PAPER_DATASETS[agr.paper_dataset(name, paper_reference)]
        words = (
            f"; the paper reports {v:.0%} on {paper_set}, shown as a *stand-in reference* ({name} is "
            f"not {paper_set}, only compared with it)."
            if row["paper stand-in"]
            else f"; the paper reports {v:.0%} on {paper_set}."
        )
    return (
        f"- **{name}** ({int(row['n']):,} pairs): {row['diverging share']:.1%} "
        f"diverging, {row['diverging-substantial share']:.1%} substantially so" + words
    )


@report.section("paper_mp", "paper_hs2", "div_share_0", "subst_share_0", "planted_sentence_0")
def shares(study: Study) -> Result:
    """Count and share of every agreement class per data set, beside §2's diverging shares (39% MultiPref,
    24% HelpSteer2), as a table, a stacked-bar figure and one sentence per data set."""
    ref = study.settings.paper_reference
    sh = pd.concat([agr.shares(c, paper_reference=ref) for c in study.classified.values()])
    table = pd.DataFrame({"pairs": sh["n"]}).rename_axis("data set")
    for c in _SHOWN:
        table[CLASS_NAMES[c]] = [f"{k} ({v:.1%})" for k, v in zip(sh[c], sh[f"{c} share"])]
    planted = {d.name: agr.planted_divergence(d) for d in study.data}
    table["planted: diverging"] = [
        f"{planted[n].mean():.1%}" if planted.get(n) is not None else "—" for n in table.index
    ]
    table["paper: diverging"] = sh["paper diverging share"].map(_pct)
    table["paper reference"] = sh["paper reference"].map(lambda v: "n/a" if pd.isna(v) else v)
    lines = [_share_line(name, sh.loc[name], ref) for name in sh.index]
    values = {}
    for i, name in enumerate(sh.index):
        values[f"div_share_{i}"] = float(sh.loc[name, "diverging share"])
        values[f"div_n_{i}"] = int(sh.loc[name, "n"])
        values[f"subst_share_{i}"] = float(sh.loc[name, "diverging-substantial share"])
        p = planted.get(name)
        values[f"planted_div_share_{i}"] = float(p.mean()) if p is not None else presentation.MISSING
        values[f"div_vs_planted_{i}"] = (
            against_planted(
                int(sh.loc[name, "diverging"]), int(sh.loc[name, "n"]), float(p.mean()) if p is not None else None
            )
            or "no planted population to read it against"
        )
    values["div_name_0"] = str(sh.index[0])
    p0 = planted.get(sh.index[0])
    values["planted_sentence_0"] = (
        f"it makes {float(p0.mean()):.1%} of these pairs diverging; {values['div_vs_planted_0']}"
        if p0 is not None
        else "these pairs have no planted population to read the share against"
    )
    values["paper_mp"] = agr.paper_diverging_share("multipref")
    values["paper_hs2"] = agr.paper_diverging_share("helpsteer2")
    single = [d.name for d in study.data if len(d) and int(d.n_annotators().max()) <= 1]
    warn = [
        report.warning(
            f"**{name}** has one judgment per pair: no pair can be diverging (nor in any class that "
            "needs annotators to disagree), so its shares say nothing about disagreement. The agreement "
            "classes need several annotators per pair."
        )
        for name in single
    ]
    if any(v is not None for v in planted.values()):
        lines.append(
            '\n"planted: diverging" is the share the simulator\'s planted population makes diverging '
            "with each pair's annotators (the {ref}`recovery page <recovery>` checks the estimate against it); "
            "an empty cell: no planted population for that format or data set."
        )
    return Result(
        table=table,
        figure=plots.agreement_shares(sh),
        caption=(
            "Each data set's pairs by agreement class (the hatched part of the diverging segment is substantial); "
            "the black tick marks where the diverging segment would end at the paper's share for the data set it "
            "stands for."
        ),
        paper=paper.numbers("diverging", "§2"),
        note="\n\n".join(warn + ["\n".join(lines)]),
        values=values,
        data={"shares": sh},
    )


@report.section()
def examples(study: Study, per_class: int = 2) -> Result:
    """A few pairs of each agreement class of the first data set, with their judgments and prompt."""
    first = study.data[0]
    votes = agr.votes_text(first)
    prompts = first.pairs.set_index("pair_id")["prompt"]
    ex = study.classified[first.name].groupby("agreement", sort=False).head(per_class)
    ex = ex.assign(votes=votes.reindex(ex.index).to_numpy(), prompt=prompts.loc[ex.index].str.slice(0, 80).to_numpy())
    ex = ex.sort_values("agreement")
    shown = pd.DataFrame(
        {
            "class": ex["agreement"].map(CLASS_NAMES),
            "substantial": ex["substantial"].map({True: "yes", False: ""}),
            "judgments": ex["votes"],
            "prompt": ex["prompt"],
        },
        index=ex.index.rename("pair"),
    )
    return Result(table=shown)


@report.section("taste_precision_0", "taste_recall_0", "taste_sentence_0")
def planted_recovery(study: Study) -> Result:
    """How the agreement classes line up with the simulator's planted truth, per data set
    (:func:`~pluralign.diverging.agreement.planted_recovery`); on real data, a note that there is none."""
    if not all(d.truth is not None and "taste_driven" in d.truth.columns for d in study.data):
        return Result(
            table=None,
            note="Real data carries no planted truth: this check runs on the demo profile only.",
            values={
                "taste_precision_0": presentation.MISSING,
                "taste_recall_0": presentation.MISSING,
                "taste_sentence_0": "real data carry no planted causes, so this is checked on the demo profile only",
            },
        )
    rec = {d.name: agr.planted_recovery(study.classified[d.name], d.truth) for d in study.data}
    note = "\n\n".join(
        f"**{name}**: {r.precision:.1%} of the diverging pairs were planted as taste-driven; "
        f"{r.recall:.1%} of the taste-driven pairs come out diverging."
        for name, r in rec.items()
    )
    table = pd.concat({name: r.table for name, r in rec.items()}, names=["data set", "planted"])
    for c in agr.CLASSES:
        table[c] = table[c].map(lambda v: f"{v:.1%}")
    table = table.rename(columns=CLASS_NAMES)
    first = rec[study.data[0].name]
    values = {
        "taste_precision_0": float(first.precision),
        "taste_recall_0": float(first.recall),
        "taste_sentence_0": (
            f"{first.precision:.1%} of the diverging pairs were planted as taste-driven, and {first.recall:.1%} of the "
            "taste-driven pairs come out diverging"
        ),
    }
    return Result(table=table, note=note, values=values, data={"recovery": rec})

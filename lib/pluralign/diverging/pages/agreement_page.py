"""The sections of the page "Diverging preferences: when do annotators disagree?" (Diverging Preferences §2 and
the agreement classes of Table 2)."""

from __future__ import annotations

import pandas as pd

from pluralign import paper, report
from pluralign.diverging import agreement as agr
from pluralign.diverging import plots
from pluralign.diverging.study import Study
from pluralign.report import Result

__all__ = ["shares", "examples", "planted_recovery"]

_SHOWN = ["high-agreement-pref", "high-agreement-tie", "diverging", "diverging-substantial", "other"]


def _pct(v) -> str:
    return "n/a" if pd.isna(v) else f"{v:.0%}"


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
        f"- **{name}** ({int(row['n'])} pairs): {row['diverging share']:.1%} "
        f"diverging, {row['diverging-substantial share']:.1%} substantially so" + words
    )


@report.section("paper_mp", "paper_hs2", "div_share_0", "subst_share_0")
def shares(study: Study) -> Result:
    """Count and share of every agreement class per data set, beside §2's diverging shares (39% MultiPref,
    24% HelpSteer2), as a table, a stacked-bar figure and one sentence per data set."""
    ref = study.settings.paper_reference
    sh = pd.concat([agr.shares(c, paper_reference=ref) for c in study.classified.values()])
    table = pd.DataFrame({"pairs": sh["n"]})
    for c in _SHOWN:
        table[c] = [f"{k} ({v:.1%})" for k, v in zip(sh[c], sh[f"{c} share"])]
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
            "with each pair's annotators (`agreement.planted_divergence`; the recovery page checks it "
            'against the estimate); "—": no planted population for that format or data set.'
        )
    return Result(
        table=table,
        figure=plots.agreement_shares(sh),
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
    return Result(table=ex[["agreement", "substantial", "votes", "prompt"]].sort_values("agreement"))


@report.section()
def planted_recovery(study: Study) -> Result:
    """How the agreement classes line up with the simulator's planted truth, per data set
    (:func:`~pluralign.diverging.agreement.planted_recovery`); on real data, a note that there is none."""
    if not all(d.truth is not None and "taste_driven" in d.truth.columns for d in study.data):
        return Result(table=None, note="Real data carries no planted truth: this check runs on the demo profile only.")
    rec = {d.name: agr.planted_recovery(study.classified[d.name], d.truth) for d in study.data}
    note = "\n\n".join(
        f"**{name}**: {r.precision:.1%} of the diverging pairs were planted as taste-driven; "
        f"{r.recall:.1%} of the taste-driven pairs come out diverging."
        for name, r in rec.items()
    )
    table = pd.concat({name: r.table for name, r in rec.items()}, names=["data set", "planted"])
    for c in agr.CLASSES:
        table[c] = table[c].map(lambda v: f"{v:.1%}")
    return Result(table=table, note=note, data={"recovery": rec})

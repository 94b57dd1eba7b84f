"""The sections of the page "Do models know when annotators disagree?" (the full version of Diverging
Preferences, arXiv 2410.14632): the mean-variance reward model's predicted disagreement, its Table 2 row, and LLM
judges' decisiveness per agreement subset."""

from __future__ import annotations

import pandas as pd

from pluralign import data as pdata
from pluralign import paper, presentation, report
from pluralign.diverging import agreement as agr
from pluralign.diverging import knowing as kn
from pluralign.diverging import plots
from pluralign.diverging import reward_models as rmod
from pluralign.diverging import table2_claim as claim
from pluralign.diverging import table2_paper as t2p
from pluralign.diverging.study import Study
from pluralign.llm.options import LLMOptions
from pluralign.report import Result

__all__ = ["mean_variance", "mean_variance_table2", "judges"]


def _summary_row(m) -> dict:
    s = m.summary
    return {
        "diverging pairs": int(s.labels.sum()),
        "high-agreement pairs": int((~s.labels).sum()),
        "AUROC": round(s.auc.estimate, 3),
        "AUROC 95% CI": f"[{s.auc.lo:.3f}, {s.auc.hi:.3f}]",
        "AUROC vs high-agreement prefs only": round(s.auc_prefs.estimate, 3),
        "its 95% CI": f"[{s.auc_prefs.lo:.3f}, {s.auc_prefs.hi:.3f}]",
        "Spearman ρ (predicted, observed)": round(s.corr["spearman"], 3),
        "pairs": s.corr["n"],
    }


def _figure_run(m) -> dict:
    """What the predicted-disagreement figure draws of one data set, with the planted split where there is one."""
    truth = m.run.data.truth
    planted = None
    if truth is not None and "share_a" in truth.columns:
        planted = kn.split_probability(truth["share_a"].reindex(m.mv.index))
    return {
        "mv": m.mv.join(m.run.classified[["agreement"]]),
        "auc": m.summary.auc,
        "corr": m.summary.corr,
        "planted": planted,
    }


@report.section("auc_name_0", "auc_0", "auc_lo_0", "auc_hi_0", "auc_says_0")
def mean_variance(study: Study) -> Result:
    """How well the mean-variance RM's predicted disagreement separates diverging from high-agreement
    held-out pairs (AUROC, 95% bootstrap CI; also against high-agreement preferences only) and its rank
    correlation with the observed disagreement, with the figure of both."""
    runs = study.mv_runs
    table = pd.DataFrame({name: _summary_row(m) for name, m in runs.items()}).T
    values = {}
    for i, (name, m) in enumerate(runs.items()):
        auc = m.summary.auc
        values.update({f"auc_{i}": float(auc.estimate), f"auc_lo_{i}": float(auc.lo), f"auc_hi_{i}": float(auc.hi)})
        values[f"auc_name_{i}"] = name
        values[f"auc_says_{i}"] = (
            "better than chance"
            if auc.lo > 0.5
            else "worse than chance"
            if auc.hi < 0.5
            else "not distinguishable from chance at this sample size"
        )
    return Result(
        table=table,
        figure=plots.predicted_disagreement({name: _figure_run(m) for name, m in runs.items()}),
        caption=(
            "Per data set, the mean-variance RM's predicted disagreement on held-out pairs: by agreement class (title: "
            "AUROC for diverging against high-agreement pairs, 95% interval), against the disagreement observed "
            "among the pair's annotators (title: Spearman ρ) and, on simulated data, against the planted population's "
            "split."
        ),
        values=values,
        note=study.loading_line(),
        data={"runs": runs},
    )


@report.section("mv_gap_sentence")
def mean_variance_table2(study: Study) -> Result:
    """The mean-variance RM's Table 2 row (P(chosen ≻ rejected) per subset) beside BT (All) and the paper's
    BT (All) values (the paper has no mean-variance row), and each model's decisiveness gap on the first data set
    (:func:`pluralign.diverging.table2_claim.table2_claim`) as a sentence for the page."""
    s = study.settings
    runs = {n: m.run for n, m in study.mv_runs.items()}
    table, raw, notes = t2p.table2_beside_paper(
        runs, n_boot=s.n_boot, seed=study.seed, paper_reference=s.paper_reference, also=False, paper_only_models=False
    )
    c = claim.table2_claim(runs, n_boot=s.n_boot, seed=study.seed, paper_reference=s.paper_reference)
    first = c.index.get_level_values(0)[0]
    sentence = "; ".join(claim.model_sentence(m, r) for m, r in c.loc[first].iterrows())
    listed = "; ".join(
        presentation.signed(f"{m} {presentation.fmt_interval(r['gap'], r['lo'], r['hi'], 3)}, {r['says']}")
        for m, r in c.loc[first].iterrows()
    )
    notes.append(
        f"Gap, Table 2's measure on high-agreement preferences minus on diverging pairs with its 95% interval, on "
        f"{first}: {listed}. The words read as on {{ref}}`diverging-rewards`."
    )
    return Result(
        table=table,
        note="\n\n".join(notes),
        paper=paper.numbers("diverging", "Table 2"),
        values={"mv_gap_sentence": sentence},
        data={"table2": raw, "claim": c},
    )


def _published_judges(study: Study) -> tuple[dict, dict]:
    """The decisiveness of each judge whose verdicts ``judges`` names, and what the data loader dropped."""
    spec, s = study.settings.judges, study.settings
    humans, verdicts = pdata.load(spec.humans), pdata.load(spec.verdicts)
    classes = agr.agreement_classes(humans, ties=s.ties)
    decisiveness, dropped = {}, {}
    for judge in spec.annotators:
        decisiveness[judge] = kn.judge_decisiveness(
            kn.judge_verdicts(verdicts, judge), classes, n_boot=s.n_boot, seed=study.seed
        )
        dropped[judge] = kn.judge_filters(verdicts, judge)
    return decisiveness, dropped


def _llm_judge(study: Study) -> dict:
    """The decisiveness of ``judge_llm`` (an LLM's P(A), or the demo's simulated judge) on the held-out pairs of
    §4's runs (the same split as Table 2's: no Table 2 model is trained for this)."""
    spec, s = study.settings.judge_llm, study.settings
    model = None
    if spec.simulated is None:
        model = LLMOptions.of(spec.load).load()
    out = {}
    for name, r in ((n, m.run) for n, m in study.mv_runs.items()):
        pairs = r.heldout.pairs.head(spec.n_pairs if spec.n_pairs is not None else len(r.heldout.pairs))
        if model is None:  # the demo's named stand-in: a judge that knows the planted population split
            probs = kn.simulated_judge(r.heldout.truth, pairs["pair_id"], seed=study.seed, **spec.simulated.kwargs())
            probs = probs.to_numpy()
        else:
            probs = model.judge_ab_many(
                pairs[["prompt", "response_a", "response_b"]].to_dict("records"), job=f"diverging-know-judge-{name}"
            )
        out[f"{spec.label} on {name}"] = kn.judge_decisiveness(
            pd.Series(probs, index=pairs["pair_id"].to_numpy(), dtype=float),
            r.classified.loc[pairs["pair_id"].to_numpy()],
            n_boot=s.n_boot,
            seed=study.seed,
        )
    return out


def _judge_note(judge: str, d: kn.JudgeDecisiveness, dropped: list) -> str:
    why = [f"{f['removed']} dropped by the data loader ({f['filter']})" for f in dropped]
    if d.n_unreadable:
        why.append(f"{d.n_unreadable} unreadable judgments")
    return (
        f"**{judge}**: a readable judgment on {d.n_judged} of the {d.n_classified} pairs; "
        f"{d.n_without_verdict} pairs without one are left out" + (f" — {'; '.join(why)}." if why else ".")
    )


@report.section("judge_name_0", "judge_gap_0", "judge_says_0")
def judges(study: Study) -> Result:
    """LLM judges' confidence per human agreement subset (:func:`~pluralign.diverging.knowing.judge_decisiveness`):
    published verdicts (``judges``) and/or an LLM's P(A) on the held-out pairs (``judge_llm``)."""
    s = study.settings
    if s.judges is None and s.judge_llm is None:
        none = {"judge_name_0": "no LLM judge", "judge_gap_0": "not measured", "judge_says_0": "not measured here"}
        return Result(table=None, skipped="No LLM judge runs on this profile.", values=none)
    decisiveness, dropped = _published_judges(study) if s.judges is not None else ({}, {})
    if s.judge_llm is not None:
        decisiveness.update(_llm_judge(study))
    notes = [_judge_note(j, d, dropped.get(j, [])) for j, d in decisiveness.items()]
    tables = {j: d.table for j, d in decisiveness.items()}
    table = pd.concat({j: _judge_table(t) for j, t in tables.items()}, names=["judge", "subset"])
    fig = plots.judge_confidence(tables, rmod.SUBSETS[:3], {d.kind for d in decisiveness.values()})
    judge, t = next(iter(tables.items()))
    d = t.loc[_DIFF]
    estimated = all(pd.notna(d[k]) for k in ("confidence", "lo", "hi"))
    says = (
        "no estimate"
        if not estimated
        else "less confident on diverging pairs"
        if d["hi"] < 0
        else "more confident on diverging pairs"
        if d["lo"] > 0
        else "no difference it can tell at this sample size"
    )
    gap = (
        presentation.signed(presentation.fmt_interval(d["confidence"], d["lo"], d["hi"], 3))
        if estimated
        else "has no interval (the judge's confidence does not vary over these pairs)"
    )
    values = {"judge_name_0": judge, "judge_gap_0": gap, "judge_says_0": says}
    return Result(
        table=table,
        figure=fig,
        note="\n\n".join(notes),
        values=values,
        data={"decisiveness": decisiveness},
        caption=(
            "Each judge's confidence (95% interval) on the held-out pairs of each human agreement class: a judge "
            "that knew when people disagree would be less confident on the diverging ones."
        ),
    )


_DIFF = "Diverging − High-Agreement Prefs."


def _judge_table(t: pd.DataFrame) -> pd.DataFrame:
    """One judge's :func:`~pluralign.diverging.knowing.judge_decisiveness` table as the page shows it: pairs,
    confidence and how often it sides with the majority, each with its 95% interval in one cell."""
    agrees = [
        presentation.fmt_interval(a, lo, hi, 3) if a == a else "n/a"
        for a, lo, hi in t.reindex(columns=["agrees with majority", "agrees lo", "agrees hi"]).to_numpy()
    ]
    return pd.DataFrame(
        {
            "pairs": t["n"].astype(int),
            "confidence [95% CI]": [
                presentation.fmt_interval(c, lo, hi, 3) for c, lo, hi in t[["confidence", "lo", "hi"]].to_numpy()
            ],
            "sides with the majority [95% CI]": agrees,
        },
        index=t.index,
    )

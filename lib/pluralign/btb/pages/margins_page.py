"""The page "Synthetic judgments and preference margins" (Beyond the Binary §3.3, Eq. 3, Appendix A): its
sections as functions of the study."""

from __future__ import annotations

import contextlib
import io
import time
from typing import TYPE_CHECKING

import pandas as pd

from pluralign import presentation, report
from pluralign.btb import evaluation, plots
from pluralign.btb import margins as eq3
from pluralign.btb.categories import KIND_NAMES
from pluralign.llm import load as load_llm

if TYPE_CHECKING:
    from pluralign.btb.study import Study

__all__ = ["judgment_prompt", "synthetic_judgments", "judge_quality", "margin_distribution", "embedded_judge"]

#: The synthetic judgments' columns (:func:`pluralign.btb.margins.synthetic_judgments`) as the page labels them.
JUDGMENT_LABELS = {
    "n": "judgments",
    "n_a": "A votes",
    "n_b": "B votes",
    "n_unparsed": "unparsed",
    "n_valid": "parsed",
    "share_a": "share of A votes",
    "p_a": "judge's P(A)",
    "margin": "margin m (Eq. 3)",
}


#: The names :func:`judge_quality` glues for the page's prose.
JUDGE_VALUES = (
    "btb_judge_side",
    "btb_judge_side_lo",
    "btb_judge_side_hi",
    "btb_judge_side_n",
    "btb_judge_r",
    "btb_judge_r_lo",
    "btb_judge_r_hi",
    "btb_judge_side_says",
    "btb_judge_sentence",
)


def _reads(lo: float, null: float, above: str, otherwise: str) -> str:
    """A verdict from the lower end of a 95% interval against ``null``."""
    return above if lo > null else otherwise


def judgment_prompt(study: Study, show: bool | None = None) -> report.Result:
    """The Appendix A prompt filled with the first pair (nothing when ``show``, by default the setting
    ``show_prompt``, is false)."""
    show = study.settings.show_prompt if show is None else show
    ex = study.pairs.iloc[0]
    text = eq3.judgment_prompt(ex["prompt"][:300], ex["response_a"][:300], ex["response_b"][:300])
    return report.Result(table=None, note="```text\n" + text + "\n```" if show else "")


def synthetic_judgments(study: Study) -> report.Result:
    """The first pairs' judgment counts, share of A votes and margin (Eq. 3)."""
    sj = study.judgments
    head = sj.drop(columns=[c for c in ("verdicts", "judgments") if c in sj.columns]).head(6).round(3)
    head = head.rename(columns=JUDGMENT_LABELS).rename_axis("pair")
    note = ""
    bad = int(sj["n_unparsed"].sum()) if "n_unparsed" in sj else 0
    if bad:  # a judge's unparseable verdicts, counted (the library warns outside the book)
        none = int((sj["n_valid"] == 0).sum())
        note = report.warning(
            f"**{bad:,} of {int(sj['n'].sum()):,} verdicts of the judge were unparseable**; {none:,} of "
            f"{len(sj):,} pairs have no parseable verdict and so no margin (Eq. 3 needs at least one), and "
            "training gives them a margin of 0 (plain Bradley–Terry)."
        )
    return report.Result(table=head, note=note, data={"judgments": sj})


def judge_quality(study: Study) -> report.Result:
    """How often the judge sides with the population majority, and Pearson r / mean L1 between its
    share of A votes and p* (95% bootstrap CIs)."""
    none = {k: presentation.MISSING for k in JUDGE_VALUES}
    if study.settings.judge.source == "annotators":
        none["btb_judge_side_says"] = "not measured: the margins come from the data's own annotators"
        none["btb_judge_sentence"] = (
            "There is no separate judge on this profile: the margins come from the data's own annotators, whose "
            "share is p*."
        )
        return report.Result(
            table=None,
            note="Here the margins come from the data set's own annotators (the "
            "paper's gold standard), and p\\* is their share: there is no separate judge to check.",
            values=none,
        )
    if study.p_star is None:
        none["btb_judge_side_says"] = "not measured: these data have no p*"
        none["btb_judge_sentence"] = (
            "These data have no p*, so the judge's agreement with the population is not measured."
        )
        return report.Result(
            table=None, note="No p\\* for these data: the judge's quality cannot be measured here.", values=none
        )
    sj, ids, p_star = study.judgments, study.ids, study.p_star
    judge_p = (sj["p_a"] if sj.get("p_a") is not None and sj["p_a"].notna().all() else sj["share_a"]).astype(float)
    side = evaluation.side_agreement(p_star, judge_p.reindex(ids), seed=study.seed)
    ev = evaluation.evaluate(p_star, sj["share_a"].reindex(ids), seed=study.seed)
    r = ev[ev.metric == "pearson"].iloc[0]
    names = {"pearson": "Pearson r, share of A votes vs p*", "l1": "mean L1, share of A votes vs p*"}
    row = {
        "judge": study.judge_source,
        "pairs with a majority": side["n"],
        "sides with the population [95% CI]": presentation.fmt_interval(side["value"], side["lo"], side["hi"], 3),
        **{
            names.get(m, m): presentation.fmt_interval(v, lo, hi, 3)
            for m, v, lo, hi in zip(ev["metric"], ev["value"], ev["lo"], ev["hi"])
        },
    }
    note = (
        f"The judge sides with the population on {side['value']:.3f} of the {side['n']} pairs that have a "
        f"majority (95% CI {side['lo']:.3f}–{side['hi']:.3f}); its share of A votes correlates with p\\* at "
        f"r = {r['value']:.3f} ({r['lo']:.3f}–{r['hi']:.3f})."
    )
    values = {
        "btb_judge_side": side["value"],
        "btb_judge_side_lo": side["lo"],
        "btb_judge_side_hi": side["hi"],
        "btb_judge_side_n": side["n"],
        "btb_judge_r": float(r["value"]),
        "btb_judge_r_lo": float(r["lo"]),
        "btb_judge_r_hi": float(r["hi"]),
        "btb_judge_side_says": _reads(side["lo"], 0.5, "more often than chance", "not more often than chance"),
    }
    values["btb_judge_sentence"] = (
        f"On {side['value']:.3f} of the {side['n']:,} pairs that have a majority "
        f"({presentation.fmt_interval(side['value'], side['lo'], side['hi'], 3).partition(' ')[2]}), "
        f"{values['btb_judge_side_says']}; its share of A votes has r = "
        f"{presentation.fmt_interval(r['value'], r['lo'], r['hi'], 3)} with p*."
    )
    return report.Result(table=pd.DataFrame([row]), note=note, values=values, data={"evaluation": ev, "side": side})


@report.section(
    "btb_n_judgments", "btb_margin_r", "btb_margin_r_lo", "btb_margin_r_hi", "btb_margin_r_says", "btb_margin_sentence"
)
def margin_distribution(study: Study) -> report.Result:
    """The Eq. 3 margins (by category where there is one) and, with p*, against |2p* − 1|."""
    ids, n = study.ids, int(study.settings.judge.n)
    frame = pd.DataFrame({"margin": study.judgments["margin"].reindex(ids)})
    if study.p_star is not None:
        frame["population agreement |2p*-1|"] = (2 * study.p_star - 1).abs()
    if study.data.truth is not None and "kind" in study.data.truth:
        frame["category"] = study.data.truth["kind"].reindex(ids).map(KIND_NAMES)
    vals = eq3.margin_values(n)
    k = n // 2 + 1  # the closest split to an even one that is not even
    shown = ", ".join(f"{v:g}" for v in vals) if len(vals) <= 4 else f"{vals[0]:g}, {vals[1]:.3g}, …, {vals[-1]:g}"
    m_k = float(eq3.eq3_margin(k, n))
    note = (
        f"With n = {n} judgments the margin takes {len(vals)} values ({shown}). Eq. 3 is coarse by design: "
        f"a {k}–{n - k} split already gives m = {m_k:.3g}."
    )
    values = {"btb_n_judgments": n, **_margin_agreement(frame, study.seed)}
    if values["btb_margin_r_says"]:
        r = presentation.fmt_interval(values["btb_margin_r"], values["btb_margin_r_lo"], values["btb_margin_r_hi"], 3)
        note += presentation.signed(
            f" The margins' Pearson r with the population agreement |2p\\* − 1| is {r}: they "
            f"{values['btb_margin_r_says']}."
        )
    return report.Result(
        table=None,
        figure=plots.margin_distribution(frame, n, study.judge_source),
        note=note,
        values=values,
        data={"frame": frame},
        caption=(
            "The margin m of Eq. 3 of every pair (by category of subjectivity where the pairs have one) and, where "
            "they have p\\*, against the population's own agreement |2p\\* − 1|: a judge whose votes split where "
            "the population splits puts its points along the diagonal."
        ),
    )


def _margin_agreement(frame: pd.DataFrame, seed: int) -> dict:
    """Pearson r (95% bootstrap CI) between the margins and the population agreement |2p* − 1| (the quantity
    Eq. 3 estimates), and what it says ("track the population's agreement" when the interval lies above 0; "" without
    p*)."""
    col = "population agreement |2p*-1|"
    if col not in frame or frame[col].isna().all():
        nan = float("nan")
        none = "Without p* on this profile, the margins are not read against the population's agreement."
        return {
            "btb_margin_r": nan,
            "btb_margin_r_lo": nan,
            "btb_margin_r_hi": nan,
            "btb_margin_r_says": "",
            "btb_margin_sentence": none,
        }
    f = frame[["margin", col]].dropna()
    ev = evaluation.evaluate(f[col].clip(0, 1), f["margin"].clip(0, 1), seed=seed)
    r = ev[ev.metric == "pearson"].iloc[0]
    says = _reads(r["lo"], 0.0, "track the population's agreement", "do not track it at this sample size")
    return {
        "btb_margin_r": float(r["value"]),
        "btb_margin_r_lo": float(r["lo"]),
        "btb_margin_r_hi": float(r["hi"]),
        "btb_margin_r_says": says,
        "btb_margin_sentence": presentation.signed(
            f"Pearson r = {presentation.fmt_interval(r['value'], r['lo'], r['hi'], 3)}: they {says}."
        ),
    }


def embedded_judge(study: Study, pairs: int | None = None) -> report.Result:
    """The embedded base LLM (Gemma 3 270M) judging the first ``pairs`` pairs (by default the setting
    ``embedded_pairs``) from its next-token log-probabilities of " A" / " B" (n draws from its P(A)), beside the
    study's judge; 0 = not run."""
    pairs = study.settings.embedded_pairs if pairs is None else pairs
    if not pairs:
        return report.Result(
            table=None,
            skipped=(
                "the embedded model is not run on this profile: on two busy CPU cores loading it takes minutes, and "
                "a judgment of a long prompt seconds. The sample profile runs it on a handful of real pairs."
            ),
        )
    ids, p_star, n = study.ids, study.p_star, int(study.settings.judge.n)
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):  # the model's conversion / loading progress bars
        gemma = load_llm(None)
    t_load = time.perf_counter() - t0
    few = study.data.subset(list(ids[:pairs]), reason=f"first {pairs} pairs for the embedded LLM")
    t0 = time.perf_counter()
    job = f"{study.settings.judge.job}-embedded"
    gj = eq3.synthetic_judgments(gemma, few, n=n, method="logprob", seed=study.seed, job=job).set_index("pair_id")
    t_judge = time.perf_counter() - t0
    show = pd.DataFrame({"Gemma P(A)": gj["p_a"], "A votes of 10": gj["n_a"], "Gemma margin": gj["margin"]})
    values = {
        "btb_gemma_mean_pa": float(gj["p_a"].mean()),
        "btb_gemma_secs": float(t_judge / max(len(gj), 1)),
        "btb_gemma_load": float(t_load),
    }
    sided = ""
    if p_star is not None:
        show["p*"] = p_star.reindex(gj.index)
        show["|2p*-1|"] = (2 * show["p*"] - 1).abs()
        gside = evaluation.side_agreement(p_star.reindex(gj.index), gj["p_a"], seed=study.seed)
        values["btb_gemma_side"] = gside["value"]
        sided = (
            f" It sides with the population majority on {gside['value']:.2f} of {gside['n']} pairs here "
            f"(95% CI {gside['lo']:.2f}–{gside['hi']:.2f})."
        )
    show[f"{study.judge_source.split(' (')[0]} margin"] = study.judgments["margin"].reindex(gj.index)
    note = (
        f"The base model's mean P(A) is {gj['p_a'].mean():.2f}. A value far from ½ means it leans towards one "
        "position whatever the texts (a position bias): its ten votes are then mostly unanimous and its margins "
        f"say little about the population.{sided} It took {t_load:.0f} s to load and "
        f"{t_judge / max(len(gj), 1):.1f} s per pair on this machine."
    )
    return report.Result(table=show.round(3), note=note, values=values, data={"judgments": gj})

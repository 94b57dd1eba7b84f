"""The SEAL alignment-robustness page (``notebooks/seal_robustness.py``): the § 2.3 rewriting of a random subset of D,
label flips (App. D.6, Fig. 12) and the similarity of original and rewrite (App. D.7, Table 3), and the robustness
scores π (Eq. 4, Table 8, Fig. 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import embed, presentation, report
from pluralign.paper.seal import flip_label
from pluralign.presentation import MISSING
from pluralign.report import Result
from pluralign.seal import plots
from pluralign.seal.compare import VARIANT_NAMES, bonferroni_tests, no_finite_estimate, on_paper_rows
from pluralign.seal.display import display_table, display_text
from pluralign.seal.facts import paper_rows, paper_value, reported
from pluralign.seal.flips import flip_shares, similarity_by_flip
from pluralign.seal.resistance import aligned
from pluralign.seal.rewriting import require_flips, robustness_features
from pluralign.seal.simulated_rewrites import PLANTED_FLIP_NAMES
from pluralign.seal.study import Study
from pluralign.seal.verdicts import NOT_CONVERGED, verdict_counts, verdict_legend, verdict_sentence

__all__ = ["rewrite_summary", "label_flips", "robustness"]

#: what the rewriting sections say when the page names no rewriter
NO_REWRITER = (
    "rewriting needs an instruction-tuned LM (or the demo's planted flips). With an OpenAI-compatible endpoint, "
    "name a rewriter and a labeller for this page and this section runs as on the demo: the App. C.5 prompt on both "
    "entries, only pairs whose two rewrites pass the checks kept (the others counted), both versions re-labelled "
    "on the rewritten features, the label flips, the post-D RM's alignment before and after, the similarity of "
    "original and rewrite, and the robustness scores."
)


def _rewrite_notes(study: Study) -> list[str]:
    """The notes of :func:`rewrite_summary`: pairs dropped by reason, the re-scoring check, failed labels."""
    rw = study.rewriting
    rp, notes = rw.rewrites, []
    if rp.n_dropped:
        dropped = rp.dropped.rename_axis("rewrite status (chosen / rejected)").to_frame("pairs dropped")
        notes.append(presentation.present_markdown(dropped))
    if rp.prompts is None and len(rp.kept):
        # the dialogues are re-split into (history, reply) for scoring; check this reproduces the data set's pairs
        (qc, qr), i = study.rewards_of("post"), rw.idx[rp.kept]
        same = aligned(qc[i], qr[i])
        notes.append(
            f"Re-scoring the original dialogues gives the same δ as the data set's (history, reply) "
            f"pairs on {np.mean(same == rw.before):.3f} of the kept pairs."
        )
    miss = sum(int(f.isna().all(axis=1).sum()) for f in rp.flips.values())
    if miss:
        total = sum(len(f) for f in rp.flips.values())
        notes.insert(
            0,
            report.warning(
                f"The labeller gave no valid label (no answer that parses as JSON and fits the "
                f"schema) for the original or the rewrite of {miss} of {total} rewritten entries: "
                "they have no label flips and are left out of the flip shares and the robustness "
                "scores" + (" (so both have no estimate here)." if miss == total else ".")
            ),
        )
    return notes


def _paper_odds() -> dict:
    return {
        "paper_or_c": paper_value("§2.3", "exp(π^c_+(sentiment))", "odds ratio"),
        "paper_or_r": paper_value("§2.3", "exp(π^r_-(sentiment))", "odds ratio"),
    }


def rewrite_sentence(n_kept: int, a_before: float, a_after: float, paper_after: float) -> str:
    """How rewriting moved the post-D RM, in one sentence from the rewrite table's numbers: its a₊ on the kept pairs
    before and after rewriting, beside the paper's a₊ after rewriting (§ 2.3)."""
    if not n_kept:
        return "No rewritten pair passed the checks, so rewriting's effect on the post-D RM is not measured here."
    move = "falls" if a_after < a_before else "rises" if a_after > a_before else "stays"
    return (
        f"On the {n_kept:,} rewritten pairs the post-D RM's alignment score {move} from {a_before:.3f} to "
        f"{a_after:.3f} (paper: {paper_after:.2f} after rewriting)."
    )


@report.section("rewrite_sentence", "paper_or_c", "paper_or_r")
def rewrite_summary(study: Study) -> Result:
    """Pairs drawn, dropped (a rewrite failed SEAL's checks; by reason in the note) and kept, and the
    post-D RM's a₊ on them before and after rewriting, beside the paper's (§ 2.3); values ``rewrite_sentence``
    (:func:`rewrite_sentence`) and the paper's odds ratios of the two sentiment scores."""
    rw = study.rewriting
    if rw is None:
        return Result(
            table=None,
            skipped=NO_REWRITER,
            values={"rewrite_sentence": "Rewriting does not run on this profile.", **_paper_odds()},
        )
    before, after, rp = rw.before, rw.after, rw.rewrites
    share = paper_value("§2.3", "rewritten pairs", "share of D")
    a_plus = [round(float(x.mean()), 3) if len(x) else MISSING for x in (before, after)]
    table = pd.DataFrame(
        {
            "this run": np.array([len(rw.idx), rp.n_dropped, len(rp.kept), *a_plus], dtype=object),
            "paper": [f"{share:.0%} of D", "—", "—", "—", paper_value("§2.3", "post-D RM", "a₊ after rewriting")],
        },
        index=[
            "pairs drawn for rewriting",
            "dropped: a rewrite failed its checks",
            "pairs kept",
            "post-D a₊ on them, original",
            "post-D a₊ after rewriting",
        ],
    )
    paper_after = paper_value("§2.3", "post-D RM", "a₊ after rewriting")
    a_b, a_a = (float(x.mean()) if len(x) else float("nan") for x in (before, after))
    return Result(
        table=table,
        note="\n\n".join(_rewrite_notes(study)),
        values={"rewrite_sentence": rewrite_sentence(len(rp.kept), a_b, a_a, paper_after), **_paper_odds()},
    )


def _table3_beside(table: pd.DataFrame) -> str:
    """Puts the paper's Table 3 mean cosine on the rows of ``table`` (entry, feature, flip) where it reports the
    feature (helpful, harmless, coherent, eloquent, sentiment; named without SEAL's "last_response_(is_)" prefix);
    returns the column's name."""
    p3 = paper_rows("Table 3").set_index(["row", "column"])["value"]
    col = "cosine mean (paper, Table 3)"

    def paper(e, f, lv):
        key = (
            f.removeprefix("last_response_").removeprefix("is_"),
            f"{e}, flip {int(lv):+d}" if int(lv) else f"{e}, flip 0",
        )
        return p3.get(key, np.nan)

    table.insert(table.columns.get_loc("cosine mean"), col, [paper(e, f, lv) for e, f, lv in table.index])
    return col


@report.section()
def label_flips(study: Study) -> Result:
    """Label flips of the rewritten entries (App. D.6, Fig. 12) and the cosine similarity of original and
    rewrite by flip (App. D.7, Table 3), one row per (entry, feature, flip), beside Table 3's mean cosine."""
    rw = study.rewriting
    if rw is None:
        return Result(table=None, skipped="no rewriting on this profile.")
    require_flips(rw)
    flips, rp, model = rw.rewrites.flips, rw.rewrites, study.settings.similarity_model
    shares = pd.concat({e: flip_shares(flips[e]) for e in flips}, names=["entry"])
    cos = {e: embed.cosine_pairs(rp.originals[e], rp.rewritten[e], model=model) for e in flips}
    sim = pd.concat({e: similarity_by_flip(cos[e], flips[e]) for e in flips}, names=["entry"])
    long = shares.drop(columns="n").stack().rename("share of entries")
    long.index = long.index.set_names("flip", level=-1)
    table = pd.concat(
        [long, sim.rename(columns={"mean": "cosine mean", "sd": "cosine sd", "n": "entries"})], axis=1
    ).sort_index()
    col = _table3_beside(table)
    both = sorted({f for (e, f, lv), v in table[col].items() if pd.notna(v)})
    note = (
        f"The paper's Table 3 (mean BGE-m3 cosine of original and rewrite) stands beside this run's mean on the "
        f"same row for the features both have ({', '.join(both) or 'none'})."
    )
    shown = table.round(3).rename(index=display_text, level="feature")
    return Result(
        table=shown,
        figure=plots.flip_shares_figure(shares.rename(index=display_text, level="feature"), list(flips)),
        caption=(
            "Share of the rewritten chosen (left) and rejected (right) entries whose label the rewrite lost (+1), "
            "kept (0) or gained (−1), per feature (Fig. 12)."
        ),
        note=display_text(note),
        data={"shares": shares, "similarity": sim},
    )


def _scores_long(fits: dict, bad_keys: set) -> pd.DataFrame:
    """Both variants' robustness scores as the long estimates of :func:`~pluralign.seal.compare.on_paper_rows`
    (group: the score's name as Table 8 prints it, e.g. π^c_+)."""
    frames = []
    for m, label in (("linear", LPM), ("logit", LOGIT)):
        t = fits[m].table
        frames.append(
            pd.DataFrame(
                {
                    "feature": [f for _, f, _ in t.index],
                    "group": [flip_label(e, lv) for e, _, lv in t.index],
                    "variant": label,
                    "estimate": t["estimate"].to_numpy(float),
                    "std_error": t["std_error"].to_numpy(float),
                    "tests": bonferroni_tests(t),
                    "status": [NOT_CONVERGED if m == "logit" and k in bad_keys else None for k in t.index],
                    "pairs flipped / became misaligned": [
                        f"{int(a):,} / {int(b):,}" for a, b in zip(t["n_flipped"], t["n_misaligned"])
                    ],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


LPM, LOGIT = "LPM (SEAL's code, Table 8's scale)", "logit (Eq. 4 as written)"


def _paper8() -> pd.DataFrame:
    """Table 8 as the long paper rows of :func:`~pluralign.seal.compare.on_paper_rows`, with the raw p-values it
    prints (the paper's own significance)."""
    p8 = reported("Table 8").table.reset_index()
    return pd.DataFrame(
        {
            "feature": p8["feature"],
            "group": p8["score"],
            "estimate": p8["estimate"],
            "se": p8["std_error"],
            "p": p8["p_value"],
        }
    )


def _scores_figure(long: pd.DataFrame, main: str):
    """The page's ``robustness_model``'s scores from the table's own rows (names and signs as in the table)."""
    scale = "change in the probability" if main == "linear" else "log-odds"
    return plots.paper_rows_figure(
        long,
        variant=LPM if main == "linear" else LOGIT,
        xlabel=f"π: {scale} of becoming misaligned (vs no flip)",
        title=f"robustness scores ({VARIANT_NAMES[main]})",
    )


def _designed(study: Study, features, groups) -> list[tuple[str, str]]:
    """The Table 8 rows whose sign the demo's design sets: the rewritten features (SEAL's names) whose planted
    feature the post-D RM's training mix weighs against D's (:func:`~pluralign.seal.other_data.designed_rows`), for
    the simulator's rewrites only."""
    if study.settings.rewriter != "simulator":
        return []
    w = study.other_weights
    if not len(w):
        return []
    marked = {PLANTED_FLIP_NAMES[f] for f in w.index[w["mix_opposite"].astype(bool)] if f in PLANTED_FLIP_NAMES}
    return [(f, g) for f in features if f in marked for g in groups]


@report.section("robustness_model", "n_pi_separated", "t8_verdicts")
def robustness(study: Study) -> Result:
    """Robustness scores π (Eq. 4, Table 8, Fig. 5; :attr:`~pluralign.seal.study.Study.robustness_fits`) of the
    rewritten pairs in both variants, on the paper's Table 8 rows (:func:`~pluralign.seal.compare.on_paper_rows`,
    with a verdict from the 95% CI): the linear probability model of SEAL's code (Table 8's scale) and the logit
    of Eq. 4 as written. The page's ``robustness_model`` is plotted; in the logit, flip categories with complete
    separation (or a huge SE in a fit that did not converge) have no finite estimate: shown as "did not converge
    (separation)" and not plotted."""
    rw, main = study.rewriting, study.settings.robustness_model
    if rw is None:
        return Result(
            table=None,
            skipped="no rewriting on this profile.",
            values={"robustness_model": VARIANT_NAMES[main], "t8_verdicts": "Rewriting does not run on this profile."},
        )
    require_flips(
        rw,
        values={
            "robustness_model": VARIANT_NAMES[main],
            "t8_verdicts": "No robustness score could be estimated here: no rewritten entry has a label flip.",
        },
    )
    fits = study.robustness_fits
    fit, lg = fits[main], fits["logit"].table
    bad_keys = no_finite_estimate(lg, fits["logit"].converged, lg.index[lg["separated"].to_numpy(bool)])
    paper8 = _paper8()
    ours = _scores_long(fits, bad_keys)
    groups = list(dict.fromkeys(list(paper8["group"]) + list(ours["group"])))
    feats = robustness_features(rw)[0]
    table, long = on_paper_rows(
        ours,
        paper8,
        feats,
        paper_order=list(dict.fromkeys(paper8["feature"])),
        groups=groups,
        variants=[LPM, LOGIT],
        source="rewritten feature",
        n=fit.n_pairs,
        group_name="score",
        extra=["pairs flipped / became misaligned"],
        designed=_designed(study, feats, groups),
    )
    n_sep = len(bad_keys)
    separation = (
        f"Logit terms without a finite estimate (no misaligned pair among their flips, or only misaligned ones: "
        f'separation): {n_sep}; they read "{NOT_CONVERGED}" and are not plotted.'
        if n_sep
        else "Every logit term has a finite estimate (no separation)."
    )
    note = (
        f"{fit.n_pairs} pairs enter the regression; {fit.misalignment_rate:.3f} of them went from aligned to "
        f'misaligned. {separation} Table 8 prints raw p-values: a score whose p is 0.05 or more reads "n.s. in '
        'paper".'
    )
    note = "\n\n".join(x for x in (note, verdict_legend(long)) if x)
    return Result(
        table=display_table(table),
        figure=_scores_figure(long, main),
        caption=(
            "This run's robustness scores π, one row per rewritten feature (as in the table), one colour per score "
            "(which entry flipped, and which way): ±2 SE bars; a filled marker where the Bonferroni-corrected 95% CI "
            "excludes 0, hollow otherwise. Logit terms without a finite estimate are left out."
        ),
        note=note,
        paper=paper8,
        data={"scores": fit, "fits": fits, "long": long, "separated": sorted(bad_keys)},
        values={
            "robustness_model": VARIANT_NAMES[main],
            "n_pi_separated": n_sep,
            "t8_verdicts": verdict_sentence(verdict_counts(long, LPM), "Table 8 (LPM)"),
        },
    )

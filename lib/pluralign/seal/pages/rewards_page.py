"""The SEAL rewards page (``notebooks/seal_rewards.py``): the alignment data set and the two reward models beside the
paper's (§ 2), what the RMs scored, reward vectors and reward shifts (Definition 1, Fig. 2, 10), alignment score
and resistance (§ 2.2), reward quadrants and the heatmap (App. D.2, Fig. 9)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.report import Result
from pluralign.seal import plots
from pluralign.seal.facts import DESIGN, paper_rows, paper_value
from pluralign.seal.resistance import alignment_summary, reward_quadrants
from pluralign.seal.scoring import SCORING_INPUT_NAMES, precision_rows, scoring_inputs, truncation_rows
from pluralign.seal.shifts import reward_angle
from pluralign.seal.study import Study

__all__ = ["dataset", "scoring", "reward_vectors", "reward_shifts", "alignment", "quadrants"]


def _paper_n_pairs() -> int:
    return int(paper_value("§2", DESIGN["dataset"], "pairs"))


@report.section("n_pairs", "n_ties", "n_invalid", "paper_n_pairs")
def dataset(study: Study) -> Result:
    """The alignment data set and the two reward models beside the paper's (§ 2): pairs, pairs without a chosen
    entry (majority tie, or no majority), rows the loader dropped as invalid (by reason, in the note), design;
    a warning when the pre-D and post-D RMs are one model."""
    filters = pd.DataFrame(study.D.meta.get("filters", []), columns=["filter", "field", "removed", "kept"])
    n_invalid = int(filters["removed"].sum())
    n_paper, rms = _paper_n_pairs(), study.rms
    rows = {
        "alignment data set D": (study.D.name, DESIGN["dataset"]),
        "rows dropped by the loader as invalid": (n_invalid, "not reported"),
        "pairs in D": (len(study.D), n_paper),
        "pairs without a chosen entry (majority tie), dropped": (study.n_ties_dropped, "—"),
        "pairs without a chosen entry (A and B votes even: no majority), dropped": (study.n_splits_dropped, "—"),
        "pairs analysed": (len(study.R), n_paper),
        "design": (rms.design, "OpenAssistant RMs without / with hh-rlhf"),
        "pre-D training pairs": (rms.n_train_pre or "—", "—"),
        "post-D training pairs": (rms.n_train_post or "—", "—"),
    }
    table = pd.DataFrame(rows, index=["This run", "In the paper"]).T.rename_axis("")
    dropped = filters[filters["removed"] > 0].set_index("filter")
    note = f"Rows dropped by the loader, by reason:\n\n{report.present_markdown(dropped)}" if n_invalid else ""
    if getattr(rms.pre, "identity", None) == getattr(rms.post, "identity", 0):
        note = report.warning(
            f"The pre-D and post-D reward models are the same model ({rms.pre.identity}): no "
            "reward can shift, so the reward shifts, angles and alignment regimes of Part II say nothing "
            "here. Name two models (design: reward_models: {pre: ..., post: ...}), the one before and "
            "the one after training on D."
        ) + ("\n\n" + note if note else "")
    values = {
        "n_pairs": len(study.view),
        "n_ties": study.n_ties_dropped,
        "n_invalid": n_invalid,
        "paper_n_pairs": f"{n_paper:,}",
    }
    return Result(table=table, note=note, data={"filters": filters}, values=values)


@report.section(
    "scoring_input", "n_truncated_pre", "n_truncated_post", "n_history_differs", "precision_pre", "precision_post"
)
def scoring(study: Study) -> Result:
    """What the two reward models scored (SEAL § 2; :func:`~pluralign.seal.scoring.scoring_inputs`): the scoring
    input (SEAL's code's (history, reply) split, or the loader's prompt and reply), the pairs whose chosen and
    rejected histories differ (each entry scored on its own), and per RM its maximum input length, the entries it
    truncated (:func:`~pluralign.seal.scoring.truncation_rows`), and its precision with, where not fp32, the
    measured deviation from fp32 (:func:`~pluralign.seal.scoring.precision_rows`)."""
    mode = study.scoring_input or "seal"
    view = study.view
    inputs = scoring_inputs(view, mode)
    n_diff_loader = int(view["history_differs"].sum()) if "history_differs" in view else None
    hist = inputs["history"].to_numpy()
    n_diff_scored = int((hist[0::2] != hist[1::2]).sum())
    rows = {
        "scoring input": (
            SCORING_INPUT_NAMES[mode],
            'SEAL\'s code: (history, reply) split at the last "Assistant:", no truncation',
        ),
        "entries scored": (len(inputs), 2 * _paper_n_pairs()),
        "pairs whose chosen and rejected histories differ (loader's split; flagged, kept)": (
            n_diff_loader if n_diff_loader is not None else "— (no per-side dialogues in these data)",
            "not reported",
        ),
        "pairs whose two scored histories differ": (n_diff_scored, "not reported"),
    }
    values = {"scoring_input": SCORING_INPUT_NAMES[mode], "n_history_differs": n_diff_scored}
    for k in ("pre", "post"):
        r, values[f"n_truncated_{k}"] = truncation_rows(f"{k}-D RM", getattr(study.rms, k), inputs)
        rows.update(r)
    notes = []
    for k in ("pre", "post"):
        r, values[f"precision_{k}"], note = precision_rows(f"{k}-D RM", getattr(study.rms, k), inputs)
        rows.update(r)
        notes += [note] if note else []
    table = pd.DataFrame(rows, index=["This run", "SEAL"]).T
    return Result(table=table, note=" ".join(notes), values=values, data={"inputs": inputs})


def reward_vectors(study: Study) -> Result:
    """Every pair's reward vector before and after training on D, aligned and misaligned (Fig. 2, 10)."""
    return Result(table=None, figure=plots.reward_vectors(study.R))


@report.section("theta_median", "theta_abs_mean")
def reward_shifts(study: Study) -> Result:
    """Reward-vector angles and reward shifts θ (Definition 1, Fig. 2); values ``theta_median`` (signed)
    and ``theta_abs_mean``."""
    theta = study.theta
    angles = pd.DataFrame(
        {"pre-D": reward_angle(*study.rewards_of("pre")), "post-D": reward_angle(*study.rewards_of("post"))}
    )
    return Result(
        table=None,
        figure=plots.reward_angles(angles, theta),
        data={"theta": theta},
        values={"theta_median": float(np.nanmedian(theta)), "theta_abs_mean": float(np.nanmean(np.abs(theta)))},
    )


_ALIGNMENT = ("a_plus_pre", "a_minus_pre", "a_plus_post", "a_minus_post")


@report.section(*_ALIGNMENT, *(f"paper_{k}" for k in _ALIGNMENT))
def alignment(study: Study) -> Result:
    """Alignment score a₊ and resistance a₋ of both RMs beside the paper's (§ 2.2; the paper's a₋ pre-D is
    1 − a₊, not printed)."""
    s = alignment_summary(study.R)
    p = paper_rows("§2.2").set_index(["row", "column"])["value"]
    P = {
        "a_plus_pre": p[("pre-D RM", "a₊")],
        "a_minus_pre": 1 - p[("pre-D RM", "a₊")],
        "a_plus_post": p[("post-D RM", "a₊")],
        "a_minus_post": p[("post-D RM", "a₋")],
    }
    table = pd.DataFrame(
        {
            "This run": [s[k] for k in _ALIGNMENT],
            "In the paper": [P["a_plus_pre"], round(P["a_minus_pre"], 2), P["a_plus_post"], P["a_minus_post"]],
        },
        index=["a₊ pre-D", "a₋ pre-D", "a₊ post-D", "a₋ post-D (alignment resistance)"],
    )
    return Result(
        table=table.round(3),
        paper=paper_rows("§2.2"),
        values={**{k: s[k] for k in _ALIGNMENT}, **{f"paper_{k}": float(P[k]) for k in _ALIGNMENT}},
    )


def quadrants(study: Study) -> Result:
    """Shares of pairs by the signs of their two rewards, both RMs, beside the paper's post-D shares
    (App. D.2), and the reward heatmaps (Fig. 9)."""
    paper = paper_rows("App. D.2")
    table = pd.DataFrame(
        {
            "pre-D": reward_quadrants(*study.rewards_of("pre")),
            "post-D": reward_quadrants(*study.rewards_of("post")),
            "paper (post-D)": paper.set_index("row")["value"],
        }
    )
    return Result(table=table.round(3), figure=plots.reward_heatmap(study.R), paper=paper)

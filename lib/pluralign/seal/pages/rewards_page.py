"""The SEAL rewards page (``notebooks/seal_rewards.py``): the alignment data set and the two reward models beside the
paper's (§ 2), what the RMs scored, reward vectors and reward shifts (Definition 1, Fig. 2, 10), alignment score
and resistance (§ 2.2), reward quadrants and the heatmap (App. D.2, Fig. 9)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import presentation, report
from pluralign.report import Result
from pluralign.seal import plots
from pluralign.seal.facts import PAPER_SETUP, paper_rows, paper_value
from pluralign.seal.other_data import design_sentence
from pluralign.seal.resistance import aligned, alignment_summary, reward_quadrants
from pluralign.seal.scoring import SCORING_INPUT_NAMES, precision_rows, scoring_inputs, truncation_rows
from pluralign.seal.shifts import reward_angle
from pluralign.seal.study import Study

__all__ = ["dataset", "scoring", "reward_vectors", "reward_shifts", "alignment", "quadrants"]


def _paper_n_pairs() -> int:
    return int(paper_value("§2", PAPER_SETUP["dataset"], "pairs"))


def dropped_sentence(n_ties: int, n_splits: int) -> str:
    """The sentence that counts the pairs of D without a chosen entry, from the same two counts as the dataset
    table's rows (a tied majority; A and B votes even), so that the prose and the table cannot disagree."""
    n = n_ties + n_splits
    if n == 0:
        return "Every pair has a majority label, so none was dropped for want of a chosen entry."
    parts = [
        f"{n_ties:,} with a tied majority" if n_ties else "",
        f"{n_splits:,} split evenly between A and B" if n_splits else "",
    ]
    why = " and ".join(x for x in parts if x)
    return f"{n:,} pair{'s' if n != 1 else ''} had no chosen entry and {'were' if n != 1 else 'was'} dropped ({why})."


def precision_sentence(pre: str, post: str) -> str:
    """The sentence naming the precision of the two RMs' rewards: one precision once ("Both RMs computed in
    fp32"), two apart."""
    if pre == post:
        return f"Both RMs computed in {pre}"
    return f"The pre-D RM computed in {pre} and the post-D RM in {post}"


@report.section("n_pairs", "n_ties", "n_no_chosen", "dropped_sentence", "n_invalid", "paper_n_pairs")
def dataset(study: Study) -> Result:
    """The alignment data set and the two reward models beside the paper's (§ 2): pairs, pairs without a chosen
    entry (majority tie, or no majority), rows the loader dropped as invalid (by reason, in the note), design;
    a warning when the pre-D and post-D RMs are one model."""
    filters = pd.DataFrame(study.D.meta.get("filters", []), columns=["filter", "field", "removed", "kept"])
    n_invalid = int(filters["removed"].sum())
    n_paper, rms = _paper_n_pairs(), study.rms
    rows = {
        "alignment data set D": (study.D.name, PAPER_SETUP["dataset"]),
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
    note = f"Rows dropped by the loader, by reason:\n\n{presentation.present_markdown(dropped)}" if n_invalid else ""
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
        "n_no_chosen": study.n_ties_dropped + study.n_splits_dropped,
        "dropped_sentence": dropped_sentence(study.n_ties_dropped, study.n_splits_dropped),
        "n_invalid": n_invalid,
        "paper_n_pairs": f"{n_paper:,}",
    }
    return Result(table=table, note=note, data={"filters": filters}, values=values)


@report.section(
    "scoring_input",
    "n_truncated_pre",
    "n_truncated_post",
    "n_history_differs",
    "precision_pre",
    "precision_post",
    "precision_sentence",
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
    values["precision_sentence"] = precision_sentence(values["precision_pre"], values["precision_post"])
    table = pd.DataFrame(rows, index=["This run", "SEAL"]).T
    return Result(table=table, note=" ".join(notes), values=values, data={"inputs": inputs})


def reward_vectors(study: Study) -> Result:
    """Every pair's reward vector before and after training on D, aligned and misaligned (Fig. 2, 10)."""
    return Result(
        table=None,
        figure=plots.reward_vectors(study.R),
        caption=(
            "Each pair's reward vector, the chosen entry's reward against the rejected entry's, under the pre-D RM "
            "(left) and the post-D RM (right): blue where the RM agrees with the human label (below the dashed "
            "bisector), red where it does not."
        ),
    )


#: the two estimators of θ a page shows: Definition 1 as the paper computes it, and on rewards centred per model
THETA_RAW, THETA_CENTRED = "as the paper computes it (Definition 1)", "on rewards centred per model"


def theta_summary(theta, theta_centred) -> pd.DataFrame:
    """Mean |θ|, median θ and the share of pairs whose |θ| exceeds 90° (the vector turned more than a right angle)
    for θ as the paper computes it and on rewards centred per model, one column each."""

    def summ(t):
        t = np.asarray(t, float)
        t = t[np.isfinite(t)]
        return {
            "mean |θ| (degrees)": float(np.mean(np.abs(t))),
            "median θ (degrees)": float(np.median(t)),
            "share of pairs with |θ| > 90°": float(np.mean(np.abs(t) > 90)),
        }

    return pd.DataFrame({THETA_RAW: summ(theta), THETA_CENTRED: summ(theta_centred)})


@report.section(
    "theta_median",
    "theta_abs_mean",
    "theta_median_centred",
    "theta_abs_mean_centred",
    "reward_mean_pre",
    "reward_mean_post",
    "reward_offset",
    "other_design",
)
def reward_shifts(study: Study) -> Result:
    """Reward-vector angles and reward shifts θ (Definition 1, Fig. 2), as the paper computes them and on rewards
    centred per model (:func:`~pluralign.seal.shifts.centred_reward_shift`, the better estimator: a Bradley–Terry
    reward has no fixed constant, and two separately trained heads differ by an offset that turns the raw vectors);
    the measured offset (:func:`~pluralign.seal.shifts.reward_offsets`) and, on the demo, the other-data design
    (:func:`~pluralign.seal.other_data.design_sentence`). Values ``theta_median`` and ``theta_abs_mean`` (the
    paper's θ), their ``_centred`` twins, ``reward_mean_pre`` / ``reward_mean_post`` / ``reward_offset`` and
    ``other_design``."""
    theta, centred, off = study.theta, study.theta_centred, study.reward_offsets
    angles = pd.DataFrame(
        {"pre-D": reward_angle(*study.rewards_of("pre")), "post-D": reward_angle(*study.rewards_of("post"))}
    )
    table = theta_summary(theta, centred)
    design = design_sentence(study.other_weights)
    note = (
        f"Offset between the two RMs: the post-D RM's rewards average {presentation.fmt_number(off.post)} over D's "
        f"entries, the pre-D RM's {presentation.fmt_number(off.pre)} (a difference of "
        f"{presentation.fmt_number(off.offset)} reward points)."
    )
    if design:
        note += (
            " " + design + " The pre-D RM learned those weights and the post-D RM D's as well, so on the demo much "
            "of θ is this design turning the vectors, not something the paper measures."
        )
    note = presentation.signed(note)
    return Result(
        table=table,
        figure=plots.reward_angles(angles, {THETA_RAW: theta, THETA_CENTRED: centred}),
        caption=(
            "Left: the angle of each pair's reward vector (chosen reward, rejected reward) under the pre-D and "
            "post-D RMs; aligned pairs lie between −135° and 45°. Right: the reward shift θ from the pre-D to the "
            "post-D vector, counter-clockwise positive, as the paper computes it and on rewards centred per model."
        ),
        note=note,
        data={"theta": theta, "theta_centred": centred, "offsets": off},
        values={
            "theta_median": float(np.nanmedian(theta)),
            "theta_abs_mean": float(np.nanmean(np.abs(theta))),
            "theta_median_centred": float(np.nanmedian(centred)),
            "theta_abs_mean_centred": float(np.nanmean(np.abs(centred))),
            "reward_mean_pre": off.pre,
            "reward_mean_post": off.post,
            "reward_offset": off.offset,
            "other_design": design or "The pre-D RM's training data carry no planted weights to set against D's.",
        },
    )


_ALIGNMENT = ("a_plus_pre", "a_minus_pre", "a_plus_post", "a_minus_post")


def alignment_gain(pre_aligned, post_aligned) -> dict:
    """The change of the alignment score a₊ from the pre-D to the post-D RM on the same pairs, with its 95% CI
    (paired: the mean and SE of δ_i − δ̲_i), and the verdict in words against the paper's rise (§ 2.2: 0.57 → 0.74):
    ``gain``, ``low``, ``high``, ``verdict``."""
    d = np.asarray(post_aligned, float) - np.asarray(pre_aligned, float)
    gain = float(np.mean(d))
    se = float(np.std(d, ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    lo, hi = gain - 1.959963984540054 * se, gain + 1.959963984540054 * se
    if lo > 0:
        verdict = "rises with training on D, as in the paper"
    elif hi < 0:
        verdict = "falls with training on D, where the paper's rose"
    else:
        verdict = "does not change detectably with training on D (the paper's rose)"
    return {"gain": gain, "low": lo, "high": hi, "verdict": verdict}


@report.section(*_ALIGNMENT, *(f"paper_{k}" for k in _ALIGNMENT), "a_plus_gain", "alignment_verdict")
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
    g = alignment_gain(aligned(*study.rewards_of("pre")), aligned(*study.rewards_of("post")))
    note = (
        f"From the pre-D to the post-D RM a₊ changes by {presentation.fmt_interval(g['gain'], g['low'], g['high'])} "
        f"on the same pairs (paired 95% CI): it {g['verdict']}."
    )
    return Result(
        table=table.round(3),
        paper=paper_rows("§2.2"),
        note=note,
        values={
            **{k: s[k] for k in _ALIGNMENT},
            **{f"paper_{k}": float(P[k]) for k in _ALIGNMENT},
            "a_plus_gain": g["gain"],
            "alignment_verdict": g["verdict"],
        },
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
    return Result(
        table=table.round(3),
        figure=plots.reward_heatmap(study.R),
        paper=paper,
        caption=(
            "The pairs' (chosen, rejected) rewards of the pre-D RM (left) and the post-D RM (right) as a "
            "two-dimensional histogram (colour: pairs per cell); the dashed line is the bisector."
        ),
    )

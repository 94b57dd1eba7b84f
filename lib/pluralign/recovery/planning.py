"""Sweeps that end where a decision is lost: each method row rerun along the knob a researcher plans with, from the
demo's value towards the hard end, until a named decision is no longer made (or to 100× the demo's value, saying
it never is), and the planning table built from them ("to decide X, collect N").

Every step runs the method rows' own checks with the table's draws (25 noise draws), on the cheap components (the
simulator, the simulated judge, the noisy oracle; nothing is retrained)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.data.difficulty import ANNOTATORS_PER_PAIR, REWRITE_FLIP
from pluralign.recovery.imprint_checks import CORRELATION
from pluralign.recovery.reading import name
from pluralign.recovery.rows import without_null_passes

__all__ = ["Decision", "DECISIONS", "decision_steps", "planning_table", "result"]


#: a knob from the demo's value (1×) to 100× it, doubling
HUNDREDFOLD = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 100.0)


@dataclass(frozen=True)
class Decision:
    """A named decision a method row supports, the knob that makes it hard, the demo's value, the steps (from the
    demo's value towards the hard end) and ``made``: whether a step's row still makes it."""

    row: str
    knob: str
    demo: float
    steps: tuple
    decision: str
    made: object
    #: why the knob's range cannot lose the decision, where it cannot (said beside "never")
    why_never: str = ""


def _half_width(r: dict) -> float:
    return (r["ci_high"] - r["ci_low"]) / 2


#: the decisions, fixed before any sweep ran (knobs added after the first sweeps ran keep the same bars: the
#: margin's noise and n, then annotators per pair and Eq. 4's flip rate); the bars are the project's planning
#: questions: Diverging
#: Preferences § 2 reports its shares to two decimals (±0.05 tells 0.30 from 0.40); SEAL's Eq. 1 is read as a
#: ranking of features (the row's r ≥ 0.9 bar); Beyond the Binary trains on the margin's scale, so its scale must
#: be known to ±10 %
def _within(half_width: float):
    """The decision "known to ± ``half_width``": the half-width of the row's 95 % interval at most that."""
    return lambda r: _half_width(r) <= half_width


#: the pairs the two Part I shares are followed along (the demo's 1,200 down to a dozen)
PAIRS = (1200, 600, 300, 150, 80, 40, 12)

DECISIONS = (
    *(
        Decision(
            row, "pairs", PAIRS[0], PAIRS, f"{what} is known to ±0.05 (half-width of its 95 % interval)", _within(0.05)
        )
        for row, what in (
            ("diverging_share", "the diverging share"),
            ("diverging_taste_driven", "the taste-driven share of the diverging pairs"),
        )
    ),
    Decision(
        "diverging_share",
        "annotators per pair",
        ANNOTATORS_PER_PAIR,
        tuple(range(ANNOTATORS_PER_PAIR, 1, -1)),
        "the diverging share is known to ±0.05 (as above), with fewer annotators per pair (2: the fewest that can "
        "disagree)",
        _within(0.05),
        why_never="2 annotators are the fewest that can disagree",
    ),
    Decision(
        "imprint_weights",
        "oracle noise (× the demo RM's residual sd)",
        1.0,
        HUNDREDFOLD,
        f"Eq. 1's imprints rank the features as the planted weights do (r ≥ {CORRELATION:g}, first draw)",
        lambda r: r["r_first"] >= CORRELATION,
    ),
    Decision(
        "imprint_text_weights",
        "oracle noise (× the demo RM's residual sd)",
        1.0,
        HUNDREDFOLD,
        f"Eq. 1 on the featurizer's features ranks them as their truth does (r ≥ {CORRELATION:g}, first draw)",
        lambda r: r["r_first"] >= CORRELATION,
    ),
    Decision(
        "resistance_regimes",
        "oracle noise (× the demo RM's residual sd)",
        1.0,
        (1.0, 4.0, 16.0, 64.0),
        "Eq. 3 signs what drives misalignment: each feature whose planted ρ is at least a quarter of the largest has "
        "its first draw's 95 % interval on the planted side of 0",
        lambda r: r["signs_drivers"],
    ),
    Decision(
        "robustness_scores",
        "rewrite flip probability",
        REWRITE_FLIP,
        tuple(REWRITE_FLIP / k for k in HUNDREDFOLD),
        "Eq. 4's scores are known to ±0.05 (median half-width of their 95 % intervals, the bar of the shares) with "
        "rewrites that flip a feature less often",
        lambda r: r["score_half_width"] <= 0.05,
    ),
    Decision(
        "margin_pstar_correlation",
        "judge log-odds noise",
        1.0,
        HUNDREDFOLD,
        "the margins' scale is known to ±10 % (half-width of the slope's 95 % interval on their planted expectation)",
        _within(0.1),
    ),
    Decision(
        "margin_pstar_correlation",
        "judgments per pair n",
        10,
        (10, 5, 3, 2, 1),
        "the margins' scale is known to ±10 % (as above), with fewer judgments per pair",
        _within(0.1),
        why_never="1 judgment per pair is the fewest",
    ),
)


def _run(d: Decision, value, context) -> dict:
    """The row of decision ``d`` at one step of its knob, through the row's own check."""
    from pluralign.recovery.imprint_checks import oracle_imprint, oracle_imprint_text
    from pluralign.recovery.sweeps import agreement_step, margin_step

    seed = context.diverging.seed
    if d.row.startswith("diverging"):
        spec = next(x for x in context.diverging.settings.datasets if x.simulate is not None)
        knob = {"n_annotators" if d.knob == "annotators per pair" else "n_pairs": int(value)}
        spec = spec.replace(simulate=spec.simulate.replace(**knob))
        return agreement_step(d.row, spec, seed, context.diverging.settings.ties)
    if d.row == "imprint_weights":
        _, _, data = context.demo_rm
        return oracle_imprint(data, data.pairs["pair_id"], noise_sd=value * context.noise_sd, seed=seed)
    if d.row == "imprint_text_weights":
        s = context.seal
        return oracle_imprint_text(s.D, s.view, noise_sd=value * context.noise_sd, seed=seed)
    if d.row == "resistance_regimes":
        return _resistance(context, value * context.noise_sd, seed)
    if d.row == "robustness_scores":
        from pluralign.recovery.robustness_checks import oracle_robustness

        s = context.seal
        return oracle_robustness(s.D, s.view, noise_sd=context.noise_sd, seed=seed, p_flip=float(value))
    b = context.btb
    p = b.data.truth["share_a"].reindex(b.ids)
    noise, n = float(b.settings.judge.noise), int(b.settings.judge.n)
    noise, n = (float(value), n) if d.knob.startswith("judge") else (noise, int(value))
    return margin_step(p, noise, n, seed)


def _resistance(context, noise_sd: float, seed: int) -> dict:
    """Row ``resistance_regimes`` at oracle noise ``noise_sd`` (:func:`~pluralign.recovery.resistance_checks.
    oracle_resistance`) with ``signs_drivers``: whether, in its first draw, Eq. 3's 95 % interval of every feature
    whose planted ρ is at least a quarter of the largest |ρ| lies on the planted side of 0 (the row's own draws and
    fits, kept by :func:`~pluralign.recovery.resistance_checks.resistance_draws`)."""
    from pluralign.recovery.resistance_checks import _production_fit, oracle_resistance, resistance_draws

    s = context.seal
    r = oracle_resistance(s.D, s.view, s.other_parts, noise_sd=noise_sd, seed=seed)
    n_draws = inspect.signature(oracle_resistance).parameters["n_draws"].default  # the row's own draws
    pt, drawn = resistance_draws(s.D, s.view, s.other_parts, noise_sd, seed, n_draws)
    fit = _production_fit(drawn, 0, pt, drawn[0][1]).reindex(pt["rho"].index)
    rho = pt["rho"]
    drivers = rho.abs() >= rho.abs().max() / 4
    lo, hi = fit.loc[drivers, "ci_low"].to_numpy(float), fit.loc[drivers, "ci_high"].to_numpy(float)
    on_side = np.where(rho[drivers].to_numpy() > 0, lo > 0, hi < 0)
    sep = pd.Series(drawn[0][2], index=rho.index)[drivers].to_numpy(bool)
    why = (
        f"{int(sep.sum())} of {int(drivers.sum())} drivers separated in the first draw (no finite estimate), "
        f"{int((~on_side & ~sep).sum())} not signed"
    )
    return {**r, "signs_drivers": bool(on_side.all()), "why_not": why}


def decision_steps(context, decisions=DECISIONS) -> pd.DataFrame:
    """Every step of every decision until the first step that loses it: the row, the knob's value, the estimate
    with its interval, whether the row recovers its truth there (``recovers``: its verdict, the estimate against
    its truth), whether the decision is made from it (``decided``) and ``made``: both — a decision read from a row
    that misses its truth is not made."""
    out = []
    for d in decisions:
        for v in d.steps:
            with without_null_passes():  # a decision reads the estimate and its interval, not the null's pass rate
                r = _run(d, v, context)
            recovers, decided = bool(r["recovered"]), bool(d.made(r))
            made = recovers and decided
            out.append(
                {"row": d.row, "knob": d.knob, "value": float(v), "demo": float(v) == float(d.demo)}
                | {"recovers": recovers, "decided": decided, "made": made, "why_not": r.get("why_not", "")}
                | {k: r[k] for k in ("estimate", "ci_low", "ci_high")}
            )
            if not made:
                break
    return pd.DataFrame(out)


def _knob(v) -> str:
    """A knob's value as the table shows it: a count whole ("1,200"), a rate or a multiple to 3 digits."""
    v = float(v)
    return f"{v:,.0f}" if v == round(v) else f"{v:.3g}"


def _lost_at(lost: pd.DataFrame, d: Decision) -> str:
    """Where a decision is lost and why ("16 (the row misses its truth)"), or "never, to …"; a decision the knob's
    range cannot lose says why."""
    if not len(lost):
        return f"never, to {_knob(d.steps[-1])}" + (f" ({d.why_never})" if d.why_never else "")
    first = lost.iloc[0]
    why = "the row misses its truth" if not first["recovers"] else first.get("why_not", "")
    return f"{_knob(first['value'])}" + (f" ({why})" if why else "")


def planning_table(steps: pd.DataFrame, decisions=DECISIONS) -> pd.DataFrame:
    """Per decision: the demo's value, the hardest step that still makes it, and where it is lost (or "never, to
    100× the demo's value")."""
    rows = []
    for d in decisions:
        s = steps[(steps["row"] == d.row) & (steps["knob"] == d.knob)]
        made, lost = s[s["made"]], s[~s["made"]]
        rows.append(
            {
                "row": name(d.row),
                "knob": d.knob,
                "decision": d.decision,
                "demo": _knob(d.demo),
                "still made at": _knob(made["value"].iloc[-1]) if len(made) else "not made at the demo's value",
                "lost at": _lost_at(lost, d),
            }
        )
    return pd.DataFrame(rows).set_index("row").rename_axis(index="method row")


def result(context) -> report.Result:
    """The planning table for the recovery page, with every step in ``data``."""
    steps = decision_steps(context)
    note = (
        "Each decision is followed from the demo's value towards the hard end of its knob until it is lost: *still "
        "made at* is the hardest design that still makes it (for pairs: the fewest pairs to collect; for noise: the "
        "noisiest reward model or judge that still decides), *lost at* the first that does not, with why where the "
        "decision itself does not say. A decision is made at a step only where its row also recovers its truth "
        "there: a decision read from an estimate that misses its truth is not made."
    )
    return report.Result(table=planning_table(steps), note=note, data={"steps": steps})

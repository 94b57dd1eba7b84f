"""Recovery along the knob that makes each method row hard: the method rows of :mod:`pluralign.recovery` rerun at
several settings of the one demo value (:mod:`pluralign.data.difficulty`) that decides how hard they are, the
estimate and its CI at each step beside the planted value and the criterion, and the first step where a row
stops recovering. A researcher planning a collection reads from them how many annotators or judgments a method
needs and how much reward noise it tolerates.

Each sweep reruns the method on the cheap components only (the simulator, the simulated judge, the noisy oracle
reward, the simulated rewriter; no model is trained), so the page stays fast:

- ``diverging_share`` along annotators per pair (the simulator's data redrawn with 2 … 8 annotators);
- ``margin_pstar_correlation`` along the judge's log-odds noise and the judgments per pair n (the judge's draws
  vectorised, the margin by the library's Eq. 3);
- ``imprint_weights`` along the oracle's noise, in multiples of the demo RM's residual sd;
- ``robustness_scores`` along the rewriter's flip probability.

Every step uses the table's draws and rounds (25 draws; 5 rewrite rounds)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign import presentation, report
from pluralign.data import difficulty
from pluralign.data.spec import DataSpec
from pluralign.recovery.rows import without_null_passes

__all__ = ["SWEEPS", "step_row", "agreement_step", "margin_step", "sweep_table", "sweep_figure", "result"]

#: the knob each sweep moves and its steps (the demo's own value is among them, marked on the page)
SWEEPS = {
    "diverging_share": ("annotators per pair", (2, 3, 4, 6, 8)),
    "margin_pstar_correlation (noise)": ("judge log-odds noise", (0.5, 1.0, 2.0, 4.0)),
    "margin_pstar_correlation (n)": ("judgments per pair n", (3, 10, 30)),
    "imprint_weights": ("oracle noise (× the demo RM's residual sd)", (0.5, 1.0, 4.0, 16.0)),
    "robustness_scores": ("rewrite flip probability", (0.1, 0.25, 0.5)),
}


#: the rows of the sweeps' and the planning table's steps by their inputs (the row, the design, the seed), each
#: computed once per process: a step at the demo's value, or one that a sweep and a planning decision share, is
#: not recomputed (the same seeded inputs give the same row)
_STEPS: dict = {}


def step_row(key: tuple, compute) -> dict:
    """The row ``compute()`` gives for a step whose inputs ``key`` names (hashable), computed once per process
    (the last 64 kept) without its null method's pass rate (a step shows its verdict, not the null's); a copy."""
    if key not in _STEPS:
        with without_null_passes():
            row = compute()
        while len(_STEPS) >= 64:
            _STEPS.pop(next(iter(_STEPS)))
        _STEPS[key] = row
    return dict(_STEPS[key])


def agreement_step(row: str, spec: DataSpec, seed: int, ties: str) -> dict:
    """The agreement row ``row`` (``diverging_share`` or ``diverging_taste_driven``,
    :mod:`~pluralign.recovery.diverging_checks`) on the data set the simulator spec ``spec`` draws at ``seed``,
    classified by :func:`pluralign.diverging.agreement.agreement_classes` (``ties``), through :func:`step_row`;
    the data set and its classes drawn once per spec."""
    import json

    from pluralign.recovery import diverging_checks as D

    text = json.dumps(spec.model_dump(), sort_keys=True, default=str)

    def classes():
        from pluralign.data.spec import from_spec
        from pluralign.diverging.agreement import agreement_classes

        data = from_spec(spec, seed)
        return {"data": data, "classes": agreement_classes(data, ties=ties)}

    drawn = step_row(("agreement classes", text, int(seed), ties), classes)
    return step_row(
        ("agreement", row, text, int(seed), ties), lambda: getattr(D, row)(drawn["classes"], drawn["data"], seed)
    )


def margin_step(p_star: pd.Series, noise: float, n: int, seed: int) -> dict:
    """Beyond the Binary's margin row (:func:`~pluralign.recovery.btb_checks.margin_pstar_correlation`) with a
    judge of log-odds noise ``noise`` and ``n`` judgments per pair (:func:`_judged`) on the pairs of ``p_star``,
    through :func:`step_row`."""
    import hashlib

    from pluralign.recovery.btb_checks import margin_pstar_correlation

    digest = hashlib.blake2b(np.ascontiguousarray(p_star.to_numpy(float)).tobytes(), digest_size=16).hexdigest()
    digest += hashlib.blake2b(repr(list(p_star.index)).encode(), digest_size=16).hexdigest()
    return step_row(
        ("margin", digest, float(noise), int(n), int(seed)),
        lambda: margin_pstar_correlation(
            _judged(p_star, float(noise), int(n), seed), p_star, seed, noise=float(noise), n=int(n)
        ),
    )


def _step(row: dict, sweep: str, knob, demo_value) -> dict:
    return {
        "sweep": sweep,
        "knob": SWEEPS[sweep][0],
        "value": float(knob),
        "demo": bool(np.isclose(float(knob), float(demo_value))),
        **{k: row[k] for k in ("planted", "estimate", "ci_low", "ci_high", "criterion", "recovered", "reads")},
    }


def _diverging(spec: DataSpec, seed: int, ties: str) -> list[dict]:
    out = []
    for n in SWEEPS["diverging_share"][1]:
        row = agreement_step(
            "diverging_share", spec.replace(simulate=spec.simulate.replace(n_annotators=n)), seed, ties
        )
        out.append(_step(row, "diverging_share", n, difficulty.ANNOTATORS_PER_PAIR))
    return out


def _judged(p_star: pd.Series, noise: float, n: int, seed: int) -> pd.DataFrame:
    """``n`` judgments per pair from the simulated judge's model
    (:func:`~pluralign.btb.margins.simulated_votes`) and their margin by the library's Eq. 3
    (:func:`pluralign.btb.margins.eq3_margin`): the frame that
    :func:`~pluralign.recovery.btb_checks.margin_pstar_correlation` reads, drawn in one vectorised step (the
    sweep moves the judge; the method is Eq. 3)."""
    from pluralign.btb.margins import eq3_margin, simulated_votes

    rng = np.random.default_rng([seed, 35, int(round(100 * noise)), n])
    k = simulated_votes(p_star.to_numpy(float), noise=noise, n=n, rng=rng)
    return pd.DataFrame({"share_a": k / n, "margin": eq3_margin(k, np.full(len(k), n))}, index=p_star.index)


def _margins(p_star: pd.Series, seed: int, noise: float, n: int) -> list[dict]:
    out = []
    steps = [
        ("margin_pstar_correlation (noise)", s, n, s, noise) for s in SWEEPS["margin_pstar_correlation (noise)"][1]
    ]
    steps += [("margin_pstar_correlation (n)", noise, k, k, n) for k in SWEEPS["margin_pstar_correlation (n)"][1]]
    for sweep, z, k, knob, demo in steps:
        out.append(_step(margin_step(p_star, float(z), int(k), seed), sweep, knob, demo))
    return out


def _imprints(data, ids, noise_sd: float, seed: int) -> list[dict]:
    from pluralign.recovery.imprint_checks import oracle_imprint

    return [  # fresh noise per step (the same draws, scaled, would give the same coverage at every step)
        _step(oracle_imprint(data, ids, noise_sd=f * noise_sd, seed=100 * seed + i), "imprint_weights", f, 1.0)
        for i, f in enumerate(SWEEPS["imprint_weights"][1])
    ]


def _robustness(data, view, noise_sd: float, seed: int) -> list[dict]:
    from pluralign.recovery.robustness_checks import oracle_robustness

    return [
        _step(
            oracle_robustness(data, view, noise_sd=noise_sd, seed=seed, p_flip=p),
            "robustness_scores",
            p,
            difficulty.REWRITE_FLIP,
        )
        for p in SWEEPS["robustness_scores"][1]
    ]


def sweep_table(context) -> pd.DataFrame:
    """Every sweep of :data:`SWEEPS` on the demo's studies (``context``: the
    :func:`~pluralign.recovery.demo.recovery_context` the table was computed from): one row per step with the
    knob's value, whether it is the demo's (``demo``), the planted value, the estimate, its CI, the criterion
    and whether it recovers."""
    div, seal, btb, demo_rm = context.diverging, context.seal, context.btb, context.demo_rm
    seed = div.seed
    spec = next(x for x in div.settings.datasets if x.simulate is not None)
    judge = btb.settings.judge
    _, _, data = demo_rm
    with without_null_passes():  # a step shows its verdict, not the null method's pass rate: not computed
        rows = _diverging(spec, seed, div.settings.ties)
        rows += _margins(btb.data.truth["share_a"].reindex(btb.ids), seed, judge.noise, judge.n)
        rows += _imprints(data, pd.Index(data.pairs["pair_id"]), context.noise_sd, seed)
        rows += _robustness(seal.D, seal.view, context.noise_sd, seed)
    return pd.DataFrame(rows)


def _first_miss(steps: pd.DataFrame) -> str:
    """Where a sweep stops recovering: the first step (from the easy end) that misses, or "recovers at every step"."""
    miss = steps[~steps["recovered"].astype(bool)]
    return "recovers at every step" if miss.empty else f"stops at {miss['value'].iloc[0]:g}"


def sweep_figure(t: pd.DataFrame):
    """One panel per sweep: the estimate and its 95 % CI at each step, the planted value (where one was planted)
    and the demo's step marked; a step that misses its criterion is drawn hollow."""
    import textwrap

    import matplotlib.pyplot as plt

    from pluralign.recovery.reading import SWEEP_NAMES

    names = list(dict.fromkeys(t["sweep"]))
    fig, axes = plt.subplots(3, 2, figsize=(7.2, 7.6), squeeze=False)
    for ax, name in zip(axes.flat, names):
        s = t[t["sweep"] == name]
        x = np.arange(len(s))
        err = np.vstack([s["estimate"] - s["ci_low"], s["ci_high"] - s["estimate"]])
        ok = s["recovered"].to_numpy(bool)
        ax.errorbar(x, s["estimate"], yerr=err, fmt="none", ecolor="0.35", capsize=3)
        ax.plot(x[ok], s["estimate"][ok], "o", color="C0", label="estimate (passes)")
        ax.plot(x[~ok], s["estimate"][~ok], "o", mfc="white", color="C3", label="estimate (fails)")
        if s["planted"].notna().any():
            ax.plot(x, s["planted"], "_", ms=16, mew=2, color="C2", label="truth")
        demo = np.flatnonzero(s["demo"].to_numpy(bool))
        for d in demo:
            ax.axvline(d, color="0.7", ls=":", lw=1)
        ax.set_xticks(x, [f"{v:g}" + ("\n(demo)" if i in demo else "") for i, v in enumerate(s["value"])])
        ax.set_xlabel(s["knob"].iloc[0])
        ax.set_title(textwrap.fill(SWEEP_NAMES.get(name, name), 38), fontsize=9)
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="upper center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    plt.close(fig)
    return fig


@report.section("n_sweeps", "n_sweeps_recover")
def result(context) -> report.Result:
    """The sweeps as the recovery page shows them: one row per step (the knob's value, the truth, the estimate
    with its 95 % CI, what the verdict reads at the criterion's own level, the verdict), the figure, and a note
    naming each sweep's knob, criterion and where it stops passing."""
    from pluralign.recovery.reading import SWEEP_NAMES

    t = sweep_table(context)
    shown = pd.DataFrame(
        {
            "sweep": [SWEEP_NAMES.get(v, v) for v in t["sweep"]],
            "value": [f"{v:g}" + (" (demo)" if d else "") for v, d in zip(t["value"], t["demo"])],
            "truth": [presentation.fmt_fixed(v, 3) for v in t["planted"]],
            "estimate [95% CI]": presentation.intervals(t["estimate"], t["ci_low"], t["ci_high"], decimals=3),
            "what the verdict reads": [r or c for r, c in zip(t["reads"].fillna(""), t["criterion"])],
            "verdict": t["recovered"].map({True: "passes", False: "fails"}),
        }
    ).set_index(["sweep", "value"])
    groups = t.groupby("sweep", sort=False)
    where = {name: _first_miss(s) for name, s in groups}
    note = ":::{dropdown} Each sweep's knob, criterion and where it stops passing\n" + "\n".join(
        f"- {SWEEP_NAMES.get(name, name)} (knob: {s['knob'].iloc[0]}); criterion: {s['criterion'].iloc[0]}; "
        f"**{where[name].replace('recovers', 'passes')}**."
        for name, s in groups
    )
    note += (
        "\n\nA criterion that asks the truth to lie in the interval holds at every step for a calibrated method: "
        "the knob moves the interval's width (how much the data can say), which is what to read from those rows; "
        "a criterion with a bar (a correlation of at least 0.9) is where a method can stop.\n:::"
    )
    values = {"n_sweeps": len(where), "n_sweeps_recover": sum(v == "recovers at every step" for v in where.values())}
    caption = (
        "Each method along the knob that makes it hard: the estimate and its 95 % interval at each step, the truth "
        "(where one was planted) and the demo's step (dotted line). A hollow point fails its criterion, which reads "
        "the intervals or bands in the table's column *what the verdict reads* (at the criterion's own level, "
        "wider than the 95 % bars drawn here)."
    )
    return report.Result(
        table=shown, figure=sweep_figure(t), note=note, values=values, caption=caption, data={"table": t}
    )

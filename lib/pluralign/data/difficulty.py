"""How hard the demo is: every simulator and stand-in setting that decides how hard a recovery check is, as the
demo runs with it, with its source beside it — a figure from a seed paper where one exists, otherwise a stated
round value. The recovery page (:mod:`pluralign.recovery`) shows this table beside the sweeps that move each value,
and its checks read it.

This table sets no default of the library: the demo gets these values from its parameter files (``params/demo/``)
and the defaults they leave in place (the simulator's, the simulated judge's of Parts I, III and IV, the simulated
rewriter's of Part II), and a test reads the demo profile through the parameter reader and checks that it runs
with every value here. Making the demo harder is a change of ``params/demo/`` and of this table; it never reaches
the paper profile, whose files write the papers' own values (:mod:`pluralign.paper.recipe`).

A value here is never chosen so that a check passes: the sweeps on the recovery page show how each check moves
when its knob moves, so a reader sees how far from its breaking point the demo's value sits."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = [
    "Knob",
    "ANNOTATORS_PER_PAIR",
    "ANNOTATOR_POOL",
    "ANNOTATOR_NOISE",
    "JUDGE_NOISE",
    "JUDGE_N",
    "REWRITE_FLIP",
    "PROMPT_EFFECT",
    "KNOBS",
    "table",
]


@dataclass(frozen=True)
class Knob:
    """One difficulty setting: its ``value``, what it ``sets`` (and where), and its ``source``."""

    name: str
    value: float
    sets: str
    source: str


#: Annotators per pair (:func:`pluralign.data.simulate`, ``n_annotators``).
ANNOTATORS_PER_PAIR = 4
#: The pool the annotators of a data set are drawn from (``n_pool``).
ANNOTATOR_POOL = 40
#: Each annotator's judgment noise on the utility gap, per entry (``noise``).
ANNOTATOR_NOISE = 0.35
#: The simulated judge's log-odds error around the planted p* (Parts I, III and IV).
JUDGE_NOISE = 1.0
#: Synthetic judgments per pair (Beyond the Binary Eq. 3's ``n``; § 3.3: 10).
JUDGE_N = 10
#: The noisy oracle reward's prompt effect per planted feature a pair's entries carry (SEAL Eq. 1's α_i).
PROMPT_EFFECT = 1.0
#: The simulated rewriter's probability of flipping each planted style feature (SEAL § 2.3's rewrites).
REWRITE_FLIP = 0.25

KNOBS = (
    Knob(
        "annotators per pair",
        ANNOTATORS_PER_PAIR,
        "simulate(n_annotators): every data set of Parts I–IV",
        "Diverging Preferences § 2: each MultiPref pair is annotated by four annotators",
    ),
    Knob(
        "annotator pool",
        ANNOTATOR_POOL,
        "simulate(n_pool): every data set",
        "stated round value (no seed paper reports the pool behind a data set's judgments)",
    ),
    Knob(
        "annotator noise (sd, utility scale)",
        ANNOTATOR_NOISE,
        "simulate(noise): every MultiPref-format data set",
        "stated value (the simulator's default): with it about 0.4 of the demo's MultiPref-format pairs are "
        "diverging; Diverging Preferences § 2 finds 'over 30 %' in both data sets",
    ),
    Knob(
        "judge log-odds noise (sd)",
        JUDGE_NOISE,
        "the simulated judge of Part I § 4, Part III Eq. 3 and Part IV",
        "stated round value: no seed paper reports how far an LLM judge's P(A) sits from a population's split",
    ),
    Knob(
        "judgments per pair (n)",
        JUDGE_N,
        "Beyond the Binary Eq. 3's n: Parts III and IV",
        "Beyond the Binary § 3.3: '10 synthetic annotations' per training example",
    ),
    Knob(
        "oracle prompt effect (per planted feature)",
        PROMPT_EFFECT,
        "the noisy oracle reward of Part II's method rows: an offset shared by a pair's two entries",
        "stated round value, larger than any planted weight: SEAL Eq. 1's pair effects α_i must absorb it",
    ),
    Knob(
        "rewrite flip probability",
        REWRITE_FLIP,
        "SEAL § 2.3's simulated rewriter: Part II's robustness scores",
        "stated round value: one planted feature in four toggled per rewrite",
    ),
)


def table() -> pd.DataFrame:
    """The demo's difficulty settings (:data:`KNOBS`) as a table for the recovery page."""
    return pd.DataFrame(
        [{"setting": k.name, "value": f"{k.value:g}", "sets": k.sets, "source": k.source} for k in KNOBS]
    )

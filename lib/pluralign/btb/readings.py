"""How the Beyond the Binary pages read a Δ of Table 1 (Pearson r of P(A ≻ B) with p*, margin-regularized minus
Bradley–Terry) beside the paper's: short verdict words for a table cell (:func:`delta_words`), the reason a cell has
no r (:func:`no_r_reason`), and the one rule that decides whether a grouping can speak to the paper's claim at all
(:func:`tracks_p_star`).

The paper's claim (§3.4, Table 1) is that the margin-regularized model tracks p* *better* than the baseline. A Δ
between two models says something about that claim only where the baseline itself tracks p*: where the baseline's
own r with p* has a 95% interval that does not lie above 0, both models are (close to) unrelated to p* there, and a
Δ of either sign is a difference between two non-trackers, not an improvement or a loss in tracking. Such a
grouping reads "cannot speak" instead of a direction."""

from __future__ import annotations

import math

import numpy as np

from pluralign.btb.evaluation import MIN_CORRELATION_N

__all__ = ["GROUPINGS", "WORDS", "where_interval", "tracks_p_star", "no_r_reason", "delta_words", "WORDS_NOTE"]

#: Table 1's groupings as a reader reads them (the library's names: :func:`pluralign.btb.evaluation.table_groups`).
GROUPINGS = {
    "all": "overall",
    "dataset": "data set",
    "domain": "domain",
    "kind": "subjectivity",
    "kind_domain": "subjectivity × domain",
    "distinguishability": "distinguishability",
}
#: The verdict words a table cell shows (the page's note says what each means: :data:`WORDS_NOTE`).
WORDS = {
    "same": "same direction",
    "opposite": "opposite direction",
    "inconclusive": "inconclusive",
    "cannot": "cannot speak (baseline does not track p*)",
    "no pairs": "no such pairs here",
}

#: What the words of :data:`WORDS` mean, for a page's note under its table.
WORDS_NOTE = (
    "*same direction* / *opposite direction*: this run's paired 95% interval of Δ r excludes 0 on the paper's side / "
    "on the other side; *inconclusive*: it contains 0; *cannot speak (baseline does not track p\\*)*: the baseline's "
    "own r with p\\* in that row has a 95% interval that does not lie above 0, so neither model tracks p\\* there and "
    "a Δ of either sign says nothing about the paper's claim that margins improve the tracking; *no r*: Pearson r is "
    "undefined on that row's pairs, for the reason given."
)


def tracks_p_star(baseline_lo: float) -> bool:
    """Whether the baseline (Eq. 1) tracks p* on a row: the lower end of the 95% interval of its own Pearson r with
    p* lies above 0. Where it does not, the row's Δ r cannot speak to Table 1's claim."""
    return baseline_lo is not None and math.isfinite(float(baseline_lo)) and float(baseline_lo) > 0


def where_interval(lo: float, hi: float) -> str:
    """Where a 95% interval lies against 0, in words: "an interval that contains 0", "an interval below 0" or "an
    interval above 0"."""
    return "an interval below 0" if hi < 0 else "an interval above 0" if lo > 0 else "an interval that contains 0"


def no_r_reason(p_star, *scores, names=("baseline", "regularized")) -> str:
    """Why Pearson r is undefined on a row whose pairs have these values (``p_star`` and each model's P(A ≻ B),
    arrays of one row's pairs), in a few words for a table cell: no pairs, fewer than
    :data:`~pluralign.btb.evaluation.MIN_CORRELATION_N`, p* the same on every pair (e.g. every pair of the row has
    p* = 1), or a model's P(A ≻ B) the same on every pair; "" when r is defined."""
    p = np.asarray(p_star, dtype=float)
    n = len(p)
    if n == 0:
        return WORDS["no pairs"]
    if n < MIN_CORRELATION_N:
        return f"no r: N = {n} < {MIN_CORRELATION_N}"
    if np.std(p) == 0:
        return f"no r: p* = {p[0]:g} on all {n:,} pairs"
    for s, name in zip(scores, names):
        s = np.asarray(s, dtype=float)
        if len(s) and np.std(s) == 0:
            return f"no r: the {name} model's P(A ≻ B) is constant"
    return ""


def delta_words(
    delta: float, lo: float, hi: float, *, paper: float | None, baseline_lo: float | None, reason: str = ""
) -> str:
    """The short verdict a table cell shows for one row's Δ r (its paired 95% interval ``lo``–``hi``) beside the
    paper's Δ: ``reason`` (from :func:`no_r_reason`) where r is undefined; "cannot speak" where the baseline does
    not track p* on the row (:func:`tracks_p_star`); else "inconclusive" when the interval contains 0, and
    "same direction" / "opposite direction" when it excludes 0 on the paper's side / the other (the side alone,
    "above 0" / "below 0", where the paper has no Δ for the row or prints 0)."""
    vals = (delta, lo, hi)
    if any(v is None or not math.isfinite(float(v)) for v in vals):
        return reason or "no r"
    if not tracks_p_star(baseline_lo):
        return WORDS["cannot"]
    lo, hi = float(lo), float(hi)
    side = 1 if lo > 0 else -1 if hi < 0 else 0
    if side == 0:
        return WORDS["inconclusive"]
    if paper is None or not math.isfinite(float(paper)) or float(paper) == 0:
        return "above 0" if side > 0 else "below 0"
    return WORDS["same"] if (float(paper) > 0) == (side > 0) else WORDS["opposite"]

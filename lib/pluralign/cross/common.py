"""What every Part IV page shares: the agreement classes it splits by, how an estimate with its CI is
written, and the verdict a CI supports (a verdict sentence computed from the CI, never typed)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.presentation import column_decimals, fmt_fixed, signed

__all__ = [
    "CLASS_ORDER",
    "class_masks",
    "interval",
    "intervals",
    "verdict",
    "against",
    "Reading",
    "read_against_planted",
    "short_verdict",
    "no_estimate_reason",
    "MIN_POINTS",
]

#: The classes a Part IV table splits by (Diverging Preferences §3 "Results", :data:`pluralign.diverging.CLASSES`),
#: then every pair ("all").
CLASS_ORDER = ("high-agreement-pref", "high-agreement-tie", "diverging", "other", "all")

#: No correlation is reported on fewer points (:data:`pluralign.btb.evaluation.MIN_CORRELATION_N`): the book's one
#: floor.
from pluralign.btb.evaluation import MIN_CORRELATION_N as MIN_POINTS  # noqa: E402


def class_masks(classified: pd.DataFrame, index=None, classes=CLASS_ORDER) -> dict[str, np.ndarray]:
    """Boolean masks over ``index`` (default: ``classified.index``) for each agreement class in ``classes``
    (``"all"`` = every pair), from the ``agreement`` column of
    :func:`pluralign.diverging.agreement_classes`. Every index entry must be classified."""
    index = classified.index if index is None else pd.Index(index)
    missing = index.difference(classified.index)
    if len(missing):
        raise ValueError(f"{len(missing)} pairs have no agreement class, e.g. {missing[0]!r}")
    a = classified["agreement"].reindex(index).to_numpy()
    return {c: (np.ones(len(index), bool) if c == "all" else a == c) for c in classes}


def interval(v, lo, hi) -> str:
    """One estimate with its 95% CI at the precision its CI's width supports, with the minus sign:
    ``"0.612 [0.550, 0.671]"``; "—" when undefined (:func:`pluralign.presentation.fmt_interval`). A column of them is
    :func:`intervals` (one precision for the column)."""
    from pluralign.presentation import fmt_interval

    return fmt_interval(v, lo, hi)


def intervals(values: pd.DataFrame | np.ndarray, planted=None) -> tuple[list[str], list[str] | None]:
    """A table column of estimates with their 95% CIs (rows of ``values``: estimate, low, high) at one precision
    for the column (:func:`pluralign.presentation.intervals`), and the ``planted`` values beside them at the same
    precision (None without)."""
    from pluralign.presentation import column_decimals, fmt_fixed
    from pluralign.presentation import intervals as _intervals

    a = np.asarray(values, dtype=float).reshape(-1, 3)
    d = column_decimals(a[:, 0], a[:, 1], a[:, 2])
    shown = _intervals(a[:, 0], a[:, 1], a[:, 2], d)
    return shown, None if planted is None else [fmt_fixed(v, d) for v in np.asarray(planted, dtype=float)]


def verdict(
    v, lo, hi, *, null: float = 0.0, above: str, below: str, why_missing: str = "not measurable", n: int | None = None
) -> str:
    """The sentence a CI supports — the book's one rule, :func:`pluralign.report.verdict`: ``above`` when the
    whole CI lies above ``null``, ``below`` when it lies below, "inconclusive at this sample size" (with the N
    needed when ``n`` is given) when it contains ``null``; "— (``why_missing``)" without an estimate."""
    from pluralign.report import verdict as _verdict

    return _verdict(v, lo, hi, n=n, null=null, above=above, below=below, missing=why_missing)


def against(lo, hi, reference) -> str | None:
    """Where a 95% CI ``[lo, hi]`` sits against a ``reference`` value: "above" when the whole CI lies above it,
    "below" when it lies below, "covers" when it contains it (ends included); None when a bound or the reference is
    missing (NaN or None)."""
    vals = [lo, hi, reference]
    if any(v is None or not np.isfinite(float(v)) for v in vals):
        return None
    lo, hi, reference = map(float, vals)
    return "above" if lo > reference else "below" if hi < reference else "covers"


#: The short words of a table cell for where a CI sits against the planted value (:func:`read_against_planted`).
PLANTED_WORDS = {"covers": "covers planted", "above": "above planted", "below": "below planted"}


@dataclass(frozen=True)
class Reading:
    """A verdict read twice, as :func:`read_against_planted` gives it: ``short`` the words of a table cell
    ("above 0; below planted"), ``long`` the sentence the page's prose and note quote, ``vs_null`` and
    ``vs_planted`` where the CI sits against the null and the planted value (:func:`against`; None when there is
    no estimate or no planted value)."""

    short: str
    long: str
    vs_null: str | None
    vs_planted: str | None


def read_against_planted(
    v,
    lo,
    hi,
    *,
    planted=None,
    null: float = 0.0,
    above: str,
    below: str,
    planted_reading: dict[str, str] | None = None,
    why_missing: str = "not measurable",
    n: int | None = None,
) -> Reading:
    """A Part IV verdict that reads the 95% CI against the null *and*, on simulated data, against the planted
    value the estimate is read against (the value a model or judge that knew the population would give).

    Against the null it is :func:`verdict` (``above`` / ``below`` / "inconclusive at this sample size"). Against
    ``planted`` (NaN or None: none, and the reading is the null's alone) the CI covers it, lies above it or
    below it (:func:`against`), and ``planted_reading[side]`` (``side`` one of "covers", "above", "below"; ``{p}``
    in it is replaced by the planted value, at the decimals the CI is shown at) says what that means for the
    claim: a CI above 0 but below a planted gap is not the model adding a gap, and the long reading must say so.
    ``short``: "above 0" / "below 0" / "inconclusive" (the null written as it is), then "covers planted" /
    "above planted" / "below planted"."""
    long = verdict(v, lo, hi, null=null, above=above, below=below, why_missing=why_missing, n=n)
    vs_null = against(lo, hi, null) if against(v, v, null) is not None else None  # None: no estimate
    if vs_null is None:
        return Reading(short=long, long=long, vs_null=None, vs_planted=None)
    null_shown = signed(f"{null:g}")
    short = {"above": f"above {null_shown}", "below": f"below {null_shown}", "covers": "inconclusive"}[vs_null]
    side = against(lo, hi, planted)
    if side is None:
        return Reading(short=short, long=long, vs_null=vs_null, vs_planted=None)
    reading = (planted_reading or {}).get(side)
    if reading is None:
        reading = {
            "covers": "its CI covers the planted value ({p})",
            "above": "its CI lies above the planted value ({p})",
            "below": "its CI lies below the planted value ({p})",
        }[side]
    shown = fmt_fixed(float(planted), column_decimals([v], [lo], [hi]))  # at the precision the CI is shown at
    return Reading(
        short=f"{short}; {PLANTED_WORDS[side]}",
        long=f"{long}; {reading.format(p=shown)}",
        vs_null=vs_null,
        vs_planted=side,
    )


def short_verdict(v, lo, hi, *, null: float = 0.0, above: str, below: str) -> str:
    """The words of a table cell for the verdict :func:`verdict` gives at length: ``above`` / ``below`` when the
    CI lies wholly above / below ``null``, "inconclusive" when it contains it, "no estimate" without one (a
    verdict's reason for having none, "— (reference model)", stays as :func:`no_estimate_reason` gives it)."""
    if any(x is None or not np.isfinite(float(x)) for x in (v, lo, hi)):
        return "no estimate"
    return {"above": above, "below": below, "covers": "inconclusive"}[against(lo, hi, null)]


def no_estimate_reason(verdict) -> str | None:
    """The reason a :func:`verdict` gives for having no estimate ("— (reference model)" → "reference model"),
    which a forest plot writes on the row in place of an interval; None for a verdict on an estimate."""
    if isinstance(verdict, str) and verdict.startswith("— (") and verdict.endswith(")"):
        return verdict[3:-1]
    return None

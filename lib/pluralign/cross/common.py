"""What every Part IV page shares: the agreement classes it splits by, how an estimate with its CI is
written, and the verdict a CI supports (DESIGN: "a verdict sentence computed from the CI")."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["CLASS_ORDER", "class_masks", "interval", "intervals", "verdict", "no_estimate_reason", "MIN_POINTS"]

#: The classes a Part IV table splits by (Diverging Preferences §3 "Results", :data:`pluralign.diverging.CLASSES`),
#: then every pair ("all").
CLASS_ORDER = ("high-agreement-pref", "high-agreement-tie", "diverging", "other", "all")

#: No correlation is reported on fewer points (DESIGN, "How a number is shown"): the book's one floor.
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
    ``"0.612 [0.550, 0.671]"``; "—" when undefined (:func:`pluralign.report.fmt_interval`). A column of them is
    :func:`intervals` (one precision for the column)."""
    from pluralign.report import fmt_interval

    return fmt_interval(v, lo, hi)


def intervals(values: pd.DataFrame | np.ndarray, planted=None) -> tuple[list[str], list[str] | None]:
    """A table column of estimates with their 95% CIs (rows of ``values``: estimate, low, high) at one precision
    for the column (:func:`pluralign.report.intervals`), and the ``planted`` values beside them at the same
    precision (None without)."""
    from pluralign.report import column_decimals, fmt_fixed
    from pluralign.report import intervals as _intervals

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


def no_estimate_reason(verdict) -> str | None:
    """The reason a :func:`verdict` gives for having no estimate ("— (reference model)" → "reference model"),
    which a forest plot writes on the row in place of an interval; None for a verdict on an estimate."""
    if isinstance(verdict, str) and verdict.startswith("— (") and verdict.endswith(")"):
        return verdict[3:-1]
    return None

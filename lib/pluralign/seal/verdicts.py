"""The short verdicts of SEAL's comparisons with the paper (Tables 5-8 on the paper's rows,
:func:`~pluralign.seal.compare.on_paper_rows`), read as the paper and the figure beside each table read significance:
this run's 95% CI Bonferroni-corrected over the coefficients of its fit (:func:`bonferroni_z`; SEAL Fig. 3 and 5 mark
"significant effects after Bonferroni correction"), set against the paper's estimate only where the paper's own
p-value (as printed: Bonferroni-corrected in Tables 5-7, raw in Table 8) finds one. :func:`row_verdict` gives one
row's verdict, :data:`VERDICTS` what each means (:func:`verdict_legend`: the sentence a table's note carries),
:func:`dropped_status` why a row of a fit with a VIF filter (footnote 6, at the run's threshold) has no estimate, and
:func:`verdict_counts` / :func:`verdict_sentence` the findings line of a page."""

from __future__ import annotations

import math
import numbers

import pandas as pd

__all__ = [
    "NOT_CONVERGED",
    "DROPPED",
    "dropped_status",
    "VERDICTS",
    "row_verdict",
    "verdict_legend",
    "bonferroni_z",
    "verdict_counts",
    "verdict_sentence",
]

NOT_CONVERGED = "did not converge (separation)"
"""What a page shows instead of a logit estimate that has no finite value."""

DROPPED = "dropped from the regression"
"""How the reason of a coefficient that a fit dropped begins (:func:`dropped_status`)."""


def dropped_status(vif_threshold: float | None) -> str:
    """Why a coefficient of a fit has no estimate (a row's ``status``): the fit's VIF filter (footnote 6, at
    ``vif_threshold``, :func:`~pluralign.seal.imprint.vif_rule`) dropped it, or it did not vary: "dropped from the
    regression (VIF > 5, or no variation)"; "dropped from the regression (no variation)" for a fit without a VIF
    filter (``vif_threshold`` None, as Table 8's)."""
    from pluralign.seal.imprint import vif_rule

    rule = vif_rule(vif_threshold)
    return f"{DROPPED} ({'no variation' if rule == 'no VIF filter' else rule + ', or no variation'})"


#: The short verdicts of :func:`row_verdict`, each with the reading a page's note gives it (:func:`verdict_legend`).
VERDICTS = {
    "same sign": "this run's Bonferroni-corrected 95% CI excludes 0 on the side of the paper's (significant) estimate",
    "opposite sign": "this run's Bonferroni-corrected 95% CI excludes 0 on the other side",
    "inconclusive": "this run's Bonferroni-corrected 95% CI contains 0",
    "n.s. in paper": "the paper's own p-value (as printed) is 0.05 or more: it reports no direction to compare with",
    "set by simulator": "on the demo the sign of this coefficient is set by the simulator's design: the pre-D RM's "
    "other data weighs the feature against D's population (on the post-D RM's rows: its training mix of the other "
    "data and D still does), so the sign says nothing the paper measures",
    "above 0": "no paper value; this run's Bonferroni-corrected 95% CI lies above 0",
    "below 0": "no paper value; this run's Bonferroni-corrected 95% CI lies below 0",
    "no counterpart": "no feature of this run plays this SEAL feature",
    "dropped (VIF)": "dropped from the regression by the fit's VIF filter (footnote 6), or without variation",
    "dropped": "dropped from the regression (no variation)",
    "not estimated": "this run has no such coefficient",
    "did not converge": "the logit has no finite estimate (separation)",
}

#: the long reason (``status``) of a row without an estimate, and its short verdict
_STATUS_VERDICT = {
    "no feature of this run plays it": "no counterpart",
    "not estimated": "not estimated",
    NOT_CONVERGED: "did not converge",
}


def _num(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(float(x))


def row_verdict(r) -> str:
    """The short verdict of one row of :func:`on_paper_rows` (a ``long`` row: a dict or a Series with
    ``status``, ``estimate``, ``ci_low``, ``ci_high`` — the CI Bonferroni-corrected as the figure reads it —,
    ``paper``, ``paper_p`` and ``designed``), one of :data:`VERDICTS`: no estimate → its reason in short; a sign
    the demo's simulator sets → "set by simulator"; a paper coefficient whose printed p-value is 0.05 or more →
    "n.s. in paper" (the paper reports no direction); a CI that contains 0 → "inconclusive"; else "same sign" /
    "opposite sign" against the paper's estimate, or "above 0" / "below 0" where the paper has no value."""
    if r["status"] is not None:
        if str(r["status"]).startswith(DROPPED):
            return "dropped (VIF)" if "VIF" in r["status"] else "dropped"
        return _STATUS_VERDICT.get(r["status"], "not estimated")
    if not all(_num(r[k]) for k in ("estimate", "ci_low", "ci_high")):
        return "not estimated"
    if r.get("designed", False):
        return "set by simulator"
    has_paper = _num(r["paper"])
    if has_paper and _num(r.get("paper_p")) and r["paper_p"] >= 0.05:
        return "n.s. in paper"
    side = 1 if r["ci_low"] > 0 else -1 if r["ci_high"] < 0 else 0
    if side == 0:
        return "inconclusive"
    if has_paper and r["paper"] != 0:
        return "same sign" if (r["paper"] > 0) == (side > 0) else "opposite sign"
    return "above 0" if side > 0 else "below 0"


def verdict_legend(long: pd.DataFrame, explained=()) -> str:
    """What the verdicts of a table (its ``long`` rows) mean, in one sentence: each verdict that occurs, but those
    a table above on the same page already ``explained`` (so that no page says the same thing twice). A dropped
    coefficient reads as its rows' reason does (:func:`dropped_status`: the VIF threshold the fit used)."""
    used = [v for v in VERDICTS if v in set(long["verdict"]) and v not in set(explained)]
    head = "Further verdicts: " if explained else "Verdicts: "
    return head + "; ".join(f"*{v}*: {_meaning(long, v)}" for v in used) + "." if used else ""


def _meaning(long: pd.DataFrame, verdict: str) -> str:
    """What ``verdict`` means on a table: :data:`VERDICTS`' reading, or for a dropped coefficient its rows' own
    reason (which names the fit's VIF threshold)."""
    if verdict in ("dropped (VIF)", "dropped") and "status" in long:
        reasons = [s for s in long.loc[long["verdict"] == verdict, "status"] if isinstance(s, str)]
        if reasons:
            return reasons[0]
    return VERDICTS[verdict]


def bonferroni_z(tests: int, level: float = 0.95) -> float:
    """The normal quantile of a two-sided ``level`` interval Bonferroni-corrected over ``tests`` coefficients
    (z = Φ⁻¹(1 − (1 − level) / (2 · tests)); 1.96 for one test at 95%)."""
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - level) / (2 * max(int(tests), 1))))


def verdict_counts(long: pd.DataFrame, variant: str | None = None) -> dict:
    """How many rows of a table of :func:`~pluralign.seal.compare.on_paper_rows` (its ``long``; one estimator,
    ``variant``) read each verdict, and how many the paper and this run both have a number for (``compared``)."""
    d = long if variant is None else long[long["variant"] == variant]
    d = d[d["paper"].notna()]
    v = d["verdict"].value_counts()
    return {
        "compared": int(d["estimate"].notna().sum()),
        **{k: int(v.get(k, 0)) for k in ("same sign", "opposite sign", "inconclusive", "n.s. in paper")},
        "set by simulator": int(v.get("set by simulator", 0)),
    }


def verdict_sentence(counts: dict, what: str) -> str:
    """The findings line of a comparison with one of the paper's tables, from :func:`verdict_counts`: "Of the N
    coefficients of Table 5 this run and the paper both estimate, a have the paper's sign, b the opposite one, c are
    inconclusive here, d are n.s. in the paper and e have a sign the demo's simulator sets"."""
    parts = [
        (counts["same sign"], "the paper's sign"),
        (counts["opposite sign"], "the opposite sign"),
        (counts["inconclusive"], "an interval that contains 0 here"),
        (counts["n.s. in paper"], "no significant estimate in the paper"),
        (counts["set by simulator"], "a sign the demo's simulator sets by design"),
    ]
    said = [f"{n} {'has' if n == 1 else 'have'} {t}" for n, t in parts if n]
    if not counts["compared"]:
        return f"No coefficient of {what} has an estimate both here and in the paper."
    listed = ", ".join(said[:-1]) + (" and " if len(said) > 1 else "") + said[-1] if said else "none reads a verdict"
    return f"Of the {counts['compared']} coefficients of {what} that this run and the paper both estimate, {listed}."

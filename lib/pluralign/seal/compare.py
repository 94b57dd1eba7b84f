"""SEAL's regression tables (Tables 5-8) with this run's estimates on the paper's rows.

The demo's features are the simulator's (``harmfulness``, ``refusal``, …), SEAL's are its LM-labeller's
(``last_response_is_harmless``, …): :func:`on_paper_rows` puts each of this run's estimates on the row of the
SEAL feature it plays (:func:`~pluralign.seal.design.paper_feature_map`), multiplied by the mapping's sign, beside
the paper's number, with a verdict from the 95% CI (:func:`pluralign.report.verdict`). On the ``sample`` and
``paper`` profiles the names already match and the mapping is the identity: the same code path.

:func:`separated` finds the (entry, feature) terms of a logit (Eq. 3 / Eq. 4) whose outcome is constant on one
of the feature's values — complete or quasi-complete separation: no finite maximum-likelihood estimate, so the
pages report such a term as "did not converge (separation)" and never plot it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["on_paper_rows", "prevalence_on_paper_rows", "separated", "NOT_CONVERGED", "mapping_table"]

NOT_CONVERGED = "did not converge (separation)"
"""What a page shows instead of a logit estimate that has no finite value."""

#: the columns of :func:`on_paper_rows`' display table (``{source}`` names where this run's features come from)
PAPER, PAPER_SE, SE, VERDICT = "In the paper", "paper SE", "SE", "verdict (95% CI)"


def mapping_table(features: Sequence[str], source: str = "simulator feature") -> pd.DataFrame:
    """The mapping of :func:`~pluralign.seal.design.paper_feature_map` as a page shows it: one row per SEAL
    feature that this run's features play, then this run's features without a counterpart (SEAL feature "—")."""
    from pluralign.report import MISSING

    m = paper_feature_map_(features)
    rows = [
        (p if isinstance(p, str) else MISSING, f, ("+1" if s > 0 else "−1") if isinstance(p, str) else MISSING, why)
        for f, p, s, why in m[["paper_feature", "sign", "why"]].itertuples()
    ]
    rows.sort(key=lambda r: r[0] == MISSING)
    return pd.DataFrame(rows, columns=["SEAL feature", source, "sign", "why"]).set_index("SEAL feature")


def paper_feature_map_(features):
    from pluralign.seal.design import paper_feature_map

    return paper_feature_map(features)


def _num(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(float(x))


def on_paper_rows(
    estimates: pd.DataFrame,
    paper: pd.DataFrame,
    features: Sequence[str],
    *,
    paper_order: Sequence[str],
    groups: Sequence[str],
    variants: Sequence[str] | None = None,
    source: str = "simulator feature",
    n: int | None = None,
    z: float = 1.959963984540054,
    group_name: str = "model",
    extra: Sequence[str] = (),
    show_status: Sequence[str] = (NOT_CONVERGED,),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """This run's estimates on the paper's rows, beside the paper's numbers.

    ``estimates``: long, one row per (``feature`` — this run's name —, ``group`` — e.g. "pre-D" / "post-D" or
    "chosen" / "rejected" —, ``variant`` — the estimator, when several) with ``estimate``, ``std_error`` and
    optionally ``status`` (a reason shown instead of the number, e.g. :data:`NOT_CONVERGED`) and the ``extra``
    columns (counts shown as they are). ``paper``: long, one row per (``feature`` — SEAL's name —, ``group``)
    with ``estimate`` and ``se``. ``features``: this run's features (mapped by
    :func:`~pluralign.seal.design.paper_feature_map`); ``paper_order``: the paper table's rows in its order.

    Returns ``(table, long)``. ``table`` (for display) is indexed by (SEAL feature, ``group_name``[, estimator])
    — the paper's rows in its order, then this run's features that no SEAL feature plays, under their own
    name — with the columns ``source`` (which of this run's features plays the row, with its sign), "In the
    paper", "paper SE", "This run (``source``, sign-aligned)", "SE", the ``extra`` columns and "verdict (95% CI)"
    (:func:`pluralign.report.verdict` against the paper's sign; "—" with the reason where a cell is missing). A
    ``status`` in ``show_status`` (default: :data:`NOT_CONVERGED`) is shown in place of this run's number.
    ``long``: the same rows as numbers (``paper``, ``paper_se``, ``estimate`` and ``std_error`` sign-aligned,
    ``ci_low``, ``ci_high``, ``sign``, ``this_feature``, ``status``, ``verdict``) for tests and prose."""
    from pluralign.report import MISSING, verdict

    need = {"feature", "group", "estimate", "std_error"} - set(estimates.columns)
    if need:
        raise KeyError(f"on_paper_rows: estimates lack column(s) {sorted(need)}")
    if {"feature", "group", "estimate", "se"} - set(paper.columns):
        raise KeyError("on_paper_rows: paper needs columns feature, group, estimate, se")
    est = estimates.copy()
    if "variant" not in est.columns:
        est["variant"] = None
    if "status" not in est.columns:
        est["status"] = None
    variants = list(variants) if variants else [None]
    m = paper_feature_map_(features)
    by_paper = {p: (f, int(s)) for f, p, s in m[["paper_feature", "sign"]].itertuples() if isinstance(p, str)}
    unmapped = [f for f, p in m["paper_feature"].items() if not isinstance(p, str)]
    pp = paper.set_index(["feature", "group"])
    est = est.set_index(["feature", "group", "variant"])
    rows = []
    order = list(paper_order) + [p for p in by_paper if p not in paper_order]
    for name, (this, sign) in [(p, by_paper.get(p, (None, None))) for p in order] + [(f, (f, None)) for f in unmapped]:
        in_paper = name in paper_order
        for g in groups:
            pv, pse = (
                (float(pp.loc[(name, g), "estimate"]), float(pp.loc[(name, g), "se"]))
                if in_paper and (name, g) in pp.index
                else (math.nan, math.nan)
            )
            for v in variants if this is not None else [None]:
                r = {
                    "paper_feature": name,
                    "group": g,
                    "variant": v if this is not None else None,
                    "this_feature": this,
                    "sign": sign,
                    "paper": pv,
                    "paper_se": pse,
                    "estimate": math.nan,
                    "std_error": math.nan,
                    "ci_low": math.nan,
                    "ci_high": math.nan,
                    "status": None,
                    **{c: None for c in extra},
                }
                if this is None:
                    r["status"] = "no feature of this run plays it"
                elif (this, g, v) in est.index:
                    e = est.loc[(this, g, v)]
                    s = sign if sign is not None else 1
                    b, se = float(e["estimate"]) * s, float(e["std_error"])
                    r.update(
                        estimate=b,
                        std_error=se,
                        ci_low=b - z * se,
                        ci_high=b + z * se,
                        status=e["status"] if isinstance(e["status"], str) else None,
                        **{c: e[c] for c in extra},
                    )
                    if r["status"] is None and not math.isfinite(b):
                        r["status"] = "dropped from the regression (VIF > 5 or no variation)"
                    if r["status"] is not None:
                        r.update(estimate=math.nan, std_error=math.nan, ci_low=math.nan, ci_high=math.nan)
                else:
                    r["status"] = "not estimated"
                if r["status"] is not None:
                    r["verdict"] = f"{MISSING} ({r['status']})"
                elif math.isfinite(pv):
                    r["verdict"] = verdict(r["estimate"], r["ci_low"], r["ci_high"], n=n, paper=pv)
                else:
                    r["verdict"] = verdict(
                        r["estimate"],
                        r["ci_low"],
                        r["ci_high"],
                        n=n,
                        above="above 0 (the paper has no such feature)",
                        below="below 0 (the paper has no such feature)",
                    )
                rows.append(r)
    long = pd.DataFrame(rows)
    run_col = f"This run ({source}, sign-aligned)"

    def plays(r):
        if not isinstance(r.this_feature, str):
            return MISSING
        if not _num(r.sign):
            return f"{r.this_feature} (no SEAL feature)"
        return (
            r.this_feature
            if r.sign > 0 and r.this_feature == r.paper_feature
            else f"{r.this_feature} × {'+1' if r.sign > 0 else '−1'}"
        )

    def shown(r):  # a reason in place of a number only where the number does not exist (no finite estimate)
        return (
            r.status
            if isinstance(r.status, str) and isinstance(r.this_feature, str) and r.status in shows
            else r.estimate
        )

    shows = set(show_status)
    table = pd.DataFrame(
        {
            source: [plays(r) for r in long.itertuples()],
            PAPER: long["paper"],
            PAPER_SE: long["paper_se"],
            run_col: [shown(r) for r in long.itertuples()],
            SE: long["std_error"],
            **{c: long[c] for c in extra},
            VERDICT: long["verdict"],
        }
    )
    idx = [long["paper_feature"], long["group"]]
    names = ["SEAL feature", group_name]
    if variants != [None]:
        idx.append(long["variant"].map(lambda v: v if isinstance(v, str) else MISSING))
        names.append("estimator")
    table.index = pd.MultiIndex.from_arrays(idx, names=names)
    return table, long


def no_finite_estimate(table: pd.DataFrame, converged: bool, separated_terms=()) -> set:
    """The terms of a logit fit (rows of ``table``, with ``std_error``) that have no finite estimate: the
    ``separated_terms`` (:func:`separated`), and, when the fit stopped without converging, every term whose
    standard error is over 100 times the median one. The pages report these as :data:`NOT_CONVERGED`, not as
    numbers, and do not plot them."""
    bad = set(separated_terms)
    if not converged:
        se = pd.to_numeric(table["std_error"], errors="coerce")
        bad |= set(se.index[se > 100 * np.nanmedian(se)])
    return {k for k in bad if k in table.index}


def separated(outcome, chosen: pd.DataFrame, rejected: pd.DataFrame, features: Sequence[str]) -> set[tuple[str, str]]:
    """The (entry, feature) terms of a logit of ``outcome`` (0/1 per pair) on the chosen (``"c"``) and rejected
    (``"r"``) entries' binary features (Eq. 3) that show complete or quasi-complete separation: among the pairs
    where the feature is 1 (or where it is 0) the outcome never or always occurs, so the likelihood keeps
    rising as the coefficient goes to ±∞ and the fit has no finite estimate. A feature that never varies is not
    listed (it is dropped from the regression). Missing values are left out."""
    y = np.asarray(outcome, float)
    out = set()
    for side, frame in (("c", chosen), ("r", rejected)):
        for f in features:
            x = pd.to_numeric(frame[f], errors="coerce").to_numpy(float)
            ok = np.isfinite(x) & np.isfinite(y)
            xv, yv = x[ok], y[ok]
            levels = np.unique(xv)
            if len(levels) < 2 or len(levels) > 2:
                continue
            for lv in levels:
                yy = yv[xv == lv]
                if len(yy) and (yy.min() == yy.max()):
                    out.add((side, f))
    return out


def prevalence_on_paper_rows(
    prev: pd.DataFrame, paper4: pd.DataFrame, features: Sequence[str], *, source: str = "simulator feature"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 4 (share of chosen and rejected entries with each feature) on the paper's rows: ``prev`` is
    :func:`~pluralign.seal.design.feature_prevalence` of this run's features (columns ``chosen``, ``rejected``,
    ``n``), ``paper4`` the paper's Table 4 (index SEAL's feature, columns ``chosen``, ``rejected``). A feature
    played with sign −1 is the complement of SEAL's (is_harmless = 1 − harmfulness), so its share is 1 − ours.
    Rows: the paper's in its order, then this run's features no SEAL feature plays. Returns ``(table, long)``
    as :func:`on_paper_rows` does (``long``: ``paper_feature``, ``this_feature``, ``sign``, paper and this run's
    shares)."""
    from pluralign.report import MISSING

    m = paper_feature_map_(features)
    by_paper = {p: (f, int(s)) for f, p, s in m[["paper_feature", "sign"]].itertuples() if isinstance(p, str)}
    unmapped = [f for f, p in m["paper_feature"].items() if not isinstance(p, str)]
    rows = []
    for name in list(paper4.index) + [p for p in by_paper if p not in paper4.index] + unmapped:
        this, sign = by_paper.get(name, (name, None) if name in unmapped else (None, None))
        r = {
            "paper_feature": name,
            "this_feature": this,
            "sign": sign,
            "paper_chosen": paper4["chosen"].get(name, math.nan),
            "paper_rejected": paper4["rejected"].get(name, math.nan),
            "chosen": math.nan,
            "rejected": math.nan,
            "n": math.nan,
        }
        if this is not None and this in prev.index:
            c, j = float(prev.loc[this, "chosen"]), float(prev.loc[this, "rejected"])
            if sign is not None and sign < 0:
                c, j = 1.0 - c, 1.0 - j
            r.update(chosen=c, rejected=j, n=int(prev.loc[this, "n"]))
        rows.append(r)
    long = pd.DataFrame(rows)

    def plays(r):
        if not isinstance(r.this_feature, str):
            return MISSING
        if not _num(r.sign):
            return f"{r.this_feature} (no SEAL feature)"
        return (
            r.this_feature
            if r.this_feature == r.paper_feature
            else (f"1 − {r.this_feature}" if r.sign < 0 else r.this_feature)
        )

    table = pd.DataFrame(
        {
            source: [plays(r) for r in long.itertuples()],
            "share chosen (paper)": long["paper_chosen"].to_numpy(),
            f"share chosen (this run, {source})": long["chosen"].to_numpy(),
            "share rejected (paper)": long["paper_rejected"].to_numpy(),
            f"share rejected (this run, {source})": long["rejected"].to_numpy(),
            "entries (n)": [int(x) if _num(x) else None for x in long["n"]],
        },
        index=pd.Index(long["paper_feature"], name="SEAL feature"),
    )
    return table, long

"""SEAL's regression tables (Tables 5-8) with this run's estimates on the paper's rows.

The demo's features are the simulator's (``harmfulness``, ``refusal``, …), SEAL's are its LM-labeller's
(``last_response_is_harmless``, …): :func:`on_paper_rows` puts each of this run's estimates on the row of the
SEAL feature it plays (:func:`~pluralign.seal.design.paper_feature_map`), multiplied by the mapping's sign, beside
the paper's number, with a short verdict (:func:`row_verdict`) read as the figure beside it reads significance:
this run's 95% CI Bonferroni-corrected over the coefficients of its fit, against the paper's estimate only where
the paper's own p-value (Bonferroni-corrected in Tables 5-7, raw in Table 8, as printed) calls it significant; a
coefficient the paper finds null reads "n.s. in paper", not a direction. On the ``sample`` and ``paper`` profiles
the names already match and the mapping is the identity: the same code path. :func:`display_name` gives every
feature the name a reader sees (tables, figures, prose); :func:`display_table` applies it to a table of
:func:`on_paper_rows`.

:func:`separated` finds the (entry, feature) terms of a logit (Eq. 3 / Eq. 4) whose outcome is constant on one
of the feature's values — complete or quasi-complete separation: no finite maximum-likelihood estimate, so the
pages report such a term as "did not converge (separation)" and never plot it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pluralign.seal.display import display_name, display_table, display_text
from pluralign.seal.facts import paper_rows, paper_table
from pluralign.seal.verdicts import (
    NOT_CONVERGED,
    VERDICTS,
    bonferroni_z,
    dropped_status,
    row_verdict,
    verdict_counts,
    verdict_legend,
    verdict_sentence,
)

__all__ = [
    "on_paper_rows",
    "prevalence_on_paper_rows",
    "separated",
    "no_finite_estimate",
    "NOT_CONVERGED",
    "mapping_table",
    "mapping_note",
    "VARIANT_NAMES",
    "entry_estimates",
    "paper_entries",
    "entries_on_paper_rows",
    "display_name",
    "display_table",
    "display_text",
    "row_verdict",
    "verdict_counts",
    "verdict_sentence",
    "verdict_legend",
    "bonferroni_z",
    "bonferroni_tests",
    "THIS_RUN",
    "VERDICTS",
    "separation_note",
]

#: the columns of :func:`on_paper_rows`' display table (``{source}`` names where this run's features come from)
PAPER, PAPER_SE, SE, VERDICT = "In the paper", "paper SE", "SE", "verdict"
#: the display table's column of this run's sign-aligned estimate and its Bonferroni-corrected 95% CI
THIS_RUN = "This run, sign-aligned [95% CI, Bonferroni]"


def mapping_table(features: Sequence[str], source: str = "simulator feature") -> pd.DataFrame:
    """The mapping of :func:`~pluralign.seal.design.paper_feature_map` as a page shows it: one row per SEAL
    feature that this run's features play, then this run's features without a counterpart (SEAL feature "—")."""
    from pluralign.presentation import MISSING

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
    designed: Sequence[tuple[str, str]] = (),
    vif_threshold: float | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """This run's estimates on the paper's rows, beside the paper's numbers.

    ``estimates``: long, one row per (``feature`` — this run's name —, ``group`` — e.g. "pre-D" / "post-D" or
    "chosen" / "rejected" —, ``variant`` — the estimator, when several) with ``estimate``, ``std_error`` and
    optionally ``status`` (a reason shown instead of the number, e.g. :data:`NOT_CONVERGED`) and the ``extra``
    columns (counts shown as they are). ``paper``: long, one row per (``feature`` — SEAL's name —, ``group``)
    with ``estimate`` and ``se`` (and optionally ``printed`` / ``se_printed``: the numbers as the paper prints
    them, which the table then shows, e.g. "1.07610" rather than 1.08). ``features``: this run's features (mapped by
    :func:`~pluralign.seal.design.paper_feature_map`); ``paper_order``: the paper table's rows in its order.

    Significance is read as the figure beside the table reads it (SEAL Fig. 3, 5: "significant after Bonferroni
    correction"): an estimate may carry ``tests``, the number of coefficients of its fit, and its 95% CI is then
    Bonferroni-corrected over them (:func:`bonferroni_z`; ``z`` where it carries none). The paper's rows may carry
    ``p``, the paper's p-value as printed: where it is 0.05 or more the paper reports no direction and the row
    reads "n.s. in paper". ``designed``: (SEAL feature, group) rows whose sign the demo's simulator sets by design
    (they read "set by simulator"). ``vif_threshold``: the VIF filter the fits applied (footnote 6; the run's
    setting, Tables 5-7), None for fits without one (Table 8): a coefficient without a finite estimate reads
    :func:`dropped_status` of it. Verdicts: :func:`row_verdict`.

    Returns ``(table, long)``. ``table`` (for display, after :func:`display_table`) is indexed by (SEAL feature,
    ``group_name``[, estimator]) — the paper's rows in its order, then this run's features that no SEAL feature
    plays, under their own name — with the columns ``source`` (which of this run's features plays the row, with
    its sign), "In the paper", "paper SE", :data:`THIS_RUN` (the sign-aligned estimate and its corrected CI as
    one text), the ``extra`` columns and "verdict" (a short verdict of :data:`VERDICTS`). A ``status`` in
    ``show_status`` (default: :data:`NOT_CONVERGED`) is shown in place of this run's number. ``long``: the same
    rows as numbers (``paper``, ``paper_se``, ``paper_p``, ``estimate`` and ``std_error`` sign-aligned, ``ci_low``,
    ``ci_high`` (corrected), ``tests``, ``significant``, ``sign``, ``this_feature``, ``status``, ``verdict``) for
    tests, figures (:func:`pluralign.seal.plots.paper_rows_figure`) and prose."""
    est = _checked_estimates(estimates, paper)
    variants = list(variants) if variants else [None]
    m = paper_feature_map_(features)
    by_paper = {p: (f, int(s)) for f, p, s in m[["paper_feature", "sign"]].itertuples() if isinstance(p, str)}
    unmapped = [f for f, p in m["paper_feature"].items() if not isinstance(p, str)]
    pp = paper.set_index(["feature", "group"])
    est = est.set_index(["feature", "group", "variant"])
    rows = []
    designed = set(designed)
    order = list(paper_order) + [p for p in by_paper if p not in paper_order]
    for name, (this, sign) in [(p, by_paper.get(p, (None, None))) for p in order] + [(f, (f, None)) for f in unmapped]:
        in_paper = name in paper_order
        for g in groups:
            hit = in_paper and (name, g) in pp.index
            pv, pse = (float(pp.loc[(name, g), "estimate"]), float(pp.loc[(name, g), "se"])) if hit else (math.nan,) * 2
            shown = tuple(pp.loc[(name, g), c] if hit and c in pp else None for c in ("printed", "se_printed"))
            for v in variants if this is not None else [None]:
                r = _paper_row(name, g, v, this, sign, pv, pse, extra)
                r["paper_p"] = float(pp.loc[(name, g), "p"]) if hit and "p" in pp else math.nan
                r["paper_printed"], r["paper_se_printed"] = shown
                _fill_estimate(r, est, z, extra, dropped_status(vif_threshold))
                r["designed"] = (name, g) in designed
                r["verdict"] = row_verdict(r)
                rows.append(r)
    long = pd.DataFrame(rows)
    return _display_table(long, source, extra, group_name, variants != [None], set(show_status)), long


def _checked_estimates(estimates: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """``estimates`` with the optional ``variant`` and ``status`` columns (None where absent); a missing required
    column of either frame is an error naming it."""
    need = {"feature", "group", "estimate", "std_error"} - set(estimates.columns)
    if need:
        raise KeyError(f"on_paper_rows: estimates lack column(s) {sorted(need)}")
    if {"feature", "group", "estimate", "se"} - set(paper.columns):
        raise KeyError("on_paper_rows: paper needs columns feature, group, estimate, se")
    est = estimates.copy()
    for c in ("variant", "status"):
        if c not in est.columns:
            est[c] = None
    return est


def _paper_row(name, group, variant, this, sign, paper_value, paper_se, extra) -> dict:
    """One row of :func:`on_paper_rows`' ``long`` before this run's estimate is filled in."""
    return {
        "paper_feature": name,
        "group": group,
        "variant": variant if this is not None else None,
        "this_feature": this,
        "sign": sign,
        "paper": paper_value,
        "paper_se": paper_se,
        "estimate": math.nan,
        "std_error": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "status": None,
        "tests": math.nan,
        "significant": False,
        **{c: None for c in extra},
    }


def _fill_estimate(r: dict, est: pd.DataFrame, z: float, extra, dropped: str) -> None:
    """This run's sign-aligned estimate and 95% CI on the row ``r``, or the reason (``status``) there is none
    (``dropped`` where the fit has no finite estimate of it: :func:`dropped_status`)."""
    this, sign = r["this_feature"], r["sign"]
    if this is None:
        r["status"] = "no feature of this run plays it"
        return
    key = (this, r["group"], r["variant"])
    if key not in est.index:
        r["status"] = "not estimated"
        return
    e = est.loc[key]
    b, se = float(e["estimate"]) * (sign if sign is not None else 1), float(e["std_error"])
    tests = e["tests"] if "tests" in e.index and _num(e["tests"]) else math.nan
    q = bonferroni_z(tests) if _num(tests) else z
    r.update(
        estimate=b,
        std_error=se,
        ci_low=b - q * se,
        ci_high=b + q * se,
        tests=tests,
        status=e["status"] if isinstance(e["status"], str) else None,
        **{c: e[c] for c in extra},
    )
    if r["status"] is None and not math.isfinite(b):
        r["status"] = dropped
    if r["status"] is not None:
        r.update(estimate=math.nan, std_error=math.nan, ci_low=math.nan, ci_high=math.nan)
    r["significant"] = bool(_num(r["ci_low"]) and (r["ci_low"] > 0 or r["ci_high"] < 0))


def _plays(r, signed) -> str:
    """The name of this run's feature that plays a ``long`` row's SEAL feature (``this_feature``, ``sign``,
    ``paper_feature``): "—" where none does, "<feature> (no SEAL feature)" where it plays none, else
    ``signed(r)``, the feature as its sign makes it play SEAL's."""
    from pluralign.presentation import MISSING

    if not isinstance(r.this_feature, str):
        return MISSING
    if not _num(r.sign):
        return f"{r.this_feature} (no SEAL feature)"
    return signed(r)


def _display_table(long: pd.DataFrame, source: str, extra, group_name: str, by_variant: bool, shows: set):
    """:func:`on_paper_rows`' display table from its ``long`` rows."""
    from pluralign.presentation import MISSING

    def signed(r):  # a coefficient of a feature played with sign −1 is multiplied by −1
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

    ci = _intervals(long["estimate"], long["ci_low"], long["ci_high"])
    table = pd.DataFrame(
        {
            source: [_plays(r, signed) for r in long.itertuples()],
            PAPER: [p if isinstance(p, str) and p else v for p, v in zip(long["paper_printed"], long["paper"])],
            PAPER_SE: [
                p if isinstance(p, str) and p else v for p, v in zip(long["paper_se_printed"], long["paper_se"])
            ],
            THIS_RUN: [s if isinstance(s, str) else c for s, c in zip((shown(r) for r in long.itertuples()), ci)],
            **{c: long[c] for c in extra},
            VERDICT: long["verdict"],
        }
    )
    idx = [long["paper_feature"], long["group"]]
    names = ["SEAL feature", group_name]
    if by_variant:
        idx.append(long["variant"].map(lambda v: v if isinstance(v, str) else MISSING))
        names.append("estimator")
    table.index = pd.MultiIndex.from_arrays(idx, names=names)
    return table


def _intervals(est, lo, hi) -> list[str]:
    """ "estimate [low, high]" texts at the column's precision (:func:`pluralign.presentation.column_decimals`), with as
    many more decimals as it takes for a bound that excludes 0 not to read as 0 (a verdict "above 0" beside
    "[0.00, 0.65]" would contradict what the reader sees)."""
    from pluralign.presentation import MAX_DECIMALS, column_decimals, intervals

    lo_, hi_ = np.asarray(lo, float), np.asarray(hi, float)
    d = column_decimals(est, lo, hi)
    apart = np.isfinite(lo_) & np.isfinite(hi_) & ((lo_ > 0) | (hi_ < 0))
    near = np.where(lo_ > 0, lo_, -hi_)[apart]
    while d < MAX_DECIMALS and len(near) and (np.round(near, d) == 0).any():
        d += 1
    return intervals(est, lo, hi, d)


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

    def signed(r):  # the share of a feature played with sign −1 is the complement of ours
        return (
            r.this_feature
            if r.this_feature == r.paper_feature
            else (f"1 − {r.this_feature}" if r.sign < 0 else r.this_feature)
        )

    table = pd.DataFrame(
        {
            source: [_plays(r, signed) for r in long.itertuples()],
            "share chosen (paper)": long["paper_chosen"].to_numpy(),
            f"share chosen (this run, {source})": long["chosen"].to_numpy(),
            "share rejected (paper)": long["paper_rejected"].to_numpy(),
            f"share rejected (this run, {source})": long["rejected"].to_numpy(),
            "entries (n)": [int(x) if _num(x) else None for x in long["n"]],
        },
        index=pd.Index(long["paper_feature"], name="SEAL feature"),
    )
    return table, long


#: How the pages name the regression variants (Eq. 1 / Table 5, Eq. 4 / Table 8).
VARIANT_NAMES = {
    "linear": "LPM: OLS on 0/1, SEs clustered by pair (SEAL's code)",
    "logit": "logit (Eq. 4 as written)",
    "seal_code": "SEAL's code: OLS, no FE",
    "fixed_effects": "pair fixed effects (this project)",
}


def mapping_note(long: pd.DataFrame, source: str, flip: str = "times −1") -> str:
    """What a table of :func:`on_paper_rows` (its ``long``) puts on the paper's rows, in words: whose estimate
    stands on a row (``source``: "simulator feature" or "labelled feature"), which are sign-flipped, which of the
    paper's rows no feature of this run plays, and which of this run's features no SEAL feature plays."""
    missing = list(dict.fromkeys(long.loc[long["this_feature"].isna(), "paper_feature"]))
    mapped = long[long["this_feature"].notna() & long["paper"].notna()]
    own = list(dict.fromkeys(long.loc[long["this_feature"].notna() & long["sign"].isna(), "this_feature"]))
    flipped = mapped.loc[mapped["sign"] < 0, "this_feature"].unique().tolist()
    text = (
        f"This run's estimate on a row is that of the {source} that plays the SEAL feature"
        + (f", {flip} where it plays it with the opposite sign ({', '.join(flipped)})" if flipped else "")
        + " (mapping: the Featurization section of the feature-imprint page)."
    )
    if missing:
        text += (
            f" No {source} plays {len(missing)} of the paper's rows ({', '.join(missing)}): they have no estimate of "
            "this run."
        )
    if own:
        text += f" Last, this run's features that no SEAL feature plays ({', '.join(own)}): no paper value."
    return display_text(text)


def entry_estimates(t: pd.DataFrame, variant: str | None = None, status: dict | None = None) -> pd.DataFrame:
    """A fit's (entry c/r, feature) table (Eq. 2 / Eq. 3) as the long estimates of :func:`on_paper_rows`, each
    with ``tests``, the number of the fit's coefficients with a p-value (its Bonferroni family)."""
    out = pd.DataFrame(
        {
            "feature": [f for _, f in t.index],
            "group": [{"c": "chosen", "r": "rejected"}[e] for e, _ in t.index],
            "estimate": t["estimate"].to_numpy(float),
            "std_error": t["std_error"].to_numpy(float),
        }
    )
    out["variant"] = variant
    out["status"] = [(status or {}).get(k) for k in t.index]
    out["tests"] = bonferroni_tests(t)
    return out


def bonferroni_tests(t: pd.DataFrame) -> int:
    """The number of coefficients of a fit's table with a p-value: the family its ``p_bonferroni`` (and the figure's
    filled markers) correct over."""
    return int(pd.to_numeric(t["p_value"], errors="coerce").notna().sum()) if "p_value" in t else len(t)


def paper_entries(name: str, groups: Sequence[str] = ("chosen", "rejected")) -> pd.DataFrame:
    """Table 5, 6 or 7 of the paper as the long paper rows of :func:`on_paper_rows`: the rows of its ``groups``
    columns (Tables 6 / 7: chosen / rejected; Table 5: pre-D / post-D), with the p-value the paper prints for each
    (``p``: Bonferroni-corrected in Tables 5-7)."""
    rows = paper_rows(name)
    r = rows[rows["column"].isin(list(groups))]
    p = rows.set_index(["row", "column"])["value"]
    return pd.DataFrame(
        {
            "feature": r["row"].to_numpy(),
            "group": r["column"].to_numpy(),
            "estimate": r["value"].to_numpy(),
            "se": r["se"].to_numpy(),
            "p": [float(p.get((f, f"{g} p"), math.nan)) for f, g in zip(r["row"], r["column"])],
            "printed": r["printed"].to_numpy(),
            "se_printed": r["se_printed"].to_numpy(),
        }
    )


def entries_on_paper_rows(
    estimates: pd.DataFrame,
    name: str,
    features: Sequence[str],
    *,
    source: str,
    n: int | None,
    variants: Sequence[str] | None = None,
    designed: Sequence[tuple[str, str]] = (),
    vif_threshold: float | None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A chosen / rejected entry regression (Table 6: Eq. 2; Table 7: Eq. 3) on the rows of the paper's table
    ``name``: :func:`on_paper_rows` of its ``estimates`` (:func:`entry_estimates`) grouped by entry, whose fit
    dropped features above ``vif_threshold`` (footnote 6; the run's setting). Returns ``(table, long, paper)``,
    ``paper`` the table as printed (its chosen and rejected columns)."""
    paper = paper_table(name)[["chosen", "rejected"]]
    table, long = on_paper_rows(
        estimates,
        paper_entries(name),
        features,
        paper_order=list(paper.index),
        groups=["chosen", "rejected"],
        variants=variants,
        source=source,
        n=n,
        group_name="entry",
        designed=designed,
        vif_threshold=vif_threshold,
    )
    return table, long, paper


def separation_note(bad: set, converged: bool) -> str:
    """What the misalignment page says when the logit of Eq. 3 has terms without a finite estimate."""
    if not bad and converged:
        return ""
    sep = ", ".join(f"{'chosen' if e == 'c' else 'rejected'} {f}" for e, f in sorted(bad))
    head = "**The logit did not converge" + ("" if converged else " (maximum likelihood stopped without converging)")
    if not bad:
        return head + "**."
    return (
        f"{head}**: separated terms (the outcome never, or always, occurs on one of their values, so the likelihood "
        f'rises without bound and there is no finite estimate): {sep}. Those cells read "{NOT_CONVERGED}" and are '
        "not plotted; the LPM has an estimate for them."
    )

"""The evaluation of Beyond the Binary's Tables 1 and 2 (Padmakumar et al. 2024, §3.2–3.4): Pearson
correlation (Table 1) and mean L1 distance (Table 2) between a model's ``P(A ≻ B)`` and the aggregate
preference ``p*`` (Eq. 2), overall and per data set, domain, category of subjectivity and
distinguishability, each with a bootstrap CI; the baseline-vs-regularized Δ with a *paired* bootstrap CI;
and the paper's own Table 1 (:func:`paper_table1`, from :mod:`pluralign.paper`)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd

from pluralign import paper
from pluralign.stats import N_BOOT, bootstrap_ci, paired_bootstrap_ci

__all__ = [
    "METRICS",
    "evaluate",
    "compare",
    "table_groups",
    "PAPER_IN_DOMAIN",
    "PAPER_OUT_OF_DOMAIN",
    "paper_table1",
    "paper_median_delta",
    "paper_vs_ours",
    "paper_printed",
    "side_agreement",
    "interval",
]


#: No correlation is reported on fewer points (the pages say "too few").
MIN_CORRELATION_N = 10


def _pearson(x: np.ndarray) -> float:
    a, b = x[:, 0], x[:, 1]
    if len(a) < MIN_CORRELATION_N or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _l1(x: np.ndarray) -> float:
    return float(np.mean(np.abs(x[:, 0] - x[:, 1])))


def _pearson_many(xb: np.ndarray) -> np.ndarray:
    """:func:`_pearson` of each resample of a stack (resamples × pairs × 2), vectorised."""
    a, b = xb[..., 0], xb[..., 1]
    if a.shape[1] < MIN_CORRELATION_N:
        return np.full(len(xb), np.nan)
    am, bm = a - a.mean(1, keepdims=True), b - b.mean(1, keepdims=True)
    sa, sb = np.sqrt((am**2).sum(1)), np.sqrt((bm**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (am * bm).sum(1) / (sa * sb)
    return np.where((np.std(a, axis=1) == 0) | (np.std(b, axis=1) == 0), np.nan, np.clip(r, -1.0, 1.0))


def _l1_many(xb: np.ndarray) -> np.ndarray:
    return np.mean(np.abs(xb[..., 0] - xb[..., 1]), axis=1)


METRICS = {"pearson": _pearson, "l1": _l1}
#: each metric over a stack of bootstrap resamples (:func:`pluralign.stats.bootstrap_ci`'s ``many``)
METRICS_MANY = {"pearson": _pearson_many, "l1": _l1_many}


def _align(p_star, *preds, names=("p_model",)) -> pd.DataFrame:
    def as_series(v, name):
        if isinstance(v, pd.Series):
            return v.astype(float).rename(name)
        arr = np.asarray(v, dtype=float)
        if isinstance(v, pd.DataFrame) or arr.ndim != 1:
            raise TypeError(f"{name}: pass a 1-D array or a Series indexed by pair_id")
        return pd.Series(arr, name=name)

    s = as_series(p_star, "p_star")
    cols = [s]
    for v, name in zip(preds, names):
        if isinstance(v, pd.Series) and isinstance(p_star, pd.Series):
            t = as_series(v, name)
            miss = s.index.difference(t.index)
            if len(miss):
                raise ValueError(
                    f"{name} lacks {len(miss)} of the {len(s)} pairs of p_star "
                    f"(first: {list(miss[:3])}); nothing is dropped silently"
                )
            if t.index.duplicated().any():
                raise ValueError(f"{name} has duplicate pair ids: {list(t.index[t.index.duplicated()][:3])}")
            t = t.reindex(s.index)
        else:
            arr = np.asarray(v.to_numpy() if isinstance(v, pd.Series) else v, dtype=float)
            if isinstance(v, pd.DataFrame) or arr.ndim != 1:
                raise TypeError(f"{name}: pass a 1-D array or a Series indexed by pair_id")
            if len(arr) != len(s):
                raise ValueError(f"{name} has {len(arr)} values, p_star {len(s)}")
            t = pd.Series(arr, index=s.index, name=name)
        cols.append(t)
    df = pd.concat(cols, axis=1)
    if df.index.duplicated().any():
        raise ValueError(f"duplicate pair ids: {list(df.index[df.index.duplicated()][:3])}")
    for c in df.columns:
        if df[c].isna().any():
            raise ValueError(
                f"{c} has {int(df[c].isna().sum())} missing values (first pair {df.index[df[c].isna()][0]!r})"
            )
        if ((df[c] < 0) | (df[c] > 1)).any():
            raise ValueError(
                f"{c} must be probabilities in [0, 1]; got values in [{df[c].min():.3g}, {df[c].max():.3g}]"
            )
    return df


def _groups(by, index: pd.Index) -> list[tuple[str, str, np.ndarray]]:
    out = [("all", "all", np.ones(len(index), dtype=bool))]
    if by is None:
        return out
    if isinstance(by, pd.Series):
        by = by.to_frame(by.name or "group")
    elif isinstance(by, dict):
        by = pd.DataFrame(by)
    if not isinstance(by, pd.DataFrame):
        raise TypeError("by must be None, a Series, a dict of columns or a DataFrame indexed by pair_id")
    if by.index.equals(pd.RangeIndex(len(by))) and not index.equals(pd.RangeIndex(len(index))):
        if len(by) != len(index):
            raise ValueError(f"by has {len(by)} rows, the predictions {len(index)}")
        by = by.set_axis(index)
    miss = index.difference(by.index)
    if len(miss):
        raise ValueError(f"by lacks {len(miss)} pairs (first: {list(miss[:3])})")
    by = by.reindex(index)
    for col in by.columns:
        vals = by[col]
        if vals.isna().any():
            warnings.warn(
                f"by[{col!r}]: {int(vals.isna().sum())} pairs without a category are left out of "
                f"that grouping (they stay in 'all')",
                stacklevel=3,
            )
        for cat in pd.unique(vals.dropna()):
            out.append((str(col), str(cat), (vals == cat).to_numpy()))
    return out


def evaluate(p_star, p_model, by=None, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Tables 1–2 for one model: Pearson correlation (Table 1) and mean L1 distance (Table 2) between
    the reward model's ``P(A ≻ B)`` (``p_model``) and the aggregate preference ``p*`` (Eq. 2, as a
    fraction in [0, 1]), overall and per category, each with a percentile bootstrap CI over pairs.

    ``p_star`` / ``p_model``: Series indexed by ``pair_id`` (aligned by index; a pair missing from
    ``p_model`` is an error) or equal-length arrays. ``by``: a Series / DataFrame indexed by ``pair_id``
    (each column one grouping, e.g. from :func:`table_groups`). Returns a long table ``grouping,
    category, n, metric ("pearson" | "l1"), value, lo, hi``; the first rows are ``grouping = "all"``.
    Pearson r is NaN for fewer than 3 pairs or a constant input."""
    df = _align(p_star, p_model)
    rows = []
    for grouping, cat, mask in _groups(by, df.index):
        x = df.to_numpy()[mask]
        for name, fn in METRICS.items():
            with warnings.catch_warnings():  # tiny groups: every resampled Pearson r may be NaN
                warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
                est, lo, hi = bootstrap_ci(x, fn, n_boot=n_boot, level=level, seed=seed, many=METRICS_MANY[name])
            rows.append((grouping, cat, int(mask.sum()), name, est, lo, hi))
    return pd.DataFrame(rows, columns=["grouping", "category", "n", "metric", "value", "lo", "hi"])


def compare(
    p_star, p_baseline, p_regularized, by=None, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0
) -> pd.DataFrame:
    """Tables 1–2: baseline RM vs margin-regularized RM against ``p*``, per data set / category.

    For each grouping × category and metric (``pearson``, ``l1``): ``baseline`` and ``regularized``
    with their own bootstrap CIs, and ``delta = regularized − baseline`` (the paper's Δ) with a *paired*
    bootstrap CI (:func:`pluralign.stats.paired_bootstrap_ci`: the same resampled pairs for both
    models). For Pearson a positive Δ is an improvement; for L1 a negative Δ is. With the paper's
    25–150 pairs per cell these CIs are wide: read Δ through them."""
    df = _align(p_star, p_baseline, p_regularized, names=("p_baseline", "p_regularized"))
    x_all = df.to_numpy()
    rows = []
    for grouping, cat, mask in _groups(by, df.index):
        x = x_all[mask]
        base, reg = x[:, [0, 1]], x[:, [0, 2]]
        for name, fn in METRICS.items():
            with warnings.catch_warnings():  # tiny groups: every resampled Pearson r may be NaN
                warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
                kw = {"n_boot": n_boot, "level": level, "seed": seed, "many": METRICS_MANY[name]}
                b = bootstrap_ci(base, fn, **kw)
                r = bootstrap_ci(reg, fn, **kw)
                d = paired_bootstrap_ci(base, reg, fn, **kw)
            rows.append((grouping, cat, int(mask.sum()), name, *b, *r, *d))
    return pd.DataFrame(
        rows,
        columns=[
            "grouping",
            "category",
            "n",
            "metric",
            "baseline",
            "baseline_lo",
            "baseline_hi",
            "regularized",
            "regularized_lo",
            "regularized_hi",
            "delta",
            "delta_lo",
            "delta_hi",
        ],
    )


#: §3.2: the four in-domain data sets (used to train the OpenAssistant DeBERTa-v3 RM) and the two
#: out-of-domain ones, with the paper's display names.
PAPER_IN_DOMAIN = ("WebGPT", "HH-RLHF", "OpenAI Summarize", "InstructGPT-J")
PAPER_OUT_OF_DOMAIN = ("PRISM", "UltraFeedback")


def table_groups(
    datasets,
    kind=None,
    distinguishable=None,
    *,
    in_domain: Iterable[str] = PAPER_IN_DOMAIN,
    out_of_domain: Iterable[str] | None = PAPER_OUT_OF_DOMAIN,
    names: dict | None = None,
) -> pd.DataFrame:
    """The groupings of Tables 1–2 as columns (index = pair_id), named as in :func:`paper_table1`:

    ``dataset`` (display name, via ``names`` if given), ``domain`` ("ID" / "OOD"), ``kind`` ("Multiple
    Correct" / "Single Correct"), ``kind_domain`` (e.g. "Multiple Correct OOD") and
    ``distinguishability`` ("Distinguishable" / "Indistinguishable").

    ``datasets``: Series of data-set names indexed by pair_id; ``kind``: Series of "single" /
    "multiple" (:func:`pluralign.btb.appendix_b.classify_subjectivity`); ``distinguishable``: Series of
    booleans. A data set in neither ``in_domain`` nor ``out_of_domain`` gets no domain (left out of
    the domain groupings, with a warning from :func:`evaluate`); ``out_of_domain=None`` means "every
    data set not in ``in_domain``"."""
    ds = datasets.map(lambda v: (names or {}).get(v, v))
    in_domain = set(in_domain)
    dom = pd.Series(np.where(ds.isin(in_domain), "ID", None), index=ds.index, dtype=object)
    if out_of_domain is None:
        dom[~ds.isin(in_domain)] = "OOD"
    else:
        dom[ds.isin(set(out_of_domain))] = "OOD"
    out = pd.DataFrame({"dataset": ds, "domain": dom})
    if kind is not None:
        k = kind.reindex(ds.index).map({"single": "Single Correct", "multiple": "Multiple Correct"})
        if k.isna().any() and kind.reindex(ds.index).notna().any():
            bad = kind.reindex(ds.index)[k.isna() & kind.reindex(ds.index).notna()]
            if len(bad):
                raise ValueError(f"kind must be 'single' or 'multiple', got {bad.iloc[0]!r}")
        out["kind"] = k
        out["kind_domain"] = [f"{a} {b}" if isinstance(a, str) and isinstance(b, str) else None for a, b in zip(k, dom)]
    if distinguishable is not None:
        d = distinguishable.reindex(ds.index)
        out["distinguishability"] = d.map({True: "Distinguishable", False: "Indistinguishable"})
    return out


#: Table 1's groupings: the grouping each printed category belongs to (the data sets are the rest).
_GROUPING = {
    "ID": "domain",
    "OOD": "domain",
    "Multiple Correct": "kind",
    "Single Correct": "kind",
    "Multiple Correct ID": "kind_domain",
    "Single Correct ID": "kind_domain",
    "Multiple Correct OOD": "kind_domain",
    "Single Correct OOD": "kind_domain",
    "Distinguishable": "distinguishability",
    "Indistinguishable": "distinguishability",
}


def paper_table1() -> pd.DataFrame:
    """The paper's Table 1 (Pearson r with p*, :mod:`pluralign.paper.btb`) in the shape of :func:`compare`:
    ``table, metric ("pearson"), grouping, category, n, baseline, regularized, delta``, in the printed order."""
    t = paper.numbers("btb", "Table 1")
    wide = t.pivot_table(index="row", columns="column", values="value", sort=False).reset_index()
    return pd.DataFrame(
        {
            "table": "Table 1",
            "metric": "pearson",
            "grouping": wide["row"].map(lambda c: _GROUPING.get(c, "dataset")),
            "category": wide["row"],
            "n": wide["N"].astype(int),
            "baseline": wide["baseline"],
            "regularized": wide["regularized"],
            "delta": wide["Δ"],
        }
    )


def paper_median_delta() -> float:
    """The paper's median Δ r over the rows of Table 1 that report an improvement: the effect size the rewards
    page asks its data to tell from 0."""
    t1 = paper_table1()
    return float(np.median(t1.loc[t1["delta"] > 0, "delta"]))


def paper_vs_ours(ours: pd.DataFrame, reported: pd.DataFrame | None = None) -> pd.DataFrame:
    """Join a :func:`compare` result with the paper's Table 1 (:func:`paper_table1`) on (metric, grouping,
    category): columns ``*_paper`` and ``*_ours`` side by side; rows present in only one side are kept
    (NaN in the other)."""
    from pluralign.report import beside_paper

    reported = paper_table1() if reported is None else reported
    keep = ["metric", "grouping", "category", "n", "baseline", "regularized", "delta"]
    return beside_paper(ours, reported[keep], on=["metric", "grouping", "category"], suffixes=("_ours", "_paper"))


def side_agreement(p_star, p, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0) -> dict:
    """How often a judge (or a reward model) sides with the population: the share of pairs with
    ``p* ≠ ½`` on which ``p`` (its P(A ≻ B)) is on the same side of ½ as ``p*`` (a ``p`` of exactly ½
    counts as half), with a bootstrap CI. Pairs with ``p* = ½`` have no majority side and are left
    out (counted in ``n_even``). Returns ``{"value", "lo", "hi", "n", "n_even"}``."""
    df = _align(p_star, p)
    x = df.to_numpy()
    even = np.isclose(x[:, 0], 0.5)
    x = x[~even]
    if len(x) == 0:
        raise ValueError("every pair has p* = 1/2: no side to agree with")
    hit = np.where(np.isclose(x[:, 1], 0.5), 0.5, ((x[:, 0] > 0.5) == (x[:, 1] > 0.5)).astype(float))
    est, lo, hi = bootstrap_ci(hit, np.mean, n_boot=n_boot, level=level, seed=seed)
    return {"value": float(est), "lo": float(lo), "hi": float(hi), "n": int(len(x)), "n_even": int(even.sum())}


def interval(v, lo, hi, digits: int = 3) -> str:
    """An estimate with its CI as the pages print it, at the 3 decimals of a correlation (every row of a column
    alike) with the minus sign: ``"0.153 [0.067, 0.242]"``, ``"−0.040 [−0.101, 0.020]"``; "—" when undefined."""
    from pluralign.presentation import fmt_interval

    return fmt_interval(v, lo, hi, digits)


def paper_printed(column: str = "Δ") -> dict:
    """The paper's Table 1 numbers of one column (``N``, ``baseline``, ``regularized``, ``Δ``) as it prints them,
    with the minus sign, by category: ``{"WebGPT": "−0.040", ...}``."""
    from pluralign.presentation import signed

    t = paper.numbers("btb", "Table 1")
    t = t[t["column"] == column]
    return dict(zip(t["row"], t["printed"].map(signed)))

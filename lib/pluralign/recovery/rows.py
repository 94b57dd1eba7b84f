"""The recovery table's rows (:data:`COLUMNS`) and the intervals the checks share.

Four kinds of row (:data:`KINDS`), each labelled on the page:

- ``method``: a method of the library gives back what the simulator planted (the rows that gate: a miss fails
  ``pluralign recovery`` and CI);
- ``stand-in``: one of the demo's stand-in models (a small trained reward model, the rule cause labeller) against
  the planted truth — reported with its verdict, a finding about the stand-in, not a test of a method;
- ``claim``: one of the papers' central claims, its verdict from the CI — a finding about the simulated
  population, either way;
- ``plumbing``: the study wires a planted quantity through unchanged (not counted as a check).

``planted`` holds only what the simulator planted (a share, a weight, an expected correlation); a ceiling or a
bar goes in the ``criterion``. ``interval`` names the resampling unit of the row's 95 % interval."""

from __future__ import annotations

import contextlib
import contextvars
import functools

import numpy as np
import pandas as pd
from scipy import stats as st

from pluralign.stats import bootstrap_ci

__all__ = [
    "COLUMNS",
    "KINDS",
    "REQUIRED",
    "HIGH_AGREEMENT",
    "is_method",
    "row",
    "pearson_ci",
    "fisher_ci",
    "exact_share_ci",
    "coverage_floor",
    "two_way_share_ci",
    "two_way_share_boot",
    "two_way_weights",
    "ALPHA",
    "FAMILY_ALPHA",
    "CALIBRATION_LEVELS",
    "binomial_band",
    "calibration",
    "calibration_text",
    "calibration_reads",
    "interval_reads",
    "fmt3",
    "level_text",
    "null_pass_rate",
    "null_pass_rate_many",
    "normal_quantile",
    "table_arrays",
]

COLUMNS = [
    "part",
    "quantity",
    "kind",
    "description",
    "planted",
    "estimate",
    "ci_low",
    "ci_high",
    "interval",
    "criterion",
    "null_pass",
    "recovered",
    "reads",
]
KINDS = ("method", "stand-in", "claim", "plumbing")
#: the method rows the demo table must hold: one per method of the library that the planted truth can check
#: (:func:`~pluralign.recovery.demo.recovery_table` refuses a table without one of them)
REQUIRED = (
    "diverging_share",
    "diverging_taste_driven",
    "imprint_weights",
    "imprint_text_weights",
    "resistance_regimes",
    "robustness_scores",
    "margin_pstar_correlation",
)
#: "the simulated population agrees": at least this share of its annotators on one side
HIGH_AGREEMENT = 0.8
#: the probability that a *correct* method fails any method row of one CI run, all rows together (Bonferroni over
#: :data:`REQUIRED`). CI's seed 0 and seeds 0-4 are the same populations at every commit, so what a commit can meet
#: by chance is its commit-seed population: the recovery's target is that this happens to at most 0.5 % of commits,
#: shown by the population study (:mod:`pluralign.recovery.study`) with an upper 95 % bound of at most 2 %. Fixed
#: before the study of the seeds derived from "recovery-study-2" ran, at half the target: 300 populations show both
#: when at most one of them fails, which at a designed 0.25 % happens with probability 0.83 (0.56 at 0.5 %). It
#: replaced 0.001 per row (seven rows: up to 0.7 %), under which the first study measured 2 of 200 (1.0 %).
FAMILY_ALPHA = 0.0025
#: the probability that a *correct* method fails one method row at one seed: :data:`FAMILY_ALPHA` split over the
#: method rows (each row's sub-tests share it, Bonferroni). Calibration bands allow for correlated intervals within
#: a fit by a design effect (:func:`calibration`).
ALPHA = FAMILY_ALPHA / len(REQUIRED)
#: the two nominal levels at which a method's intervals are checked (two-sided calibration): the 95 % interval
#: it reports (too narrow: its coverage falls below the band) and the 50 % interval its standard errors imply
#: (too wide: ± 0.674 SE then covers far more than half)
CALIBRATION_LEVELS = (0.95, 0.5)


def is_method(kind) -> pd.Series | bool:
    """Whether a row (its ``kind``, or a column of them) is a method check — the rows that gate."""
    if isinstance(kind, str):
        return kind == "method"
    return pd.Series(kind) == "method"


def row(
    part,
    quantity,
    description,
    planted,
    estimate,
    ci,
    criterion,
    recovered,
    *,
    kind: str = "method",
    interval: str = "bootstrap over pairs",
    null_pass: float | None = None,
    reads: str = "",
) -> dict:
    """One row of the recovery table (``ci`` a (low, high) pair; ``kind`` one of :data:`KINDS`; ``null_pass``
    the probability that a null method — noise or zero with plausible intervals — passes the row's criterion;
    ``reads``: what the verdict reads, with the intervals or bands it reads at the criterion's own level, where
    that is not the 95 % ``ci`` against ``planted``; empty: the ``criterion`` says it)."""
    if kind not in KINDS:
        raise ValueError(f"row {quantity!r}: kind must be one of {KINDS}, not {kind!r}")
    return {
        "part": part,
        "quantity": quantity,
        "kind": kind,
        "description": description,
        "planted": float(planted) if planted is not None else np.nan,
        "estimate": float(estimate),
        "ci_low": float(ci[0]),
        "ci_high": float(ci[1]),
        "interval": interval,
        "criterion": criterion,
        "null_pass": float(null_pass) if null_pass is not None else np.nan,
        "recovered": bool(recovered),
        "reads": str(reads),
    }


def pearson_ci(a, b, seed: int = 0, n_boot: int = 1000):
    """Pearson r of ``a`` and ``b`` with its 95% percentile bootstrap CI over pairs."""
    x = np.column_stack([np.asarray(a, float), np.asarray(b, float)])
    return bootstrap_ci(x, lambda v: np.corrcoef(v[:, 0], v[:, 1])[0, 1], n_boot=n_boot, seed=seed)


def fisher_ci(r: float, n: int) -> tuple[float, float]:
    """The 95% Fisher z interval of a Pearson r over ``n`` points (here: features)."""
    z, half = np.arctanh(np.clip(r, -0.999999, 0.999999)), 1.959964 / np.sqrt(max(n - 3, 1))
    return float(np.tanh(z - half)), float(np.tanh(z + half))  # Fisher z interval over the features


def exact_share_ci(k: int, n: int) -> tuple[float, float]:
    """The exact (Clopper–Pearson) 95% interval of a share of ``k`` out of ``n`` (e.g. scores with the right
    sign): no resampling of a dozen values."""
    if n == 0:
        return (np.nan, np.nan)
    lo = st.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = st.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def coverage_floor(n: int, nominal: float = 0.95, alpha: float = 0.01) -> float:
    """The lowest share of ``n`` intervals of nominal coverage ``nominal`` that a correct method reaches with
    probability 1 − ``alpha``: the ``alpha`` quantile of Binomial(n, nominal) / n (the intervals taken as
    independent)."""
    return float(st.binom.ppf(alpha, int(n), nominal) / n)


def two_way_weights(ids, annotations: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """The pigeonhole bootstrap's weights (Owen 2007) of the pairs ``ids``, n_boot × pairs: one simulated
    annotator judges many pairs, so pairs sharing annotators are not independent. In each draw a pair's weight is
    its multiplicity among resampled pairs times the mean multiplicity of its annotators among resampled
    annotators. ``annotations``: the data's (pair_id, annotator_id) rows."""
    ids = pd.Index(ids)
    a = annotations[annotations["pair_id"].isin(ids)]
    annotators = pd.Index(a["annotator_id"].unique())
    rows = ids.get_indexer(a["pair_id"])
    cols = annotators.get_indexer(a["annotator_id"])
    inc = np.zeros((len(ids), len(annotators)))
    np.add.at(inc, (rows, cols), 1.0)
    inc /= np.maximum(inc.sum(1, keepdims=True), 1.0)  # each pair: the mean over its annotators
    rng = np.random.default_rng([seed, 7])
    pair_w = rng.multinomial(len(ids), np.full(len(ids), 1 / len(ids)), size=n_boot)
    ann_w = rng.multinomial(len(annotators), np.full(len(annotators), 1 / len(annotators)), size=n_boot)
    return pair_w * (ann_w @ inc.T)


def two_way_share_ci(
    values: pd.Series, annotations: pd.DataFrame, *, within=None, n_boot: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    """A share over pairs with its 95% interval resampling pairs *and* annotators (:func:`two_way_weights`).
    ``values``: 0/1 per pair (indexed by pair_id); ``within``: an optional 0/1 mask per pair — the share is then
    taken over the pairs it marks (e.g. the taste-driven share of the diverging pairs). Returns (estimate, low,
    high)."""
    est, boots = two_way_share_boot(values, annotations, within=within, n_boot=n_boot, seed=seed)
    lo, hi = np.nanquantile(boots, [0.025, 0.975])
    return est, float(lo), float(hi)


def two_way_share_boot(values: pd.Series, annotations: pd.DataFrame, *, within=None, n_boot=1000, seed=0, w=None):
    """:func:`two_way_share_ci`'s estimate and its ``n_boot`` bootstrap replicates (``w``: the
    :func:`two_way_weights` to reuse)."""
    ids = values.index
    x = values.to_numpy(float)
    m = np.ones(len(ids)) if within is None else pd.Series(within).reindex(ids).to_numpy(float)
    w = (two_way_weights(ids, annotations, n_boot=n_boot, seed=seed) if w is None else w) * m
    with np.errstate(invalid="ignore", divide="ignore"):
        boots = (w @ x) / w.sum(1)
    return float((m @ x) / m.sum()), boots


@functools.lru_cache(maxsize=256)
def normal_quantile(p: float) -> float:
    """Φ⁻¹(p), kept: the calibration of a null method's many outputs asks for the same two levels every time."""
    return float(st.norm.ppf(p))


@functools.lru_cache(maxsize=1024)
def binomial_band(n: int, nominal: float, alpha: float) -> tuple[float, float]:
    """The two-sided acceptance band of a share of ``n`` independent events of probability ``nominal``: its
    ``alpha``/2 and 1 − ``alpha``/2 Binomial quantiles over ``n``."""
    lo = st.binom.ppf(alpha / 2, int(n), nominal) / n
    hi = st.binom.ppf(1 - alpha / 2, int(n), nominal) / n
    return float(lo), float(hi)


def calibration(z, alpha: float = ALPHA) -> dict:
    """Two-sided calibration of a method's intervals from the standardized errors ``z = (estimate − planted) / SE``
    (SE: the half-width of the method's 95 % interval / 1.96): at each level of :data:`CALIBRATION_LEVELS` the
    share of ``|z|`` within that level's normal quantile must lie in its binomial band (:func:`binomial_band`,
    the row's ``alpha`` split over the levels). Intervals too narrow fail at 95 %, too wide at 50 %, a biased or
    sign-flipped estimate at both.

    ``z`` of shape draws × quantities (independent draws, NaN where a quantity has no interval): the intervals of
    one fit share its data, so they need not be independent. The band is then taken over the effective number of
    intervals ``n / deff``, with Kish's design effect ``deff`` (Kish 1965, Survey Sampling § 8.2: the variance of
    the share over the draws against the binomial variance at the same share) estimated from the spread of the
    draws' shares against ``share (1 − share)`` per interval, never below 1 and never above the mean number ``m``
    of intervals per draw (``deff = 1 + (m − 1)ρ`` with an intra-draw correlation ``ρ ≤ 1``, Kish § 5.4): the band
    of independent intervals when the draws' shares vary no more than that, wider when they vary more, and never
    the band of fewer intervals than there are draws. Measured against the nominal level's spread instead, a
    method whose intervals are far too narrow would inflate its own design effect and widen its own band. A
    single draw (1-D ``z``) is taken as independent intervals. Returns ``share`` (pooled) per level, ``band`` per
    level, ``deff`` per level, ``n`` (intervals), ``draws`` and ``ok``."""
    z = np.asarray(z, float)
    draws = z.reshape(-1, z.shape[-1]) if z.ndim == 2 else z.reshape(1, -1)
    draws = draws[np.isfinite(draws).any(axis=1)]
    n = int(np.isfinite(draws).sum())
    out = {"n": n, "draws": len(draws), "share": {}, "band": {}, "deff": {}, "ok": n > 0}
    for level in CALIBRATION_LEVELS:
        q = normal_quantile(0.5 + level / 2)
        inside = np.where(np.isfinite(draws), np.abs(draws) <= q, np.nan)
        share = float(np.nanmean(inside)) if n else np.nan
        deff = 1.0
        if len(draws) >= 2 and n:
            k = np.isfinite(draws).sum(axis=1)
            per = np.nanmean(inside[k > 0], axis=1)
            binomial = share * (1 - share) * float(np.mean(1.0 / k[k > 0]))
            if binomial > 0:
                deff = min(max(1.0, float(np.var(per, ddof=1)) / binomial), float(np.mean(k[k > 0])))
        band = binomial_band(max(int(round(n / deff)), 1), level, alpha / len(CALIBRATION_LEVELS))
        out["share"][level], out["band"][level], out["deff"][level] = share, band, deff
        out["ok"] = bool(out["ok"] and band[0] <= share <= band[1])
    return out


def calibration_text(cal: dict) -> str:
    """The criterion of :func:`calibration` in words, with its bands."""
    parts = [
        f"{lv:.0%} coverage in [{b[0]:.3f}, {b[1]:.3f}]"
        + (f" (design effect {d:.2f})" if (d := cal["deff"][lv]) > 1 else "")
        for lv, b in cal["band"].items()
    ]
    return f"two-sided calibration over {cal['n']} intervals of {cal['draws']} draws: " + " and ".join(parts)


def fmt3(x: float) -> str:
    """A number as the page prints it, to 3 decimals with the minus sign (:func:`pluralign.presentation.fmt_fixed`)."""
    from pluralign.presentation import fmt_fixed

    return fmt_fixed(float(x), 3)


def interval_reads(name: str, est: float, lo: float, hi: float, truth) -> str:
    """One interval a verdict reads, in short: "slope 1.016 [0.990, 1.043] (truth 1)"."""
    t = f"{truth:g}" if float(truth) == round(float(truth)) else fmt3(truth)
    return f"{name} {fmt3(est)} [{fmt3(lo)}, {fmt3(hi)}] (truth {t})"


def calibration_reads(cal: dict) -> str:
    """What a calibration verdict (:func:`calibration`) reads, in short: each level's coverage and its band, to 3
    decimals, or as many more as show on which side of a band's edge a coverage lies ("0.99512 not in [0.884,
    0.99506]")."""

    def one(lv, band):
        share, lo, hi = cal["share"][lv], *band
        d = 3
        while d < 8 and any(share != e and round(share, d) == round(e, d) for e in band):
            d += 1
        word = "in" if lo <= share <= hi else "not in"
        return f"{lv:.0%} coverage {fmt_fixed_n(share, d)} {word} [{fmt_fixed_n(lo, d)}, {fmt_fixed_n(hi, d)}]"

    return "; ".join(one(lv, b) for lv, b in cal["band"].items())


def fmt_fixed_n(x: float, decimals: int) -> str:
    """A number to ``decimals`` decimals, as :func:`fmt3` prints it to 3."""
    from pluralign.presentation import fmt_fixed

    return fmt_fixed(float(x), decimals)


def level_text(alpha: float, tests: int) -> str:
    """The level of each of ``tests`` two-sided intervals that share a family-wise ``alpha`` (Bonferroni), as the
    page prints it: "99.95%", "99.998%" (as many digits as keep it below 100 %)."""
    level = 100 * (1 - alpha / tests)
    digits = next((d for d in range(4, 10) if f"{level:.{d}g}" != "100"), 10)
    return f"{level:.{digits}g}%"


#: whether :func:`null_pass_rate` runs (off inside :func:`without_null_passes`)
_NULL_PASSES = contextvars.ContextVar("null_passes", default=True)


@contextlib.contextmanager
def without_null_passes():
    """Rows computed inside give NaN for ``null_pass``: a broken method's row (the mutation table) keeps only its
    verdict, so its null-method Monte Carlo would be computed and thrown away."""
    token = _NULL_PASSES.set(False)
    try:
        yield
    finally:
        _NULL_PASSES.reset(token)


#: null outputs per row in :func:`null_pass_rate`
NULL_REPS = 200


def null_pass_rate(judge, make_null, reps: int = NULL_REPS, seed: int = 0) -> float:
    """The probability that a null method passes a row: the share of ``reps`` null outputs (``make_null(rng)``,
    e.g. noise estimates with the method's own interval widths) that ``judge`` (the row's criterion, a function of
    the method's output returning bool) passes. Monte Carlo; its resolution is 1 / ``reps``. NaN inside
    :func:`without_null_passes`."""
    if not _NULL_PASSES.get():
        return float("nan")
    rng = np.random.default_rng([seed, 99])
    return float(np.mean([bool(judge(make_null(rng))) for _ in range(int(reps))]))


def null_pass_rate_many(judge_many, make_null, reps: int = NULL_REPS, seed: int = 0) -> float:
    """:func:`null_pass_rate` with the row's criterion applied to every null output at once: ``judge_many`` takes
    the list of the ``reps`` null outputs (``make_null(rng)``, drawn from the same generator in the same order)
    and returns one bool per output (a criterion vectorised over the nulls, e.g. one bootstrap matrix product for
    all of them). NaN inside :func:`without_null_passes`."""
    if not _NULL_PASSES.get():
        return float("nan")
    rng = np.random.default_rng([seed, 99])
    return float(np.mean(np.asarray(judge_many([make_null(rng) for _ in range(int(reps))]), bool)))


def table_arrays(t: pd.DataFrame, labels, cols=("estimate", "ci_low", "ci_high")) -> np.ndarray:
    """``t.reindex(labels)[list(cols)].to_numpy(float).T`` of a fit's table ``t``: one row per column of ``cols``,
    one column per label of ``labels``, NaN where ``t`` has no such row; read from ``t``'s columns without building
    the two frames (a row's check reads 25 tables per variant, and pandas' indexing cost most of it)."""
    at = t.index.get_indexer(labels)
    out = np.full((len(cols), len(at)), np.nan)
    hit = at >= 0
    for k, c in enumerate(cols):
        out[k, hit] = t[c].to_numpy(float)[at[hit]]
    return out

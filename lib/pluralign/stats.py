"""Small statistics shared by every chapter: bootstrap confidence intervals."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

__all__ = ["N_BOOT", "bootstrap_ci", "paired_bootstrap_ci"]

#: bootstrap resamples of every 95% CI of the book (the one default every method and part setting takes)
N_BOOT = 2000


def bootstrap_ci(
    values,
    stat: Callable[[np.ndarray], float] = np.mean,
    *,
    n_boot: int = N_BOOT,
    level: float = 0.95,
    seed: int = 0,
    many: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[float, float, float]:
    """Percentile bootstrap: ``(estimate, low, high)`` of ``stat`` over resampled rows.

    ``values`` is a 1-D array, or a 2-D array / DataFrame whose rows are resampled together
    (``stat`` then receives the 2-D array, e.g. ``lambda x: pearsonr(x[:, 0], x[:, 1])[0]``). ``many``: the same
    statistic over a stack of resamples (``n × …`` arrays stacked on a first axis, one value each), used in place
    of a Python loop over ``stat``; the resamples are the same, so the interval is too (to rounding)."""
    x = np.asarray(values.to_numpy() if isinstance(values, (pd.DataFrame, pd.Series)) else values, dtype=float)
    n = len(x)
    if n == 0:
        return (float("nan"),) * 3
    est = float(stat(x))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    if many is None and stat is np.mean and x.ndim == 1:  # the mean of each resample, to the bit the loop's
        many = lambda s: s.mean(axis=1)  # noqa: E731
    if many is None:
        boots = np.array([stat(x[i]) for i in idx], dtype=float)
    else:  # in chunks, so that a stack of resamples stays small
        boots = np.concatenate([np.asarray(many(x[idx[j : j + 250]]), dtype=float) for j in range(0, n_boot, 250)])
    a = (1 - level) / 2
    lo, hi = np.nanquantile(boots, [a, 1 - a])
    return est, float(lo), float(hi)


def paired_bootstrap_ci(
    a, b, stat: Callable[[np.ndarray], float] = np.mean, *, many: Callable | None = None, **kw
) -> tuple[float, float, float]:
    """CI of ``stat(b) - stat(a)`` with the same resampled rows for both (a paired Δ); ``many`` as in
    :func:`bootstrap_ci` (for ``stat`` of 2-D rows)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    both = np.column_stack([a.reshape(len(a), -1), b.reshape(len(b), -1)])
    k = both.shape[1] // 2
    if many is not None and k == 1:
        raise ValueError("paired_bootstrap_ci: many= needs rows of two or more columns")
    return bootstrap_ci(
        both,
        lambda x: (
            stat(x[:, k:].squeeze(-1) if k == 1 else x[:, k:]) - stat(x[:, :k].squeeze(-1) if k == 1 else x[:, :k])
        ),
        many=None if many is None else (lambda xb: many(xb[:, :, k:]) - many(xb[:, :, :k])),
        **kw,
    )

"""Small statistics shared by every chapter: bootstrap confidence intervals."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

__all__ = ["bootstrap_ci", "paired_bootstrap_ci"]


def bootstrap_ci(
    values, stat: Callable[[np.ndarray], float] = np.mean, *, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """Percentile bootstrap: ``(estimate, low, high)`` of ``stat`` over resampled rows.

    ``values`` is a 1-D array, or a 2-D array / DataFrame whose rows are resampled together
    (``stat`` then receives the 2-D array, e.g. ``lambda x: pearsonr(x[:, 0], x[:, 1])[0]``)."""
    x = np.asarray(values.to_numpy() if isinstance(values, (pd.DataFrame, pd.Series)) else values, dtype=float)
    n = len(x)
    if n == 0:
        return (float("nan"),) * 3
    est = float(stat(x))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    boots = np.array([stat(x[i]) for i in idx], dtype=float)
    a = (1 - level) / 2
    lo, hi = np.nanquantile(boots, [a, 1 - a])
    return est, float(lo), float(hi)


def paired_bootstrap_ci(a, b, stat: Callable[[np.ndarray], float] = np.mean, **kw) -> tuple[float, float, float]:
    """CI of ``stat(b) - stat(a)`` with the same resampled rows for both (a paired Δ)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    both = np.column_stack([a.reshape(len(a), -1), b.reshape(len(b), -1)])
    k = both.shape[1] // 2
    return bootstrap_ci(
        both,
        lambda x: (
            stat(x[:, k:].squeeze(-1) if k == 1 else x[:, k:]) - stat(x[:, :k].squeeze(-1) if k == 1 else x[:, :k])
        ),
        **kw,
    )

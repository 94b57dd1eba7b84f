"""t-tests of the reward shift θ per alignment regime (SEAL § 2.2, Table 1, Fig. 4 and App. G.2 / Fig. 17).

Fig. 4 shows, per alignment regime (became aligned, stayed aligned, stayed misaligned, reversed), the reward
shifts θ_i of the pairs on which the LM-labeller agrees with the human label (γ_i = c) and of those on which it
disagrees (γ_i = r); Fig. 17 adds the pairs on which it is indifferent (γ_i = i). The paper prints no test
statistic for these panels; SEAL's public analysis notebook (``analysis/main_results.ipynb``) imports scipy's
``ttest_1samp``. :func:`regime_shift_tests` gives, per regime, the two t-tests these panels invite:

- **one-sample** (``scipy.stats.ttest_1samp``, H0: mean θ = 0): does training on D rotate the reward vectors
  of this regime's pairs systematically, and in which direction (θ > 0 counter-clockwise, towards alignment in
  the third quadrant; :mod:`pluralign.seal.shifts`)? Run on all the regime's pairs and on each γ group;
- **two-sample, Welch** (``scipy.stats.ttest_ind(equal_var=False)``, H0: equal means): do the pairs where the
  LM-labeller sides with the human (γ = c) shift differently from those where it sides against (γ = r) —
  the green-versus-pink contrast of Fig. 4.

p-values are two-sided; ``p_bonferroni`` multiplies by the number of tests of the same kind on the page (one
family for the one-sample tests, one for the Welch tests). Groups with fewer than two finite θ get no test
(NaN, with the reason in ``note``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pluralign.seal.imprint import bonferroni
from pluralign.seal.resistance import REGIMES

__all__ = ["RegimeShiftTests", "regime_shift_tests"]

GAMMA_GROUPS = ("c", "r", "i")
"""The LM-labeller's preferences γ (App. D.4): chosen, rejected, indifferent."""


@dataclass(frozen=True)
class RegimeShiftTests:
    """t-tests of θ per alignment regime (:func:`regime_shift_tests`).

    ``one_sample``: one row per (``regime``, ``group``) — group ``"all"`` and, when γ was given, ``"γ = c"``,
    ``"γ = r"``, ``"γ = i"`` — with ``n``, ``mean``, ``sd``, ``ci_low`` / ``ci_high`` (95% t interval of the mean),
    ``t``, ``df``, ``p_value``, ``p_bonferroni``. ``welch``: one row per regime with ``n_c``, ``n_r``,
    ``mean_c``, ``mean_r``, ``difference`` (c − r), ``t``, ``df`` (Welch–Satterthwaite), ``p_value``,
    ``p_bonferroni`` (empty without γ). ``n_missing``: pairs left out for a missing θ (a zero reward vector) or a
    missing γ (a missing target label)."""

    one_sample: pd.DataFrame
    welch: pd.DataFrame
    n_missing: int


def _one_sample(x: np.ndarray) -> dict:
    from scipy import stats

    n = len(x)
    out = {
        "n": n,
        "mean": float(np.mean(x)) if n else np.nan,
        "sd": float(np.std(x, ddof=1)) if n > 1 else np.nan,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "t": np.nan,
        "df": n - 1 if n > 1 else np.nan,
        "p_value": np.nan,
    }
    if n > 1 and out["sd"] > 0:
        r = stats.ttest_1samp(x, 0.0)
        lo, hi = stats.t.interval(0.95, n - 1, loc=out["mean"], scale=out["sd"] / np.sqrt(n))
        out.update(t=float(r.statistic), p_value=float(r.pvalue), ci_low=float(lo), ci_high=float(hi))
    return out


def _welch(a: np.ndarray, b: np.ndarray) -> dict:
    from scipy import stats

    out = {
        "n_c": len(a),
        "n_r": len(b),
        "mean_c": float(np.mean(a)) if len(a) else np.nan,
        "mean_r": float(np.mean(b)) if len(b) else np.nan,
        "t": np.nan,
        "df": np.nan,
        "p_value": np.nan,
    }
    out["difference"] = out["mean_c"] - out["mean_r"]
    if len(a) > 1 and len(b) > 1 and (np.var(a) > 0 or np.var(b) > 0):
        r = stats.ttest_ind(a, b, equal_var=False)
        va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
        out.update(
            t=float(r.statistic),
            p_value=float(r.pvalue),
            df=float((va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))),
        )
    return out


def regime_shift_tests(theta, regimes, gamma=None) -> RegimeShiftTests:
    """t-tests of the reward shift θ per alignment regime (Table 1's regimes; Fig. 4 / Fig. 17 groups).

    ``theta``: θ_i in degrees (:func:`~pluralign.seal.shifts.reward_shift`); ``regimes``: the regime of each pair
    (:func:`~pluralign.seal.resistance.alignment_regimes`); ``gamma`` (optional): γ_i ∈ {"c", "r", "i"} per pair,
    None where unknown. Returns :class:`RegimeShiftTests`. Raises on mismatched lengths or unknown regimes / γ."""
    theta = np.asarray(theta, dtype=float)
    reg = np.asarray(regimes, dtype=object)
    if len(reg) != len(theta):
        raise ValueError(f"regime_shift_tests: {len(theta)} shifts but {len(reg)} regimes")
    unknown = set(reg) - set(REGIMES)
    if unknown:
        raise ValueError(f"regime_shift_tests: unknown regime(s) {sorted(map(str, unknown))}; expected {REGIMES}")
    g = None
    if gamma is not None:
        g = np.asarray(
            [None if v is None or (isinstance(v, float) and np.isnan(v)) else v for v in gamma], dtype=object
        )
        if len(g) != len(theta):
            raise ValueError(f"regime_shift_tests: {len(theta)} shifts but {len(g)} γ values")
        bad = {v for v in g if v is not None} - set(GAMMA_GROUPS)
        if bad:
            raise ValueError(f"regime_shift_tests: unknown γ value(s) {sorted(map(str, bad))}; expected {GAMMA_GROUPS}")
    ok = np.isfinite(theta)
    rows, welch = [], []
    for r in REGIMES:
        in_r = ok & (reg == r)
        rows.append({"regime": r, "group": "all", **_one_sample(theta[in_r])})
        if g is None:
            continue
        for k in GAMMA_GROUPS:
            rows.append({"regime": r, "group": f"γ = {k}", **_one_sample(theta[in_r & (g == k)])})
        welch.append({"regime": r, **_welch(theta[in_r & (g == "c")], theta[in_r & (g == "r")])})
    one = pd.DataFrame(rows)
    one["p_bonferroni"] = bonferroni(one["p_value"])
    one = one.set_index(["regime", "group"])
    w = pd.DataFrame(welch, columns=["regime", "n_c", "n_r", "mean_c", "mean_r", "difference", "t", "df", "p_value"])
    w["p_bonferroni"] = bonferroni(w["p_value"]) if len(w) else []
    n_missing = int((~ok).sum() + (0 if g is None else int(np.sum(ok & np.array([v is None for v in g])))))
    return RegimeShiftTests(one_sample=one, welch=w.set_index("regime"), n_missing=n_missing)

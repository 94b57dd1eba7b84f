"""At what training size Beyond the Binary's central claim is decidable on a simulated population: the claim of
Table 1 (Padmakumar et al. 2024, §3.4) that margin regularization (Eq. 4, margins from Eq. 3) raises the Pearson r
between a reward model's P(A ≻ B) and the aggregate preference p* (Eq. 2) over plain Bradley–Terry (Eq. 1).

A page's own comparison (:mod:`pluralign.btb.comparison`) trains one pair of models on one training set, and its
paired bootstrap resamples the test pairs only: it cannot say how Δ r moves with the training set's size, nor how
much it varies from one training set to the next. This sweep draws, for each of ``draws`` repetitions, a fresh
training population from the same simulator spec (the page's out-of-domain prompt types left out, as in training),
one binary judgment per pair (:func:`pluralign.btb.training.binary_judgments`), ``n`` simulated-judge votes per pair
and their Eq. 3 margin (:func:`pluralign.btb.margins.simulated_votes`, the page's judge noise and n), and fits both
objectives on the first N pairs for each N of ``sizes``: the library's loss (:func:`pluralign.rewards.objectives.
bt_loss`, Eq. 1 with m = 0, Eq. 4 with the margins) minimised exactly (L-BFGS) for a linear reward on the texts'
planted features — the representation in which the population's preferences are written, so that what limits the
models is the size of the training set, not the encoder. Each fit is scored on the page's own test pairs (fixed);
the interval of the mean Δ r at each N is a t interval over the draws (the resampling unit: a training set).

The claim is *decided* at N when that interval excludes 0 (the sign of Δ seen) or excludes the paper's median Δ of
Table 1 (Δ on this population below, or above, an effect of the paper's size); the decidable size, for each, is the
smallest N from which every larger N of the sweep decides."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from pluralign import presentation
from pluralign.data.simulate import FEATURES
from pluralign.data.spec import DataSpec, OodBy

__all__ = [
    "SIZES",
    "DRAWS",
    "NOISES",
    "PLANTED",
    "planted_features",
    "fit_linear",
    "training_draw",
    "judge_margins",
    "sweep",
    "summary",
    "decidable_at",
]

#: training sizes of the sweep (pairs with one binary judgment each): round values around the demo's own 568
SIZES = (100, 250, 500, 1000, 2000, 4000)
#: fresh training sets per size (a round value; the interval of the mean Δ is a t interval over them)
DRAWS = 5
#: the judge's log-odds noise along which the largest size is refitted (the demo's value is among them)
NOISES = (0.0, 0.5, 1.0, 2.0)
#: what an interval that decides nothing says
CANNOT = "cannot tell"
#: the planted features the simulator renders into each text and weighs in its population
PLANTED = FEATURES


def planted_features(truth: pd.DataFrame, side: str) -> np.ndarray:
    """The planted features (:data:`PLANTED`) of side ``"a"`` or ``"b"`` of each pair of a simulator's ``truth``."""
    missing = [f"{side}_{f}" for f in PLANTED if f"{side}_{f}" not in truth]
    if missing:
        raise ValueError(f"truth has no planted feature columns {missing} (not a simulator's data?)")
    return np.column_stack([truth[f"{side}_{f}"].to_numpy(float) for f in PLANTED])


def fit_linear(dx: np.ndarray, margin: np.ndarray | None = None) -> np.ndarray:
    """The weights ``w`` of a linear reward r(text) = w · features(text) that minimise the mean of Eq. 1
    (``margin`` None) or Eq. 4 (``-log σ(w · dx - m)``) over the rows of ``dx`` = features(chosen) − features
    (rejected), by L-BFGS from 0 (both losses are convex in ``w``). A feature that never differs in training keeps
    weight 0."""
    import torch

    from pluralign.rewards.objectives import bt_loss

    x = torch.as_tensor(np.asarray(dx, dtype=float))
    m = None if margin is None else torch.as_tensor(np.asarray(margin, dtype=float))
    w = torch.zeros(x.shape[1], dtype=x.dtype, requires_grad=True)
    opt = torch.optim.LBFGS([w], lr=1, max_iter=500, tolerance_grad=1e-10, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = bt_loss(x @ w, torch.zeros(len(x), dtype=x.dtype), m).mean()
        loss.backward()
        return loss

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a few thousand rows: one thread is faster than waking a pool per call
    try:
        opt.step(closure)
    finally:
        torch.set_num_threads(threads)
    return w.detach().numpy()


def training_draw(spec: DataSpec, size: int, draw_seed, *, ood_by: OodBy | None) -> tuple[np.ndarray, np.ndarray, int]:
    """One fresh training set of ``size`` pairs from the simulator ``spec`` (its population seed drawn from
    ``draw_seed``), ``ood_by``'s out-of-domain pairs left out: ``(dx, p_star, seed)`` with ``dx`` the planted
    features of each pair's chosen side minus its rejected side under its one binary judgment, ``p_star`` the
    pair's planted population preference for its side A (the simulated judge's input) and ``seed`` the draw's."""
    from pluralign.btb.training import binary_judgments
    from pluralign.data import load

    spec, ood_by = _typed(spec, ood_by)
    seed = int(np.random.SeedSequence(draw_seed).generate_state(1)[0])
    pairs = int(np.ceil(1.3 * size))
    while True:  # out-of-domain and all-tie pairs are left out: draw more pairs until ``size`` remain
        data = load(spec.replace(simulate=spec.simulate.replace(n_pairs=pairs, seed=seed)))
        if ood_by:
            truth = data.truth
            keep = truth.index[~truth[ood_by.column].isin(ood_by.values)]
            data = data.subset(list(keep), reason="out-of-domain prompt types left out of training")
        train = binary_judgments(data, seed=seed)
        maj = train.majority()
        ids = maj.index[maj.isin(["A", "B"])]
        if len(ids) >= size:
            break
        if len(ids) == 0:
            raise ValueError(f"the simulator spec {spec} gives no in-domain training pair with a binary judgment")
        pairs = int(np.ceil(pairs * 1.2 * size / len(ids)))
    ids = ids[:size]
    t = train.truth.reindex(ids)
    sign = np.where(maj.reindex(ids).to_numpy() == "A", 1.0, -1.0)[:, None]
    return (planted_features(t, "a") - planted_features(t, "b")) * sign, t["share_a"].to_numpy(float), seed


def judge_margins(p_star: np.ndarray, *, noise: float, n: int, seed: int) -> np.ndarray:
    """Eq. 3's margin of ``n`` votes of the simulated judge (log-odds ``noise``) on pairs of population preference
    ``p_star`` (:func:`pluralign.btb.margins.simulated_votes`, seeded by ``seed`` and the noise)."""
    from pluralign.btb.margins import eq3_margin, simulated_votes

    rng = np.random.default_rng([int(seed), 3, int(round(100 * noise))])
    k = simulated_votes(p_star, noise=noise, n=n, rng=rng)
    return eq3_margin(k, np.full(len(k), n))


def _pearson(p: np.ndarray, p_star: np.ndarray) -> float:
    return float(np.corrcoef(p, p_star)[0, 1]) if np.std(p) > 0 and len(p) > 2 else float("nan")


def _typed(spec, ood_by) -> tuple[DataSpec, OodBy | None]:
    """A simulator spec and ``ood_by`` as the settings hold them (mappings validated)."""
    spec = DataSpec.create(spec) if isinstance(spec, dict) else spec
    return spec, OodBy.create(ood_by) if isinstance(ood_by, dict) else ood_by


def sweep(
    spec: DataSpec,
    test_truth: pd.DataFrame,
    p_star: pd.Series,
    *,
    ood_by: OodBy | None,
    noise: float,
    n: int,
    sizes=SIZES,
    noises=NOISES,
    draws: int = DRAWS,
    seed: int = 0,
) -> pd.DataFrame:
    """Every fit of the sweep (module docstring): one row per draw, test set (all test pairs, and the in-domain
    ones when ``ood_by`` names out-of-domain values), training size and judge noise, with the r with p* of the
    Eq. 1 and Eq. 4 models and their Δ r. The sizes run at the page's judge ``noise``; the ``noises`` at the
    largest size. ``test_truth``: the planted features of the test pairs (their ``truth``), ``p_star`` their p*."""
    spec, ood_by = _typed(spec, ood_by)
    ids = p_star.index[p_star.notna()]
    t = test_truth.reindex(ids)
    dxt = planted_features(t, "a") - planted_features(t, "b")
    ps = p_star.reindex(ids).to_numpy(float)
    tests = {"all test pairs": np.ones(len(ids), bool)}
    if ood_by and ood_by.column in t:
        tests["in-domain test pairs"] = ~t[ood_by.column].isin(ood_by.values).to_numpy()
    steps = [(size, float(noise)) for size in sizes] + [(max(sizes), float(z)) for z in noises if z != noise]
    rows = []
    for d in range(int(draws)):
        dx, p_train, draw_seed = training_draw(spec, max(sizes), [int(seed), 7919, d], ood_by=ood_by)
        base = {size: fit_linear(dx[:size]) for size in sizes}
        margins = {z: judge_margins(p_train, noise=z, n=n, seed=draw_seed) for z in {z for _, z in steps}}
        for size, z in steps:
            w4 = fit_linear(dx[:size], margins[z][:size])
            p1, p4 = 1 / (1 + np.exp(-dxt @ base[size])), 1 / (1 + np.exp(-dxt @ w4))
            for test, m in tests.items():
                r1, r4 = _pearson(p1[m], ps[m]), _pearson(p4[m], ps[m])
                rows.append(
                    {
                        "draw": d,
                        "test": test,
                        "training pairs": size,
                        "judge noise": z,
                        "r Eq. 1": r1,
                        "r Eq. 4": r4,
                        "Δ r": r4 - r1,
                    }
                )
    return pd.DataFrame(rows)


def summary(fits: pd.DataFrame, by: str, paper_delta: float, **where) -> pd.DataFrame:
    """The fits of :func:`sweep` (those matching ``where``, e.g. ``{"judge noise": 1.0}``) per test set and
    value of ``by``: the mean r of both models, the mean Δ r with its 95 % t interval over the draws, the draws'
    sd, and what the interval says beside the paper's ``paper_delta``."""
    f = fits
    for k, v in where.items():
        f = f[np.isclose(f[k], v)] if isinstance(v, float) else f[f[k] == v]
    out = []
    for (test, x), g in f.groupby(["test", by], sort=False):
        dl = g["Δ r"].dropna().to_numpy(float)
        mean = float(dl.mean()) if len(dl) else float("nan")
        sd = float(dl.std(ddof=1)) if len(dl) > 1 else float("nan")
        half = float(stats.t.ppf(0.975, len(dl) - 1) * sd / np.sqrt(len(dl))) if len(dl) > 1 else float("nan")
        out.append(
            {
                "test": test,
                by: x,
                "r Eq. 1": float(g["r Eq. 1"].mean()),
                "r Eq. 4": float(g["r Eq. 4"].mean()),
                "Δ r": mean,
                "Δ r low": mean - half,
                "Δ r high": mean + half,
                "sd over draws": sd,
                "says": _says(mean - half, mean + half, paper_delta),
            }
        )
    return pd.DataFrame(out)


def _says(lo: float, hi: float, paper: float) -> str:
    """What the interval of the mean Δ says: the sign seen, the paper's effect size excluded (the whole interval
    below the paper's Δ, or above it), both, or neither."""
    if not np.isfinite(lo):
        return presentation.MISSING
    seen = "Δ above 0" if lo > 0 else "Δ below 0" if hi < 0 else ""
    beside = (
        f"below the paper's Δ ({paper:.3f})"
        if hi < paper
        else f"above the paper's Δ ({paper:.3f})"
        if lo > paper
        else ""
    )
    return "; ".join(s for s in (seen, beside) if s) or CANNOT


def decidable_at(table: pd.DataFrame, criterion: str = "either") -> int | None:
    """The smallest training size of one test set's :func:`summary` (``by="training pairs"``) from which every
    larger size decides the claim by ``criterion``: ``"sign"`` (the interval excludes 0), ``"paper"`` (it excludes
    the paper's Δ) or ``"either"``; None when the largest size does not."""
    tests = {
        "sign": lambda says: "Δ above 0" in says or "Δ below 0" in says,
        "paper": lambda says: "the paper's Δ" in says,
        "either": lambda says: says not in (CANNOT, presentation.MISSING),
    }
    if criterion not in tests:
        raise ValueError(f"criterion must be one of {sorted(tests)}, not {criterion!r}")
    t = table.sort_values("training pairs")
    at = None
    for size, says in zip(t["training pairs"][::-1], t["says"][::-1]):
        if not tests[criterion](says):
            break
        at = int(size)
    return at

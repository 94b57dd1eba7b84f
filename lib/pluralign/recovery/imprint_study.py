"""How often the two SEAL Eq. 1 rows (``imprint_weights``, ``imprint_text_weights``; :mod:`~pluralign.recovery.
imprint_checks`) fail a correct Eq. 1: both rows, and only they, on fresh simulated populations drawn as the demo
draws them at another seed (:func:`row_inputs`: the simulator's specs of the pages, nothing trained), with the
population seeds derived from a string (:func:`study_seeds`). Each failure of the production fit is a false failure;
the rows are built so that one happens with probability at most :data:`~pluralign.recovery.rows.ALPHA` per row, and
:func:`summary` gives the count with its exact (Clopper–Pearson) 95 % interval."""

from __future__ import annotations

import functools
import hashlib
import time

import numpy as np
import pandas as pd

from pluralign.data.spec import DataSpec

__all__ = ["STUDY_LABEL", "ROWS", "study_seeds", "row_inputs", "run_rows", "false_failures", "summary"]

#: the string the study's population seeds are derived from
STUDY_LABEL = "recovery-study"
#: the rows the study runs
ROWS = ("imprint_weights", "imprint_text_weights")


def study_seeds(n: int, label: str = STUDY_LABEL) -> list[int]:
    """``n`` population seeds derived from ``label``: the first 8 bytes of its SHA-256 seed a
    :class:`numpy.random.SeedSequence`, whose first ``n`` 31-bit states (0 excluded: seed 0 is the book's own
    population) are the seeds."""
    root = int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "big")
    states = np.random.SeedSequence(root).generate_state(2 * n + 8)
    out = [int(s) & 0x7FFFFFFF for s in states]
    return [s for s in out if s][:n]


@functools.lru_cache(maxsize=4)
def _specs(profile: str) -> tuple[DataSpec, DataSpec]:
    """The simulator specs of Part I's first data set and of SEAL's D on ``profile``'s pages (read once per
    process)."""
    from pluralign.diverging.settings import DivergingSettings
    from pluralign.recovery.context import PAGES, page_params
    from pluralign.seal.settings import SealSettings

    def settings(cls, part):
        p = page_params(PAGES[part], profile)
        return cls.create(None, **{k: v for k, v in p.items() if k not in ("profile", "seed", "models")})

    spec = next(x for x in settings(DivergingSettings, "diverging").datasets if x.simulate is not None)
    return spec, settings(SealSettings, "seal").design.data


def row_inputs(seed: int, profile: str = "demo"):
    """The two rows' data at population seed ``seed``, as the demo's studies draw them
    (:func:`pluralign.data.spec.from_spec` of the pages' specs) without training anything: Part I's first
    simulated data set (the ``imprint_weights`` row reads all its pairs) and SEAL's alignment data D with its
    chosen / rejected view (:func:`pluralign.seal.design.chosen_rejected`). Returns ``(data, D, view)``."""
    from pluralign.data.spec import from_spec
    from pluralign.seal.design import chosen_rejected

    spec, d_spec = _specs(profile)
    D = from_spec(d_spec, seed)
    return from_spec(spec, seed), D, chosen_rejected(D).table


def run_rows(seed: int, noise_sd: float, rows=ROWS) -> list[dict]:
    """The ``rows`` at population seed ``seed`` (the row's seed too, as the demo's table at that seed) with the
    oracle's noise ``noise_sd``: per row ``seed``, ``row``, ``recovered``, ``failing`` (its failed sub-tests) and
    ``seconds`` (the row's own time, its inputs drawn outside it; the text row's includes drawing and reading its
    population)."""
    from pluralign.recovery import imprint_checks as I

    data, D, view = row_inputs(seed)
    out = []
    for q in rows:
        t = time.perf_counter()
        if q == "imprint_weights":
            r = I.oracle_imprint(data, data.pairs["pair_id"], noise_sd=noise_sd, seed=seed)
        else:
            r = I.oracle_imprint_text(D, view, noise_sd=noise_sd, seed=seed)
        out.append(
            {
                "seed": seed,
                "row": q,
                "recovered": bool(r["recovered"]),
                "failing": r.get("failing", ""),
                "reads": r["reads"],
                "seconds": time.perf_counter() - t,
            }
        )
    return out


def _one(args):
    seed, noise_sd, rows = args
    return run_rows(seed, noise_sd, rows)


def false_failures(seeds, noise_sd: float, rows=ROWS, jobs: int = 1, progress=None) -> pd.DataFrame:
    """:func:`run_rows` at every seed of ``seeds`` (``jobs`` processes), one row per (seed, row); a seed whose run
    raises is reported to ``progress`` as ``[{"seed": s, "error": message}]`` and left out (neither a pass nor a
    failure: run it again)."""
    args = [(int(s), float(noise_sd), tuple(rows)) for s in seeds]
    out = []

    def done(k, a, res=None, err=None):
        nonlocal out
        res = res if err is None else [{"seed": a[0], "error": f"{type(err).__name__}: {err}"}]
        out += [r for r in res if "error" not in r]
        if progress:
            progress(k, res)

    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(jobs) as ex:
            futures = {ex.submit(_one, a): a for a in args}
            for k, f in enumerate(as_completed(futures), 1):
                err = f.exception()
                done(k, futures[f], None if err else f.result(), err)
    else:
        for k, a in enumerate(args, 1):
            try:
                done(k, a, _one(a))
            except Exception as err:  # noqa: BLE001 - reported and left out, never counted as a pass
                done(k, a, err=err)
    return pd.DataFrame(out)


def summary(runs: pd.DataFrame) -> dict:
    """Per row: ``failures`` of ``n`` populations, the failure rate's exact 95 % interval (Clopper–Pearson,
    :meth:`scipy.stats.binomtest`'s ``proportion_ci(method="exact")``), the seeds that failed, and the row's
    ``seconds`` (mean and max over the populations)."""
    from scipy.stats import binomtest

    out = {}
    for q, g in runs.groupby("row", sort=False):
        n, k = len(g), int((~g["recovered"]).sum())
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
        out[q] = {
            "failures": k,
            "n": n,
            "rate": k / n,
            "ci95": [float(ci.low), float(ci.high)],
            "failed_seeds": [int(s) for s in g.loc[~g["recovered"], "seed"]],
            "failed_tests": [str(f) for f in g.loc[~g["recovered"], "failing"]],
            "seconds_mean": float(g["seconds"].mean()),
            "seconds_max": float(g["seconds"].max()),
        }
    return out

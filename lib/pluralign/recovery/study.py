"""How often the recovery's method rows fail a correct method: every method row of the demo table
(:data:`~pluralign.recovery.rows.REQUIRED`) on fresh simulated populations drawn as the demo's pages draw them at
another seed (:func:`population`: the pages' studies and simulator specs, nothing trained), the population seeds derived
from a string nobody tuned to (:func:`study_seeds`). Each failure of a row on a correct method is a false failure;
:func:`summary` counts them per row and for all rows together (a population on which any row fails: what one commit
of CI meets) with their exact (Clopper–Pearson) 95 % intervals.

``make recovery-study`` runs it (``bench/recovery_study.py``) and writes ``bench/results/recovery_study.json``, the
file the recovery page quotes (:func:`recorded`)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import inspect
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pluralign import report
from pluralign.recovery.rows import ALPHA, FAMILY_ALPHA, REQUIRED

__all__ = [
    "TARGET",
    "TARGET_UPPER",
    "STUDY_LABEL",
    "STUDY_SIZE",
    "FIRST_SIZE",
    "RESULTS",
    "DEMO_NOISE",
    "SealInputs",
    "study_seeds",
    "population",
    "ROW_CHECKS",
    "method_rows",
    "method_context",
    "run_rows",
    "false_failures",
    "summary",
    "recorded",
    "ROW_SOURCES",
    "DRAWN",
    "REREAD_DRAWS",
    "reread",
    "own_draws",
    "with_rereads",
    "rows_fingerprint",
    "result",
]

#: the target of the recovery's gate: a correct method fails CI's commit-seed run on at most this share of commits
#: (all method rows together), shown by this study with an upper 95 % bound of at most :data:`TARGET_UPPER`; the
#: rows' family-wise α (:data:`~pluralign.recovery.rows.FAMILY_ALPHA`) is designed at half of it
TARGET = 0.005
TARGET_UPPER = 0.02
#: the string the study's population seeds are derived from. "recovery-study-2": the populations of "recovery-study"
#: were looked at (its study measured 2 false failures of 200 under the earlier α, 0.001 per row), so the study of
#: the present design (:data:`~pluralign.recovery.rows.FAMILY_ALPHA`) runs on seeds nobody has seen
STUDY_LABEL = "recovery-study-2"
#: the populations the study runs, the first :data:`FIRST_SIZE` of them the study as first designed. At 300 a
#: calibrated design (:data:`~pluralign.recovery.rows.FAMILY_ALPHA`, 0.25 %) shows more than :data:`TARGET` (2 or more
#: false failures) with probability 0.17, and its upper bound meets :data:`TARGET_UPPER` only with at most one; the
#: first 300 showed 2 (0.67 %, upper bound 2.4 %). Extended to 1,000, decided before the added 700 were run and not
#: to be extended again whatever they show: the rate is then measured to about ±0.3 % at the design's rate, and the
#: page shows the first 300's count beside the whole study's (:func:`result`)
STUDY_SIZE = 1000
FIRST_SIZE = 300
#: where ``make recovery-study`` writes the study and the page reads it
RESULTS = Path(__file__).resolve().parents[3] / "bench" / "results" / "recovery_study.json"


def study_seeds(n: int, label: str = STUDY_LABEL) -> list[int]:
    """``n`` population seeds derived from ``label``: the first 8 bytes of its SHA-256 seed a
    :class:`numpy.random.SeedSequence`, whose first ``n`` 31-bit states (0 excluded: seed 0 is the book's own
    population) are the seeds."""
    root = int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "big")
    states = np.random.SeedSequence(root).generate_state(2 * n + 8)
    return [s for s in (int(x) & 0x7FFFFFFF for x in states) if s][:n]


#: the oracle rows' noise in the study and at a seed other than the book's: the demo RM's residual sd on the utility
#: scale at the book's seed (:func:`pluralign.recovery.seal_checks.residual_sd`), so that nothing is retrained
DEMO_NOISE = 0.5766


@functools.lru_cache(maxsize=4)
def _seal_settings(profile: str):
    """The settings of the SEAL page whose study the demo table reads (:data:`~pluralign.recovery.context.PAGES`),
    read once per process."""
    from pluralign.recovery.context import PAGES, page_params
    from pluralign.seal.settings import SealSettings

    p = page_params(PAGES["seal"], profile)
    return SealSettings.create(None, **{k: v for k, v in p.items() if k not in ("profile", "seed", "models")})


@dataclass(frozen=True, eq=False)
class SealInputs:
    """What SEAL's method rows read of its study (:class:`pluralign.seal.study.Study`), drawn as the study draws
    them but without building it (the study trains its pre-D and post-D RMs when it is built): the alignment data
    ``D`` with its chosen / rejected ``view``, the pre-D RM's other data ``other_parts``, the page's ``settings``
    and the ``seed``."""

    D: object
    view: pd.DataFrame
    other_parts: list
    settings: object
    seed: int


def population(seed: int, profile: str = "demo", noise_sd: float = DEMO_NOISE, parts=("diverging", "seal", "btb")):
    """Every method row's inputs at population seed ``seed``, nothing trained, as a
    :class:`~pluralign.recovery.context.RecoveryContext` without a table: Part I's and Part III's studies as their
    pages build them at ``seed`` (they train nothing until a model is asked for), SEAL's inputs
    (:class:`SealInputs`: the pages' simulator specs drawn with ``seed``, :func:`pluralign.data.spec.from_spec`),
    Part I's first data set as the imprint row's data, and the oracle's noise ``noise_sd``; only the ``parts``
    asked for are drawn (the others are None)."""
    from pluralign.data.spec import from_spec
    from pluralign.recovery.context import RecoveryContext, part_study
    from pluralign.seal.pairs import chosen_rejected

    inputs = None
    if "seal" in parts:
        seal = _seal_settings(profile)
        D = from_spec(seal.design.data, seed)
        inputs = SealInputs(
            D=D,
            view=chosen_rejected(D).table,
            other_parts=[from_spec(x, seed) for x in seal.design.other_data or []],
            settings=seal,
            seed=int(seed),
        )
    div = part_study("diverging", profile, seed) if "diverging" in parts else None
    return RecoveryContext(
        diverging=div,
        seal=inputs,
        btb=part_study("btb", profile, seed) if "btb" in parts else None,
        demo_rm=(None, None, None if div is None else div.data[0]),
        noise_sd=float(noise_sd),
        table=None,
    )


def _diverging(ctx, quantity: str) -> dict:
    from pluralign.recovery import diverging_checks as Dc

    s = ctx.diverging
    data = s.data[0]
    return getattr(Dc, quantity)(s.classified[data.name], data, s.seed, ties=s.settings.ties)


def _imprint_weights(ctx, **draws) -> dict:
    from pluralign.recovery.imprint_checks import oracle_imprint

    data = ctx.demo_rm[2]
    return oracle_imprint(data, data.pairs["pair_id"], noise_sd=ctx.noise_sd, seed=ctx.diverging.seed, **draws)


def _imprint_text_weights(ctx, **draws) -> dict:
    from pluralign.recovery.imprint_checks import oracle_imprint_text

    s = ctx.seal
    return oracle_imprint_text(s.D, s.view, noise_sd=ctx.noise_sd, seed=s.seed, **draws)


def _resistance_regimes(ctx, **draws) -> dict:
    from pluralign.recovery.resistance_checks import oracle_resistance

    s = ctx.seal
    return oracle_resistance(s.D, s.view, s.other_parts, noise_sd=ctx.noise_sd, seed=s.seed, **draws)


def _robustness_scores(ctx, **draws) -> dict:
    from pluralign.recovery.robustness_checks import oracle_robustness

    s = ctx.seal
    return oracle_robustness(s.D, s.view, noise_sd=ctx.noise_sd, seed=s.seed, p_flip=s.settings.p_flip, **draws)


def _margin_pstar_correlation(ctx) -> dict:
    from pluralign.recovery.btb_checks import margin_pstar_correlation

    b = ctx.btb
    j = b.settings.judge
    return margin_pstar_correlation(b.judgments.reindex(b.ids), b.data.truth["share_a"], b.seed, noise=j.noise, n=j.n)


#: each method row's check on a :func:`population` (or the book's own context), called as the demo table calls it
ROW_CHECKS = {
    "diverging_share": lambda ctx: _diverging(ctx, "diverging_share"),
    "diverging_taste_driven": lambda ctx: _diverging(ctx, "diverging_taste_driven"),
    "imprint_weights": _imprint_weights,
    "imprint_text_weights": _imprint_text_weights,
    "resistance_regimes": _resistance_regimes,
    "robustness_scores": _robustness_scores,
    "margin_pstar_correlation": _margin_pstar_correlation,
}
if set(ROW_CHECKS) != set(REQUIRED):  # a method row added to the table must be added to the study
    raise ImportError(f"the study's rows {sorted(ROW_CHECKS)} are not the table's method rows {sorted(REQUIRED)}")

#: per method row: the part of the context it reads (:func:`population`) and the modules whose code decides its
#: verdict besides :mod:`.rows` (:func:`rows_fingerprint`)
ROW_SOURCES = {
    "diverging_share": ("diverging", ("diverging_checks", "agreement_truth")),
    "diverging_taste_driven": ("diverging", ("diverging_checks", "agreement_truth")),
    "imprint_weights": ("diverging", ("imprint_checks", "eq1_fits")),
    "imprint_text_weights": ("seal", ("imprint_checks", "eq1_fits")),
    "resistance_regimes": ("seal", ("resistance_checks",)),
    "robustness_scores": ("seal", ("robustness_checks",)),
    "margin_pstar_correlation": ("btb", ("btb_checks",)),
}


#: the method rows whose verdict reads draws, with the check (module, function) that draws them: a false failure of
#: one is read again on its population with :data:`REREAD_DRAWS` (:func:`reread`). The other rows read each pair's
#: own data once
_DRAWING = {
    "imprint_weights": ("imprint_checks", "oracle_imprint"),
    "imprint_text_weights": ("imprint_checks", "oracle_imprint_text"),
    "resistance_regimes": ("resistance_checks", "oracle_resistance"),
    "robustness_scores": ("robustness_checks", "oracle_robustness"),
}
DRAWN = tuple(_DRAWING)
#: the draws of :func:`reread`: 16 times a row's own, so the re-read's tests detect a miss a quarter the size
REREAD_DRAWS = 400


def method_rows(ctx, rows=REQUIRED) -> list[dict]:
    """The method ``rows`` of the demo table on the context ``ctx`` (:func:`population`), in the table's order."""
    return [ROW_CHECKS[q](ctx) for q in rows]


@functools.lru_cache(maxsize=4)
def method_context(seed: int, profile: str = "demo"):
    """The recovery at a population seed other than the book's, as :func:`pluralign.recovery.demo.recovery_context`
    gives it: the method rows only (they gate; :func:`method_rows`) on a fresh population drawn without training
    anything (:func:`population`, the oracle's noise :data:`DEMO_NOISE`). The stand-in and claim rows read trained
    models, so they are the book's seed's only: retraining every model at every seed costs minutes, and no such row
    gates."""
    from pluralign.recovery.rows import COLUMNS

    ctx = population(int(seed), profile)
    return dataclasses.replace(ctx, table=pd.DataFrame(method_rows(ctx), columns=COLUMNS))


def run_rows(seed: int, noise_sd: float, rows=REQUIRED, profile: str = "demo") -> list[dict]:
    """The method ``rows`` at population seed ``seed`` (the rows' seed too, as the demo table at that seed) with
    the oracle's noise ``noise_sd``: per row ``seed``, ``row``, ``recovered``, ``failing`` (its failed sub-tests),
    ``reads``, ``seconds`` (the row's own time; drawing the population is timed once, as row ``population``) and
    ``fingerprint`` (:func:`rows_fingerprint`: the code that gave the verdict)."""
    t = time.perf_counter()
    ctx = population(seed, profile, noise_sd, parts={ROW_SOURCES[q][0] for q in rows})
    out = [{"seed": seed, "row": "population", "seconds": time.perf_counter() - t}]
    for q in rows:
        t = time.perf_counter()
        r = ROW_CHECKS[q](ctx)
        out.append(
            {
                "seed": seed,
                "row": q,
                "recovered": bool(r["recovered"]),
                "failing": str(r.get("failing", "")),
                "reads": str(r.get("reads", "")),
                "seconds": time.perf_counter() - t,
                "fingerprint": rows_fingerprint(q),
            }
        )
    return out


def reread(seed: int, row: str, noise_sd: float, n_draws: int = REREAD_DRAWS) -> dict:
    """The method row ``row`` (one of :data:`DRAWN`) at population seed ``seed`` read again through its production
    check with ``n_draws`` draws in place of its own (the first of them the same draws): a false failure that it
    passes was a tail draw of the row's tests on that population; one that it fails marks a population where the
    method's estimates or intervals miss their truth (a failure to fix in the row's estimand or standard errors).
    Returns ``seed``, ``row``, ``draws``, ``recovered``, ``failing``, ``reads``, ``seconds`` and ``fingerprint``."""
    if row not in DRAWN:
        raise ValueError(f"reread: the row {row!r} draws nothing to draw more of; the rows that do: {list(DRAWN)}")
    t = time.perf_counter()
    ctx = population(int(seed), "demo", noise_sd, parts={ROW_SOURCES[row][0]})
    r = ROW_CHECKS[row](ctx, n_draws=int(n_draws))
    return {
        "seed": int(seed),
        "row": row,
        "draws": int(n_draws),
        "recovered": bool(r["recovered"]),
        "failing": str(r.get("failing", "")),
        "reads": str(r.get("reads", "")),
        "seconds": time.perf_counter() - t,
        "fingerprint": rows_fingerprint(row),
    }


def own_draws(row: str) -> int:
    """The draws the method row ``row`` (one of :data:`DRAWN`) reads in the table and the study: its check's
    ``n_draws`` default."""
    module, check = _DRAWING[row]
    f = getattr(importlib.import_module(f"pluralign.recovery.{module}"), check)
    return int(inspect.signature(f).parameters["n_draws"].default)


def with_rereads(rows: dict, noise_sd: float, n_draws: int = REREAD_DRAWS) -> dict:
    """:func:`summary`'s ``rows`` with, under each row of :data:`DRAWN` that failed, ``rereads``: each of its failed
    seeds read again (:func:`reread`)."""
    out = dict(rows)
    for q in DRAWN:
        if q in out and out[q]["failed_seeds"]:
            out[q] = {**out[q], "rereads": [reread(s, q, noise_sd, n_draws) for s in out[q]["failed_seeds"]]}
    return out


def _one(args):
    seed, noise_sd, rows = args
    return run_rows(seed, noise_sd, rows)


def false_failures(
    seeds, noise_sd: float, rows=REQUIRED, jobs: int = 1, progress=None, rows_of: dict | None = None
) -> pd.DataFrame:
    """:func:`run_rows` at every seed of ``seeds`` (``jobs`` processes), one row per (seed, row); ``rows_of``: the
    rows to run at a seed, where not all ``rows`` (those measured already). A seed whose run raises is reported to
    ``progress`` as ``[{"seed": s, "error": message}]`` and left out (neither a pass nor a failure: run it
    again)."""
    args = [(int(s), float(noise_sd), tuple((rows_of or {}).get(s, rows))) for s in seeds]
    out = []

    def done(k, a, res=None, err=None):
        res = res if err is None else [{"seed": a[0], "error": f"{type(err).__name__}: {err}"}]
        out.extend(r for r in res if "error" not in r)
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


def _count(n: int, k: int) -> dict:
    """``k`` failures of ``n`` with the rate's exact 95 % interval (Clopper–Pearson,
    :meth:`scipy.stats.binomtest`'s ``proportion_ci(method="exact")``)."""
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    return {"failures": k, "n": n, "rate": k / n, "ci95": [float(ci.low), float(ci.high)]}


def summary(runs: pd.DataFrame) -> dict:
    """Per method row: its false failures of ``n`` populations with their exact 95 % interval, the seeds and
    sub-tests that failed, and the row's seconds (mean and max); under ``"all rows"``: the populations on which
    any row failed (what a commit's CI run meets), counted over the populations where every row ran. A row's
    ``fingerprint`` is its code's (:func:`rows_fingerprint`), "mixed" when its runs come from different code;
    ``carried``: its runs taken over from an earlier study of the same seeds (``carried_from`` in the log) after the
    current code reproduced that study's results exactly on some of them."""
    checks = runs[runs["row"] != "population"]
    out = {}
    order = {q: k for k, q in enumerate(REQUIRED)}  # the table's order, whatever order the log holds them in
    for q, g in sorted(checks.groupby("row", sort=False), key=lambda qg: order.get(qg[0], len(order))):
        bad = g.loc[~g["recovered"].astype(bool)]
        out[q] = {
            **_count(len(g), len(bad)),
            "failed_seeds": [int(s) for s in bad["seed"]],
            "failed_tests": [str(f) for f in bad["failing"]],
            "seconds_mean": float(g["seconds"].mean()),
            "seconds_max": float(g["seconds"].max()),
            "fingerprint": g["fingerprint"].iloc[0] if g.get("fingerprint", pd.Series()).nunique() == 1 else "mixed",
            "carried": int(g["carried_from"].notna().sum()) if "carried_from" in g else 0,
        }
    per_seed = checks.groupby("seed")
    complete = per_seed["row"].nunique() == checks["row"].nunique()
    failed = ~per_seed["recovered"].all().astype(bool)
    seconds = runs.groupby("seed")["seconds"].sum()
    out["all rows"] = {
        **_count(int(complete.sum()), int((failed & complete).sum())),
        "failed_seeds": [int(s) for s in failed[failed & complete].index],
        "seconds_mean": float(seconds[complete[complete].index].mean()),
        "seconds_max": float(seconds[complete[complete].index].max()),
    }
    return out


def recorded(path: Path = RESULTS) -> dict | None:
    """The recorded study (``bench/results/recovery_study.json``, written by ``make recovery-study``), or None when
    it has not been run."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else None


def rows_fingerprint(row: str) -> str:
    """A hash of the code that decides the method row ``row``'s verdict (:mod:`.rows` and the row's check modules,
    :data:`ROW_SOURCES`), recorded with each row's counts, so that a page built on other code says that the row's
    quoted rate was measured on other code."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for m in ("rows", *ROW_SOURCES[row][1]):
        h.update((here / f"{m}.py").read_bytes())
    return h.hexdigest()[:16]


def _met(c: dict) -> bool:
    """Whether a count (:func:`summary`'s ``"all rows"``) meets the target: its rate at most :data:`TARGET` and its
    upper 95 % bound at most :data:`TARGET_UPPER`."""
    return c["rate"] <= TARGET and c["ci95"][1] <= TARGET_UPPER


def _interval(c: dict) -> str:
    lo, hi = c["ci95"]
    return f"{c['failures']} of {c['n']:,} ({100 * c['rate']:.1f} %; 95 % interval {100 * lo:.2f}–{100 * hi:.1f} %)"


def _rereads_text(rows: dict, draws: int | None) -> str:
    """What the page says of each false failure: the row, its population seed and failed test, and its re-read on
    that population with more draws (:func:`reread`), or why it was not re-read."""
    from pluralign.recovery.reading import name

    out = []
    for q, c in rows.items():
        again = {r["seed"]: r for r in c.get("rereads", [])}
        for s, test in zip(c["failed_seeds"], c["failed_tests"]):
            what = f"{name(q)} at seed {s} ({test or 'its test'})"
            if s not in again:
                why = "it draws nothing more to draw" if q not in DRAWN else "not re-read yet (`make recovery-study`)"
                out.append(f"- {what}: {why}.")
                continue
            r = again[s]
            verdict = "**passes**" if r["recovered"] else f"**fails** ({r['failing'] or 'its test'})"
            own = f"in place of the row's own {own_draws(q)}, the first of them"
            out.append(f"- {what}: with {r['draws']} draws ({own}) on the same population it {verdict}: {r['reads']}.")
    if not out:
        return ""
    n = draws or REREAD_DRAWS
    return (
        f"\n\nEach false failure of a row that draws, read again on its own population with {n} draws. A failure "
        "whose re-read passes reads as a tail draw of the row's tests: on that population the method's estimates and "
        f"intervals hold as far as {n} draws can tell. One whose re-read fails marks a population where the method "
        "misses its truth.\n\n" + "\n".join(out)
    )


@report.section("study_populations", "study_all_rows")
def result(path: Path = RESULTS) -> report.Result:
    """The recorded study (:func:`recorded`) as the recovery page shows it: per method row its false failures on
    the study's populations with their exact 95 % interval and the seconds a population costs it, the same for all
    rows together (what one commit's CI run meets), and a warning when the study was recorded on other row code
    than this page's (:func:`rows_fingerprint`) or has not been run."""
    from pluralign.recovery.reading import name

    rec = recorded(path)
    if rec is None:
        raise report.NoEstimate(
            f"no recorded study: `make recovery-study` runs every method row on {STUDY_SIZE} fresh populations and "
            "writes `bench/results/recovery_study.json`, which this section quotes."
        )
    rows = {q: rec["rows"][q] for q in REQUIRED if q in rec["rows"]}
    everything = rec["rows"]["all rows"]
    table = pd.DataFrame(
        {
            "false failures": [_interval(c) for c in [*rows.values(), everything]],
            "seconds per population": [f"{c['seconds_mean']:.2g}" for c in [*rows.values(), everything]],
        },
        index=pd.Index([name(q) for q in rows] + ["All method rows together (one CI run)"], name="method row"),
    )
    values = {"study_populations": f"{everything['n']:,}", "study_all_rows": _interval(everything)}
    note = (
        f"Each method row on {everything['n']:,} simulated populations drawn as the demo draws its own, at seeds "
        f'derived from the string "{STUDY_LABEL}" (none of them the book\'s), with correct methods: every failure is '
        "a false failure. Nothing is trained: the oracle rows use the noise of the demo RM at the book's seed "
        f"({rec['noise_sd']:g} on the utility scale). *All method rows together*: the populations on which any row "
        "failed, which is what one commit's CI run meets. Intervals are exact (Clopper–Pearson). Each row is "
        f"designed to fail a correct method with probability {100 * ALPHA:.2g} %, so all {len(rows)} together with at "
        f"most {100 * FAMILY_ALPHA:g} %. Recorded by "
        "`make recovery-study` in `bench/results/recovery_study.json`."
    )
    met = _met(everything)
    note += (
        f" The target, at most {100 * TARGET:g} % of commits with an upper 95 % bound of at most "
        f"{100 * TARGET_UPPER:g} %: **{'met' if met else 'not met'}** ({_interval(everything)})."
    )
    first = rec.get("first_study")
    if first:
        where = "within" if _met(first) else "outside"
        note += (
            f" The study was first designed with {first['n']:,} populations, which showed {_interval(first)}, "
            f"{where} the target; it was then extended to {everything['n']:,} (those {first['n']:,} and "
            f"{everything['n'] - first['n']:,} more), decided before the added populations were run and not to be "
            f"extended again, to measure the rate to the target's precision. The counts above are of all "
            f"{everything['n']:,}."
        )
    note += _rereads_text(rows, rec.get("reread_draws"))
    carried = [name(q) for q, c in rows.items() if c.get("carried")]
    if carried:
        note += (
            f" The runs of {', '.join(carried)} were taken over from an earlier study of the same populations, which "
            "this code reproduces exactly on the populations compared."
        )
    stale = [name(q) for q, c in rows.items() if c.get("fingerprint") != rows_fingerprint(q)]
    if stale:
        note += "\n\n" + report.warning(
            f"**Recorded on other code.** The code of {', '.join(stale)} has changed since its study was recorded, so "
            "its rate describes the row as it was; `make recovery-study` measures it again."
        )
    return report.Result(table=table, note=note, values=values)

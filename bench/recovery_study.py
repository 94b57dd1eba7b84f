"""False failures of the recovery's method rows over fresh simulated populations: every method row of the demo table
(:data:`pluralign.recovery.rows.REQUIRED`) on a correct method at ``--n`` population seeds derived from
:data:`pluralign.recovery.study.STUDY_LABEL`, each seed's rows appended to ``--log`` (in the cache folder) as it
finishes (a killed run keeps what it measured, and a rerun keeps the (seed, row)s measured on the row's current code and
runs the rest; ``--rows`` runs some rows only, ``--fresh`` starts over), then per row and for all rows together the
failures of n with their exact (Clopper-Pearson) 95 % interval and the seconds, and each false failure of a row that
draws read again on its population with 16 times the draws (``pluralign.recovery.study.reread``), written to ``--out`` —
the file the recovery page quotes.

The oracle's noise is the demo table's at seed 0 (the demo RM's residual sd on the utility scale), the same at every
seed: nothing is trained here. The simulated judge's answers go to a throw-away cache, not the project's.

    make recovery-study            # .venv/bin/python bench/recovery_study.py --jobs 2 (--n: study.STUDY_SIZE)
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def _read(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines() if x.strip()] if log.exists() else []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None, help="population seeds (default: study.STUDY_SIZE)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--noise-sd", type=float, default=None, help="default: pluralign.recovery.study.DEMO_NOISE")
    ap.add_argument("--rows", default="", help="comma-separated method rows to (re-)run; default: all")
    ap.add_argument(
        "--log",
        default=None,
        help="the runs, one JSON line per (seed, row); default: recovery_study.jsonl in the project's cache folder "
        "(pluralign.cache.cache_dir: generated output, never committed; the study's summary --out is)",
    )
    ap.add_argument("--out", default="bench/results/recovery_study.json")
    ap.add_argument("--fresh", action="store_true", help="discard --log and measure everything again")
    ap.add_argument(
        "--shard",
        default="0/1",
        help="K/N: only every N-th seed from the K-th (processes side by side, "
        "each with its own --log, the first of a comma-separated list: the others are read, never written, and "
        "--summarize joins them all)",
    )
    ap.add_argument("--summarize", action="store_true", help="only write --out from --log")
    a = ap.parse_args(argv)
    if a.log is None:  # the project's cache folder, read before the judge's answers are sent to a throw-away one
        from pluralign.cache import cache_dir

        a.log = str(cache_dir() / "recovery_study.jsonl")
    os.environ.setdefault("PLURALIGN_CACHE", tempfile.mkdtemp(prefix="pluralign-study-cache-"))
    import pandas as pd

    from pluralign.recovery import study as S
    from pluralign.recovery.imprint_checks import POPULATION_MULTIPLE
    from pluralign.recovery.robustness_checks import POPULATION_ROUNDS
    from pluralign.recovery.rows import ALPHA, FAMILY_ALPHA, REQUIRED

    a.noise_sd = S.DEMO_NOISE if a.noise_sd is None else a.noise_sd
    a.n = S.STUDY_SIZE if a.n is None else a.n
    rows = tuple(r for r in a.rows.split(",") if r) or REQUIRED
    unknown = sorted(set(rows) - set(REQUIRED))
    if unknown:
        ap.error(f"unknown rows {unknown}; the method rows are {list(REQUIRED)}")
    seeds = S.study_seeds(a.n)
    logs = [Path(x) for x in a.log.split(",")]
    log = logs[0]
    k, n_shards = (int(x) for x in a.shard.split("/"))
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if not a.summarize:
        current = {q: S.rows_fingerprint(q) for q in REQUIRED}

        def valid(r):
            return r["row"] == "population" or r.get("fingerprint") == current[r["row"]]

        kept = [] if a.fresh else [r for r in _read(log) if valid(r)]
        log.write_text("".join(json.dumps(r) + "\n" for r in kept))
        # what this run's log or the other shards' (the other --log files, read only) measured on this code
        done = {(r["seed"], r["row"]) for r in kept + [r for x in logs[1:] for r in _read(x)] if valid(r)}
        todo = [s for s in seeds[k::n_shards] if any((s, q) not in done for q in rows)]
        print(f"shard {k}/{n_shards}: {len(todo)} populations left to measure of {len(seeds)}", flush=True)

        def progress(k, res):
            if "error" in res[0]:
                print(f"{k}/{len(todo)} seed {res[0]['seed']}: ERROR (not counted) {res[0]['error']}", flush=True)
                return
            with log.open("a") as fh:
                for r in res:
                    if (r["seed"], r["row"]) not in done:
                        fh.write(json.dumps(r) + "\n")
            bad = [r["row"] for r in res if r.get("recovered") is False]
            print(f"{k}/{len(todo)} seed {res[0]['seed']}: " + (f"FAILED {bad}" if bad else "ok"), flush=True)

        todo_rows = {s: tuple(q for q in rows if (s, q) not in done) for s in todo}
        S.false_failures(todo, a.noise_sd, rows=rows, jobs=a.jobs, progress=progress, rows_of=todo_rows)
    runs = pd.DataFrame([r for x in logs for r in _read(x)]).drop_duplicates(["seed", "row"], keep="last")
    runs = runs[runs["seed"].isin(seeds)]
    out = {
        "what": "false failures of correct methods in the recovery's method rows, over fresh simulated populations "
        f'(seeds derived from "{S.STUDY_LABEL}"; pluralign.recovery.study); "all rows": the populations on which '
        "any row failed, what one commit's CI run meets",
        "noise_sd": a.noise_sd,
        "alpha_per_row": ALPHA,
        "alpha_all_rows": FAMILY_ALPHA,
        "seed_label": S.STUDY_LABEL,
        "population_multiple": POPULATION_MULTIPLE,
        "eq4_population_rounds": POPULATION_ROUNDS,
        "seeds_requested": len(seeds),
        "wall_seconds_this_run": time.perf_counter() - start,
        "jobs": a.jobs,
        "reread_draws": S.REREAD_DRAWS,
        # each false failure of a row that draws, read again on its population with more draws (S.reread)
        "rows": S.with_rereads(S.summary(runs), a.noise_sd),
    }
    if len(seeds) > S.FIRST_SIZE:  # the study as first designed: its first populations, counted on their own
        out["first_study"] = S.summary(runs[runs["seed"].isin(seeds[: S.FIRST_SIZE])])["all rows"]
    Path(a.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({k: {x: v[x] for x in ("failures", "n", "ci95")} for k, v in out["rows"].items()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

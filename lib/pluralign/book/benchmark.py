"""Machine-readable benchmark results: ``bench/results/<name>.json``.

Each result holds the figures with their units and the machine that produced them (CPU model,
cores, memory, GPU if any, package versions), so the book's Performance page can render them."""

from __future__ import annotations

import json
import os
import platform
import resource
import time
from contextlib import contextmanager
from pathlib import Path

__all__ = ["machine", "record", "timer", "peak_rss_mib", "results_dir"]

PACKAGES = [
    "pluralign",
    "torch",
    "transformers",
    "trl",
    "peft",
    "bitsandbytes",
    "accelerate",
    "pandas",
    "numpy",
    "pyfixest",
    "sentence-transformers",
    "openai",
    "jupyter-book",
    "papermill",
]


def results_dir() -> Path:
    root = Path(os.environ.get("PLURALIGN_BENCH_RESULTS", Path(__file__).resolve().parents[3] / "bench" / "results"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpu() -> str | None:
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001 - torch missing or broken: no GPU to report
        pass
    return None


def machine() -> dict:
    """CPU model, cores, memory, GPU and package versions of this machine."""
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for p in PACKAGES:
        try:
            versions[p] = version(p)
        except PackageNotFoundError:
            pass
    mem = None
    try:
        mem = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError):
        pass
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": mem,
        "gpu": _gpu(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
    }


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def timer():
    """``with timer() as t: ...`` then ``t()`` → seconds elapsed."""
    start = time.perf_counter()
    end = []
    yield lambda: (end[0] if end else time.perf_counter()) - start
    end.append(time.perf_counter())


def show(figures: dict, units: dict, path: Path | None = None) -> None:
    """Print a benchmark's figures with their units (and the result file), one per line."""
    w = max(len(k) for k in figures)
    for k, v in figures.items():
        print(
            f"{k:<{w}}  {v:>12.4g} {units.get(k, '')}"
            if isinstance(v, float)
            else f"{k:<{w}}  {v:>12} {units.get(k, '')}"
        )
    if path is not None:
        print(f"-> {path}")


def record(name: str, figures: dict, units: dict | None = None, *, target: dict | None = None, notes: str = "") -> Path:
    """Write ``bench/results/<name>.json`` with ``figures`` (name → number), their ``units``,
    an optional ``target`` (name → "< 10 s" style text), notes and the machine."""
    out = results_dir() / f"{name}.json"
    payload = {
        "name": name,
        "figures": figures,
        "units": units or {},
        "target": target or {},
        "notes": notes,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": machine(),
    }
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=float))
    os.replace(tmp, out)
    return out


_UNIT_RULES = [  # a figure's unit from its name, where its benchmark did not write one
    (r"(^|_)(n|rows|pairs|features|texts|repetitions|threads|n_pairs|n_texts)($|_)|_in_95ci$|^torch_threads$", "count"),
    (r"_mib($|_)", "MiB"),
    (r"per_s$", "per s"),
    (r"(^|_)(s|seconds)($|_)|_seconds$|^seconds", "s"),
    (r"tokens_(mean|max)$", "tokens"),
    (r"abs_diff", "absolute difference"),
    (r"speedup", "×"),
    (r"load_average", "runnable processes (1-min load; above the core count = a busy machine)"),
]


def unit_of(figure: str, written: str = "") -> str:
    """The unit a benchmark wrote for ``figure``, else one read from the figure's name (:data:`_UNIT_RULES`)."""
    import re

    if written:
        return written
    for pattern, unit in _UNIT_RULES:
        if re.search(pattern, figure):
            return unit
    return "—"


def load_results(folder: str | Path | None = None):
    """Every ``bench/results/*.json`` as one tidy DataFrame (benchmark, figure, value, unit, target, machine,
    date); a count is an integer, a figure without a written unit gets one from its name (:func:`unit_of`)."""
    import pandas as pd

    rows = []
    for f in sorted(Path(folder or results_dir()).glob("*.json")):
        r = json.loads(f.read_text())
        m = r.get("machine", {})
        where = f"{m.get('cpu')}, {m.get('cores')} cores" + (f", {m['gpu']}" if m.get("gpu") else "")
        for k, v in r.get("figures", {}).items():
            unit = unit_of(k, r.get("units", {}).get(k, ""))
            if unit in ("count", "pairs") and isinstance(v, (int, float)) and float(v).is_integer():
                v = int(v)
            rows.append(
                {
                    "benchmark": r["name"],
                    "figure": k,
                    "value": v,
                    "unit": unit,
                    "target": r.get("target", {}).get(k, "") or "—",
                    "machine": where,
                    "date": r.get("date", ""),
                }
            )
    out = pd.DataFrame(rows, columns=["benchmark", "figure", "value", "unit", "target", "machine", "date"])
    out["value"] = pd.Series([row["value"] for row in rows], dtype=object)  # counts stay integers
    return out

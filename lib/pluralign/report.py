"""What produced this build: profile, seed, parameters, packages, hardware, cache state.

Used by the book's introduction and build-report pages, so these facts are computed, never typed.
Environment variables are never read into a page (secrets come from the environment only)."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import yaml

from pluralign import benchmark, cache


def profile() -> str:
    """The profile of the running build (set by the runner), default ``demo``."""
    return os.environ.get("PLURALIGN_PROFILE", "demo")


def environment() -> pd.DataFrame:
    """Hardware and package versions as a two-column table."""
    m = benchmark.machine()
    rows = [("CPU", m["cpu"]), ("cores", m["cores"]), ("memory (GiB)", m["memory_gib"]),
            ("GPU", m["gpu"] or "none"), ("Python", m["python"]), ("platform", m["platform"])]
    rows += [(f"package {k}", v) for k, v in m["packages"].items()]
    return pd.DataFrame(rows, columns=["item", "value"]).astype({"value": str})


def parameters(profile_name: str | None = None) -> pd.DataFrame:
    """Every (notebook, parameter file, parameter, value) of a profile, from the manifest."""
    from pluralign import book
    rows = []
    for r in book.runs(profile_name or profile()):
        for k, v in book.read_params(book.ROOT / r.params).items():
            rows.append((r.notebook, r.params, k, yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()))
    return pd.DataFrame(rows, columns=["notebook", "parameter file", "parameter", "value"])


def seeds(profile_name: str | None = None) -> list:
    """The distinct ``seed`` values used by the profile's parameter files."""
    p = parameters(profile_name)
    return sorted(set(p.loc[p["parameter"] == "seed", "value"]))


def cache_state() -> pd.DataFrame:
    """Entries and size per step in the cache folder."""
    root = cache.cache_dir()
    rows = []
    for step in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [f for f in step.rglob("*") if f.is_file()]
        entries = [e for e in step.iterdir() if not e.name.startswith(".")]
        rows.append((step.name, len(entries), round(sum(f.stat().st_size for f in files) / 2**20, 2)))
    return pd.DataFrame(rows, columns=["step", "entries", "MiB"])


def summary() -> pd.DataFrame:
    """One-glance facts of this build for the introduction."""
    m = benchmark.machine()
    pk = m["packages"]
    rows = [("profile", profile()), ("seeds", ", ".join(seeds()) or "none"),
            ("pluralign", pk.get("pluralign")), ("torch", pk.get("torch")), ("transformers", pk.get("transformers")),
            ("hardware", f"{m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, GPU: {m['gpu'] or 'none'}"),
            ("cache folder", "$PLURALIGN_CACHE" if os.environ.get("PLURALIGN_CACHE") else str(Path.home() / ".cache/pluralign"))]
    return pd.DataFrame(rows, columns=["", "this build"]).set_index("")


PROFILE_NOTES = {
    "demo": "simulated data with planted truth and small CPU models: the numbers check that each method "
            "recovers what the simulator planted; they are not estimates of the papers' quantities.",
    "sample": "real public preference data (from the local data folder) scored and labelled by small CPU models: "
              "real text through every step, at a size and model quality far below the papers'.",
    "paper": "the papers' data sets, models and hyper-parameters.",
}


def profile_note(profile_name: str | None = None, stand_ins: list[str] | None = None):
    """A Markdown admonition naming the profile that produced the page and any offline stand-ins
    used in place of the papers' components (display it at the top of every chapter)."""
    from IPython.display import Markdown
    p = profile_name or profile()
    text = f":::{{note}}\nThis page was produced by the **{p}** profile: {PROFILE_NOTES.get(p, '')}"
    if stand_ins:
        text += "\n\nStand-ins on this profile:\n" + "\n".join(f"- {s}" for s in stand_ins)
    return Markdown(text + "\n:::")

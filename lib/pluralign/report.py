"""How a page shows what it computed, and what produced the build.

- :class:`Result` — what one section of a page shows (a tidy table, a figure, the paper's numbers for it,
  a note on what the data support, the values its prose quotes); every part's study returns these;
- :func:`beside_paper` — the paper's reported number beside this run's, row by row;
- the build's facts (profile, seeds, parameters, packages, hardware, cache state) for the introduction and
  build-report pages, so these facts are computed, never typed. Environment variables are never read into
  a page (secrets come from the environment only)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import yaml

from pluralign import cache
from pluralign.book import benchmark


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
    from pluralign.book import runner as book
    rows = []
    for r in book.runs(profile_name or profile()):
        for k, v in book.read_params(book.ROOT / r.params, r.notebook).items():
            rows.append((r.notebook, r.params, k, yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()))
    return pd.DataFrame(rows, columns=["notebook", "parameter file", "parameter", "value"])


def parameter_report(profile_name: str | None = None) -> "Result":
    """Every parameter of every page of a profile (:func:`parameters`), indexed by notebook, file and name;
    values ``n_runs`` (parameter files run) and ``report_profile``."""
    p = parameters(profile_name)
    return Result(p.set_index(["notebook", "parameter file", "parameter"]),
                  values={"n_runs": p["parameter file"].nunique(), "report_profile": profile_name or profile()})


def benchmark_results(folder=None) -> "Result":
    """The benchmarks' results (:func:`pluralign.book.benchmark.load_results`) indexed by benchmark and figure,
    as the performance page shows them (a note when there are none)."""
    r = benchmark.load_results(folder)
    return Result(r.set_index(["benchmark", "figure"]),
                  note="" if len(r) else "No benchmark results yet: run `make bench`.")


def seeds(profile_name: str | None = None) -> list:
    """The distinct ``seed`` values used by the profile's parameter files."""
    p = parameters(profile_name)
    return sorted(set(p.loc[p["parameter"] == "seed", "value"]))


def cache_state() -> "Result":
    """Entries and size per step in the cache folder (a note instead of rows when it is empty)."""
    root = cache.cache_dir()
    rows = []
    for step in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [f for f in step.rglob("*") if f.is_file()]
        entries = [e for e in step.iterdir() if not e.name.startswith(".")]
        rows.append((step.name, len(entries), round(sum(f.stat().st_size for f in files) / 2**20, 2)))
    table = pd.DataFrame(rows, columns=["step", "entries", "MiB"])
    return Result(table, note="" if len(table) else f"The cache folder holds nothing yet ({root}).")


def summary() -> "Result":
    """One-glance facts of this build for the introduction; value ``build_profile``."""
    m = benchmark.machine()
    pk = m["packages"]
    rows = [("profile", profile()), ("seeds", ", ".join(seeds()) or "none"),
            ("pluralign", pk.get("pluralign")), ("torch", pk.get("torch")), ("transformers", pk.get("transformers")),
            ("hardware", f"{m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, GPU: {m['gpu'] or 'none'}"),
            ("cache folder", "$PLURALIGN_CACHE" if os.environ.get("PLURALIGN_CACHE") else str(cache.user_cache_dir()))]
    return Result(pd.DataFrame(rows, columns=["", "this build"]).set_index(""), values={"build_profile": profile()})


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
    import json

    from IPython.display import Markdown
    p = profile_name or profile()
    run_sources = os.environ.get("PLURALIGN_RUN_SOURCES")
    if run_sources is not None:  # `pluralign run` on one's own parameter file: say what it used
        used = json.loads(run_sources) or ["the notebook's default data"]
        text = (f":::{{note}}\nThis page was produced by `pluralign run` with the parameter file "
                f"**{os.environ.get('PLURALIGN_RUN_PARAMS', '?')}**; data: {'; '.join(used)}. Settings the file "
                f"does not give are the notebook's defaults (written for the **{p}** profile).")
        return Markdown(text + "\n:::")
    text = f":::{{note}}\nThis page was produced by the **{p}** profile: {PROFILE_NOTES.get(p, '')}"
    if stand_ins:
        text += "\n\nStand-ins on this profile:\n" + "\n".join(f"- {s}" for s in stand_ins)
    return Markdown(text + "\n:::")


@dataclass
class Result:
    """What one section of a page shows, as returned by a part's study (``study.table2()``, …).

    ``table``   a tidy DataFrame with readable column labels (what the page displays);
    ``figure``  a matplotlib Figure (closed, so it shows once: where the Result is displayed), or None;
    ``paper``   the paper's numbers for this section (rows of :func:`pluralign.paper.numbers`, or the
                table already set beside this run's by :func:`beside_paper`), or None;
    ``note``    Markdown: what the data can and cannot support here (shown under the table);
    ``values``  named numbers the page's prose quotes: ``Result.glue()`` glues each under its name;
    ``data``    anything further a later section or a test needs (raw frames, fitted models), never displayed.
    """
    table: pd.DataFrame
    figure: Any = None
    paper: pd.DataFrame | None = None
    note: str = ""
    values: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)

    def glue(self) -> "Result":
        """Glue every entry of ``values`` for the page's prose (myst-nb ``{glue:text}``)."""
        from myst_nb import glue
        for k, v in self.values.items():
            glue(k, v, display=False)
        return self

    def _ipython_display_(self):
        from IPython.display import Markdown, display
        if self.table is not None:
            display(self.table)
        if self.figure is not None:
            display(self.figure)
        if self.note:
            display(Markdown(self.note))


def warning(text: str) -> str:
    """A Markdown warning box (MyST admonition) for a page whose data cannot show what the page is about."""
    return f":::{{warning}}\n{text}\n:::"


def beside_paper(this_run: pd.DataFrame, paper: pd.DataFrame, on: list[str], *,
                 suffixes: tuple[str, str] = (" (this run)", " (paper)")) -> pd.DataFrame:
    """The paper's reported numbers beside this run's, row by row: both tables joined on the key columns ``on``,
    every other column suffixed with where it comes from (``suffixes`` = (this run, paper)). Rows only one side
    has are kept, the other side empty, so nothing the paper reports silently disappears."""
    ours, theirs = suffixes
    missing = [k for k in on if k not in paper or k not in this_run]
    if missing:
        raise KeyError(f"beside_paper: key column(s) {missing} missing (this run: {list(this_run.columns)}, "
                       f"paper: {list(paper.columns)})")
    p = paper.rename(columns={c: f"{c}{theirs}" for c in paper.columns if c not in on})
    o = this_run.rename(columns={c: f"{c}{ours}" for c in this_run.columns if c not in on})
    return p.merge(o, on=list(on), how="outer")

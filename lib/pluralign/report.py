"""How a page shows what it computed, and what produced the build.

- :class:`Result` — what one section of a page shows (a tidy table, a figure, the paper's numbers for it,
  a note on what the data support, the values its prose quotes); every part's study returns these;
- :func:`beside_paper` — the paper's reported number beside this run's, row by row;
- the build's facts (profile, seeds, parameters, packages, hardware, cache state) for the introduction and
  build-report pages, so these facts are computed, never typed. Environment variables are never read into
  a page (secrets come from the environment only);
- the apparatus every page shares: numbered figure captions (:func:`figure_caption`) and the "Reproduce this
  page" box (:func:`reproduce`). The benchmarks' and the GPU budget's tables are :mod:`pluralign.book.performance`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from pluralign import cache, profiles
from pluralign.book import benchmark
from pluralign.book.page_notes import FAILED_SECTION, SKIPPED_SECTION
from pluralign.presentation import MISSING, fmt_interval, fmt_number, present_html


def profile() -> str:
    """The profile of the running build (set by the runner), default ``demo``."""
    return os.environ.get("PLURALIGN_PROFILE", "demo")


def environment() -> pd.DataFrame:
    """Hardware and package versions as a two-column table."""
    m = benchmark.machine()
    rows = [
        ("CPU", m["cpu"]),
        ("cores", m["cores"]),
        ("memory (GiB)", m["memory_gib"]),
        ("GPU", m["gpu"] or "none"),
        ("Python", m["python"]),
        ("platform", m["platform"]),
    ]
    rows += [(f"package {k}", v) for k, v in m["packages"].items()]
    return pd.DataFrame(rows, columns=["item", "value"]).astype({"value": str})


def parameters(profile_name: str | None = None) -> pd.DataFrame:
    """Every (notebook, parameter file, parameter, value, set by) of a profile, from the manifest: what each page ran
    with, its settings' defaults included (``set by``: "file" or "default";
    :func:`pluralign.params.read_page`)."""
    from pluralign import params as P
    from pluralign.book import manifest_plan

    def shown(v):
        return yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()

    rows = []
    for r in manifest_plan.runs(profile_name or profile()):
        given, settings = P.read_page(manifest_plan.ROOT / r.params, r.source)
        effective = settings.model_dump() if settings is not None else {}
        for k, v in given.items():
            if k not in effective:
                rows.append((r.notebook, r.params, k, shown(v), "file"))
        for k, v in effective.items():
            rows.append((r.notebook, r.params, k, shown(v), "file" if k in given else "default"))
    return pd.DataFrame(rows, columns=["notebook", "parameter file", "parameter", "value", "set by"])


def parameter_report(profile_name: str | None = None) -> Result:
    """Every parameter of every page of a profile (:func:`parameters`), indexed by the page (its parameter file's
    name, which names the notebook too) and the parameter, so that the value and what set it fit the text column;
    values ``n_runs`` (parameter files run) and ``report_profile``."""
    p = parameters(profile_name)
    page = [Path(f).stem for f in p["parameter file"]]
    return Result(
        p.assign(page=page).set_index(["page", "parameter"])[["value", "set by"]],
        values={"n_runs": p["parameter file"].nunique(), "report_profile": profile_name or profile()},
    )


def seeds(profile_name: str | None = None) -> list:
    """The distinct ``seed`` values used by the profile's parameter files."""
    p = parameters(profile_name)
    return sorted(set(p.loc[p["parameter"] == "seed", "value"]))


def cache_state() -> Result:
    """Every entry of the cache folder with its size, by step (a note instead of rows when it is empty); values
    ``cache_entries`` and ``cache_mib`` (the totals), ``data["by_step"]`` the entries and MiB per step."""
    root = cache.cache_dir()
    rows = []
    for step in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        for e in sorted(e for e in step.iterdir() if not e.name.startswith(".")):
            files = [f for f in e.rglob("*") if f.is_file()] if e.is_dir() else [e]
            rows.append((step.name, e.name, len(files), sum(f.stat().st_size for f in files) / 2**20))
    table = pd.DataFrame(rows, columns=["step", "entry", "files", "MiB"])
    by_step = table.groupby("step").agg(entries=("entry", "size"), MiB=("MiB", "sum"))
    note = "" if len(table) else f"The cache folder holds nothing yet ({root})."
    return Result(
        table.set_index(["step", "entry"]),
        note=note,
        values={"cache_entries": len(table), "cache_mib": round(float(table["MiB"].sum()), 1)},
        data={"by_step": by_step},
    )


def summary() -> Result:
    """One-glance facts of this build for the introduction; value ``build_profile``."""
    m = benchmark.machine()
    pk = m["packages"]
    rows = [
        ("profile", profile()),
        ("seeds", ", ".join(seeds()) or "none"),
        ("pluralign", pk.get("pluralign")),
        ("torch", pk.get("torch")),
        ("transformers", pk.get("transformers")),
        ("hardware", f"{m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, GPU: {m['gpu'] or 'none'}"),
        ("cache folder", "$PLURALIGN_CACHE" if os.environ.get("PLURALIGN_CACHE") else str(cache.user_cache_dir())),
    ]
    return Result(pd.DataFrame(rows, columns=["", "this build"]).set_index(""), values={"build_profile": profile()})


#: the opening words of the note at the top of every page of the papers' parts (the site check looks for them)
PROFILE_NOTE = "This page was produced by"


def profile_note(profile_name: str | None = None, stand_ins: list[str] | None = None):
    """A Markdown admonition naming the profile that produced the page and any offline stand-ins
    used in place of the papers' components: the one note at the top of every chapter, each part giving only its
    stand-ins (``<part>.pages.stand_ins(study, page)``; the data chapter's: :func:`pluralign.profiles.stand_ins`)."""
    import json

    from IPython.display import Markdown

    p = profile_name or profile()
    run_sources = os.environ.get("PLURALIGN_RUN_SOURCES")
    if run_sources is not None:  # `pluralign run` on one's own parameter file: say what it used
        used = json.loads(run_sources) or ["the notebook's default data"]
        text = (
            f":::{{note}}\n{PROFILE_NOTE} `pluralign run` with the parameter file "
            f"**{os.environ.get('PLURALIGN_RUN_PARAMS', '?')}**; data: {'; '.join(used)}. Settings the file "
            f"does not give are the notebook's defaults (written for the **{p}** profile)."
        )
        return Markdown(text + "\n:::")
    text = f":::{{note}}\n{PROFILE_NOTE} the **{p}** profile: {profiles.summary(p)}"
    if stand_ins:
        text += "\n\nStand-ins on this profile:\n" + "\n".join(f"- {s}" for s in stand_ins)
    return Markdown(text + "\n:::")


def reproduce(notebook: str, *modules: str, profile_name: str | None = None):
    """The "Reproduce this page" box that ends every page: the ``pluralign run`` command for the page's parameter
    file of this profile (from ``manifest.yml``; on a ``pluralign run`` of one's own file, that file), the same with
    plain papermill, and the library modules that compute the page (``modules``, dotted paths: the one place a page
    names code)."""
    from IPython.display import Markdown

    from pluralign.book import manifest_plan

    p = profile_name or profile()
    own = os.environ.get("PLURALIGN_RUN_PARAMS")  # `pluralign run` on one's own parameter file
    files = [r.params for r in manifest_plan.runs(p) if r.notebook == notebook] or [f"params/{p}/<your file>.yml"]
    f = own or files[0]
    where = "from the parameter file's folder" if own else "from the project's folder"
    lines = [
        ":::{admonition} Reproduce this page",
        ":class: seealso dropdown",
        f"With the project installed (`make book` creates `.venv`), {where}:",
        "",
        "```bash",
        f"pluralign run {notebook} -f {f}",
        "```",
        "",
        "or with plain papermill, on the page's resolved parameters:",
        "",
        "```bash",
        f"pluralign params {notebook} -f {f} -o resolved.yml",
        f"jupytext --to ipynb -o {notebook}.ipynb notebooks/{notebook}.py",
        f"papermill {notebook}.ipynb out.ipynb -f resolved.yml",
        "```",
    ]
    if modules:
        lines += ["", "The library that computes it: " + ", ".join(f"`{m}`" for m in modules) + "."]
    return Markdown("\n".join(lines + [":::"]))


@dataclass
class Result:
    """What one section of a page shows, as returned by a part's study (``study.table2()``, …).

    ``table``   a tidy DataFrame with readable column labels (what the page displays);
    ``figure``  a matplotlib Figure (closed, so it shows once: where the Result is displayed), or None;
    ``forest``  the forest plot of the table's intervals (:func:`pluralign.forest.forest_plot`), shown right
                under the table, before ``figure``; or None;
    ``paper``   the paper's numbers for this section (rows of :func:`pluralign.paper.numbers`, or the
                table already set beside this run's by :func:`beside_paper`), or None;
    ``note``    Markdown: what the data can and cannot support here (shown under the table);
    ``values``  named numbers the page's prose quotes: ``Result.glue()`` glues each under its name;
    ``data``    anything further a later section or a test needs (raw frames, fitted models), never displayed;
    ``caption`` the figure's caption (shown under it, numbered per page: "Figure 3. …"); default: the figure's
                title; ``forest_caption`` the same for the forest plot (default: "Each row's estimate and its 95%
                CI, from the table above.");
    ``skipped`` why this section does not run on this profile, or — starting "no estimate: " — why it ran and has
                nothing to estimate from (e.g. "no estimate: N of M LM labels failed …"; ``values`` may then still hold
                the names the prose quotes, "—" where no value exists; otherwise nothing else is set). The book leaves a
                section that does not run out of the page and names it with its reason near the top; a section with
                no estimate stays, its reason in a warning box (:mod:`pluralign.book.page_notes`). A section says
                "no estimate" by raising :class:`NoEstimate`, which :func:`section` turns into such a Result;
    ``parts``   for a section computed on several data sets apart (``{data set: Result}``): the page shows the
                stacked ``table``, then under a heading per data set that data set's forest plot, figure and note
                (captions naming it); ``figure``, ``forest`` and ``note`` then hold the joined view for code.
    """

    table: pd.DataFrame
    figure: Any = None
    forest: Any = None
    paper: pd.DataFrame | None = None
    note: str = ""
    values: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    skipped: str = ""
    caption: str = ""
    forest_caption: str = ""
    parts: dict = field(default_factory=dict)

    def glue(self) -> Result:
        """Glue every entry of ``values`` for the page's prose (myst-nb ``{glue:text}``)."""
        from myst_nb import glue

        for k, v in self.values.items():
            glue(k, v, display=False)
        return self

    def _ipython_display_(self):
        from IPython.display import HTML, Markdown, display

        if self.skipped.startswith("no estimate: "):  # ran and failed: the reason stays on the page, boxed
            self._show_plots_and_note()
            return
        if self.skipped:  # does not apply to this profile: the book leaves the section out and says why
            display(Markdown(f"*Not run on this profile:* {self.skipped}"), metadata={SKIPPED_SECTION: self.skipped})
            return
        if self.table is not None:
            display(HTML(present_html(self.table)))
        if self.parts:
            for name, part in self.parts.items():
                display(Markdown(f"**{name}**"))
                part._show_plots_and_note(suffix=f" ({name})")
            return
        self._show_plots_and_note()

    def _show_plots_and_note(self, suffix: str = ""):
        from IPython.display import HTML, Markdown, display

        if self.skipped.startswith("no estimate: "):  # the section, or a data set's part of it, has no estimate
            why = self.skipped[len("no estimate: ") :]
            display(Markdown(warning(f"**No estimate.** {why}")), metadata={FAILED_SECTION: why})
            return
        if self.forest is not None:
            display(self.forest)
            display(Markdown(figure_caption(_named(self.forest_caption or FOREST_CAPTION, suffix))))
            display(HTML(figure_labels_html(self.forest)))
        if self.figure is not None:
            display(self.figure)
            display(Markdown(figure_caption(_named(self.caption or _title_of(self.figure), suffix))))
            display(HTML(figure_labels_html(self.figure)))
        if self.note:
            display(Markdown(self.note))


#: the caption of a forest plot whose section gives none
FOREST_CAPTION = "Each row's estimate and its 95% CI, from the table above."


def _named(caption: str, suffix: str) -> str:
    """A caption with the data set it shows (" (helpsteer2)") before its closing full stop."""
    if not suffix:
        return caption
    text = caption.strip()
    return f"{text[:-1]}{suffix}." if text.endswith(".") else text + suffix


_FIGURES = [0]  # figures shown so far in this kernel (one kernel per page)


def figure_caption(text: str) -> str:
    """The numbered caption under a page's next figure: "**Figure N.** text" (N counts the page's figures, which
    each run in a kernel of their own)."""
    _FIGURES[0] += 1
    return f"**Figure {_FIGURES[0]}.** {text.strip()}"


def figure_texts(fig) -> list[str]:
    """Every text a reader sees in a figure: its suptitle, and per axes the title, axis labels, tick labels, legend
    entries and annotations."""
    texts = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None:
        texts.append(sup.get_text())
    for ax in getattr(fig, "axes", []):
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        legend = ax.get_legend()
        if legend is not None:
            texts += [t.get_text() for t in legend.get_texts()] + [legend.get_title().get_text()]
        texts += [t.get_text() for t in ax.texts]
    return [t for t in texts if t and t.strip()]


def figure_labels_html(fig) -> str:
    """The figure's texts (:func:`figure_texts`) as a hidden element under it, for the site check, which reads a
    page's text and not its images (no code identifier may show in a paper page's figure)."""
    import html

    return '<span class="pluralign-figure-labels" hidden>' + html.escape(" · ".join(figure_texts(fig))) + "</span>"


def _title_of(fig) -> str:
    """A figure's own title (its suptitle, else its first axes' title) as a caption's default."""
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text().strip():
        return sup.get_text().strip()
    for ax in getattr(fig, "axes", []):
        if ax.get_title().strip():
            return ax.get_title().strip()
    return ""


class NoEstimate(Exception):
    """Raised by a section (a function decorated with :func:`section`) that ran and has nothing to estimate from:
    ``reason`` says why (a sentence, e.g. "3 of 3 LM labels failed, so no pair has labels on both entries.");
    ``values`` are the declared names the section can still give. :func:`section` turns it into the page's
    "no estimate" :class:`Result`: the reason in a warning box, every other declared name "—"."""

    def __init__(self, reason: str, values: dict | None = None):
        super().__init__(reason)
        self.reason = reason
        self.values = dict(values or {})

    def result(self) -> Result:
        """The section's Result: no table, ``skipped`` = "no estimate: " + the reason, the values it still gives."""
        return Result(table=None, values=dict(self.values), skipped=f"no estimate: {self.reason}")


def section(*quotes: str):
    """Declare, once, the names a section's prose quotes (``{glue:text}`name```), for a function that returns a
    :class:`Result`. A result that ran must carry every declared name in ``values`` (a missing one is an error
    naming it: the page and the code cannot drift apart); a section that raises :class:`NoEstimate` (or returns a
    result whose ``skipped`` starts "no estimate: ") stays on the page with its reason, and gets every declared name
    it does not set as :data:`MISSING` ("—"), so the prose still renders. The names are kept on the function as
    ``quotes``."""
    import functools

    def wrap(fn):
        @functools.wraps(fn)
        def run(*args, **kw) -> Result:
            try:
                r = fn(*args, **kw)
            except NoEstimate as e:
                r = e.result()
            if r.skipped.startswith("no estimate: "):
                r.values = {**{q: MISSING for q in quotes}, **r.values}
            elif not r.skipped:
                missing = [q for q in quotes if q not in r.values]
                if missing:
                    raise ValueError(
                        f"{fn.__qualname__}: the section declares {missing} for its prose "
                        "but its result does not set them"
                    )
            return r

        run.quotes = quotes
        return run

    return wrap


#: set (by the book's runner) in a page's kernel: the page states in its text what :func:`stated_warning` says
ON_PAGE = "PLURALIGN_ON_PAGE"


def stated_warning(message: str, stacklevel: int = 3) -> None:
    """Warn, unless the caller runs in a book page, which states the same in its text (the runner sets
    ``PLURALIGN_ON_PAGE``): the counts of failed LLM answers (each section counts them), an LLM endpoint redirected
    by ``PLURALIGN_LLM_BASE_URL`` (a note at the top of every page). On a page the warning would be a line of stderr
    noise beside the same statement."""
    if os.environ.get(ON_PAGE):
        return
    import warnings

    warnings.warn(message, stacklevel=stacklevel)


def n_needed(estimate: float, lo: float, hi: float, n: int) -> int | None:
    """About how many observations an interval of this kind would need to exclude 0 at this estimate: the
    half-width shrinks as 1/√N, so N ≈ n · (half-width / |estimate|)² (None without an estimate or n)."""
    if not n or not all(map(math.isfinite, (estimate, lo, hi))) or estimate == 0:
        return None
    return int(math.ceil(n * ((hi - lo) / 2 / abs(estimate)) ** 2))


def verdict(
    estimate,
    lo,
    hi,
    *,
    n: int | None = None,
    null: float = 0.0,
    paper: float | None = None,
    above: str = "above 0",
    below: str = "below 0",
    missing: str = "no estimate",
) -> str:
    """The sentence a 95% CI supports — the one rule every page uses for a verdict.

    With ``paper`` (the paper's estimate): "same direction as the paper" only when the CI excludes ``null`` on
    the paper's side, "opposite direction to the paper" when it excludes it on the other side. Without:
    ``above`` / ``below``. A CI that contains ``null`` is "inconclusive at this sample size", with the N that
    would be needed (:func:`n_needed`) when ``n`` is given; no estimate is "— (``missing``)"."""
    vals = [estimate, lo, hi]
    if any(v is None or not math.isfinite(float(v)) for v in vals):
        return f"{MISSING} ({missing})"
    estimate, lo, hi = map(float, vals)
    side = 1 if lo > null else -1 if hi < null else 0
    if side == 0:
        need = n_needed(estimate - null, lo - null, hi - null, n) if n else None
        more = f"; about {need:,} would be needed to tell" if need and need > (n or 0) else ""
        return (
            f"inconclusive at this sample size (the 95% CI {fmt_interval(estimate, lo, hi).partition(' ')[2]} "
            f"contains {fmt_number(null)}{f' with N = {n:,}' if n else ''}{more})"
        )
    if paper is not None and math.isfinite(float(paper)) and float(paper) != null:
        return (
            "same direction as the paper" if (float(paper) > null) == (side > 0) else "opposite direction to the paper"
        )
    return above if side > 0 else below


def warning(text: str) -> str:
    """A Markdown warning box (MyST admonition) for a page whose data cannot show what the page is about."""
    return f":::{{warning}}\n{text}\n:::"


def beside_paper(
    this_run: pd.DataFrame,
    paper: pd.DataFrame,
    on: list[str],
    *,
    suffixes: tuple[str, str] = (" (this run)", " (paper)"),
) -> pd.DataFrame:
    """The paper's reported numbers beside this run's, row by row: both tables joined on the key columns ``on``,
    every other column suffixed with where it comes from (``suffixes`` = (this run, paper)). Rows only one side
    has are kept, the other side empty, so nothing the paper reports silently disappears."""
    ours, theirs = suffixes
    missing = [k for k in on if k not in paper or k not in this_run]
    if missing:
        raise KeyError(
            f"beside_paper: key column(s) {missing} missing (this run: {list(this_run.columns)}, "
            f"paper: {list(paper.columns)})"
        )
    p = paper.rename(columns={c: f"{c}{theirs}" for c in paper.columns if c not in on})
    o = this_run.rename(columns={c: f"{c}{ours}" for c in this_run.columns if c not in on})
    return p.merge(o, on=list(on), how="outer")

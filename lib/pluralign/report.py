"""How a page shows what it computed, and what produced the build.

- :class:`Result` — what one section of a page shows (a tidy table, a figure, the paper's numbers for it,
  a note on what the data support, the values its prose quotes); every part's study returns these;
- :func:`beside_paper` — the paper's reported number beside this run's, row by row;
- the build's facts (profile, seeds, parameters, packages, hardware, cache state) for the introduction and
  build-report pages, so these facts are computed, never typed. Environment variables are never read into
  a page (secrets come from the environment only)."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from pluralign import cache, profiles
from pluralign.book import benchmark


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
    :func:`pluralign.params.effective_settings`)."""
    from pluralign import params as P
    from pluralign.book import runner as book

    def shown(v):
        return yaml.safe_dump(v, default_flow_style=True).strip().removesuffix("...").strip()

    rows = []
    for r in book.runs(profile_name or profile()):
        given = book.read_params(book.ROOT / r.params, r.notebook)
        effective = P.effective_settings(book.ROOT / "notebooks" / f"{r.notebook}.py", given) or {}
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


def benchmark_results(folder=None) -> Result:
    """The benchmarks' results (:func:`pluralign.book.benchmark.load_results`) indexed by benchmark and figure,
    as the performance page shows them (a note when there are none)."""
    r = benchmark.load_results(folder)
    r = r[r["benchmark"] != "gpu"]  # the GPU benchmark has its own section (gpu_benchmark)
    where = r.groupby("benchmark", sort=False)[["machine", "date"]].first()
    note = (
        "Measured on: " + "; ".join(f"**{b}** — {m['machine']}, {m['date']}" for b, m in where.iterrows()) + "."
        if len(r)
        else "No benchmark results yet: run `make bench`."
    )
    # each value with its own significant digits (a column's shared decimals would show 0.49 pairs/s as 0)
    table = r.assign(figure=r["figure"].str.replace("_", " "), value=[fmt_number(v) for v in r["value"]])
    table = table.set_index(["benchmark", "figure"])
    return Result(table[["value", "unit", "target"]], note=note, data={"machines": where})


_SHARE_FIGURE = re.compile(r"^(?P<step>.+)_share_of_(?P<precision>[a-z0-9]+)_ceiling$")


def benchmark_shares(folder=None) -> Result:
    """Each heavy step the benchmarks timed, as a share of the machine's own limit: every figure named
    ``<step>_share_of_<precision>_ceiling`` (the step's rate ÷ matmul GFLOP/s × FLOPs per item, measured in the
    same run), with the step's rate, its limit, the median over repetitions where recorded, the target and the
    1-minute load average during the run (a busy machine lowers every share). Values
    ``share_<benchmark>_<step>`` (as % with one decimal) for the prose; a note when no benchmark recorded one."""
    r = benchmark.load_results(folder)
    rows, values = [], {}
    for b, g in r.groupby("benchmark", sort=False):
        fig = dict(zip(g["figure"], g["value"]))
        units = dict(zip(g["figure"], g["unit"]))
        tgt = dict(zip(g["figure"], g["target"]))
        load = [
            fig.get(k)
            for k in ("load_average_1min_start", "load_average_1min_end", "load_average_1min")
            if isinstance(fig.get(k), (int, float))
        ]
        for k, v in fig.items():
            m = _SHARE_FIGURE.match(str(k))
            if not m or not isinstance(v, (int, float)):
                continue
            step, prec = m["step"], m["precision"]
            rate = next(
                (
                    (fig[q], units[q])
                    for q in fig
                    if re.fullmatch(re.escape(step) + r"_[a-z]+_per_s", str(q)) and isinstance(fig[q], (int, float))
                ),
                (None, ""),
            )
            limit = (rate[0] / v, rate[1]) if rate[0] is not None and v > 0 else (None, "")  # share = rate ÷ limit
            rows.append(
                {
                    "benchmark": b,
                    "step": step.replace("_", " "),
                    "precision": prec,
                    "share of the machine's limit": float(v),
                    "median share over repetitions": fig.get(f"{k}_median_of_repetitions", MISSING),
                    "rate": MISSING if rate[0] is None else f"{fmt_number(rate[0])} {rate[1]}",
                    "limit": MISSING if limit[0] is None else f"{fmt_number(limit[0])} {limit[1]}",
                    "target": tgt.get(k, MISSING),
                    "1-min load average": (" → ".join(fmt_number(x) for x in load) if load else MISSING),
                }
            )
            values[f"share_{b}_{step}"] = fmt_number(float(v), "share")
    table = pd.DataFrame(
        rows,
        columns=[
            "benchmark",
            "step",
            "precision",
            "share of the machine's limit",
            "median share over repetitions",
            "rate",
            "limit",
            "target",
            "1-min load average",
        ],
    )
    note = (
        "Limit = torch.matmul GFLOP/s measured in the same run at the model's own shapes ÷ the step's FLOPs per "
        "item, so 100 % is the machine's matmul speed with nothing else to do; softmax, norms, padding, "
        "tokenization and Python are all overhead against it. Each time is the best of interleaved repetitions "
        "(the load average says how busy the machine was: on a busy machine the threads of one process wait "
        "for each other and every wall-clock share drops; a *one thread cpu time* row is the same step with one "
        "thread in CPU seconds against the one-thread limit, which other processes hardly change)."
        if rows
        else "No benchmark has recorded a share of the machine's limit yet: run `make bench`."
    )
    return Result(table.set_index(["benchmark", "step"]), note=note, values=values)


def gpu_budget() -> Result:
    """The paper profile's GPU budget per heavy step (:func:`pluralign.book.budget.gpu_budget`): FLOP counts at the
    share of peak a GPU benchmark run measured for the step (its GPU and date in the row) or, where none did, an
    assumed one; values ``budget_h100_<part>`` (hours) and ``budget_measured_steps`` (how many rows are measured)."""
    from pluralign.book import budget

    b = budget.gpu_budget()
    per_part = budget.budget_by_part(b)
    values = {
        f"budget_h100_{p.split()[0].lower()}": round(float(h), 1)
        for p, h in per_part["H100 GPU-hours (estimate)"].items()
    }
    values.update(
        {
            f"budget_a100_{p.split()[0].lower()}": round(float(h), 1)
            for p, h in per_part["A100 GPU-hours (estimate)"].items()
        }
    )
    measured = int(b["MFU source"].str.startswith("run").sum())
    values["budget_measured_steps"] = f"{measured} of {len(b)}"
    note = (
        "**Estimates.** The FLOPs are arithmetic; the share of peak is measured where the *MFU source* names a GPU "
        "benchmark run by its day and time (`make bench-gpu`, random-weight models of the papers' shapes; a "
        "Llama-3-8B shape with 8 of its 32 layers carries its per-layer speed to the full depth; the runs are listed "
        "under the GPU benchmark above) and assumed elsewhere. A measured share comes from the newest run that "
        "measured the step: a step an older run measured describes the library of that date. "
        "How each row was counted:\n\n" + "\n".join(f"- *{r.step}*: {r.basis}." for r in b.itertuples())
    )
    shown = b.drop(columns="basis").assign(
        **{
            c: [fmt_number(v) for v in b[c]]
            for c in ("PFLOP", "H100 GPU-hours (estimate)", "A100 GPU-hours (estimate)")
        },
        MFU=[fmt_number(v, "share") for v in b["MFU"]],
    )
    return Result(shown.set_index(["part", "step"]), note=note, values=values, data={"by_part": per_part})


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
            f":::{{note}}\nThis page was produced by `pluralign run` with the parameter file "
            f"**{os.environ.get('PLURALIGN_RUN_PARAMS', '?')}**; data: {'; '.join(used)}. Settings the file "
            f"does not give are the notebook's defaults (written for the **{p}** profile)."
        )
        return Markdown(text + "\n:::")
    text = f":::{{note}}\nThis page was produced by the **{p}** profile: {profiles.summary(p)}"
    if stand_ins:
        text += "\n\nStand-ins on this profile:\n" + "\n".join(f"- {s}" for s in stand_ins)
    return Markdown(text + "\n:::")


def reproduce(notebook: str, *modules: str, profile_name: str | None = None):
    """The "Reproduce this page" box that ends every page: the ``pluralign run`` command for the page's parameter
    file of this profile (from ``manifest.yml``), the same with plain papermill, and the library modules that compute
    the page (``modules``, dotted paths: the one place a page names code)."""
    from IPython.display import Markdown

    from pluralign.book import manifest_plan

    p = profile_name or profile()
    files = [r.params for r in manifest_plan.runs(p) if r.notebook == notebook] or [f"params/{p}/<your file>.yml"]
    f = files[0]
    lines = [
        ":::{admonition} Reproduce this page",
        ":class: seealso dropdown",
        "With the project installed (`make book` creates `.venv`), from the project's folder:",
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
                "no estimate" by raising :class:`NoEstimate`, which :func:`section` turns into such a Result.
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

    def glue(self) -> Result:
        """Glue every entry of ``values`` for the page's prose (myst-nb ``{glue:text}``)."""
        from myst_nb import glue

        for k, v in self.values.items():
            glue(k, v, display=False)
        return self

    def _ipython_display_(self):
        from IPython.display import HTML, Markdown, display

        if self.skipped.startswith("no estimate: "):  # ran and failed: the reason stays on the page, boxed
            why = self.skipped[len("no estimate: ") :]
            display(Markdown(warning(f"**No estimate.** {why}")), metadata={FAILED_SECTION: why})
            return
        if self.skipped:  # does not apply to this profile: the book leaves the section out and says why
            display(Markdown(f"*Not run on this profile:* {self.skipped}"), metadata={SKIPPED_SECTION: self.skipped})
            return
        if self.table is not None:
            display(HTML(present_html(self.table)))
        if self.forest is not None:
            display(self.forest)
            display(
                Markdown(
                    figure_caption(self.forest_caption or "Each row's estimate and its 95% CI, from the table above.")
                )
            )
            display(HTML(figure_labels_html(self.forest)))
        if self.figure is not None:
            display(self.figure)
            display(Markdown(figure_caption(self.caption or _title_of(self.figure))))
            display(HTML(figure_labels_html(self.figure)))
        if self.note:
            display(Markdown(self.note))


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


@section("gpu_runs", "gpu_newest", "gpu_peak_h100")
def gpu_benchmark(folder=None) -> Result:
    """The GPU benchmark (``make bench-gpu``): scoring and training against the chip's peak and against the model
    alone, each figure from the newest run that measured it (:func:`pluralign.book.gpu_runs.benchmark_table`), the
    runs named in the note; no estimate where no run is on record. Values ``gpu_runs`` (how many runs), ``gpu_newest``
    (the newest run's GPU and date) and ``gpu_peak_h100`` (the H100's dense bf16 peak the shares are taken of)."""
    from pluralign.book import gpu_runs

    record = gpu_runs.runs(folder)
    if not record:
        raise NoEstimate("no GPU benchmark run on record: run `make bench-gpu` on a CUDA GPU")
    table = gpu_runs.benchmark_table(record).set_index("figure")
    note = (
        "*Llama-3-8B*: its shape with 8 of its 32 layers; *DeBERTa*: the DeBERTa-v3-large shape; scoring in bf16 "
        "unless the row says otherwise; *peak*: the GPU's dense bf16 peak; *model alone*: the model on full, unpadded "
        "batches of random tokens in the same run (of the texts' mean length, or of the library's own batch shapes); "
        "*LoRA*: the Llama-3-8B shape, r = 16, batches of 16 pairs, over a bf16 base or 8-bit weights. "
        "Runs (newest first; *run* is a run's day and time):\n\n"
    ) + "\n".join(f"- **{gpu_runs.when(r)}** ({str(r.get('date', ''))[:4]}) — {gpu_runs.notes(r)}" for r in record)
    from pluralign.book.budget import PEAK_TFLOPS

    values = {
        "gpu_runs": len(record),
        "gpu_newest": gpu_runs.describe(record[0]),
        "gpu_peak_h100": fmt_number(PEAK_TFLOPS["H100"]),
    }
    return Result(table, note=note, values=values)


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


#: Output metadata keys (their value: the reason) of a section that does not run on this profile and of one with no
#: estimate (:attr:`Result.skipped`; what the book does with each: :mod:`pluralign.book.page_notes`).
from pluralign.book.page_notes import FAILED_SECTION, SKIPPED_SECTION  # noqa: E402

# ---- presentation: how every page shows a number (written once in pluralign.presentation) -------------------
from pluralign.forest import forest_plot  # noqa: E402, F401
from pluralign.presentation import (  # noqa: E402, F401
    LABELS,
    MINUS,
    MISSING,
    column_decimals,
    fmt_fixed,
    fmt_interval,
    fmt_number,
    intervals,
    label,
    present,
    present_html,
    present_markdown,
    signed,
)


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

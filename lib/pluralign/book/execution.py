"""Executing the book's pages: one run with papermill (:func:`execute`), every run of a profile (:func:`build`),
one notebook on one's own parameter file (:func:`run_page`).

Each notebook is a Jupytext percent-format script in ``notebooks/``; it is converted, executed
with papermill into ``book/_executed/<profile>/<stem>.ipynb`` (``<stem>`` is the parameter file's
name) and skipped next time if its source, parameters and the library are unchanged
(:mod:`pluralign.book.fingerprints`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

from pluralign import params as P
from pluralign.book import kernels
from pluralign.book import manifest_plan as plan
from pluralign.book.contents import build_html
from pluralign.book.errors import BookError
from pluralign.book.fingerprints import _is_fresh, _lib_hash, run_fingerprint
from pluralign.book.html import export_html
from pluralign.book.manifest_plan import Run, execution_plan, manifest, out_folder, runs
from pluralign.book.page_data import data_sources
from pluralign.book.page_notes import (
    failed_sections,
    hide_skipped_sections,
    insert_left_out_note,
    insert_redirect_note,
    insert_rehearsal_banner,
    rehearsal_mirror,
    unformat_missing_glue,
)


def _environment(profile: str, *, book_cache: bool = True) -> dict:
    """The environment a page's kernel runs with in this project (:func:`pluralign.book.kernels.environment`)."""
    return kernels.environment(profile, plan.ROOT, book_cache=book_cache)


def _read_page(path: Path, notebook: Path) -> P.Page:
    """A page's parameters and settings as the runner reads them, once (:func:`pluralign.params.read_page`); a
    refused file is a :class:`BookError`."""
    try:
        return P.read_page(path, notebook)
    except P.ParamsError as e:
        raise BookError(str(e)) from None


def execute(
    r: Run,
    *,
    refresh: bool = False,
    output: Path | None = None,
    lib_hash: str | None = None,
    cwd: Path | None = None,
    env: dict | None = None,
    book_cache: bool = True,
    on_cell=None,
    page: P.Page | None = None,
) -> str:
    """Execute one run; returns "ok" or "cached"; raises :class:`BookError` naming the notebook,
    the parameter file and the failing cell's error. ``cwd``: the kernel's working folder (relative paths
    in the parameters resolve there; default the project root); ``env``: further environment variables;
    ``on_cell(index, n_cells, cell, seconds)``: called after each cell; ``page``: the run's parameter file as the
    caller read it (:func:`_read_page`; read here when None)."""
    import jupytext
    import nbformat

    output = output or r.output
    page = _read_page(plan.ROOT / r.params, r.source) if page is None else page
    fp = run_fingerprint(r, lib_hash, page.params) if r.path is None else None
    if not refresh and output == r.output and _is_fresh(r, fp):
        return "cached"
    page = page._replace(params={**page.params, "profile": page.params.get("profile", r.profile)})
    output.parent.mkdir(parents=True, exist_ok=True)
    nb = jupytext.read(r.source)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    env = {**_environment(r.profile, book_cache=book_cache), **(env or {})}
    if refresh:
        env["PLURALIGN_REFRESH"] = "1"
    tmp = output.with_suffix(".partial.ipynb")
    hooks = kernels.cell_hooks(on_cell, len(nb.cells)) if on_cell is not None else {}
    try:
        with kernels.environ(env):
            kernels.run_notebook(
                nb,
                tmp,
                page.injected(),
                cwd=cwd or plan.ROOT,
                name=r.stem,
                hooks=hooks,
                what=f"notebook {r.source} with parameter file {r.params}",
            )
    except KeyboardInterrupt:
        tmp.unlink(missing_ok=True)
        raise
    done = nbformat.read(tmp, as_version=4)
    _annotate(done, r, env, fp)
    nbformat.write(done, tmp)
    os.replace(tmp, output)
    return "ok"


def _annotate(done, r: Run, env: dict, fp: str | None) -> None:
    """What the runner adds to an executed page: the rehearsal banner and the LLM-redirect note where they apply,
    the sections that do not run on the profile tagged out and named in a note at the top (those with no estimate
    stay, their prose quoting "—" unformatted; :mod:`pluralign.book.page_notes`), the parameter cells hidden, and
    the run's record in the notebook's metadata (its fingerprint, profile, parameter file, hidden sections, sections
    with no estimate)."""
    rehearsal = rehearsal_mirror(env.get("PLURALIGN_MIRROR") or os.environ.get("PLURALIGN_MIRROR"))
    if rehearsal:
        insert_rehearsal_banner(done, r.profile)
    redirect = (env.get("PLURALIGN_LLM_BASE_URL") or os.environ.get("PLURALIGN_LLM_BASE_URL") or "").strip()
    if redirect:
        insert_redirect_note(done, redirect.rstrip("/"))
    hidden = hide_skipped_sections(done)
    insert_left_out_note(done, r.profile)
    unformat_missing_glue(done)
    for cell in done.cells:  # the parameters are shown by the build report, not as raw cells
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | {"remove-cell"})
    done.metadata["pluralign"] = {
        "fingerprint": fp,
        "status": "ok",
        "profile": r.profile,
        "params": r.params,
        "hidden_sections": hidden,
        "failed_sections": failed_sections(done),
        "rehearsal": rehearsal,
        "notebook": str(r.source.relative_to(plan.ROOT)) if r.source.is_relative_to(plan.ROOT) else str(r.source),
    }


#: a warm server pays off from this many pages to execute (its own imports cost about as much as three pages')
WARM_FROM = 4


def _stale(todo: list[Run], refresh: bool, lib_hash: str, pages: dict[Run, P.Page]) -> list[Run]:
    """The runs of ``todo`` to execute (``pages``: their parameter files as read): all with ``refresh``, else those
    whose output is missing or was made from other inputs."""
    return [r for r in todo if refresh or not _is_fresh(r, run_fingerprint(r, lib_hash, pages[r].params))]


@contextlib.contextmanager
def _warm_kernels(profile: str):
    """For the block, pages' kernels are forked from one warm server that imported the heavy modules once
    (:mod:`pluralign.book.warm`: 3–5 s of imports per page otherwise); ordinary kernels where warm kernels are off."""
    from pluralign.book import warm

    if not warm.enabled():
        yield
        return
    old = os.environ.get(warm.SOCKET_ENV)
    with warm.server(_environment(profile)) as path:
        if path:
            os.environ[warm.SOCKET_ENV] = path
        try:
            yield
        finally:
            if old is None:
                os.environ.pop(warm.SOCKET_ENV, None)
            else:
                os.environ[warm.SOCKET_ENV] = old


def build(
    profile: str = "demo",
    *,
    only: str | None = None,
    refresh: bool = False,
    html: bool = True,
    out=sys.stdout,
    out_dir: str | Path | None = None,
    jobs: int | None = None,
) -> Path | None:
    """Execute every run of ``profile`` (one line each as it ends; :func:`execution_plan`), ``jobs`` pages at
    a time (default :func:`pluralign.book.schedule.default_jobs`), then build the HTML book. ``out_dir``: the
    executed pages' folder inside the project (default ``book/_executed/<profile>``); the HTML then goes to
    ``_build/<its name>/_build/html`` (``make rehearse``: a rehearsal beside the real pages)."""
    from pluralign.book import schedule

    m = manifest()
    out_dir = out_folder(out_dir)
    todo, after = execution_plan(runs(profile, only, m, out_dir=out_dir), m)
    jobs = jobs or schedule.default_jobs(profile)
    # one environment for every page of the build (pages executing side by side must not set it in turn); side by
    # side, each page's torch gets its share of the cores (two threads each on two cores spin-wait for each other)
    env = {**_environment(profile), **({"PLURALIGN_REFRESH": "1"} if refresh else {})}
    if jobs > 1 and not os.environ.get("PLURALIGN_THREADS"):
        env["PLURALIGN_THREADS"] = str(max(1, schedule.usable_cores() // jobs))
    with kernels.environ(env), contextlib.ExitStack() as warm_kernels:
        # where WARM_FROM pages certainly execute (their outputs missing: a cold build), the warm server starts
        # first, so that its imports run beside the reading of the pages (2–3 s on one core), not after it
        early = sum(refresh or not r.output.exists() for r in todo) >= WARM_FROM
        if early:
            warm_kernels.enter_context(_warm_kernels(profile))
        lib_hash = _lib_hash()
        pages = {r: _read_page(plan.ROOT / r.params, r.source) for r in todo}  # once per run: freshness, execution
        if not early and len(_stale(todo, refresh, lib_hash, pages)) >= WARM_FROM:
            warm_kernels.enter_context(_warm_kernels(profile))
        _run_pages(todo, after, jobs, refresh, lib_hash, pages, out)
    if not html:
        return None
    return build_html(profile, out=out, partial=only is not None, out_dir=out_dir)


def _run_pages(todo: list[Run], after, jobs: int, refresh: bool, lib_hash: str, pages: dict, out) -> None:
    """Execute the runs ``todo`` (their order constraints ``after``), ``jobs`` at a time, one line each as it ends
    and a last line with the time of them all."""
    from pluralign.book import schedule

    width = max(len(r.notebook) for r in todo)
    total = time.perf_counter()
    started: dict = {}

    def work(r: Run) -> str:
        started[r] = time.perf_counter()
        return execute(r, refresh=refresh, lib_hash=lib_hash, page=pages[r])

    def done(r: Run, status: str | None, error: BaseException | None) -> None:
        if error is not None and not isinstance(error, BookError):
            return
        seconds = time.perf_counter() - started.get(r, total)
        print(f"{r.notebook:<{width}}  {r.params:<40} {seconds:7.1f}s  {status or 'failed'}", file=out, flush=True)

    schedule.run_graph(todo, after, jobs, work, done)
    side = f", up to {jobs} at a time" if jobs > 1 and len(todo) > 1 else ""
    print(f"{len(todo)} notebooks in {time.perf_counter() - total:.1f}s{side}", file=out, flush=True)


def resolve_notebook(notebook: str | Path) -> Path:
    """A notebook given by its manifest name (``diverging_agreement``) or its path (.py Jupytext or .ipynb)."""
    p = Path(notebook).expanduser()
    if p.suffix in (".py", ".ipynb") and p.exists():
        return p.resolve()
    named = plan.ROOT / "notebooks" / f"{Path(str(notebook)).stem}.py"
    if p.suffix in ("", ".py") and named.exists():
        return named
    names = sorted(q.stem for q in (plan.ROOT / "notebooks").glob("*.py"))
    raise BookError(
        f"no notebook {str(notebook)!r}: give a path to a .py / .ipynb notebook or one of the book's: "
        f"{', '.join(names)}"
    )


def run_page(
    notebook: str | Path,
    params_file: str | Path,
    *,
    out_dir: str | Path | None = None,
    refresh: bool = False,
    out=sys.stdout,
) -> tuple[Path, Path]:
    """``pluralign run``: execute one notebook on one's own parameter file, from any folder.

    Relative paths inside the parameter file resolve against that file's folder (the kernel runs there);
    ``common.yml`` beside it and its ``include:`` files are merged as for the book. The executed notebook
    and an HTML page go to ``out_dir`` (default ``./pluralign-runs``), never into the project; heavy steps
    are cached in the user's cache folder (``$PLURALIGN_CACHE``, else the platform's user cache dir) and
    reused unless ``refresh``. Prints one line per executed cell. Returns (notebook, HTML page)."""
    src = resolve_notebook(notebook)
    params_file = Path(params_file).expanduser().resolve()
    if not params_file.exists():
        raise BookError(f"no parameter file {params_file}")
    page = _read_page(params_file, src)
    out_dir = Path(out_dir or Path.cwd() / "pluralign-runs").expanduser().resolve()
    output = out_dir / f"{src.stem}__{params_file.stem}.ipynb"
    r = Run(src.stem, str(params_file), str(page.params.get("profile", "demo")), path=str(src))
    env = {"PLURALIGN_RUN_PARAMS": params_file.name, "PLURALIGN_RUN_SOURCES": json.dumps(data_sources(page.params))}
    if not os.environ.get("PLURALIGN_CACHE"):
        from pluralign.cache import cache_dir

        env["PLURALIGN_CACHE"] = str(cache_dir())

    def line(i, n, cell, seconds):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or not cell.source.strip() or {"parameters", "injected-parameters"} & set(tags):
            return
        first = next((ln for ln in cell.source.splitlines() if ln.strip() and not ln.startswith("#")), "")
        print(f"  [{i + 1:>3}/{n}] {seconds:6.1f}s  {first[:70]}", file=out, flush=True)

    t = time.perf_counter()
    print(f"{src.name} with {params_file} -> {out_dir}", file=out, flush=True)
    execute(
        r, refresh=refresh, output=output, cwd=params_file.parent, env=env, book_cache=False, on_cell=line, page=page
    )
    html = export_html(output)
    print(f"done in {time.perf_counter() - t:.1f}s: {output}\n  page: {html}", file=out, flush=True)
    return output, html

"""The book pipeline: manifest → papermill-executed notebooks → Jupyter Book.

``manifest.yml`` (project root) is the single place that says which notebook runs with which
parameter file in which profile. The runner (:func:`build`) and the table of contents
(:func:`toc`) both follow it, so adding a data set is one parameter file and one manifest line.

Each notebook is a Jupytext percent-format script in ``notebooks/``; it is converted, executed
with papermill into ``book/_executed/<profile>/<stem>.ipynb`` (``<stem>`` is the parameter file's
name) and skipped next time if its source, parameters and the library are unchanged.
"""

from __future__ import annotations

import contextlib
import graphlib
import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from pluralign import params as P
from pluralign.book import kernels
from pluralign.book.errors import BookError
from pluralign.book.html import MATHJAX_PARTS, export_html, install_mathjax, myst_to_markdown  # noqa: F401
from pluralign.book.page_notes import (  # noqa: F401  (importable from here as before)
    REHEARSAL_BANNER,
    REHEARSAL_SIDECAR,
    SKIPPED_SECTION,
    failed_sections,
    hide_skipped_sections,
    insert_left_out_note,
    insert_redirect_note,
    insert_rehearsal_banner,
    rehearsal_mirror,
    split_at_headings,
    unformat_missing_glue,
)
from pluralign.book.sources import data_files, data_sources, files_state

ROOT = Path(os.environ.get("PLURALIGN_ROOT", Path(__file__).resolve().parents[3]))
PROFILES = ("demo", "sample", "paper")


@dataclass(frozen=True)
class Run:
    """One notebook executed with one parameter file."""

    notebook: str  # notebook name, notebooks/<notebook>.py
    params: str  # parameter file, relative to the root (or absolute)
    profile: str
    path: str | None = None  # the notebook's own path, for a notebook outside notebooks/
    out_dir: str | None = None  # the executed pages' folder relative to the root (default book/_executed/<profile>)

    @property
    def stem(self) -> str:
        return Path(self.params).stem

    @property
    def folder(self) -> str:
        return self.out_dir or f"book/_executed/{self.profile}"

    @property
    def source(self) -> Path:
        return Path(self.path) if self.path else ROOT / "notebooks" / f"{self.notebook}.py"

    @property
    def output(self) -> Path:
        return ROOT / self.folder / f"{self.stem}.ipynb"

    @property
    def docname(self) -> str:
        return f"{self.folder}/{self.stem}"


def out_folder(out_dir: str | Path | None) -> str | None:
    """``--out-dir`` as a folder relative to the project root (Jupyter Book builds pages from inside the root);
    None stays None (the default ``book/_executed/<profile>``)."""
    if out_dir is None:
        return None
    p = Path(out_dir).expanduser()
    p = (p if p.is_absolute() else Path.cwd() / p).resolve()
    if not p.is_relative_to(ROOT.resolve()):
        raise BookError(
            f"--out-dir {out_dir} must lie inside the project ({ROOT}): Jupyter Book builds the pages from there"
        )
    rel = p.relative_to(ROOT.resolve()).as_posix()
    if rel in (".", ""):
        raise BookError("--out-dir must be a folder below the project root, not the root itself")
    return rel


def manifest(path: Path | None = None) -> dict:
    """Read and check ``manifest.yml``."""
    path = path or ROOT / "manifest.yml"
    m = yaml.safe_load(path.read_text())
    for part in m["parts"]:
        if set(part) - {"caption", "name", "chapters"}:
            raise BookError(
                f"{path}: part {part.get('caption')!r} has unknown keys "
                f"{sorted(set(part) - {'caption', 'name', 'chapters'})}"
            )
        for ch in part["chapters"]:
            if (
                len(set(ch) & {"page", "run"}) != 1
                or set(ch) - {"page", "run", "execute", "after"}
                or ch.get("execute", "last") not in ("first", "last")
                or (("execute" in ch or "after" in ch) and "run" not in ch)
            ):
                raise BookError(
                    f"{path}: chapter entry {ch!r} must be {{page: ...}} or {{run: ...}} (a run may add "
                    "execute: first or execute: last, and after: the notebooks whose trained models it reads)"
                )
    _check_after(m, path)
    for prof, runs in m["profiles"].items():
        if prof not in PROFILES:
            raise BookError(f"{path}: unknown profile {prof!r} (one of {PROFILES})")
        for nb, files in runs.items():
            if not (ROOT / "notebooks" / f"{nb}.py").exists():
                raise BookError(f"{path}: profile {prof}: notebook notebooks/{nb}.py does not exist")
            for f in files:
                if not (ROOT / f).exists():
                    raise BookError(f"{path}: profile {prof}: parameter file {f} does not exist")
    return m


def runs(
    profile: str = "demo", only: str | None = None, m: dict | None = None, out_dir: str | None = None
) -> list[Run]:
    """The runs of a profile in book order (``only``: a part's ``name`` in the manifest, e.g. ``diverging``,
    a notebook name or a parameter-file stem; ``out_dir``: their folder, see :func:`out_folder`)."""
    m = m or manifest()
    if profile not in m["profiles"]:
        raise BookError(f"profile {profile!r} is not in manifest.yml (has {list(m['profiles'])})")
    table = m["profiles"][profile]
    out = []
    for part in m["parts"]:
        for ch in part["chapters"]:
            nb = ch.get("run")
            for f in table.get(nb, []) if nb else []:
                r = Run(nb, f, profile, out_dir=out_dir)
                if only is None or only in (r.notebook, r.stem, part.get("name")):
                    out.append(r)
    if only is not None and not out:
        parts = [p["name"] for p in m["parts"] if "name" in p]
        raise BookError(
            f"--only {only!r} matches no part ({', '.join(parts)}), notebook or parameter file of profile {profile!r}"
        )
    return out


def toc(
    profile: str = "demo", m: dict | None = None, *, present_only: bool = False, out_dir: str | None = None
) -> dict:
    """The Jupyter Book ``_toc.yml`` of a profile, generated from the manifest. ``present_only``: leave out
    executed pages that do not exist yet (a book of what ``pluralign book --only ...`` has run so far)."""
    m = m or manifest()
    table = m["profiles"][profile]

    def present(doc: str) -> bool:
        return not present_only or _page_exists(doc)

    parts, root = [], None
    for part in m["parts"]:
        chapters = []
        for ch in part["chapters"]:
            if "page" in ch:
                chapters.append({"file": ch["page"]})
            else:
                docs = [Run(ch["run"], f, profile, out_dir=out_dir).docname for f in table.get(ch["run"], [])]
                chapters += [{"file": d} for d in docs if present(d)]
        if root is None and chapters:
            root = chapters.pop(0)["file"]
        if chapters:
            parts.append({"caption": part["caption"], "chapters": chapters})
    return {"format": "jb-book", "root": root, "parts": parts}


def toc_text(profile: str = "demo", *, present_only: bool = False, out_dir: str | None = None) -> str:
    head = (
        f"# Generated from manifest.yml for the '{profile}' profile by `pluralign toc`; "
        "tests/book/test_runner.py checks that they agree.\n"
    )
    return head + yaml.safe_dump(toc(profile, present_only=present_only, out_dir=out_dir), sort_keys=False)


def _page_exists(doc: str) -> bool:
    return (ROOT / f"{doc}.ipynb").exists() or (ROOT / f"{doc}.md").exists()


def read_params(path: Path, notebook: str | None = None) -> dict:
    """The parameters of a page (:func:`pluralign.params.read_params`): ``common.yml``, includes and the page's
    own keys deep-merged; with ``notebook`` (a name under notebooks/ or a path) undeclared keys are errors."""
    declared = None
    if notebook is not None:
        src = Path(notebook) if str(notebook).endswith(".py") else ROOT / "notebooks" / f"{notebook}.py"
        declared = _declared(src)
    try:
        if notebook is None:
            return P.read_params(path)
        return P.read_params(path, declared=declared, types=_types(src), notebook=src)
    except P.ParamsError as e:
        raise BookError(str(e)) from None


_DECLARED: dict = {}


def _declared(src: Path) -> list[str]:
    key = (str(src), src.stat().st_mtime_ns)
    if key not in _DECLARED:
        _DECLARED[key] = P.declared_parameters(src)
    return _DECLARED[key]


def _types(src: Path) -> dict:
    key = ("types", str(src), src.stat().st_mtime_ns)
    if key not in _DECLARED:
        _DECLARED[key] = P.declared_types(src)
    return _DECLARED[key]


def _lib_hash() -> str:
    h = hashlib.sha256()
    for p in sorted((ROOT / "lib" / "pluralign").rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(ROOT)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def run_fingerprint(r: Run, lib_hash: str | None = None) -> str:
    """What a page's output depends on: the notebook, its resolved parameters (with included and common
    files), the profile, the library, and the data files the parameters read."""
    h = hashlib.sha256()
    h.update(r.source.read_bytes())
    params = read_params(ROOT / r.params, r.notebook)
    h.update(json.dumps(params, sort_keys=True, default=str).encode())  # incl. included files
    h.update(r.profile.encode())
    h.update((lib_hash or _lib_hash()).encode())
    h.update(json.dumps(files_state(data_files(params, ROOT))).encode())
    if os.environ.get("PLURALIGN_MIRROR"):  # the models and data a page reads from a Hub mirror
        mirror = Path(os.environ["PLURALIGN_MIRROR"]).expanduser()
        h.update(
            json.dumps(
                [str(mirror), files_state([mirror / "REHEARSAL.json"] if (mirror / "REHEARSAL.json").exists() else [])]
            ).encode()
        )
    return h.hexdigest()[:24]


def _is_fresh(r: Run, fp: str) -> bool:
    if not r.output.exists():
        return False
    try:
        meta = json.loads(r.output.read_text())["metadata"].get("pluralign", {})
    except (json.JSONDecodeError, KeyError):
        return False
    return meta.get("fingerprint") == fp and meta.get("status") == "ok"


def _environment(profile: str, *, book_cache: bool = True) -> dict:
    """The environment a page's kernel runs with in this project (:func:`pluralign.book.kernels.environment`)."""
    return kernels.environment(profile, ROOT, book_cache=book_cache)


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
) -> str:
    """Execute one run; returns "ok" or "cached"; raises :class:`BookError` naming the notebook,
    the parameter file and the failing cell's error. ``cwd``: the kernel's working folder (relative paths
    in the parameters resolve there; default the project root); ``env``: further environment variables;
    ``on_cell(index, n_cells, cell, seconds)``: called after each cell."""
    import jupytext
    import nbformat

    output = output or r.output
    fp = run_fingerprint(r, lib_hash) if r.path is None else None
    if not refresh and output == r.output and _is_fresh(r, fp):
        return "cached"
    params = (
        P.read_params(ROOT / r.params, declared=_declared(r.source), types=_types(r.source), notebook=r.source)
        if r.path
        else read_params(ROOT / r.params, r.notebook)
    )
    params.setdefault("profile", r.profile)
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
                params,
                cwd=cwd or ROOT,
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
        "notebook": str(r.source.relative_to(ROOT)) if r.source.is_relative_to(ROOT) else str(r.source),
    }


def _check_after(m: dict, path: Path) -> None:
    """Every ``after:`` of the manifest names a notebook chapter, and no chain of them comes back to its start
    (:class:`graphlib.TopologicalSorter`)."""
    after = {ch["run"]: _names(ch.get("after")) for part in m["parts"] for ch in part["chapters"] if "run" in ch}
    for nb, names in after.items():
        for name in names:
            if name not in after:
                raise BookError(f"{path}: chapter {nb!r}: after: {name!r} is no notebook chapter of the manifest")
    try:
        graphlib.TopologicalSorter(after).prepare()
    except graphlib.CycleError as e:
        raise BookError(f"{path}: chapters wait for each other: {' -> '.join(reversed(e.args[1]))}") from None


def execution_order(todo: list[Run], m: dict) -> list[Run]:
    """The runs in the order they start when one page executes at a time (:func:`execution_plan`)."""
    return execution_plan(todo, m)[0]


def execution_plan(todo: list[Run], m: dict) -> tuple[list[Run], dict[Run, set[Run]]]:
    """Which run may start when (:func:`pluralign.book.schedule.run_graph`): the runs in the order a free worker
    takes them — those marked ``execute: first`` in the manifest, then the others in book order, then those
    marked ``execute: last`` — and, for each, the runs it starts after: those of the notebooks its chapter names
    under ``after:``; for an ``execute: last`` run (the recovery report, the build report: they read what every
    other page cached) every run before it."""
    chapters = {ch["run"]: ch for part in m["parts"] for ch in part["chapters"] if "run" in ch}
    mark = {nb: ch.get("execute") for nb, ch in chapters.items()}
    order = (
        [r for r in todo if mark.get(r.notebook) == "first"]
        + [r for r in todo if mark.get(r.notebook) not in ("first", "last")]
        + [r for r in todo if mark.get(r.notebook) == "last"]
    )
    after = {}
    for i, r in enumerate(order):
        if mark.get(r.notebook) == "last":
            after[r] = set(order[:i])
        else:
            names = set(_names(chapters.get(r.notebook, {}).get("after")))
            after[r] = {o for o in todo if o.notebook in names}
    return order, after


def _names(value) -> list[str]:
    """A manifest ``after:`` value (one notebook name or a list of them) as a list."""
    return [] if value is None else [value] if isinstance(value, str) else list(value)


@contextlib.contextmanager
def _warm_kernels(todo: list[Run], profile: str, refresh: bool, lib_hash: str):
    """While four or more pages are to execute, their kernels are forked from one warm server that imported the
    heavy modules once (:mod:`pluralign.book.warm`: 3–5 s of imports per page otherwise)."""
    from pluralign.book import warm

    stale = [r for r in todo if refresh or not _is_fresh(r, run_fingerprint(r, lib_hash))]
    if len(stale) < 4 or not warm.enabled():  # a few pages: the server's own imports would not pay off
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
    lib_hash = _lib_hash()
    width = max(len(r.notebook) for r in todo)
    total = time.perf_counter()
    started: dict = {}

    def work(r: Run) -> str:
        started[r] = time.perf_counter()
        return execute(r, refresh=refresh, lib_hash=lib_hash)

    def done(r: Run, status: str | None, error: BaseException | None) -> None:
        if error is not None and not isinstance(error, BookError):
            return
        seconds = time.perf_counter() - started.get(r, total)
        print(f"{r.notebook:<{width}}  {r.params:<40} {seconds:7.1f}s  {status or 'failed'}", file=out, flush=True)

    # one environment for every page of the build (pages executing side by side must not set it in turn); side by
    # side, each page's torch gets its share of the cores (two threads each on two cores spin-wait for each other)
    env = {**_environment(profile), **({"PLURALIGN_REFRESH": "1"} if refresh else {})}
    if jobs > 1 and not os.environ.get("PLURALIGN_THREADS"):
        env["PLURALIGN_THREADS"] = str(max(1, schedule.usable_cores() // jobs))
    with kernels.environ(env), _warm_kernels(todo, profile, refresh, lib_hash):
        schedule.run_graph(todo, after, jobs, work, done)
    side = f", up to {jobs} at a time" if jobs > 1 and len(todo) > 1 else ""
    print(f"{len(todo)} notebooks in {time.perf_counter() - total:.1f}s{side}", file=out, flush=True)
    if not html:
        return None
    return build_html(profile, out=out, partial=only is not None, out_dir=out_dir)


def build_html(profile: str = "demo", out=sys.stdout, *, partial: bool = False, out_dir: str | None = None) -> Path:
    """``jupyter-book build`` with warnings as errors; returns the path of index.html. ``partial``: build
    the pages executed so far (after ``--only``), naming the ones left out, instead of refusing. ``out_dir``:
    the executed pages' folder (:func:`build`)."""
    missing = [c for c in _toc_files(toc(profile, out_dir=out_dir)) if not _page_exists(c)]
    install_mathjax(ROOT / "book" / "_static" / "mathjax")
    # the toc generated from the manifest (for demo, when complete, it equals the committed _toc.yml)
    name = Path(out_dir).name if out_dir else profile
    toc_path = ROOT / "book" / "_executed" / f"_toc.{name}.yml"
    toc_path.parent.mkdir(parents=True, exist_ok=True)
    toc_path.write_text(toc_text(profile, present_only=partial, out_dir=out_dir))
    strict = ["-W"]
    if partial and missing:  # references into the left-out pages cannot resolve: warnings are not errors here
        strict = []
        print(
            f"partial book (warnings not errors): {len(missing)} page(s) not executed yet are left out: "
            f"{', '.join(missing)}",
            file=out,
            flush=True,
        )
    elif missing:
        raise BookError(f"pages missing for profile {profile!r}: {missing} (run `pluralign book --profile {profile}`)")
    # jupyter-book writes <path-output>/_build/html: the demo book at _build/html, others at
    # _build/<profile>/_build/html
    out_root = ROOT / "_build" / name if out_dir else ROOT if profile == "demo" else ROOT / "_build" / profile
    cmd = [
        str(Path(sys.executable).with_name("jupyter-book")),
        "build",
        str(ROOT),
        "--toc",
        str(toc_path),
        "--path-output",
        str(out_root),
        *strict,
        "-n",
        "--keep-going",
    ]
    env = {**os.environ, "PLURALIGN_PROFILE": profile}
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout[-6000:], proc.stderr[-6000:], file=out)
        raise BookError(f"jupyter-book build failed (exit {proc.returncode}); see the log above")
    index = out_root / "_build" / "html" / "index.html"
    print(f"book built in {time.perf_counter() - t:.1f}s: {index}", file=out, flush=True)
    return index


def _toc_files(t: dict) -> list[str]:
    files = [t["root"]]
    for p in t["parts"]:
        files += [c["file"] for c in p["chapters"]]
    return files


def resolve_notebook(notebook: str | Path) -> Path:
    """A notebook given by its manifest name (``diverging_agreement``) or its path (.py Jupytext or .ipynb)."""
    p = Path(notebook).expanduser()
    if p.suffix in (".py", ".ipynb") and p.exists():
        return p.resolve()
    named = ROOT / "notebooks" / f"{Path(str(notebook)).stem}.py"
    if p.suffix in ("", ".py") and named.exists():
        return named
    names = sorted(q.stem for q in (ROOT / "notebooks").glob("*.py"))
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
    try:
        params = P.read_params(params_file, declared=_declared(src), types=_types(src), notebook=src)
    except P.ParamsError as e:
        raise BookError(str(e)) from None
    out_dir = Path(out_dir or Path.cwd() / "pluralign-runs").expanduser().resolve()
    output = out_dir / f"{src.stem}__{params_file.stem}.ipynb"
    r = Run(src.stem, str(params_file), str(params.get("profile", "demo")), path=str(src))
    env = {"PLURALIGN_RUN_PARAMS": params_file.name, "PLURALIGN_RUN_SOURCES": json.dumps(data_sources(params))}
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
    execute(r, refresh=refresh, output=output, cwd=params_file.parent, env=env, book_cache=False, on_cell=line)
    page = export_html(output)
    print(f"done in {time.perf_counter() - t:.1f}s: {output}\n  page: {page}", file=out, flush=True)
    return output, page

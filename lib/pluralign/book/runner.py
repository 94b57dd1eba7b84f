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
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from pluralign import params as P

ROOT = Path(os.environ.get("PLURALIGN_ROOT", Path(__file__).resolve().parents[3]))
PROFILES = ("demo", "sample", "paper")


class BookError(RuntimeError):
    """A notebook failed, or the manifest / a parameter file is wrong."""


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
                f"{path}: part {part.get('caption')!r} has unknown keys {sorted(set(part) - {'caption', 'name', 'chapters'})}"
            )
        for ch in part["chapters"]:
            if (
                len(set(ch) & {"page", "run"}) != 1
                or set(ch) - {"page", "run", "execute"}
                or ch.get("execute", "last") != "last"
                or ("execute" in ch and "run" not in ch)
            ):
                raise BookError(
                    f"{path}: chapter entry {ch!r} must be {{page: ...}} or {{run: ...}} (a run may add execute: last)"
                )
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
        "tests/test_book.py checks that they agree.\n"
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
        return P.read_params(path, declared=declared, types=_types(src) if notebook is not None else None)
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


def data_files(params: dict, base: Path | None = None) -> list[Path]:
    """The local files and folders a page's parameters read (every ``source`` / ``labels_file`` value that is
    an existing path; ``shared:`` paths in the shared data folder)."""
    from pluralign.data.io import shared_data_dir

    base = base or ROOT
    found: list[Path] = []

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k in ("source", "labels_file") and isinstance(v, str):
                    p = (
                        shared_data_dir() / v.removeprefix("shared:").lstrip("/")
                        if v.startswith("shared:")
                        else (base / v).expanduser()
                    )
                    if p.exists():
                        found.append(p)
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(params)
    return found


def _files_state(paths: list[Path]) -> list:
    """(path, size, mtime) of every file under ``paths``: a data file that grows or changes changes it."""
    out = []
    for p in paths:
        for f in sorted([p] if p.is_file() else (q for q in p.rglob("*") if q.is_file())):
            st = f.stat()
            out.append((str(f), st.st_size, st.st_mtime_ns))
    return out


def run_fingerprint(r: Run, lib_hash: str | None = None) -> str:
    """What a page's output depends on: the notebook, its resolved parameters (with included and common
    files), the profile, the library, and the data files the parameters read."""
    h = hashlib.sha256()
    h.update(r.source.read_bytes())
    params = read_params(ROOT / r.params, r.notebook)
    h.update(json.dumps(params, sort_keys=True, default=str).encode())  # incl. included files
    h.update(r.profile.encode())
    h.update((lib_hash or _lib_hash()).encode())
    h.update(json.dumps(_files_state(data_files(params))).encode())
    if os.environ.get("PLURALIGN_MIRROR"):  # the models and data a page reads from a Hub mirror
        mirror = Path(os.environ["PLURALIGN_MIRROR"]).expanduser()
        h.update(
            json.dumps(
                [str(mirror), _files_state([mirror / "REHEARSAL.json"] if (mirror / "REHEARSAL.json").exists() else [])]
            ).encode()
        )
    return h.hexdigest()[:24]


#: the sentence every page computed on a rehearsal mirror carries at its top
REHEARSAL_BANNER = "{profile} profile — rehearsal on random-weight models; numbers are meaningless"
REHEARSAL_SIDECAR = ".pluralign-rehearsal.json"


def rehearsal_mirror(mirror: str | Path | None) -> bool:
    """Whether the Hub mirror in use is a rehearsal mirror (:mod:`pluralign.book.rehearsal`): it holds
    ``REHEARSAL.json`` or a folder ``<owner>/<name>`` with the rehearsal sidecar. Decided from the data, never a flag."""
    if not mirror:
        return False
    root = Path(mirror).expanduser()
    if (root / "REHEARSAL.json").is_file():
        return True
    return root.is_dir() and any(f.is_file() for f in root.glob(f"*/*/{REHEARSAL_SIDECAR}"))


def insert_rehearsal_banner(nb, profile: str) -> bool:
    """Put the rehearsal banner (a warning admonition) right after the page's title cell (the first level-1
    heading; the top if there is none), once. Returns whether it was inserted."""
    import nbformat

    if any("pluralign-rehearsal" in c.get("metadata", {}).get("tags", []) for c in nb.cells):
        return False
    at = next((i + 1 for i, c in enumerate(nb.cells) if _heading_level(c) == 1), 0)
    text = REHEARSAL_BANNER.format(profile=profile)
    cell = nbformat.v4.new_markdown_cell(
        f":::{{warning}}\n{text[0].upper() + text[1:]}. This page was computed on "
        "a rehearsal mirror (`pluralign mirror rehearsal`): tiny random-weight "
        "models and small simulated or subsampled data sets under the paper's Hub "
        "ids, and a local server answering to the LLM endpoints' names. It checks "
        "that the pipeline runs end to end.\n:::"
    )
    cell.metadata["tags"] = ["pluralign-rehearsal"]
    nb.cells.insert(at, cell)
    return True


def insert_redirect_note(nb, url: str) -> bool:
    """Say at the top of the page (after the title and any rehearsal banner) that every OpenAI-compatible LLM
    endpoint of its parameters went to ``url`` (``PLURALIGN_LLM_BASE_URL``), once. Returns whether it was inserted."""
    import nbformat

    if any("pluralign-redirect" in c.get("metadata", {}).get("tags", []) for c in nb.cells):
        return False
    at = next((i + 1 for i, c in enumerate(nb.cells) if _heading_level(c) == 1), 0)
    while at < len(nb.cells) and "pluralign-rehearsal" in nb.cells[at].get("metadata", {}).get("tags", []):
        at += 1
    cell = nbformat.v4.new_markdown_cell(
        f":::{{note}}\nLLM endpoints: every OpenAI-compatible endpoint this page's parameters name (an LM-labeller, a "
        f"judge, a rewriter) was sent to `{url}` by `PLURALIGN_LLM_BASE_URL`, not to the `base_url` its parameters "
        "give; the model names were kept.\n:::"
    )
    cell.metadata["tags"] = ["pluralign-redirect"]
    nb.cells.insert(at, cell)
    return True


def _is_fresh(r: Run, fp: str) -> bool:
    if not r.output.exists():
        return False
    try:
        meta = json.loads(r.output.read_text())["metadata"].get("pluralign", {})
    except (json.JSONDecodeError, KeyError):
        return False
    return meta.get("fingerprint") == fp and meta.get("status") == "ok"


def _environment(profile: str, *, book_cache: bool = True) -> dict:
    env = {
        "PLURALIGN_PROFILE": profile,
        "PLURALIGN_ROOT": str(ROOT),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONHASHSEED": "0",
        # no download / weight-loading / split-generating bars in a rendered page (they are stderr noise there)
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
        # a page states failed LLM answers and endpoint redirects in its text (report.stated_warning)
        "PLURALIGN_ON_PAGE": "1",
    }
    if book_cache:  # the book keeps its cache in the project; a user's run uses the user's cache folder
        env.setdefault("PLURALIGN_CACHE", os.environ.get("PLURALIGN_CACHE", str(ROOT / ".cache" / "pluralign")))
    if profile != "paper":
        env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    return env


def _ipc_kernel_manager(log: Path | None = None):
    """A kernel manager whose kernel talks over local IPC sockets (not TCP on localhost): nothing listens on a
    port, and ipykernel has no reason to warn about unencrypted TCP in every build log. The kernel process's own
    log (its messages about being interrupted at shutdown, a crash) goes to ``log``, not into the build log;
    what the cells print stays in the notebook. Each kernel's sockets live in a fresh private folder: two builds
    (or a build and a ``pluralign run``) started in the same folder would otherwise pick the same socket files
    and read each other's messages ("Invalid Signature")."""
    import shutil
    import tempfile

    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kw):
            kw.setdefault("transport", "ipc")
            self._socket_dir = tempfile.mkdtemp(prefix="pluralign-kernel-")
            kw.setdefault("ip", str(Path(self._socket_dir) / "kernel"))
            super().__init__(**kw)

        async def _async_cleanup_resources(self, restart: bool = False) -> None:  # called at shutdown
            await super()._async_cleanup_resources(restart=restart)
            if not restart:
                shutil.rmtree(self._socket_dir, ignore_errors=True)

        cleanup_resources = _async_cleanup_resources

        async def start_kernel(self, **kw):
            if log is not None:
                kw.setdefault("stderr", open(log, "ab"))
            return await super().start_kernel(**kw)

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            from pluralign.book import warm  # inside build(): a kernel forked from the warm server (#19)

            if os.environ.get(warm.SOCKET_ENV):
                kernel_cmd = warm.kernel_command(kernel_cmd)
            return await super()._async_launch_kernel(kernel_cmd, **kw)

    return IPCKernelManager


def _tail(path: Path, n: int = 1500) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    return f" (kernel log: ...{text[-n:]})" if text else ""


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
    import tempfile

    import jupytext
    import nbformat
    import papermill as pm

    output = output or r.output
    fp = run_fingerprint(r, lib_hash) if r.path is None else None
    if not refresh and output == r.output and _is_fresh(r, fp):
        return "cached"
    params = (
        P.read_params(ROOT / r.params, declared=_declared(r.source), types=_types(r.source))
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
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    tmp = output.with_suffix(".partial.ipynb")
    hooks = {}
    if on_cell is not None:
        n_cells, started = len(nb.cells), {}
        hooks = {
            "on_cell_start": lambda cell, cell_index: started.__setitem__(cell_index, time.perf_counter()),
            "on_cell_executed": lambda cell, cell_index, execute_reply: on_cell(
                cell_index, n_cells, cell, time.perf_counter() - started.get(cell_index, time.perf_counter())
            ),
        }
    try:
        with tempfile.TemporaryDirectory(prefix="pluralign-src-") as srcdir:
            src = Path(srcdir) / f"{r.stem}.ipynb"
            kernel_log = Path(srcdir) / "kernel.log"
            nbformat.write(nb, src)
            try:
                pm.execute_notebook(
                    str(src),
                    str(tmp),
                    parameters=params,
                    kernel_name="python3",
                    cwd=str(cwd or ROOT),
                    progress_bar=False,
                    log_output=False,
                    request_save_on_cell_execute=False,
                    kernel_manager_class=_ipc_kernel_manager(kernel_log),
                    **hooks,
                )
            except pm.PapermillExecutionError as e:
                raise BookError(
                    f"notebook {r.source} with parameter file {r.params} failed in cell "
                    f"{e.exec_count}: {e.ename}: {e.evalue}"
                ) from None
            except (KeyboardInterrupt, BookError):
                raise
            except Exception as e:  # noqa: BLE001 - kernel death, bad notebook: still name the run
                raise BookError(
                    f"notebook {r.source} with parameter file {r.params} failed: "
                    f"{type(e).__name__}: {e}{_tail(kernel_log)}"
                ) from None
    except KeyboardInterrupt:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    done = nbformat.read(tmp, as_version=4)
    rehearsal = rehearsal_mirror(env.get("PLURALIGN_MIRROR") or os.environ.get("PLURALIGN_MIRROR"))
    if rehearsal:
        insert_rehearsal_banner(done, r.profile)
    redirect = (env.get("PLURALIGN_LLM_BASE_URL") or os.environ.get("PLURALIGN_LLM_BASE_URL") or "").strip()
    if redirect:
        insert_redirect_note(done, redirect.rstrip("/"))
    hidden = hide_skipped_sections(done)
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
        "rehearsal": rehearsal,
        "notebook": str(r.source.relative_to(ROOT)) if r.source.is_relative_to(ROOT) else str(r.source),
    }
    nbformat.write(done, tmp)
    os.replace(tmp, output)
    return "ok"


def _heading_level(cell) -> int | None:
    """The level of the Markdown heading a cell starts with (after an optional ``(label)=`` line), else None."""
    if cell.get("cell_type") != "markdown":
        return None
    lines = [ln for ln in str(cell.get("source", "")).splitlines() if ln.strip()]
    if lines and re.match(r"^\(.+\)=\s*$", lines[0]):
        lines = lines[1:]
    m = re.match(r"^(#{1,6})\s", lines[0]) if lines else None
    return len(m.group(1)) if m else None


#: Output metadata key a :class:`pluralign.report.Result` with ``skipped`` set writes (re-exported by report).
SKIPPED_SECTION = "pluralign_skipped_section"


def hide_skipped_sections(nb) -> list[str]:
    """Tag ``remove-cell`` every cell of a section that does not run on this profile — one whose cell displayed a
    :class:`~pluralign.report.Result` with ``skipped`` set — from its heading to the next heading of the same or a
    higher level, so the book shows only sections that run (no empty section with its code on the page).
    The page title (level 1) is never hidden. Returns the hidden headings."""
    cells, hidden = nb.cells, []
    for i, c in enumerate(cells):
        if c.get("cell_type") != "code" or not any(
            o.get("metadata", {}).get(SKIPPED_SECTION) for o in c.get("outputs", [])
        ):
            continue
        j = i - 1
        while j >= 0 and _heading_level(cells[j]) is None:
            j -= 1
        level = _heading_level(cells[j]) if j >= 0 else None
        if level is None or level < 2:
            continue
        k = j + 1
        while k < len(cells) and not ((_heading_level(cells[k]) or 99) <= level):
            k += 1
        for cell in cells[j:k]:
            tags = cell.setdefault("metadata", {}).get("tags", [])
            cell["metadata"]["tags"] = sorted(set(tags) | {"remove-cell"})
        title = next(ln for ln in str(cells[j].source).splitlines() if ln.lstrip().startswith("#"))
        if title.strip("# ").strip() not in hidden:
            hidden.append(title.strip("# ").strip())
    return hidden


def execution_order(todo: list[Run], m: dict) -> list[Run]:
    """The runs in the order they execute: book order, except that a chapter marked ``execute: last`` in the
    manifest (the build report, which shows the cache every other page filled) runs after all others."""
    last = {ch["run"] for part in m["parts"] for ch in part["chapters"] if ch.get("execute") == "last"}
    return [r for r in todo if r.notebook not in last] + [r for r in todo if r.notebook in last]


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
) -> Path | None:
    """Execute every run of ``profile`` (one line each; :func:`execution_order`), then build the HTML book.
    ``out_dir``: the executed pages' folder inside the project (default ``book/_executed/<profile>``); the
    HTML then goes to ``_build/<its name>/_build/html`` (``make rehearse``: a rehearsal beside the real pages)."""
    m = manifest()
    out_dir = out_folder(out_dir)
    todo = execution_order(runs(profile, only, m, out_dir=out_dir), m)
    lib_hash = _lib_hash()
    width = max(len(r.notebook) for r in todo)
    total = time.perf_counter()
    with _warm_kernels(todo, profile, refresh, lib_hash):
        for r in todo:
            t = time.perf_counter()
            try:
                status = execute(r, refresh=refresh, lib_hash=lib_hash)
            except BookError:
                print(
                    f"{r.notebook:<{width}}  {r.params:<40} {time.perf_counter() - t:7.1f}s  failed",
                    file=out,
                    flush=True,
                )
                raise
            print(
                f"{r.notebook:<{width}}  {r.params:<40} {time.perf_counter() - t:7.1f}s  {status}", file=out, flush=True
            )
    print(f"{len(todo)} notebooks in {time.perf_counter() - total:.1f}s", file=out, flush=True)
    if not html:
        return None
    return build_html(profile, out=out, partial=only is not None, out_dir=out_dir)


MATHJAX_PARTS = ("tex-svg.js", "input", "output", "ui", "a11y", "adaptors", "sre")


def install_mathjax(dest: Path | None = None) -> Path:
    """Copy MathJax 3 (the ``django-static-mathjax`` package's files: the TeX input, SVG output and the parts it
    loads on demand) into ``book/_static/mathjax``, which the book serves (``mathjax_path`` in _config.yml), so
    formulas are typeset offline and the site loads no external script."""
    import importlib.util
    import shutil

    dest = dest or ROOT / "book" / "_static" / "mathjax"
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise BookError(
            "MathJax files not found: install the book extra (pip install 'pluralign[book]', which "
            "brings django-static-mathjax)"
        )
    src = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    stamp = dest / ".source"
    if stamp.exists() and stamp.read_text() == str(src):
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for part in MATHJAX_PARTS:
        (shutil.copytree if (src / part).is_dir() else shutil.copy2)(src / part, dest / part)
    stamp.write_text(str(src))
    return dest


def build_html(profile: str = "demo", out=sys.stdout, *, partial: bool = False, out_dir: str | None = None) -> Path:
    """``jupyter-book build`` with warnings as errors; returns the path of index.html. ``partial``: build
    the pages executed so far (after ``--only``), naming the ones left out, instead of refusing. ``out_dir``:
    the executed pages' folder (:func:`build`)."""
    missing = [c for c in _toc_files(toc(profile, out_dir=out_dir)) if not _page_exists(c)]
    install_mathjax()
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
    # jupyter-book writes <path-output>/_build/html: the demo book at _build/html, others at _build/<profile>/_build/html
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


def data_sources(params: dict) -> list[str]:
    """The data a page's parameters name, in words: every ``{"name": ..., "source": ...}`` or ``{"simulate":
    ...}`` spec found anywhere in them (what the page's profile note says the run used)."""
    found: list[str] = []

    def walk(o):
        if isinstance(o, dict):
            if "simulate" in o and isinstance(o["simulate"], dict):
                found.append("the project's simulator")
            elif isinstance(o.get("name"), str) and ("source" in o or "split" in o or len(o) == 1):
                src = o.get("source")
                found.append(f"{o['name']} ({src})" if src else f"{o['name']} (Hugging Face Hub)")
            else:
                for v in o.values():
                    walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(params)
    return list(dict.fromkeys(found))


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
        params = P.read_params(params_file, declared=_declared(src), types=_types(src))
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


def export_html(executed: Path) -> Path:
    """An HTML page of an executed notebook beside it (cells tagged remove-cell / remove-input hidden as in
    the book)."""
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    nb = nbformat.read(executed, as_version=4)
    glued = {}
    for cell in nb.cells:  # glued values are quoted by the prose in the book; alone they have no HTML form
        if cell.cell_type == "code":
            for o in cell.get("outputs", []):
                sb = o.get("metadata", {}).get("scrapbook")
                if sb:
                    glued[sb["name"]] = o.get("data", {}).get(sb.get("mime_prefix", "") + "text/plain", "")
            cell.outputs = [o for o in cell.get("outputs", []) if "scrapbook" not in o.get("metadata", {})]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = myst_to_markdown(cell.source, glued)
        for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if "text/markdown" in o.get("data", {}):
                o["data"]["text/markdown"] = myst_to_markdown(o["data"]["text/markdown"], glued)
    exporter = HTMLExporter()
    tags = TagRemovePreprocessor(
        remove_cell_tags={"remove-cell"}, remove_input_tags={"remove-input", "hide-input"}, enabled=True
    )
    exporter.register_preprocessor(tags, enabled=True)
    body, _ = exporter.from_notebook_node(nb)
    page = executed.with_suffix(".html")
    tmp = page.with_suffix(".html.tmp")
    tmp.write_text(body)
    os.replace(tmp, page)
    return page


def myst_to_markdown(text: str, glued: dict) -> str:
    """The MyST of a page as plain Markdown for a stand-alone HTML page: ``{glue:text}`name:fmt``` replaced by
    the glued value, ``{cite}`` / ``{ref}`` roles by their target's name, admonition fences by a quote, label
    lines dropped."""
    import ast
    import re

    def value(m):
        name, _, fmt = m.group(1).partition(":")
        raw = glued.get(name)
        if raw is None:
            return f"`{name}`"
        try:
            v = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            v = raw
        try:
            return format(v, fmt) if fmt else str(v)
        except (TypeError, ValueError):
            return str(v)

    text = re.sub(r"\{glue:text\}`([^`]+)`", value, text)
    text = re.sub(r"\{glue\}`([^`]+)`", value, text)
    text = re.sub(
        r"\{(?:cite|cite:p|cite:t|ref|numref|doc)\}`([^`<]*?)(?:\s*<([^`>]+)>)?`",
        lambda m: m.group(1).strip() or (m.group(2) or ""),
        text,
    )
    text = re.sub(r"^\(([\w-]+)\)=\s*$", "", text, flags=re.M)
    text = re.sub(
        r"^:::\{(\w+)\}[^\n]*\n(.*?)\n?:::\s*$",
        lambda m: "\n".join(
            f"> {ln}" if ln else ">" for ln in (f"**{m.group(1).title()}.** " + m.group(2)).split("\n")
        ),
        text,
        flags=re.M | re.S,
    )
    return text

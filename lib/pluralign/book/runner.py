"""The book pipeline: manifest → papermill-executed notebooks → Jupyter Book.

``manifest.yml`` (project root) is the single place that says which notebook runs with which
parameter file in which profile. The runner (:func:`build`) and the table of contents
(:func:`toc`) both follow it, so adding a data set is one parameter file and one manifest line.

Each notebook is a Jupytext percent-format script in ``notebooks/``; it is converted, executed
with papermill into ``book/_executed/<profile>/<stem>.ipynb`` (``<stem>`` is the parameter file's
name) and skipped next time if its source, parameters and the library are unchanged.
"""
from __future__ import annotations

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

ROOT = Path(os.environ.get("PLURALIGN_ROOT", Path(__file__).resolve().parents[3]))
PROFILES = ("demo", "sample", "paper")


class BookError(RuntimeError):
    """A notebook failed, or the manifest / a parameter file is wrong."""


@dataclass(frozen=True)
class Run:
    """One notebook executed with one parameter file."""
    notebook: str   # notebook name, notebooks/<notebook>.py
    params: str     # parameter file, relative to the root
    profile: str

    @property
    def stem(self) -> str:
        return Path(self.params).stem

    @property
    def source(self) -> Path:
        return ROOT / "notebooks" / f"{self.notebook}.py"

    @property
    def output(self) -> Path:
        return ROOT / "book" / "_executed" / self.profile / f"{self.stem}.ipynb"

    @property
    def docname(self) -> str:
        return f"book/_executed/{self.profile}/{self.stem}"


def manifest(path: Path | None = None) -> dict:
    """Read and check ``manifest.yml``."""
    path = path or ROOT / "manifest.yml"
    m = yaml.safe_load(path.read_text())
    for part in m["parts"]:
        if set(part) - {"caption", "name", "chapters"}:
            raise BookError(f"{path}: part {part.get('caption')!r} has unknown keys {sorted(set(part) - {'caption', 'name', 'chapters'})}")
        for ch in part["chapters"]:
            if set(ch) - {"page", "run"} or len(ch) != 1:
                raise BookError(f"{path}: chapter entry {ch!r} must be {{page: ...}} or {{run: ...}}")
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


def runs(profile: str = "demo", only: str | None = None, m: dict | None = None) -> list[Run]:
    """The runs of a profile in book order (``only``: a part's ``name`` in the manifest, e.g. ``diverging``,
    a notebook name or a parameter-file stem)."""
    m = m or manifest()
    if profile not in m["profiles"]:
        raise BookError(f"profile {profile!r} is not in manifest.yml (has {list(m['profiles'])})")
    table = m["profiles"][profile]
    out = []
    for part in m["parts"]:
        for ch in part["chapters"]:
            nb = ch.get("run")
            for f in table.get(nb, []) if nb else []:
                r = Run(nb, f, profile)
                if only is None or only in (r.notebook, r.stem, part.get("name")):
                    out.append(r)
    if only is not None and not out:
        parts = [p["name"] for p in m["parts"] if "name" in p]
        raise BookError(f"--only {only!r} matches no part ({', '.join(parts)}), notebook or parameter file "
                        f"of profile {profile!r}")
    return out


def toc(profile: str = "demo", m: dict | None = None, *, present_only: bool = False) -> dict:
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
                docs = [Run(ch["run"], f, profile).docname for f in table.get(ch["run"], [])]
                chapters += [{"file": d} for d in docs if present(d)]
        if root is None and chapters:
            root = chapters.pop(0)["file"]
        if chapters:
            parts.append({"caption": part["caption"], "chapters": chapters})
    return {"format": "jb-book", "root": root, "parts": parts}


def toc_text(profile: str = "demo", *, present_only: bool = False) -> str:
    head = (f"# Generated from manifest.yml for the '{profile}' profile by `pluralign toc`; "
            "tests/test_book.py checks that they agree.\n")
    return head + yaml.safe_dump(toc(profile, present_only=present_only), sort_keys=False)


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
        return P.read_params(path, declared=declared)
    except P.ParamsError as e:
        raise BookError(str(e)) from None


_DECLARED: dict = {}


def _declared(src: Path) -> list[str]:
    key = (str(src), src.stat().st_mtime_ns)
    if key not in _DECLARED:
        _DECLARED[key] = P.declared_parameters(src)
    return _DECLARED[key]


def _lib_hash() -> str:
    h = hashlib.sha256()
    for p in sorted((ROOT / "lib" / "pluralign").rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(ROOT)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def run_fingerprint(r: Run, lib_hash: str | None = None) -> str:
    h = hashlib.sha256()
    h.update(r.source.read_bytes())
    h.update(json.dumps(read_params(ROOT / r.params, r.notebook), sort_keys=True, default=str).encode())  # incl. included files
    h.update(r.profile.encode())
    h.update((lib_hash or _lib_hash()).encode())
    return h.hexdigest()[:24]


def _is_fresh(r: Run, fp: str) -> bool:
    if not r.output.exists():
        return False
    try:
        meta = json.loads(r.output.read_text())["metadata"].get("pluralign", {})
    except (json.JSONDecodeError, KeyError):
        return False
    return meta.get("fingerprint") == fp and meta.get("status") == "ok"


def _environment(profile: str) -> dict:
    env = {"PLURALIGN_PROFILE": profile, "PLURALIGN_ROOT": str(ROOT), "MPLBACKEND": "module://matplotlib_inline.backend_inline",
           "TOKENIZERS_PARALLELISM": "false", "PYTHONHASHSEED": "0",
           # no download / weight-loading bars in a rendered page (they are stderr noise there)
           "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    env.setdefault("PLURALIGN_CACHE", os.environ.get("PLURALIGN_CACHE", str(ROOT / ".cache" / "pluralign")))
    if profile != "paper":
        env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    return env


def _ipc_kernel_manager():
    """A kernel manager whose kernel talks over local IPC sockets (not TCP on localhost): nothing listens on a
    port, and ipykernel has no reason to warn about unencrypted TCP in every build log."""
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kw):
            kw.setdefault("transport", "ipc")
            super().__init__(**kw)
    return IPCKernelManager


def execute(r: Run, *, refresh: bool = False, output: Path | None = None, lib_hash: str | None = None) -> str:
    """Execute one run; returns "ok" or "cached"; raises :class:`BookError` naming the notebook,
    the parameter file and the failing cell's error."""
    import jupytext
    import nbformat
    import papermill as pm

    output = output or r.output
    fp = run_fingerprint(r, lib_hash)
    if not refresh and output == r.output and _is_fresh(r, fp):
        return "cached"
    params = read_params(ROOT / r.params, r.notebook)
    params.setdefault("profile", r.profile)
    output.parent.mkdir(parents=True, exist_ok=True)
    src = output.parent / ".src" / f"{r.stem}.ipynb"
    src.parent.mkdir(parents=True, exist_ok=True)
    nb = jupytext.read(r.source)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, src)
    env = _environment(r.profile)
    if refresh:
        env["PLURALIGN_REFRESH"] = "1"
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    tmp = output.with_suffix(".partial.ipynb")
    try:
        pm.execute_notebook(str(src), str(tmp), parameters=params, kernel_name="python3", cwd=str(ROOT),
                            progress_bar=False, log_output=False, request_save_on_cell_execute=False,
                            kernel_manager_class=_ipc_kernel_manager())
    except pm.PapermillExecutionError as e:
        raise BookError(f"notebook notebooks/{r.notebook}.py with parameter file {r.params} failed in cell "
                        f"{e.exec_count}: {e.ename}: {e.evalue}") from None
    except Exception as e:  # noqa: BLE001 - kernel death, bad notebook: still name the run
        raise BookError(f"notebook notebooks/{r.notebook}.py with parameter file {r.params} failed: "
                        f"{type(e).__name__}: {e}") from None
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    done = nbformat.read(tmp, as_version=4)
    for cell in done.cells:  # the parameters are shown by the build report, not as raw cells
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | {"remove-cell"})
    done.metadata["pluralign"] = {"fingerprint": fp, "status": "ok", "profile": r.profile, "params": r.params,
                                  "notebook": f"notebooks/{r.notebook}.py"}
    nbformat.write(done, tmp)
    os.replace(tmp, output)
    return "ok"


def build(profile: str = "demo", *, only: str | None = None, refresh: bool = False, html: bool = True,
          out=sys.stdout) -> Path | None:
    """Execute every run of ``profile`` (one line each), then build the HTML book."""
    m = manifest()
    todo = runs(profile, only, m)
    lib_hash = _lib_hash()
    width = max(len(r.notebook) for r in todo)
    total = time.perf_counter()
    for r in todo:
        t = time.perf_counter()
        try:
            status = execute(r, refresh=refresh, lib_hash=lib_hash)
        except BookError:
            print(f"{r.notebook:<{width}}  {r.params:<40} {time.perf_counter() - t:7.1f}s  failed", file=out, flush=True)
            raise
        print(f"{r.notebook:<{width}}  {r.params:<40} {time.perf_counter() - t:7.1f}s  {status}", file=out, flush=True)
    print(f"{len(todo)} notebooks in {time.perf_counter() - total:.1f}s", file=out, flush=True)
    if not html:
        return None
    return build_html(profile, out=out, partial=only is not None)


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
        raise BookError("MathJax files not found: install the book extra (pip install 'pluralign[book]', which "
                        "brings django-static-mathjax)")
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


def build_html(profile: str = "demo", out=sys.stdout, *, partial: bool = False) -> Path:
    """``jupyter-book build`` with warnings as errors; returns the path of index.html. ``partial``: build
    the pages executed so far (after ``--only``), naming the ones left out, instead of refusing."""
    missing = [c for c in _toc_files(toc(profile)) if not _page_exists(c)]
    install_mathjax()
    # the toc generated from the manifest (for demo, when complete, it equals the committed _toc.yml)
    toc_path = ROOT / "book" / "_executed" / f"_toc.{profile}.yml"
    toc_path.parent.mkdir(parents=True, exist_ok=True)
    toc_path.write_text(toc_text(profile, present_only=partial))
    strict = ["-W"]
    if partial and missing:  # references into the left-out pages cannot resolve: warnings are not errors here
        strict = []
        print(f"partial book (warnings not errors): {len(missing)} page(s) not executed yet are left out: "
              f"{', '.join(missing)}", file=out, flush=True)
    elif missing:
        raise BookError(f"pages missing for profile {profile!r}: {missing} (run `pluralign book --profile {profile}`)")
    # jupyter-book writes <path-output>/_build/html: the demo book at _build/html, others at _build/<profile>/_build/html
    out_root = ROOT if profile == "demo" else ROOT / "_build" / profile
    cmd = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(ROOT), "--toc", str(toc_path),
           "--path-output", str(out_root), *strict, "-n", "--keep-going"]
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

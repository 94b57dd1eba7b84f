"""The manifest: which notebook runs with which parameter file in which profile, and in what order.

``manifest.yml`` (project root) is the single place that says which notebook runs with which
parameter file in which profile. The runner (:func:`pluralign.book.execution.build`) and the table of
contents (:func:`pluralign.book.contents.toc`) both follow it, so adding a data set is one parameter file and
one manifest line. :data:`ROOT` is the project root every other book module reads (through this module, so a
test that points it elsewhere points all of them).
"""

from __future__ import annotations

import graphlib
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from pluralign.book.errors import BookError

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
    takes them — those marked ``execute: first`` in the manifest, then the pages they wait for (directly or through
    another page: the recovery's studies and the reward models those read), then the others, each group in book
    order, then those marked ``execute: last`` — and, for each, the runs it starts after: those of the notebooks its
    chapter names under ``after:``; for an ``execute: last`` run (the build report: it reads what every other page
    cached) every run before it."""
    chapters = {ch["run"]: ch for part in m["parts"] for ch in part["chapters"] if "run" in ch}
    mark = {nb: ch.get("execute") for nb, ch in chapters.items()}
    waits = {nb: _names(ch.get("after")) for nb, ch in chapters.items()}
    awaited, stack = set(), [w for r in todo if mark.get(r.notebook) == "first" for w in waits[r.notebook]]
    while stack:  # what this build's pages marked first wait for, directly or through another page
        nb = stack.pop()
        if nb not in awaited:
            awaited.add(nb)
            stack.extend(waits.get(nb, ()))

    def group(r: Run) -> int:
        return {"first": 0, "last": 3}.get(mark.get(r.notebook), 1 if r.notebook in awaited else 2)

    order = sorted(todo, key=group)  # stable: book order within each group
    after = {}
    for i, r in enumerate(order):
        if mark.get(r.notebook) == "last":
            after[r] = set(order[:i])
        else:
            after[r] = {o for o in todo if o.notebook in waits.get(r.notebook, ())}
    return order, after


def _names(value) -> list[str]:
    """A manifest ``after:`` value (one notebook name or a list of them) as a list."""
    return [] if value is None else [value] if isinstance(value, str) else list(value)

"""The table of contents (``_toc.yml``) generated from the manifest, and the Jupyter Book built from it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

from pluralign.book import manifest_plan as plan
from pluralign.book.errors import BookError
from pluralign.book.html import install_mathjax
from pluralign.book.manifest_plan import Run, manifest


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
    return (plan.ROOT / f"{doc}.ipynb").exists() or (plan.ROOT / f"{doc}.md").exists()


def build_html(profile: str = "demo", out=sys.stdout, *, partial: bool = False, out_dir: str | None = None) -> Path:
    """``jupyter-book build`` with warnings as errors; returns the path of index.html. ``partial``: build
    the pages executed so far (after ``--only``), naming the ones left out, instead of refusing. ``out_dir``:
    the executed pages' folder (:func:`build`)."""
    missing = [c for c in _toc_files(toc(profile, out_dir=out_dir)) if not _page_exists(c)]
    install_mathjax(plan.ROOT / "book" / "_static" / "mathjax")
    # the toc generated from the manifest (for demo, when complete, it equals the committed _toc.yml)
    name = Path(out_dir).name if out_dir else profile
    toc_path = plan.ROOT / "book" / "_executed" / f"_toc.{name}.yml"
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
    out_root = (
        plan.ROOT / "_build" / name if out_dir else plan.ROOT if profile == "demo" else plan.ROOT / "_build" / profile
    )
    cmd = [
        str(Path(sys.executable).with_name("jupyter-book")),
        "build",
        str(plan.ROOT),
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
    proc = subprocess.run(cmd, cwd=plan.ROOT, env=env, capture_output=True, text=True)
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

"""The data a page's parameters read: the files its fingerprint follows, and the data sets its note names."""

from __future__ import annotations

from pathlib import Path


def data_files(params: dict, base: Path) -> list[Path]:
    """The local files and folders a page's parameters read (every ``source`` / ``labels_file`` value that is
    an existing path, relative ones under ``base``; ``shared:`` paths in the shared data folder)."""
    from pluralign.data.io import shared_data_dir

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


def files_state(paths: list[Path]) -> list:
    """(path, size, mtime) of every file under ``paths``: a data file that grows or changes changes it."""
    out = []
    for p in paths:
        for f in sorted([p] if p.is_file() else (q for q in p.rglob("*") if q.is_file())):
            st = f.stat()
            out.append((str(f), st.st_size, st.st_mtime_ns))
    return out


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

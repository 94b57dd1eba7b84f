"""A local mirror of the Hugging Face Hub, for air-gapped clusters.

A Hub id (model or data set) resolves to ``$PLURALIGN_MIRROR/<owner>/<name>`` when that folder exists — the
layout ``huggingface-cli download <id> --local-dir $PLURALIGN_MIRROR/<id>`` produces (add ``--repo-type
dataset`` for data sets) — before the Hub is asked; without a mirror folder the standard ``HF_HOME`` cache and
``HF_HUB_OFFLINE`` keep working. With ``HF_HUB_OFFLINE=1`` and a mirror set, an id missing from both fails
with a message naming the id and the folder looked in.

``pluralign mirror list --profile paper`` prints every id a profile's pages use (:func:`profile_ids`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["resolve", "mirror_dir", "MirrorError", "profile_ids", "main"]

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class MirrorError(FileNotFoundError):
    """A Hub id that is neither in the mirror nor reachable offline."""


def mirror_dir() -> Path | None:
    """``$PLURALIGN_MIRROR`` as a path, or None."""
    root = os.environ.get("PLURALIGN_MIRROR")
    return Path(root).expanduser() if root else None


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0", "false", "False")


def is_hub_id(name) -> bool:
    """``owner/name`` that is not an existing local path."""
    return isinstance(name, (str, os.PathLike)) and bool(HUB_ID.match(str(name))) and not Path(str(name)).exists()


def resolve(name, *, kind: str = "model"):
    """The local mirror folder of Hub id ``name`` if there is one, else ``name`` unchanged (a local path, or an id
    for the Hub / its cache). Offline, with a mirror set, a missing id raises :class:`MirrorError`."""
    if not is_hub_id(name):
        return name
    root = mirror_dir()
    if root is None:
        return name
    folder = root / str(name)
    if folder.is_dir():
        return str(folder)
    if _offline() and not _in_hf_cache(str(name), kind):
        raise MirrorError(f"{kind} {name!r} is not in the mirror (looked in {folder}) nor in the Hugging Face cache, "
                          f"and HF_HUB_OFFLINE is set: download it with `huggingface-cli download {name}"
                          f"{' --repo-type dataset' if kind == 'dataset' else ''} --local-dir {folder}`")
    return name


def _in_hf_cache(repo_id: str, kind: str) -> bool:
    try:
        from huggingface_hub import scan_cache_dir
        return any(r.repo_id == repo_id for r in scan_cache_dir().repos)
    except Exception:  # noqa: BLE001 - no cache folder yet
        return False


def profile_ids(profile: str = "paper") -> dict[str, list[str]]:
    """Every Hub id a profile's pages name: ``{"models": [...], "datasets": [...], "endpoints": [...]}``; models
    served behind an OpenAI-compatible endpoint are listed under ``endpoints`` (the server needs them, not
    pluralign)."""
    from pluralign.book import runner
    from pluralign.data.registry import DATASETS, resolve as resolve_dataset
    models, datasets, endpoints = set(), set(), set()

    def walk(o):
        if isinstance(o, dict):
            served = "base_url" in o or o.get("backend") == "openai" or str(o.get("name", "")).startswith("openai:")
            for k, v in o.items():
                if k == "name_or_path" and is_hub_id(v):
                    models.add(str(v))
                elif k == "name" and isinstance(v, str):
                    if served:
                        endpoints.add(v.removeprefix("openai:"))
                    elif is_hub_id(v):
                        models.add(v)
                    else:
                        try:
                            hub = resolve_dataset(v).hub_id
                        except Exception:  # noqa: BLE001 - not a data set name
                            hub = None
                        if hub:
                            datasets.add(hub)
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    for r in runner.runs(profile):
        walk(runner.read_params(runner.ROOT / r.params, r.notebook))
    _ = DATASETS
    return {"models": sorted(models), "datasets": sorted(datasets), "endpoints": sorted(endpoints)}


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys
    p = argparse.ArgumentParser(prog="pluralign mirror", description="the Hub ids a profile needs, for a local mirror")
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list", help="print every model and data set id a profile uses")
    ls.add_argument("--profile", default="paper")
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    ids = profile_ids(a.profile)
    root = mirror_dir() or Path("$PLURALIGN_MIRROR")
    print(f"# Hub ids the '{a.profile}' profile uses; download each into {root}/<id>:")
    for m in ids["models"]:
        print(f"huggingface-cli download {m} --local-dir {root}/{m}")
    for d in ids["datasets"]:
        print(f"huggingface-cli download {d} --repo-type dataset --local-dir {root}/{d}")
    if ids["endpoints"]:
        print("# served behind OpenAI-compatible endpoints (the server needs them, not pluralign):")
        for e in ids["endpoints"]:
            print(f"#   {e}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())

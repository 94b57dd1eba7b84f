"""A local mirror of the Hugging Face Hub, for air-gapped clusters.

A Hub id (model or data set) resolves to ``$PLURALIGN_MIRROR/<owner>/<name>`` when that folder exists — the
layout ``huggingface-cli download <id> --local-dir $PLURALIGN_MIRROR/<id>`` produces (add ``--repo-type
dataset`` for data sets) — before the Hub is asked; without a mirror folder the standard ``HF_HOME`` cache and
``HF_HUB_OFFLINE`` keep working. With ``HF_HUB_OFFLINE=1`` and a mirror set, an id missing from both fails
with a message naming the id and the folder looked in.

``pluralign mirror list --profile paper`` prints every id a profile's pages use
(:func:`pluralign.book.hub_ids.profile_ids`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["resolve", "mirror_dir", "MirrorError", "is_hub_id"]

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
        raise MirrorError(
            f"{kind} {name!r} is not in the mirror (looked in {folder}) nor in the Hugging Face cache, "
            f"and HF_HUB_OFFLINE is set: download it with `huggingface-cli download {name}"
            f"{' --repo-type dataset' if kind == 'dataset' else ''} --local-dir {folder}`"
        )
    return name


def _in_hf_cache(repo_id: str, kind: str) -> bool:
    try:
        from huggingface_hub import scan_cache_dir

        return any(r.repo_id == repo_id for r in scan_cache_dir().repos)
    except Exception:  # noqa: BLE001 - no cache folder yet
        return False

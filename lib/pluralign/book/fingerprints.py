"""A page's fingerprint: what its output depends on, so a page whose inputs are unchanged is not executed again."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from pluralign.book import manifest_plan as plan
from pluralign.book.manifest_plan import Run
from pluralign.book.page_data import data_files, files_state
from pluralign.params import read_params


def _lib_hash() -> str:
    h = hashlib.sha256()
    for p in sorted((plan.ROOT / "lib" / "pluralign").rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(plan.ROOT)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def run_fingerprint(r: Run, lib_hash: str | None = None, params: dict | None = None) -> str:
    """What a page's output depends on: the notebook, its resolved parameters (with included and common
    files; ``params`` where the caller has read them), the profile, the library, and the data files the parameters
    read."""
    h = hashlib.sha256()
    h.update(r.source.read_bytes())
    params = read_params(plan.ROOT / r.params, r.source) if params is None else params
    h.update(json.dumps(params, sort_keys=True, default=str).encode())  # incl. included files
    h.update(r.profile.encode())
    h.update((lib_hash or _lib_hash()).encode())
    h.update(json.dumps(files_state(data_files(params, plan.ROOT))).encode())
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

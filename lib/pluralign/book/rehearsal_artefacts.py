"""What marks a rehearsal mirror's folders (:mod:`pluralign.book.rehearsal`) and what both kinds are made of.

Every model and data set folder of the mirror gets the hidden sidecar :data:`SIDECAR` (:func:`write_sidecar`)
saying it is a rehearsal artefact (:data:`NOTE`); the data sets and the tokenizers' corpus come from the
simulator (:func:`simulated`). JSON is written with sorted keys, so the same arguments write the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

SIDECAR = ".pluralign-rehearsal.json"
NOTE = "rehearsal artefact: random weights / simulated rows; numbers computed on it are meaningless"


class RehearsalError(ValueError):
    """An id the rehearsal mirror has no recipe for."""


def simulated(n: int, seed: int, fmt: str = "multipref", n_annotators: int = 4):
    """``n`` simulated pairs (:func:`pluralign.data.simulate`) for the mirror's data sets and corpus."""
    from pluralign.data.simulate import simulate

    return simulate(n_pairs=n, seed=seed, annotation_format=fmt, n_annotators=n_annotators, n_monte_carlo=200)


def write_json(path: Path, obj) -> None:
    """``obj`` as indented JSON with sorted keys (the same object, the same bytes)."""
    path.write_text(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def write_sidecar(folder: Path, info: dict) -> None:
    """The hidden sidecar saying that ``folder`` is a rehearsal artefact, with ``info`` about it."""
    write_json(folder / SIDECAR, {"rehearsal": True, "note": NOTE, "generator": "pluralign.book.rehearsal", **info})

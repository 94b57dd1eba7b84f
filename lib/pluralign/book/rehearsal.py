"""A rehearsal mirror: every Hub id a profile uses, written locally so that the profile runs
offline on CPU before anyone spends GPU hours on it.

``build_mirror(dir, profile="paper")`` (``pluralign mirror rehearsal DIR``) writes, under ``DIR/<owner>/<name>``
(the layout of ``huggingface-cli download <id> --local-dir DIR/<id>``, which :mod:`pluralign.mirror` reads):

- for every **model** id: a model of the real model's architecture class and tokenizer family (:data:`MODELS`:
  the real ``model_type``, ``architectures`` and the settings that change code paths, e.g. DeBERTa-v3's relative
  positions only), at a tiny size with seeded random weights, in safetensors; its tokenizer is trained here on
  simulator texts (SentencePiece unigram for DeBERTa-v3, WordPiece for ELECTRA, byte-level BPE with the Llama-3
  special tokens and chat template for Llama-3) — nothing is downloaded;
- for every **data set** id: files in that data set's Hub schema and file layout
  (:data:`pluralign.book.rehearsal_datasets.DATASETS`), filled from the real files of ``../shared/data`` where the
  workplace has them (Anthropic/hh-rlhf harmless-base) and from :func:`pluralign.data.simulate` elsewhere, ``rows``
  pairs per split (more where the profile holds out more: :data:`pluralign.book.rehearsal_datasets.MIN_ROWS`).

Each folder gets a hidden ``.pluralign-rehearsal.json`` sidecar (a hidden file: neither ``datasets`` nor the
project's folder reader takes it for data) saying that it is a rehearsal artefact — random weights, simulated
or subsampled rows — and ``DIR/REHEARSAL.json`` indexes them. Numbers computed on this mirror are meaningless;
it exists to find typos, schema mismatches, missing options and CUDA-only code paths. Deterministic: the same
arguments write the same bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from pluralign.book.rehearsal_artefacts import NOTE, SIDECAR, RehearsalError, write_json
from pluralign.book.rehearsal_datasets import DATASETS, build_dataset
from pluralign.book.rehearsal_models import MODELS, build_model

__all__ = ["build_mirror", "build_model", "MODELS", "RehearsalError", "SIDECAR"]


def build_mirror(
    root: str | Path, profile: str = "paper", *, rows: int = 200, seed: int = 0, ids: dict | None = None
) -> dict:
    """Every model and data set id of ``profile`` (:func:`pluralign.book.hub_ids.profile_ids`) under ``root``.
    An id without a recipe is refused before anything is written. Returns (and writes as
    ``root/REHEARSAL.json``) ``{"profile", "models": {id: folder}, "datasets": {id: folder}, "endpoints"}``."""
    from pluralign.book.hub_ids import profile_ids

    ids = ids or profile_ids(profile)
    unknown = [m for m in ids.get("models", []) if m not in MODELS] + [
        d for d in ids.get("datasets", []) if d not in DATASETS
    ]
    if unknown:
        raise RehearsalError(
            f"the {profile!r} profile uses {', '.join(map(repr, unknown))}, for which the rehearsal "
            "mirror has no recipe: add the real architecture to pluralign.book.rehearsal.MODELS "
            "or a writer in the Hub layout to DATASETS"
        )
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    out = {
        "profile": profile,
        "note": NOTE,
        "rows_per_split": rows,
        "seed": seed,
        "models": {m: str(build_model(m, root, seed=seed).relative_to(root)) for m in ids.get("models", [])},
        "datasets": {
            d: str(build_dataset(d, root, rows=rows, seed=seed).relative_to(root)) for d in ids.get("datasets", [])
        },
        "endpoints": list(ids.get("endpoints", [])),
    }
    write_json(root / "REHEARSAL.json", out)
    return out


def main(argv: list[str] | None = None) -> int:
    """``pluralign mirror rehearsal DIR [--profile paper] [--rows N] [--seed S]``."""
    import argparse

    p = argparse.ArgumentParser(prog="pluralign mirror rehearsal")
    p.add_argument("dir")
    p.add_argument("--profile", default="paper")
    p.add_argument("--rows", type=int, default=200, help="pairs per split of each data set (MIN_ROWS at least)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    try:
        out = build_mirror(a.dir, a.profile, rows=a.rows, seed=a.seed)
    except RehearsalError as e:
        import sys

        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"# rehearsal mirror of the '{a.profile}' profile in {a.dir} ({NOTE}); use it with")
    print(f"export PLURALIGN_MIRROR={os.path.abspath(a.dir)} HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1")
    for kind in ("models", "datasets"):
        for k in out[kind]:
            print(f"{kind[:-1]:8s} {k}")
    return 0

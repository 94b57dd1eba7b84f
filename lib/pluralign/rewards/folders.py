"""A reward model written to a folder: its config file (``pluralign_rm.json``), its identity (the content of its
files, not its path), which code it may run, and opening it again as the backend its config names."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

from pluralign.cache import fingerprint

RM_CONFIG = "pluralign_rm.json"

#: backend name → :class:`~pluralign.rewards.base.RewardModel` subclass (each subclass registers itself)
BACKENDS: dict[str, type] = {}


def remote_code_from_caller(folder, cfg: dict, trust_remote_code: bool = False) -> bool:
    """Whether a model folder's own code may run: only the caller decides (``trust_remote_code=True``), never a
    file inside the folder; a folder whose config asks for it gets a warning saying how to allow it."""
    if cfg.get("trust_remote_code") and not trust_remote_code:
        warnings.warn(
            f"{folder}: its {RM_CONFIG} asks for trust_remote_code; it stays off (a model folder cannot "
            "switch on its own code). Pass trust_remote_code=True to load() if you trust this folder.",
            stacklevel=3,
        )
    return bool(trust_remote_code)


def open_trained(
    folder,
    *,
    device=None,
    dtype=None,
    batch_size: int = 32,
    load_in_8bit: bool = False,
    trust_remote_code: bool = False,
    trained_from: str | None = None,
):
    """The reward model a ``.train()`` folder (or any folder with ``pluralign_rm.json``) holds, by the backend
    its config names. Its own code runs only if the caller passes ``trust_remote_code=True``.

    A folder that holds only a head (a frozen encoder's) or LoRA adapters names the model it was trained from
    (``encoder`` / ``base`` in its config). ``trained_from`` says where that same model lives now, for a
    local model folder that moved since the training (another checkout, another virtual environment); a
    recorded local folder that no longer exists is refused with this advice."""
    cfg = read_rm_config(folder)
    if not cfg:
        raise FileNotFoundError(f"{folder}: no {RM_CONFIG} (not a reward model written by pluralign)")
    cfg = _with_trained_from(folder, cfg, trained_from)
    if cfg["backend"] not in BACKENDS:
        raise ValueError(f"{folder}: unknown reward-model backend {cfg['backend']!r} (known: {sorted(BACKENDS)})")
    cls = BACKENDS[cfg["backend"]]
    if cls.backend == "frozen-encoder":
        return cls.from_folder(
            folder, cfg, device=device, dtype=dtype, batch_size=max(batch_size, 64), trust_remote_code=trust_remote_code
        )
    extra = {"load_in_8bit": load_in_8bit or None} if cls.backend == "causal" else {}
    return cls.from_folder(
        folder, cfg, device=device, dtype=dtype, batch_size=batch_size, trust_remote_code=trust_remote_code, **extra
    )


def _with_trained_from(folder, cfg: dict, trained_from: str | None) -> dict:
    """``cfg`` with the model it was trained from (``encoder`` or LoRA ``base``) replaced by ``trained_from``;
    a recorded absolute path that no longer exists, with no ``trained_from``, is an error naming the folder,
    the field and the path."""
    field = "encoder" if cfg.get("backend") == "frozen-encoder" else "base" if cfg.get("lora") else None
    if field is None:
        return cfg
    if trained_from is not None:
        return {**cfg, field: str(trained_from)}
    recorded = str(cfg.get(field) or "")
    if Path(recorded).is_absolute() and not Path(recorded).exists():
        raise FileNotFoundError(
            f"{Path(folder) / RM_CONFIG}: field {field!r} names {recorded}, which no longer exists (the model was "
            "trained from a local folder that has moved); open it with pluralign.rewards.folders.open_trained(folder, "
            "trained_from=<the same model's current path>)"
        )
    return cfg


def write_rm_config(folder: Path, cfg: dict) -> None:
    (Path(folder) / RM_CONFIG).write_text(json.dumps(cfg, indent=1, default=str))


def read_rm_config(folder) -> dict | None:
    p = Path(folder) / RM_CONFIG
    return json.loads(p.read_text()) if p.exists() else None


_CONTENT_HASHES: dict[tuple, str] = {}


def _file_hash(f: Path) -> str:
    """SHA-256 of a file's bytes (memoised per path, size and mtime within a process)."""
    st = f.stat()
    key = (str(f.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _CONTENT_HASHES:
        h = hashlib.sha256()
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
        _CONTENT_HASHES[key] = h.hexdigest()
    return _CONTENT_HASHES[key]


def folder_identity(path: str | Path) -> str:
    """A local model folder's identity: its folder name plus a hash of the content of its files (weights,
    config, tokenizer), so another model copied into the same folder never reuses the first one's cached
    scores or embeddings, and the same model in another folder or checkout reuses them."""
    p = Path(path)
    if (p / RM_CONFIG).exists():
        cfg = read_rm_config(p)
        if cfg.get("identity"):
            return cfg["identity"]
    files = sorted(
        f for f in p.rglob("*") if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
    )
    content = [(str(f.relative_to(p)), _file_hash(f)) for f in files]
    return f"{p.name}#{fingerprint(content)[:16]}"


__all__ = [
    "RM_CONFIG",
    "BACKENDS",
    "remote_code_from_caller",
    "open_trained",
    "write_rm_config",
    "read_rm_config",
    "folder_identity",
]

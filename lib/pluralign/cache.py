"""Content-addressed, atomic, resumable on-disk cache for heavy steps.

Every heavy step (scores, labels, trained models, embeddings) is stored under a key built from
``step`` (a name), the fingerprint of its inputs and its settings. Writes go to a temporary
sibling and are moved into place with :func:`os.replace`, so a crash never leaves a corrupt entry.
Long item-by-item jobs (LLM labelling) use :class:`ItemStore`, an append-only JSONL journal that
survives a kill: finished items are neither lost nor redone.

The cache folder is ``$PLURALIGN_CACHE`` if set, else the user's cache folder (``~/.cache/pluralign`` on Linux).
``$PLURALIGN_REFRESH=1`` (or ``pluralign book --refresh``) recomputes every entry once per process.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pickle
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "cache_dir",
    "fingerprint",
    "key",
    "cached",
    "Entry",
    "ItemStore",
    "refreshing",
    "stats",
    "clean_stale_temps",
]

_STATS = {"hits": 0, "misses": 0}
_REFRESHED: set[str] = set()


_CLEANED: set[str] = set()


def cache_dir() -> Path:
    """The root folder of the cache (created on first use; stale temporary folders of killed writers are
    removed the first time a process uses it)."""
    root = Path(os.environ.get("PLURALIGN_CACHE") or user_cache_dir())
    root.mkdir(parents=True, exist_ok=True)
    if str(root) not in _CLEANED:
        _CLEANED.add(str(root))
        clean_stale_temps(root)
    return root


def user_cache_dir() -> Path:
    """The platform's user cache folder for pluralign (``~/.cache/pluralign`` on Linux)."""
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("pluralign", appauthor=False))
    except ImportError:  # pragma: no cover - platformdirs comes with jupyter / pip
        return Path.home() / ".cache" / "pluralign"


def _refresh_on() -> bool:
    return os.environ.get("PLURALIGN_REFRESH", "") not in ("", "0", "false", "False")


@contextlib.contextmanager
def refreshing() -> Iterator[None]:
    """Recompute every cache entry touched inside the block (once each)."""
    old = os.environ.get("PLURALIGN_REFRESH")
    os.environ["PLURALIGN_REFRESH"] = "1"
    _REFRESHED.clear()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PLURALIGN_REFRESH", None)
        else:
            os.environ["PLURALIGN_REFRESH"] = old


def stats() -> dict:
    """Hits and misses of this process (the build report shows them)."""
    return dict(_STATS)


def _update(h: hashlib._Hash, obj: Any) -> None:
    if obj is None:
        h.update(b"N")
    elif isinstance(obj, (bool, int, float, str)):
        h.update(f"{type(obj).__name__}:{obj!r}".encode())
    elif isinstance(obj, bytes):
        h.update(b"B" + obj)
    elif isinstance(obj, Path):
        h.update(b"P" + str(obj).encode())
    elif isinstance(obj, pd.DataFrame):
        h.update(b"DF" + repr(list(obj.columns)).encode() + repr(list(map(str, obj.dtypes))).encode())
        h.update(pd.util.hash_pandas_object(obj, index=True).values.tobytes())
    elif isinstance(obj, pd.Series):
        h.update(b"S" + str(obj.name).encode() + str(obj.dtype).encode())
        h.update(pd.util.hash_pandas_object(obj, index=True).values.tobytes())
    elif isinstance(obj, np.ndarray):
        h.update(b"A" + str(obj.dtype).encode() + repr(obj.shape).encode())
        h.update(np.ascontiguousarray(obj).tobytes() if obj.dtype != object else pickle.dumps(obj.tolist()))
    elif isinstance(obj, dict):
        h.update(b"D")
        for k in sorted(obj, key=str):
            _update(h, str(k))
            _update(h, obj[k])
    elif isinstance(obj, (list, tuple)):
        h.update(b"L" + str(len(obj)).encode())
        for x in obj:
            _update(h, x)
    elif hasattr(obj, "fingerprint"):
        fp = obj.fingerprint
        _update(h, fp() if callable(fp) else fp)
    else:
        h.update(b"R" + repr(obj).encode())


def fingerprint(*objs: Any) -> str:
    """A stable SHA-256 hex digest of data frames, arrays, dicts, lists, scalars and paths.

    Objects that define ``fingerprint`` (a method or attribute, e.g. ``PreferenceData``) are
    fingerprinted by it."""
    h = hashlib.sha256()
    for o in objs:
        _update(h, o)
    return h.hexdigest()


def key(step: str, inputs: Any = None, settings: Any = None) -> str:
    """The cache key of a step: ``<step>/<sha256(inputs fingerprint, settings)>`` (first 24 hex)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in step)
    return f"{safe}/{fingerprint(inputs, settings)[:24]}"


def _atomic_write(path: Path, write: Callable[[Path], None], *, replace: bool = True) -> None:
    """Write into a temporary sibling, then move it into place in one rename. A folder entry that another
    writer put in place meanwhile is kept (same key, same content) unless ``replace``; a replaced folder is
    first renamed aside, so a reader never sees a missing or half-written entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-", dir=path.parent))
    try:
        target = tmp / path.name
        write(target)
        if not target.is_dir():
            os.replace(target, path)
            return
        if path.exists():
            if not replace:
                return
            try:
                os.rename(path, tmp / "old")
            except FileNotFoundError:
                pass
        try:
            os.rename(target, path)
        except OSError:  # a concurrent writer finished first: its entry has the same key and content
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


STALE_TEMP_S = 3600.0  # a temporary folder this old was left by a killed writer


def _temp_folders(root: Path, depth: int = 2) -> list[Path]:
    """The ``.<entry>.tmp-*`` names in ``root`` and its sub-folders down to ``depth`` levels. Written with
    ``os.scandir`` rather than ``Path.glob``: another writer may rename or remove a folder while the tree is
    read, and ``glob`` then raises (FileNotFoundError) instead of passing over it."""
    found, todo = [], [(Path(root), 0)]
    while todo:
        folder, level = todo.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone (or replaced) since it was listed
        for e in entries:
            if e.name.startswith(".") and ".tmp-" in e.name:
                found.append(Path(e.path))
            elif level < depth and not e.name.startswith("."):
                try:
                    if e.is_dir(follow_symlinks=False):
                        todo.append((Path(e.path), level + 1))
                except FileNotFoundError:
                    continue
    return found


def clean_stale_temps(root: Path | None = None, older_than: float = STALE_TEMP_S) -> int:
    """Remove temporary folders that killed writers left in the cache (``.<entry>.tmp-*``, older than
    ``older_than`` seconds so that live writers are never touched); returns how many."""
    root = root or cache_dir()
    now, n = time.time(), 0
    for d in _temp_folders(root):
        try:
            if d.is_dir() and now - d.stat().st_mtime > older_than:
                shutil.rmtree(d, ignore_errors=True)
                n += 1
        except FileNotFoundError:
            continue
    return n


_FORMATS = {
    "parquet": (".parquet", lambda p, v: v.to_parquet(p), lambda p: pd.read_parquet(p)),
    "npy": (".npy", lambda p, v: np.save(p, v, allow_pickle=False), lambda p: np.load(p, allow_pickle=False)),
    "json": (
        ".json",
        lambda p, v: p.write_text(json.dumps(v, indent=1, default=str)),
        lambda p: json.loads(p.read_text()),
    ),
    "pickle": (".pkl", lambda p, v: p.write_bytes(pickle.dumps(v)), lambda p: pickle.loads(p.read_bytes())),
    # a folder written by the compute function itself (trained models): value is the folder path
    "dir": ("", None, lambda p: p),
}


def auto_format(value: Any) -> str:
    """How ``fmt="auto"`` stores a value: a DataFrame as Parquet, an array as ``.npy``, JSON-able data as JSON;
    anything else is refused (pickle runs code on load, so it is used only where a caller asks for it)."""
    if isinstance(value, pd.DataFrame):
        return "parquet"
    if isinstance(value, np.ndarray) and value.dtype != object:
        return "npy"
    try:
        json.dumps(value)
        return "json"
    except (TypeError, ValueError):
        raise TypeError(
            f"the cache stores tables, arrays and JSON-able values; a {type(value).__name__} needs "
            "fmt='pickle' (only for values you produced yourself)"
        ) from None


@dataclass(frozen=True)
class Entry:
    """One cache entry: ``path`` on disk, ``fmt`` one of auto (by the value's type: :func:`auto_format`) /
    parquet / npy / json / dir / pickle (only where the caller asks)."""

    step: str
    inputs: Any = None
    settings: Any = None
    fmt: str = "auto"

    @functools.cached_property
    def key(self) -> str:
        """The entry's key (:func:`key`), fingerprinted once per entry: its inputs can be large (every text a scoring
        step reads), and a lookup reads the key several times."""
        return key(self.step, self.inputs, self.settings)

    def _stored_fmt(self) -> str | None:
        if self.fmt != "auto":
            return self.fmt
        return next(
            (f for f in ("parquet", "npy", "json") if (cache_dir() / (self.key + _FORMATS[f][0])).exists()), None
        )

    @property
    def path(self) -> Path:
        fmt = self._stored_fmt()
        return cache_dir() / (self.key + (_FORMATS[fmt][0] if fmt else ""))

    def exists(self) -> bool:
        return self._stored_fmt() is not None and self.path.exists()

    def load(self) -> Any:
        return _FORMATS[self._stored_fmt()][2](self.path)

    def save(self, value: Any) -> None:
        if self.fmt == "dir":
            raise TypeError("a 'dir' entry is written by get_or_compute(compute(folder))")
        fmt = auto_format(value) if self.fmt == "auto" else self.fmt
        _atomic_write(cache_dir() / (self.key + _FORMATS[fmt][0]), lambda p: _FORMATS[fmt][1](p, value))
        (cache_dir() / self.step.split("/")[0]).mkdir(parents=True, exist_ok=True)

    def get_or_compute(self, compute: Callable[..., Any]) -> Any:
        """Return the cached value, or compute it, store it atomically and return it.

        For ``fmt='dir'``, ``compute(folder)`` must fill ``folder``; the folder path is returned. Where another
        process (a page the book executes beside this one) is computing the same entry, this one waits for it
        and reads its value instead of computing it twice (:func:`_computing`)."""
        refresh = _refresh_on() and self.key not in _REFRESHED
        if self.exists() and not refresh:
            _STATS["hits"] += 1
            return self.load()
        with _computing(self.key) as waited:
            if waited and not refresh and self.exists():
                _STATS["hits"] += 1
                return self.load()
            _STATS["misses"] += 1
            if self.fmt == "dir":
                _atomic_write(self.path, lambda t: (t.mkdir(), compute(t)), replace=refresh)
            else:
                value = compute()
                self.save(value)
        if refresh:
            _REFRESHED.add(self.key)
        return self.load()

    def busy(self) -> bool:
        """Whether another process is computing this entry now (holds its lock, :func:`_computing`): a caller with
        several entries to fill can take the others first and read this one when it is done."""
        import fcntl

        path = _lock_path(self.key)
        if not path.exists():
            return False
        with open(path, "a") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(fh, fcntl.LOCK_UN)
            return False


def _lock_path(key: str) -> Path:
    """The lock file of the entry ``key``: the hidden file ``<step>/.<hash>.lock``."""
    step, _, digest = key.rpartition("/")
    return cache_dir() / step / f".{digest}.lock"


_HELD = threading.local()  # .n: how many entries this thread is computing (holding their locks) right now


@contextlib.contextmanager
def _computing(key: str) -> Iterator[bool]:
    """Hold the lock of the entry ``key`` while computing it (an exclusive ``flock`` on the hidden file
    ``<step>/.<hash>.lock``); yields whether this thread had to wait for another holder (which has then, as a
    rule, stored the entry). A thread that already holds an entry's lock (a computation that needs another entry)
    never waits: where that entry is locked elsewhere it computes it itself, so two processes each computing one
    entry and needing the other's can never wait on each other."""
    import fcntl

    path = _lock_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    depth = getattr(_HELD, "n", 0)
    with open(path, "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            waited, locked = False, True
        except BlockingIOError:
            if depth:
                waited, locked = False, False
            else:
                fcntl.flock(fh, fcntl.LOCK_EX)
                waited, locked = True, True
        _HELD.n = depth + 1
        try:
            yield waited
        finally:
            _HELD.n = depth
            if locked:
                fcntl.flock(fh, fcntl.LOCK_UN)


def cached(step: str, inputs: Any = None, settings: Any = None, fmt: str = "auto"):
    """``cached(step, inputs, settings, fmt)(compute)`` → cached result of ``compute()``."""
    entry = Entry(step, inputs, settings, fmt)
    return entry.get_or_compute


class ItemStore:
    """Append-only journal of finished items of a long job, keyed by item key.

    Each ``put`` appends one JSON line and flushes it to disk (``fsync``), so after a kill every
    finished item is still there; a torn last line (killed mid-write) is ignored on reading.
    ``missing(keys)`` says which items still need work.
    """

    def __init__(self, step: str, settings: Any = None, path: str | Path | None = None):
        self.path = Path(path) if path else cache_dir() / (key(step, None, settings) + ".jsonl")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if _refresh_on() and str(self.path) not in _REFRESHED:
            self.path.unlink(missing_ok=True)
            _REFRESHED.add(str(self.path))
        self._items: dict[str, Any] = {}
        if self.path.exists():
            raw = self.path.read_bytes()
            good = raw.rfind(b"\n") + 1
            if good < len(raw):  # a torn write at the end of a killed run: cut it off
                with open(self.path, "r+b") as f:
                    f.truncate(good)
            for line in raw[:good].splitlines():
                try:
                    rec = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                self._items[rec["k"]] = rec["v"]
        self._fh = None

    def __contains__(self, k: str) -> bool:
        return k in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, k: str, default: Any = None) -> Any:
        return self._items.get(k, default)

    def items(self) -> dict[str, Any]:
        return dict(self._items)

    def missing(self, keys) -> list[str]:
        return [k for k in keys if k not in self._items]

    @contextlib.contextmanager
    def lock(self):
        """Hold the job's lock (an exclusive ``flock`` on ``<journal>.lock``) for the duration: a second run of
        the same job waits here, then finds the first run's items in the journal instead of sending them
        again."""
        import fcntl

        with open(self.path.with_suffix(".lock"), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                self._reload()
                yield self
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _reload(self) -> None:
        if self.path.exists():
            for line in self.path.read_bytes().splitlines():
                try:
                    rec = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                self._items[rec["k"]] = rec["v"]

    def put(self, k: str, v: Any) -> None:
        if self._fh is None:
            self._fh = open(self.path, "ab")
        self._fh.write((json.dumps({"k": k, "v": v, "t": time.time()}, default=str) + "\n").encode())
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._items[k] = v

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ItemStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

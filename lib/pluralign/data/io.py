"""Reading sources into raw tables, with errors that name the file, the row and the field.

Every loader goes through :func:`read_source`: a Hub id (``datasets.load_dataset``) by default, or a
local file / folder (``source=``) in the Hub's own schema — JSON Lines (``.jsonl``, ``.jsonl.gz``),
JSON arrays (``.json``, ``.json.gz``), Parquet, CSV/TSV. The raw frame gets two bookkeeping columns,
``_file`` and ``_row`` (1-based line number for JSON Lines and CSV, 1-based record number otherwise),
so that a later check can say *where* a bad value came from (the data model: "refuses bad
input with an error that names the file, the row and the field"; the checks themselves are
:mod:`pluralign.data.checks`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pluralign.data.core import DataError

FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet", ".csv": "csv", ".tsv": "tsv"}
COMPRESSIONS = (".gz", ".bz2", ".xz")
SUFFIXES = tuple(f + c for f in FORMATS if f != ".parquet" for c in COMPRESSIONS) + tuple(FORMATS)
IGNORED_IN_FOLDERS = {"readme", "license", "licence", ".gitattributes", "notice"}
ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------------------------
def _suffix(path: Path) -> str:
    name = path.name.lower()
    for s in SUFFIXES:
        if name.endswith(s):
            return s
    return path.suffix.lower()


def _documentation(path: Path) -> bool:
    """A README / LICENSE / NOTICE (any extension), a Markdown page or a Hub loading script: left out of a data
    folder. Any other file (``data.txt`` included) is data of an unsupported type, refused, never skipped."""
    name = path.name.lower()
    return (
        path.stem.lower() in IGNORED_IN_FOLDERS
        or name in IGNORED_IN_FOLDERS
        or name.split(".")[0] in IGNORED_IN_FOLDERS
        or path.suffix.lower() in (".md", ".py")
    )


def list_files(source: str | os.PathLike, pattern: str | None = None) -> list[Path]:
    """The data files of ``source`` (a file, or every supported file under a folder, sorted)."""
    path = Path(source).expanduser()
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.rglob(pattern or "*") if p.is_file() and not p.name.startswith("."))
        files = [p for p in found if _suffix(p) in SUFFIXES]
        others = [p for p in found if _suffix(p) not in SUFFIXES and not _documentation(p)]
        if files and others:  # nothing is skipped silently
            raise DataError(
                f"{len(others)} file(s) of an unsupported type in the data folder, e.g. "
                f"{others[0].relative_to(path)} (supported: {', '.join(SUFFIXES)}); read one file with "
                "source=FILE, or pass pattern='*.jsonl'",
                file=path,
            )
        if not files:
            raise DataError(f"no data files ({', '.join(SUFFIXES)}) in folder", file=path)
        return files
    raise DataError("no such file or folder", file=path)


def _read_bytes(path: Path) -> bytes:
    raw = path.read_bytes()
    name = path.name.lower()
    if name.endswith(".gz"):
        try:
            return gzip.decompress(raw)
        except EOFError as err:  # truncated stream: find how far it got
            good = _partial_gunzip(raw)
            line = good.count(b"\n") + 1
            raise DataError(
                f"truncated gzip file ({err}); the data stops inside line {line}: re-download it", file=path, row=line
            ) from None
        except (OSError, zlib.error) as err:
            raise DataError(f"not a valid gzip file ({err})", file=path) from None
    if name.endswith((".bz2", ".xz")):
        import bz2
        import lzma

        try:
            return bz2.decompress(raw) if name.endswith(".bz2") else lzma.decompress(raw)
        except (OSError, ValueError, EOFError, lzma.LZMAError) as err:
            raise DataError(f"not a valid {path.suffix} file ({err})", file=path) from None
    return raw


def _partial_gunzip(raw: bytes) -> bytes:
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        return d.decompress(raw)
    except zlib.error:
        return b""


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise DataError(
            f"bytes that are not UTF-8 ({data[err.start : err.end]!r} at column {col}); re-encode the file as UTF-8",
            file=path,
            row=line,
        ) from None


def read_jsonl(path: Path) -> pd.DataFrame:
    """JSON Lines → DataFrame; ``_row`` is the 1-based line number (blank lines are skipped).

    Fast path: pyarrow's multi-threaded JSON reader (files without blank lines); on any problem the
    line-by-line reader takes over, which names the first bad line."""
    data = _read_bytes(path)
    text = _decode(data, path)
    import re

    blank_line = re.compile(rb"(^|\n)[ \t\r\f\v]*(\n|$)")  # empty, whitespace-only or CRLF-blank lines
    if data and not blank_line.search(data.rstrip(b"\r\n") if data.endswith(b"\n") else data):
        del text
        try:
            import pyarrow as pa
            import pyarrow.json as pj

            table = pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(block_size=1 << 24))
            df = table.to_pandas()
            df["_row"] = np.arange(1, len(df) + 1)
            return df
        except Exception:  # noqa: BLE001 - mixed types, bad JSON, ...: the careful path below explains
            pass
        text = data.decode("utf-8")
    del data
    lines = text.split("\n")
    loads = json.loads
    try:
        records = [loads(s) for s in lines if s.strip()]
    except json.JSONDecodeError:
        for i, s in enumerate(lines, 1):
            if s.strip():
                try:
                    loads(s)
                except json.JSONDecodeError as err:
                    raise DataError(f"invalid JSON ({err.msg} at column {err.colno})", file=path, row=i) from None
        raise
    rows = np.fromiter((i for i, s in enumerate(lines, 1) if s.strip()), dtype=np.int64)
    bad = next((k for k, r in enumerate(records) if not isinstance(r, dict)), None)
    if bad is not None:
        raise DataError(
            f"a JSON object is expected on every line, got {type(records[bad]).__name__}", file=path, row=int(rows[bad])
        )
    df = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    df["_row"] = rows
    return df


def read_json(path: Path) -> pd.DataFrame:
    """A JSON array of objects (or ``{"data": [...]}``); ``_row`` is the 1-based record number."""
    text = _decode(_read_bytes(path), path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        # maybe it is JSON Lines with a .json name
        if text.lstrip().startswith("{") and err.msg == "Extra data":
            return read_jsonl(path)
        raise DataError(f"invalid JSON ({err.msg} at column {err.colno})", file=path, row=err.lineno) from None
    if isinstance(obj, dict):
        obj = obj.get("data", obj.get("rows", [obj]))
    if not isinstance(obj, list):
        raise DataError("a JSON array of records is expected", file=path)
    bad = next((k for k, r in enumerate(obj) if not isinstance(r, dict)), None)
    if bad is not None:
        raise DataError(f"record {bad + 1} is not a JSON object", file=path, row=bad + 1)
    df = pd.DataFrame.from_records(obj) if obj else pd.DataFrame()
    df["_row"] = np.arange(1, len(obj) + 1)
    return df


def read_csv(path: Path, sep: str = ",") -> pd.DataFrame:
    """CSV / TSV → DataFrame of strings; ``_row`` is the 1-based line where each record starts (the header is
    line 1; blank lines — empty, whitespace-only, CRLF — and quoted line breaks counted, so the number is the
    one an editor shows). A record with more fields than the header is refused; one with fewer has the
    missing fields absent (null), so the check of a required field names its row."""
    import csv
    import io as _io

    text = _decode(_read_bytes(path), path)
    if not text.strip():
        raise DataError("empty file (no header, no rows)", file=path)
    reader = csv.reader(_io.StringIO(text, newline=""), delimiter=sep)
    records, rows, header, line = [], [], None, 0
    try:
        for rec in reader:
            start, line = line + 1, reader.line_num
            if not rec or (len(rec) == 1 and not rec[0].strip()):  # a blank line
                continue
            if header is None:
                header = [h.strip() for h in rec]
                dup = next((h for h in header if header.count(h) > 1), None)
                if dup is not None:
                    raise DataError("the header names this column twice", file=path, row=start, field=dup)
                continue
            if len(rec) > len(header):
                raise DataError(
                    f"{len(rec)} fields but the header (line 1) names {len(header)}; quote a field "
                    "that holds the separator",
                    file=path,
                    row=start,
                )
            records.append(rec + [None] * (len(header) - len(rec)))
            rows.append(start)
    except csv.Error as err:
        raise DataError(f"cannot parse CSV ({err})", file=path, row=reader.line_num) from None
    df = pd.DataFrame(records, columns=header, dtype=object)
    df["_row"] = np.asarray(rows, dtype=np.int64)
    return df


def read_table(path: Path) -> pd.DataFrame:
    suffix = _suffix(path)
    kind = FORMATS.get(next((suffix[: -len(c)] for c in COMPRESSIONS if suffix.endswith(c)), suffix))
    if kind == "jsonl":
        df = read_jsonl(path)
    elif kind == "json":
        df = read_json(path)
    elif kind == "parquet":
        try:
            df = pd.read_parquet(path)
        except Exception as err:  # noqa: BLE001 - pyarrow raises many types
            raise DataError(f"cannot read Parquet ({err})", file=path) from None
        df["_row"] = np.arange(1, len(df) + 1)
    elif kind in ("csv", "tsv"):
        df = read_csv(path, "\t" if kind == "tsv" else ",")
    else:
        raise DataError(f"unsupported file type {suffix!r} (use one of {', '.join(SUFFIXES)})", file=path)
    if not len(df):  # an empty file, a header without rows, an empty JSON array: no data is not a data set
        raise DataError("no records in this file (empty, or a header / empty array only)", file=path)
    df["_file"] = str(path)
    return df


def read_files(source, pattern: str | None = None) -> pd.DataFrame:
    """A file, every data file of a folder (concatenated, ``_part`` naming each), or a DataFrame (copied;
    ``_row`` is its 1-based position, ``_file`` is ``<DataFrame>``)."""
    if isinstance(source, pd.DataFrame):
        df = source.reset_index(drop=True).copy()
        df["_row"] = np.arange(1, len(df) + 1)
        df["_file"] = "<DataFrame>"
        return df
    files = list_files(source, pattern)
    frames = [read_table(f) for f in files]
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if len(files) > 1:
        base = Path(source)
        df["_part"] = [str(Path(f).relative_to(base)) for f in df["_file"]]
    return df


# ---------------------------------------------------------------------------------------------
# the Hub
# ---------------------------------------------------------------------------------------------
def read_hub(
    hub_id: str,
    *,
    name: str | None = None,
    split: str | None = None,
    data_dir: str | None = None,
    data_files: Any = None,
    revision: str | None = None,
) -> pd.DataFrame:
    """``datasets.load_dataset(hub_id, name, split=..., data_dir=...)`` → DataFrame with ``_row``.

    A Hub id that cannot be reached (offline, gated, misspelt) raises :class:`DataError` that says how
    to download the files and point ``source=`` at them."""
    try:
        import datasets

        kw = {
            k: v
            for k, v in dict(
                name=name, split=split, data_dir=data_dir, data_files=data_files, revision=revision
            ).items()
            if v is not None
        }
        from pluralign.mirror import MirrorError, resolve

        try:
            where_from = resolve(hub_id, kind="dataset")  # $PLURALIGN_MIRROR/<id> when it holds the data set
        except MirrorError as err:
            raise DataError(str(err), file=f"hf://datasets/{hub_id}") from None
        ds = datasets.load_dataset(where_from, **kw)
    except DataError:
        raise
    except Exception as err:  # noqa: BLE001 - network, auth, offline mode, missing config: all the same to a user
        where = f"data_dir={data_dir!r}, " if data_dir else ""
        raise DataError(
            f"cannot reach the Hugging Face Hub dataset {hub_id!r} ({where}split={split!r}): "
            f"{type(err).__name__}: {str(err)[:300]}. Download its files (e.g. `huggingface-cli download "
            f"{hub_id} --repo-type dataset --local-dir DIR`) and pass source='DIR/path/to/file.jsonl' "
            "(or a folder, same schema as the Hub's) to pluralign.data.load",
            file=f"hf://datasets/{hub_id}",
        ) from None
    if hasattr(ds, "keys") and not hasattr(ds, "to_pandas"):  # DatasetDict: concatenate the splits
        frames = []
        for sp in ds.keys():
            f = ds[sp].to_pandas()
            f["_split"] = sp
            frames.append(f)
        df = pd.concat(frames, ignore_index=True)
    else:
        df = ds.to_pandas()
        if split:
            df["_split"] = split
    df["_row"] = np.arange(1, len(df) + 1)
    df["_file"] = f"hf://datasets/{hub_id}" + (f"/{data_dir}" if data_dir else "") + (f"[{split}]" if split else "")
    return df


def read_source(source, hub_id: str | None, *, pattern: str | None = None, **hub_kw) -> tuple[pd.DataFrame, str]:
    """Local ``source`` if given, else the Hub. Returns (raw frame, description of the source)."""
    if source is not None:
        return read_files(source, pattern), str(source)
    if hub_id is None:
        raise DataError("this data set has no Hub id: pass source='path/to/file'")
    return read_hub(hub_id, **hub_kw), f"hf://datasets/{hub_id}"


def swap_mask(pair_ids: pd.Series) -> np.ndarray:
    """Deterministic, balanced choice of which of (chosen, rejected) becomes response A: the
    parity of a stable 64-bit hash of ``pair_id`` (pandas' SipHash with its fixed key), so the same id
    always gets the same order, on any machine, and about half the pairs put the chosen reply in B."""
    h = pd.util.hash_pandas_object(pair_ids.astype(str), index=False).to_numpy()
    return (h & np.uint64(1)).astype(bool)


def stable_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def shared_data_dir() -> Path:
    """``$PLURALIGN_SHARED_DATA`` or ``../shared/data`` next to the project root: the default ``source``
    of the data sets that exist only as local files (PandaLM, LLMBar, MT-Bench, HHH)."""
    env = os.environ.get("PLURALIGN_SHARED_DATA")
    return Path(env).expanduser() if env else ROOT.parent / "shared" / "data"


def default_local(source, relative: str, name: str, file: str | None = None) -> Path:
    """Where a local-only data set ``name`` is read from: ``source`` if given, else ``relative`` under
    :func:`shared_data_dir` (which must exist). With ``file``, a folder stands for that file in it."""
    if source is not None:
        path = Path(source).expanduser()
    else:
        path = shared_data_dir() / relative
        if not path.exists():
            raise DataError(
                f"data set {name!r} is read from local files only and none were found; pass "
                f"source='path/to/{relative}' or set PLURALIGN_SHARED_DATA to the folder holding "
                f"'{relative}'",
                file=path,
            )
    return path / file if file is not None and path.is_dir() else path

"""Parameter files: how a page's papermill parameters are assembled and checked.

A page's parameters are, deep-merged in this order (later wins; mappings merge key by key, anything else
is replaced):

1. ``common.yml`` beside the page's file (``params/<profile>/common.yml``): what every page of a profile
   shares (``profile``, ``seed``, the models and endpoints of the ``paper`` profile);
2. the files named by ``include:`` (relative to the including file), e.g. a study design shared by the
   pages of one part;
3. the page's own keys.

A key from 2. or 3. that the notebook does not declare in its parameters cell is an error naming the file
and the key (a typo is never silently ignored); a key of ``common.yml`` reaches only the notebooks that
declare it. No value may be a secret: keys that look like credentials are refused (secrets come from the
environment, named with ``<key>_env``).

Models of the ``paper`` profile are written once, under ``models:`` in ``params/paper/common.yml``; a
page names one by its key (``reward_model: seal_post_alignment``) and the part's study resolves it with
:func:`named_model`.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from pluralign.settings import Section, Settings, did_you_mean

__all__ = [
    "ParamsError",
    "read_params",
    "resolved_params",
    "deep_merge",
    "declared_parameters",
    "settings_class",
    "effective_settings",
    "papermill_parameters",
    "page_settings",
    "cell_parameters",
    "named_model",
    "COMMON",
]

COMMON = "common.yml"
SECRET_PATTERN = re.compile(r"(api[_-]?key|secret|token|password)", re.I)
#: values that look like credentials whatever their key: provider key prefixes, or long high-entropy tokens
SECRET_VALUE = re.compile(
    r"^(sk-[A-Za-z0-9_-]{16,}|sk-proj-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|"
    r"xox[baprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|"
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})$"
)


def looks_like_secret(value) -> bool:
    """A known API-key shape, or a token of 32+ letters / digits with three character classes and high
    entropy (not a path, not a Hub id, not prose)."""
    import math
    from collections import Counter

    if not isinstance(value, str):
        return False
    v = value.strip()
    if SECRET_VALUE.match(v):
        return True
    if len(v) < 32 or not re.fullmatch(r"[A-Za-z0-9_\-+=]{32,}", v):
        return False
    classes = sum(bool(re.search(c, v)) for c in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    counts = Counter(v)
    entropy = -sum(n / len(v) * math.log2(n / len(v)) for n in counts.values())
    return classes == 3 and entropy > 4.0


class ParamsError(ValueError):
    """A parameter file is malformed, names an unknown key, or holds a secret."""


def deep_merge(base: dict, over: dict) -> dict:
    """``over`` merged into a copy of ``base``: mappings merge recursively, other values replace."""
    out = dict(base)
    for k, v in over.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ParamsError(f"{path}: not valid YAML: {e}") from None
    except OSError as e:
        raise ParamsError(f"{path}: cannot be read: {e}") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: a parameter file must be a mapping of name: value")
    return data


def _with_includes(path: Path, seen: tuple = (), top: Path | None = None) -> tuple[dict, dict]:
    """(parameters, origin) of ``path`` and the files it includes; origin maps each key to its file. An include
    must lie inside the folder of the file first read (no ``..`` out of it, no absolute path elsewhere)."""
    path = Path(path)
    top = top or path.resolve().parent
    if path.resolve() in seen:
        raise ParamsError(f"{path}: include cycle ({' -> '.join(str(q) for q in seen)} -> {path})")
    own = _yaml(path)
    includes = own.pop("include", None) or []
    params, origin = {}, {}
    for inc in [includes] if isinstance(includes, str) else includes:
        target = path.parent / inc
        if not target.resolve().is_relative_to(top):
            raise ParamsError(
                f"{path}: included parameter file {inc!r} lies outside {top}; an include must be in the "
                "folder of the parameter file (or below it)"
            )
        if not target.exists():
            raise ParamsError(f"{path}: included parameter file {inc!r} does not exist ({target})")
        p, o = _with_includes(target, seen + (path.resolve(),), top)
        params, origin = deep_merge(params, p), {**origin, **o}
    return deep_merge(params, own), {**origin, **{k: path for k in own}}


def read_params(
    path: str | Path,
    *,
    declared: list[str] | set[str] | None = None,
    common: bool = True,
    types: dict[str, type] | None = None,
    notebook: str | Path | None = None,
) -> dict:
    """The parameters of one page (module docstring). ``declared``: the notebook's parameter names; when
    given, an undeclared key of the page's file or its includes raises :class:`ParamsError` naming the file,
    the key and the nearest declared name, and ``common.yml`` contributes only declared keys. ``notebook`` (a
    Jupytext ``.py``): its declared names and types (:func:`declared_parameters`, :func:`declared_types`) where
    not given, and its settings built from the result (:func:`check_settings`)."""
    path = Path(path)
    if notebook is not None:
        declared = declared_parameters(notebook) if declared is None else declared
        types = declared_types(notebook) if types is None else types
    params, origin = _with_includes(path)
    shared = {}
    if common and path.name != COMMON and (path.parent / COMMON).exists():
        shared = _yaml(path.parent / COMMON)
        if "include" in shared:
            raise ParamsError(f"{path.parent / COMMON}: common.yml cannot include other files")
    if declared is not None:
        declared = set(declared)
        for k in params:
            if k not in declared:
                hint = did_you_mean(k, sorted(declared))
                raise ParamsError(
                    f"{origin[k]}: unknown parameter {k!r} (the notebook declares {', '.join(sorted(declared))}){hint}"
                )
        shared = {k: v for k, v in shared.items() if k in declared}
    merged = deep_merge(shared, params)
    origin = {**{k: path.parent / COMMON for k in shared}, **origin}
    _check_secrets(merged, path)
    if types:
        check_types(params, types, origin, path)
    if notebook is not None:
        check_settings(notebook, merged, origin, path)
    return merged


def resolved_params(notebook: str | Path, path: str | Path) -> dict:
    """The parameters a page runs with, as one papermill parameter file: ``path`` read for ``notebook`` (a
    Jupytext ``.py``) as the runner reads it (``common.yml`` and includes merged, undeclared keys and wrong types
    refused), ``profile`` as the runner sets it, and every relative ``source`` / ``labels_file`` that names a file
    beside the parameter file made absolute (the runner executes in that folder; papermill may run anywhere); a
    page's settings grouped in its one ``settings`` parameter (:func:`papermill_parameters`)."""
    path = Path(path).expanduser().resolve()
    declared = declared_parameters(notebook)
    params = read_params(path, declared=declared, notebook=notebook)
    if "profile" in declared:
        params.setdefault("profile", "demo")
    return papermill_parameters(notebook, _absolute_paths(params, path.parent))


def _absolute_paths(obj, base: Path):
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            local = isinstance(v, str) and k in ("source", "labels_file") and not v.startswith("shared:")
            if local and not Path(v).expanduser().is_absolute() and (base / v).exists():
                v = str((base / v).resolve())
            out[k] = _absolute_paths(v, base)
        return out
    if isinstance(obj, list):
        return [_absolute_paths(v, base) for v in obj]
    return obj


def _check_secrets(obj, path: Path, where: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if looks_like_secret(v):
                raise ParamsError(
                    f"{path}: the value of parameter '{where}{k}' looks like a credential; secrets come "
                    f"from the environment only: export it (e.g. MY_API_KEY=...) and name the variable "
                    f"with '{k}_env: MY_API_KEY' where the parameter supports it"
                )
            if SECRET_PATTERN.search(str(k)) and not str(k).endswith("_env") and v not in (None, ""):
                raise ParamsError(
                    f"{path}: parameter '{where}{k}' looks like a secret; secrets come from the "
                    f"environment only (name the variable with '{k}_env')"
                )
            _check_secrets(v, path, f"{where}{k}.")
    elif isinstance(obj, list):
        for v in obj:
            if looks_like_secret(v):
                raise ParamsError(
                    f"{path}: an item of parameter '{where.rstrip('.')}' looks like a credential; secrets "
                    "come from the environment only"
                )
            _check_secrets(v, path, where)


def declared_parameters(notebook: str | Path) -> list[str]:
    """The names a parameter file may give a Jupytext notebook: those of its cell tagged ``parameters``
    (papermill's own reading) and, for a page of a part, every field of the part's settings class
    (:func:`settings_class`) in place of its ``settings`` parameter (a file states settings as top-level keys;
    :func:`papermill_parameters` groups them)."""
    names = [p.name for p in cell_parameters(notebook)]
    cls = settings_class(notebook)
    if cls is not None:
        names = [n for n in names if n != SETTINGS]
        names += [f.name for f in dataclasses.fields(cls) if f.name not in names]
    return names


def declared_types(notebook: str | Path) -> dict[str, type]:
    """The type of each parameter's default: the settings class's defaults for its fields, the parameters cell's
    for the rest (None defaults omitted)."""
    import ast

    out = {}
    for p in cell_parameters(notebook):
        try:
            out[p.name] = _type_of(ast.literal_eval(p.default))
        except (ValueError, SyntaxError):
            continue
    cls = settings_class(notebook)
    if cls is not None:
        out.update(_field_types(cls))
    return {k: v for k, v in out.items() if v is not None}


def _field_types(cls) -> dict:
    """The type a parameter file's value must have, per field of a settings class: its annotation where that is one
    plain type (``int``, ``int | None``, ``list``, ...), a :class:`Shape` of its default for a nested section; no
    check for ``Any`` or a union of several types (the class checks those)."""
    import typing

    hints, defaults, out = typing.get_type_hints(cls), cls.defaults(), {}
    for name, hint in hints.items():
        if name not in defaults:
            continue
        kinds = [t for t in (typing.get_args(hint) or (hint,)) if t is not type(None)]
        if len(kinds) != 1 or not isinstance(kinds[0], type) or kinds[0] in (object, typing.Any):
            continue
        if issubclass(kinds[0], Section):
            default = defaults[name]
            out[name] = Shape(default.as_dict()) if isinstance(default, Section) else dict
        else:
            out[name] = kinds[0]
    return out


def _type_of(value):
    if isinstance(value, dict) and value:
        return Shape(value)
    return None if value is None else type(value)


def cell_parameters(notebook: str | Path) -> list:
    """The parameters of a notebook's cell tagged ``parameters`` as papermill reads them (name, default as source
    text, the trailing comment as ``help``)."""
    import jupytext
    from papermill.inspection import _infer_parameters

    nb = jupytext.read(notebook)
    for cell in nb.cells:
        cell.metadata.setdefault("tags", [])
    return _infer_parameters(nb, name="python3", language="python")


#: the parameter of a page's parameters cell that carries its settings (papermill injects it as one mapping)
SETTINGS = "settings"
#: the settings class a page's ``settings`` parameter names in its comment ("… pluralign.seal.SealSettings …")
_SETTINGS_CLASS = re.compile(r"\bpluralign\.(\w+)\.(\w+Settings)\b")


def settings_class(notebook: str | Path):
    """The settings class of a page, or None: the class its parameters cell names in the comment of its
    ``settings = {}`` parameter (papermill's own reading of the cell gives that comment as the parameter's help),
    e.g. ``settings = {}  # pluralign.seal.SealSettings: ...``. The cell is read once per version of the file."""
    path = Path(notebook)
    stat = path.stat()
    name = _settings_class_name(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if name is None:
        return None
    part, attr = name
    cls = getattr(importlib.import_module(f"pluralign.{part}"), attr, None)
    if not (isinstance(cls, type) and issubclass(cls, Settings)):
        raise ParamsError(
            f"{notebook}: pluralign.{part}.{attr}, named by its settings parameter, is not a settings class"
        )
    return cls


@functools.lru_cache(maxsize=256)
def _settings_class_name(path: str, mtime_ns: int, size: int) -> tuple[str, str] | None:
    """``(part, class)`` named by the ``settings`` parameter of the notebook at ``path``, or None; cached per path,
    modification time and size, so an edited notebook is read again."""
    for p in cell_parameters(path):
        if p.name == SETTINGS:
            m = _SETTINGS_CLASS.search(p.help or "")
            return None if m is None else (m.group(1), m.group(2))
    return None


def papermill_parameters(notebook: str | Path, params: dict) -> dict:
    """The parameters papermill injects into a page: the names of its parameters cell as they are, and every
    setting in the one ``settings`` mapping, each at the value the page runs with (:func:`effective_settings`:
    what ``params`` sets, the default otherwise), so the executed notebook shows every setting and the profile's
    own file (read by a part's ``setup(..., page=...)`` in an interactive kernel) changes none of them. A notebook
    without a settings class gets ``params`` as they are."""
    cls = settings_class(notebook)
    if cls is None:
        return dict(params)
    fields = {f.name for f in dataclasses.fields(cls)}
    out = {k: v for k, v in params.items() if k not in fields}
    out[SETTINGS] = effective_settings(notebook, params)
    return out


def page_settings(page: str, profile: str, settings, models: dict | None) -> tuple[dict, dict | None]:
    """What a page runs with in a kernel of its own (JupyterLab, papermill), for a part's ``setup(..., page=...)``:
    the settings of the profile's parameter file of ``page`` (``params/<profile>/<page>.yml``, from
    ``manifest.yml``) with ``settings`` laid over them (a setting given replaces the file's value), and ``models``,
    or the profile's named models (``common.yml``) when None. Changing ``profile`` in the parameters cell so runs
    that profile's file; a page without a file for the profile runs ``settings`` over the defaults."""
    from pluralign.book import manifest_plan

    runs = [r for r in manifest_plan.runs(profile) if r.notebook == page]
    if not runs:
        return dict(settings or {}), models
    notebook = manifest_plan.ROOT / "notebooks" / f"{page}.py"
    params = read_params(manifest_plan.ROOT / runs[0].params, notebook=notebook)
    cls = settings_class(notebook)
    fields = {f.name for f in dataclasses.fields(cls)} if cls is not None else set()
    given = settings if isinstance(settings, Mapping) else {}
    return {**{k: v for k, v in params.items() if k in fields}, **given}, (
        params.get("models") if models is None else models
    )


def effective_settings(notebook: str | Path, params: dict) -> dict | None:
    """{setting: value} of every field of the notebook's settings class (:func:`settings_class`) as the page runs
    with ``params`` (its defaults where ``params`` does not set it; a nested setting as a mapping); None for a
    notebook without one."""
    cls = settings_class(notebook)
    if cls is None:
        return None
    names = [f.name for f in dataclasses.fields(cls)]
    settings = cls.create(**{k: v for k, v in params.items() if k in names})
    return {k: (v.as_dict() if isinstance(v, Section) else v) for k, v in ((k, getattr(settings, k)) for k in names)}


def check_settings(notebook: str | Path, params: dict, origin: dict | None = None, path: Path | None = None) -> None:
    """Build the notebook's settings (:func:`settings_class`) from ``params`` so that a value its class refuses
    (a wrong choice, an unknown key of a nested setting) is an error naming the parameter file, not a failure
    deep inside a page."""
    cls = settings_class(notebook)
    if cls is None:
        return
    given = {k: v for k, v in params.items() if k in {f.name for f in dataclasses.fields(cls)}}
    try:
        cls.create(**given)
    except (TypeError, ValueError) as e:
        m = re.match(r"(?:\w+Settings: )?(\w+)\b", str(e))  # the setting a message starts with
        where = (origin or {}).get(m.group(1) if m else None, path)
        raise ParamsError(f"{where}: {e}") from None


class Shape:
    """The type of a dict-valued default, key by key (nested dicts too): a page's scalar for one of these keys must
    be a scalar of the same kind — a number for a number (int or float), a string for a string, a bool for a
    bool — so ``n_pairs: "many"`` is refused when the page is read, not deep inside a cell. Lists and dicts inside
    a dict may replace a scalar (a count or a count per data set); a None default takes anything; keys the
    default does not have are the study's to check."""

    __name__ = "dict"

    def __init__(self, default: dict):
        self.fields = {
            k: Shape(v) if isinstance(v, dict) and v else type(v) for k, v in default.items() if v is not None
        }

    def __repr__(self) -> str:
        return f"Shape({self.fields})"


def check_types(params: dict, types: dict[str, type], origin: dict | None = None, path: Path | None = None) -> None:
    """Refuse a value whose type differs from the notebook's default (an int where a float is declared is
    fine; a default of None takes anything), naming the file, the key and both types."""
    _check_types(params, types, origin or {}, path, "", nested=False)


def _check_types(params: dict, types: dict, origin: dict, path, prefix: str, nested: bool) -> None:
    for k, v in params.items():
        want = types.get(k)
        if want is None or v is None:
            continue
        number = isinstance(v, (int, float)) and not isinstance(v, bool)  # True is not a number here
        if isinstance(want, Shape):
            if isinstance(v, dict):
                _check_types(v, want.fields, {}, origin.get(k, path), f"{prefix}{k}.", nested=True)
                continue
            ok = nested  # inside a dict a key may take a list / scalar instead (e.g. a count or a count per data set)
        elif nested and (isinstance(v, (list, dict)) or want in (list, dict, tuple)):
            ok = True  # one of several forms a study accepts (a count or a count per data set, one spec or a list)
        elif want is bool:
            ok = isinstance(v, bool)
        elif want is int and not nested:
            ok = number and isinstance(v, int)
        elif want in (int, float):
            ok = number
        else:
            ok = isinstance(v, want)
        if not ok:
            where = origin.get(k, path)
            shown = "(a credential-looking value)" if looks_like_secret(v) else repr(v)
            raise ParamsError(
                f"{where}: parameter {prefix + k!r} is {type(v).__name__} {shown}, but the notebook "
                f"expects {want.__name__} (its default)"
            )


def check_options(fn, options: dict, *, what: str | None = None) -> None:
    """Refuse keyword options that ``fn`` does not take, naming the option and the nearest valid one (instead of
    Python's bare ``unexpected keyword argument``)."""
    import inspect

    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    valid = sorted(k for k, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and k != "self")
    for k in options:
        if k not in valid:
            raise TypeError(
                f"{what or getattr(fn, '__qualname__', fn)}: unknown option {k!r}{did_you_mean(k, valid)} "
                f"(options: {', '.join(valid)})"
            )


def named_model(value, models: dict | None, *, what: str = "model"):
    """A model parameter as load arguments: a string that names an entry of ``models`` (the profile's
    ``models:`` in common.yml) is replaced by that entry; anything else is returned unchanged."""
    if isinstance(value, str) and models and value in models:
        return models[value]
    if isinstance(value, str) and models and value not in models and "/" not in value and ":" not in value:
        raise ParamsError(
            f"{what} {value!r} is not a key of models: ({', '.join(sorted(models))})"
            + did_you_mean(value, sorted(models))
        )
    return value

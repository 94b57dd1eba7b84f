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

import functools
import importlib
import re
from collections.abc import Mapping
from pathlib import Path

import yaml
from pydantic import ConfigDict, ValidationError, create_model

from pluralign.settings import Settings, SettingsError, did_you_mean

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
    Jupytext ``.py``): its declared names and the types of its parameters cell (:func:`declared_parameters`,
    :func:`declared_types`) where not given, and its settings built from the result, validated once by the
    settings class (:func:`check_settings`)."""
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
        names += [f for f in cls.model_fields if f not in names]
    return names


def declared_types(notebook: str | Path) -> dict[str, type]:
    """The type of each parameter of the notebook's parameters cell, from its default (None defaults and the
    ``settings`` parameter omitted: the settings class types those)."""
    import ast

    out = {}
    for p in cell_parameters(notebook):
        try:
            default = ast.literal_eval(p.default)
        except (ValueError, SyntaxError):
            continue
        if default is not None and p.name != SETTINGS:
            out[p.name] = type(default)
    return out


def check_types(params: dict, types: dict[str, type], origin: dict | None = None, path: Path | None = None) -> None:
    """Refuse a value whose type differs from the notebook's default (pydantic, strict: an int where a float is
    declared is fine, a bool is no number), naming the file, the key and both types."""
    model = create_model("Parameters", __config__=ConfigDict(strict=True), **{k: (t, None) for k, t in types.items()})
    try:
        model.model_validate({k: v for k, v in params.items() if k in types})
    except ValidationError as e:
        k = e.errors()[0]["loc"][0]
        v = params[k]
        shown = "(a credential-looking value)" if looks_like_secret(v) else repr(v)
        raise ParamsError(
            f"{(origin or {}).get(k, path)}: parameter {k!r} is {type(v).__name__} {shown}, but the notebook "
            f"expects {types[k].__name__} (its default)"
        ) from None


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
    out = {k: v for k, v in params.items() if k not in cls.model_fields}
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
    fields = cls.model_fields if cls is not None else {}
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
    return cls.create(**{k: v for k, v in params.items() if k in cls.model_fields}).model_dump()


def check_settings(notebook: str | Path, params: dict, origin: dict | None = None, path: Path | None = None) -> None:
    """Build the notebook's settings (:func:`settings_class`) from ``params`` so that a value its class refuses
    (a wrong choice, an unknown key of a nested setting) is an error naming the parameter file that set the key
    (the first key of the error's path), not a failure deep inside a page."""
    cls = settings_class(notebook)
    if cls is None:
        return
    try:
        cls.create(**{k: v for k, v in params.items() if k in cls.model_fields})
    except SettingsError as e:
        raise ParamsError(f"{(origin or {}).get(e.keys[0][0] if e.keys else None, path)}: {e}") from None


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

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

import difflib
import re
from pathlib import Path

import yaml

__all__ = ["ParamsError", "read_params", "deep_merge", "declared_parameters", "named_model", "COMMON"]

COMMON = "common.yml"
SECRET_PATTERN = re.compile(r"(api[_-]?key|secret|token|password)", re.I)


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


def _with_includes(path: Path, seen: tuple = ()) -> tuple[dict, dict]:
    """(parameters, origin) of ``path`` and the files it includes; origin maps each key to its file."""
    path = Path(path)
    if path.resolve() in seen:
        raise ParamsError(f"{path}: include cycle ({' -> '.join(str(q) for q in seen)} -> {path})")
    own = _yaml(path)
    includes = own.pop("include", None) or []
    params, origin = {}, {}
    for inc in [includes] if isinstance(includes, str) else includes:
        target = path.parent / inc
        if not target.exists():
            raise ParamsError(f"{path}: included parameter file {inc!r} does not exist ({target})")
        p, o = _with_includes(target, seen + (path.resolve(),))
        params, origin = deep_merge(params, p), {**origin, **o}
    return deep_merge(params, own), {**origin, **{k: path for k in own}}


def read_params(path: str | Path, *, declared: list[str] | set[str] | None = None,
                common: bool = True) -> dict:
    """The parameters of one page (module docstring). ``declared``: the notebook's parameter names; when
    given, an undeclared key of the page's file or its includes raises :class:`ParamsError` naming the file,
    the key and the nearest declared name, and ``common.yml`` contributes only declared keys."""
    path = Path(path)
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
                near = difflib.get_close_matches(k, sorted(declared), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise ParamsError(f"{origin[k]}: unknown parameter {k!r} (the notebook declares "
                                  f"{', '.join(sorted(declared))}){hint}")
        shared = {k: v for k, v in shared.items() if k in declared}
    merged = deep_merge(shared, params)
    _check_secrets(merged, path)
    return merged


def _check_secrets(obj, path: Path, where: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if SECRET_PATTERN.search(str(k)) and not str(k).endswith("_env") and v not in (None, ""):
                raise ParamsError(f"{path}: parameter '{where}{k}' looks like a secret; secrets come from the "
                                  f"environment only (name the variable with '{k}_env')")
            _check_secrets(v, path, f"{where}{k}.")
    elif isinstance(obj, list):
        for v in obj:
            _check_secrets(v, path, where)


def declared_parameters(notebook: str | Path) -> list[str]:
    """The names a Jupytext notebook declares in its cell tagged ``parameters`` (papermill's own reading)."""
    import jupytext
    from papermill.inspection import _infer_parameters
    nb = jupytext.read(notebook)
    for cell in nb.cells:
        cell.metadata.setdefault("tags", [])
    return [p.name for p in _infer_parameters(nb, name="python3", language="python")]


def named_model(value, models: dict | None, *, what: str = "model"):
    """A model parameter as load arguments: a string that names an entry of ``models`` (the profile's
    ``models:`` in common.yml) is replaced by that entry; anything else is returned unchanged."""
    if isinstance(value, str) and models and value in models:
        return models[value]
    if isinstance(value, str) and models and value not in models and "/" not in value and ":" not in value:
        near = difflib.get_close_matches(value, sorted(models), n=1)
        raise ParamsError(f"{what} {value!r} is not a key of models: ({', '.join(sorted(models))})"
                          + (f"; did you mean {near[0]!r}?" if near else ""))
    return value

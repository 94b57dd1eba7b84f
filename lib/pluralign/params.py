"""Parameter files: a page's papermill parameters read from ``params/<profile>/``, merged and checked, and its
settings validated once.

A page's parameters deep-merge, later winning, the keys of ``common.yml`` beside its file that the notebook declares,
the files named by ``include:`` and the page's own keys. A key the notebook does not declare, a value of the wrong
type or one the part's settings class refuses, a setting only other pages read, or a secret is a
:class:`ParamsError` naming the file that set it (secrets come from the environment, named with ``<key>_env``)."""

from __future__ import annotations

import functools
import importlib
import re
import typing
from pathlib import Path
from typing import NamedTuple

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from pluralign.credentials import check_secrets
from pluralign.keywords import did_you_mean
from pluralign.settings import Settings, SettingsError

__all__ = ["ParamsError", "Parameters", "Page", "PageCell", "read_params", "read_page", "resolved_params"]
__all__ += ["deep_merge", "page_cell", "page_settings", "part_setup", "cell_parameters", "COMMON", "SETTINGS"]

COMMON = "common.yml"
#: the parameter of a page's parameters cell that carries its settings (papermill injects it as one mapping)
SETTINGS = "settings"
#: the settings class a page's ``settings`` parameter names in its comment ("… pluralign.seal.SealSettings …")
_SETTINGS_CLASS = re.compile(r"\bpluralign\.(\w+)\.(\w+Settings)\b")


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
        data = yaml.safe_load(path.read_text()) or {}
    except (yaml.YAMLError, OSError) as e:
        what = "not valid YAML" if isinstance(e, yaml.YAMLError) else "cannot be read"
        raise ParamsError(f"{path}: {what}: {e}") from None
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: a parameter file must be a mapping of name: value")
    return data


def _with_includes(path: Path, seen: tuple = (), top: Path | None = None) -> tuple[dict, dict]:
    """(parameters, origin: the file of each key) of ``path`` and the files it includes. An include must lie inside
    the folder of the file first read (no ``..`` out of it, no absolute path elsewhere)."""
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


class Parameters(BaseModel):
    """The parameters a page's cell declares beside its settings, typed once (strictly: a bool is no int)."""

    model_config = ConfigDict(strict=True)

    profile: str = "demo"
    seed: int = 0
    models: dict | None = None
    datasets: list | None = None


class Page(NamedTuple):
    """A page's parameters as read from its file: the merged parameters and the part's settings built from them
    once (None for a page of no part)."""

    params: dict
    settings: Settings | None

    def injected(self) -> dict:
        """The parameters papermill injects: the cell's names as they are and every setting, at the value the page
        runs with, in the one ``settings`` mapping (so the profile's own file, read by ``setup``, changes none)."""
        if self.settings is None:
            return dict(self.params)
        out = {k: v for k, v in self.params.items() if k not in type(self.settings).model_fields}
        return {**out, SETTINGS: self.settings.model_dump()}


class PageCell(NamedTuple):
    """What a page's parameters cell says: the page (the notebook's name), the names a parameter file may give it
    and its settings class, or None."""

    page: str
    declared: tuple[str, ...]
    settings: type[Settings] | None


def read_params(path: str | Path, notebook: str | Path | None = None, *, common: bool = True) -> dict:
    """The merged parameters of the file ``path`` (``common.yml`` unless ``common`` is false); read for ``notebook``
    (a Jupytext ``.py``), checked as :func:`read_page` checks them."""
    return read_page(path, notebook).params if notebook is not None else _merged(Path(path), None, common)[0]


def read_page(path: str | Path, notebook: str | Path) -> Page:
    """The parameters of ``notebook``'s page from the parameter file ``path``, and its settings, validated once: an
    undeclared key, a wrong type, a value the settings class refuses or a setting only other pages read is a
    :class:`ParamsError` naming the file that set it."""
    nb = page_cell(notebook)
    params, origin = _checked(Path(path), nb)
    if nb.settings is None:  # a page of no part
        return Page(params, None)
    try:
        return Page(params, nb.settings.create({k: v for k, v in params.items() if k in nb.settings.model_fields}))
    except SettingsError as e:
        raise ParamsError(f"{origin.get(e.keys[0][0] if e.keys else None, path)}: {e}") from None


def _checked(path: Path, nb: PageCell) -> tuple[dict, dict]:
    """(parameters, origin) of ``path`` read for the page ``nb``, checked but for its settings' values: no undeclared
    key, the :class:`Parameters` typed, no setting of the page's own file that only other pages read."""
    params, origin = _merged(path, nb.declared, True)
    fields = nb.settings.model_fields if nb.settings is not None else {}
    typed = {k: v for k, v in params.items() if k in Parameters.model_fields and k not in fields}  # Part I's datasets
    try:
        Parameters.model_validate(typed)
    except ValidationError as e:
        k = e.errors()[0]["loc"][0]
        t = Parameters.model_fields[k].annotation
        raise ParamsError(
            f"{origin[k]}: parameter {k!r} is {type(params[k]).__name__} {params[k]!r}, but the notebook expects "
            + " or ".join(a.__name__ for a in typing.get_args(t) or (t,) if a is not type(None))
        ) from None
    for k in (k for k in params if k in fields and origin[k] == path):
        if (readers := nb.settings.readers(k)) and nb.page not in readers:
            raise ParamsError(
                f"{path}: setting {k!r} is read by no page of this file ({nb.page}); the pages that read it: "
                + ", ".join(readers)
            )
    return params, origin


def _merged(path: Path, declared: tuple | None, common: bool) -> tuple[dict, dict]:
    """(parameters, origin) of ``path``: ``common.yml``, includes and its own keys, no secret among them. With
    ``declared`` (a notebook's names), a key of the file or its includes outside them is refused, and
    ``common.yml`` gives only declared keys."""
    params, origin = _with_includes(path)
    shared = _yaml(path.parent / COMMON) if common and path.name != COMMON and (path.parent / COMMON).exists() else {}
    if "include" in shared:
        raise ParamsError(f"{path.parent / COMMON}: common.yml cannot include other files")
    if declared is not None:
        if unknown := [k for k in params if k not in declared]:
            k, names = unknown[0], sorted(declared)
            hint = did_you_mean(k, names)
            raise ParamsError(f"{origin[k]}: unknown parameter {k!r} (the notebook declares {', '.join(names)}){hint}")
        shared = {k: v for k, v in shared.items() if k in declared}
    merged = deep_merge(shared, params)
    if found := check_secrets(merged):
        raise ParamsError(f"{path}: {found}")
    return merged, {**{k: path.parent / COMMON for k in shared}, **origin}


def resolved_params(notebook: str | Path, path: str | Path) -> dict:
    """The parameters a page runs with, as one papermill parameter file: ``path`` read for ``notebook`` as the runner
    reads it, its settings in the one ``settings`` parameter (:meth:`Page.injected`), and a relative ``source`` /
    ``labels_file`` beside the file made absolute (papermill may run anywhere)."""
    path = Path(path).expanduser().resolve()
    page = read_page(path, notebook)
    if "profile" in page_cell(notebook).declared:
        page.params.setdefault("profile", "demo")
    return _absolute_paths(page.injected(), path.parent)


def _absolute_paths(obj, base: Path):
    """``obj`` with every relative ``source`` / ``labels_file`` that names a file in ``base`` made absolute."""
    if isinstance(obj, list):
        return [_absolute_paths(v, base) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {k: _absolute_paths(v, base) for k, v in obj.items()}
    for k, v in out.items():
        if k in ("source", "labels_file") and isinstance(v, str) and not v.startswith("shared:"):
            out[k] = v if Path(v).expanduser().is_absolute() or not (base / v).exists() else str((base / v).resolve())
    return out


def cell_parameters(notebook: str | Path) -> list:
    """The parameters of a notebook's cell tagged ``parameters`` as papermill reads them (name, default as source
    text, the trailing comment as ``help``)."""
    import jupytext
    from papermill.inspection import _infer_parameters

    nb = jupytext.read(notebook)
    for cell in nb.cells:
        cell.metadata.setdefault("tags", [])
    return _infer_parameters(nb, name="python3", language="python")


def page_cell(notebook: str | Path) -> PageCell:
    """What the parameters cell of a page's Jupytext ``.py`` says (:class:`PageCell`), read once per version of the
    file."""
    path = Path(notebook).resolve()
    return _read_cell(str(path), path.stat().st_mtime_ns, path.stat().st_size)


@functools.lru_cache(maxsize=256)
def _read_cell(path: str, mtime_ns: int, size: int) -> PageCell:
    """:func:`page_cell`, cached per version of the file. The settings class is the one the comment of the
    ``settings`` parameter names (``settings = {}  # pluralign.seal.SealSettings: ...``); a parameter file states
    settings as top-level keys, so their names replace ``settings`` among the declared."""
    cell = cell_parameters(path)
    names, cls = [p.name for p in cell], None
    if m := next((_SETTINGS_CLASS.search(p.help or "") for p in cell if p.name == SETTINGS), None):
        cls = getattr(importlib.import_module(f"pluralign.{m.group(1)}"), m.group(2), None)
        if not (isinstance(cls, type) and issubclass(cls, Settings)):
            raise ParamsError(f"{path}: {m.group(0)}, named by its settings parameter, is not a settings class")
        names = [n for n in names if n != SETTINGS] + [f for f in cls.model_fields if f not in names]
    return PageCell(Path(path).stem, tuple(names), cls)


def part_setup(cls: type[Settings]):
    """Decorates a part's ``setup(s, profile, seed, models)``, which makes its study from validated settings ``s``, into
    the ``setup(profile, seed, *, models, settings, page, **overrides)`` a page calls: ``settings`` (a ``cls`` or a
    mapping of its fields) with ``overrides`` laid over them and built once. With ``page`` (the notebook's name, which
    a page of the book gives), ``settings`` is laid over the profile's parameter file of that page
    (:func:`page_settings`)."""

    def decorate(build):
        def setup(profile="demo", seed=0, *, models=None, settings=None, page: str | None = None, **overrides):
            if page is not None:
                settings, models = page_settings(page, profile, settings, models)
            return build(cls.create(settings, **overrides), profile, seed, models)

        setup.__module__, setup.__qualname__, setup.__doc__ = build.__module__, build.__qualname__, build.__doc__
        return setup

    return decorate


def page_settings(page: str, profile: str, settings, models: dict | None) -> tuple[dict, dict | None]:
    """(settings, models) of ``page`` on ``profile`` as :func:`part_setup` reads them: ``settings`` laid over the
    profile's parameter file of the page as it states them (from ``manifest.yml``; none where the profile has no such
    page), checked as :func:`read_page` checks them, unbuilt; ``models``, or the profile's named models when None."""
    from pluralign.book import manifest_plan as plan

    run = next((r for r in plan.runs(profile) if r.notebook == page), None)
    if run is None:
        return dict(settings or {}), models
    nb = page_cell(plan.ROOT / "notebooks" / f"{page}.py")
    params = _checked(plan.ROOT / run.params, nb)[0]
    own = {k: v for k, v in params.items() if nb.settings is not None and k in nb.settings.model_fields}
    return {**own, **(settings or {})}, (params.get("models") if models is None else models)

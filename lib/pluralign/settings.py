"""Typed settings of a part's study: one frozen pydantic model per part, every default and its meaning written once.

Each part (``diverging``, ``seal``, ``btb``, ``cross``) declares its settings as a pydantic v2 model derived from
:class:`Settings`, one field per page parameter, documented in the field's description (:func:`setting`, as TRL's
``RewardConfig`` documents its fields) and validated once, when the model is built: frozen, unknown keys forbidden
(``extra="forbid"``), constraints written as field types (``Literal[...]``, ``Field(gt=0)``, a nested model). As
axolotl composes its YAML training config from one model per concern, a setting made of several named values (a
judge, a train / test split, SEAL's alignment design, a reward model's load options, an LLM's, a data spec, the
training loop's options) is a nested model derived from :class:`Section`, shared by the parts that use it. Every
part's ``setup`` has the one signature

    setup(profile="demo", seed=0, *, models=None, settings=None, **overrides) -> Study

and builds its settings with :meth:`Section.create`: a mapping given for a nested section is laid over the
section's default key by key (``judge: {noise: 2.0}`` keeps every other key of the default judge; the base class's
``model_validator(mode="before")``), and a name that is not a field is an error naming its key path, the nearest
field and the known ones (:class:`SettingsError`, from pydantic's ``ValidationError.errors()[i]["loc"]``). Code
reads a setting as an attribute (``study.settings.judge.noise``), never by string key and never with a restated
default.

A page's notebook takes its settings as one papermill parameter: its parameters cell declares ``profile``,
``seed``, ``models`` and ``settings = {}`` (a comment names the class), and its setup call is
``seal.setup(profile, seed, models=models, settings=settings, page="seal_imprint")``: the settings laid over the
profile's parameter file of the page (:func:`pluralign.params.page_settings`). The runner injects every setting a
page runs with into ``settings``, from the settings built once when it reads the page's file
(:func:`pluralign.params.read_page`).
"""

from __future__ import annotations

import difflib
import re
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator

__all__ = ["Arguments", "Section", "Settings", "SettingsError", "did_you_mean", "setting"]

S = TypeVar("S", bound="Section")


def did_you_mean(name: str, known) -> str:
    """``"; did you mean 'x'?"`` naming the entry of ``known`` nearest to a misspelled ``name`` (difflib), or ``""``
    when none is near: the hint every "unknown name" error of the library ends with."""
    near = difflib.get_close_matches(str(name), [str(k) for k in known], n=1)
    return f"; did you mean {near[0]!r}?" if near else ""


def setting(default: Any, help: str, *, pages: tuple[str, ...] = (), **kw) -> Any:  # noqa: A002 - TRL's name
    """A documented settings field: pydantic's ``Field`` with ``help`` as its description (pydantic copies a
    mutable default for every instance and validates it like a given value). ``pages``: the pages that read it,
    where only some pages of the part do (:meth:`Settings.readers`)."""
    return Field(default=default, description=help, json_schema_extra={"pages": list(pages)} if pages else None, **kw)


class SettingsError(ValueError, TypeError):
    """Settings a class refuses. The message names each key path (``judge.noize``), what is wrong and, for an
    unknown key, the nearest known one; ``keys`` holds those paths as tuples (the first key names the setting, so
    :mod:`pluralign.params` can name the file that set it)."""

    def __init__(self, message: str, keys: list[tuple] = ()):
        super().__init__(message)
        self.keys = list(keys)


def _section_of(annotation) -> type[Section] | None:
    """The :class:`Section` type inside a field's annotation (``X``, ``X | None``, ``list[X]``, ``str | X``)."""
    if isinstance(annotation, type) and issubclass(annotation, Section):
        return annotation
    for arg in typing.get_args(annotation):
        if (found := _section_of(arg)) is not None:
            return found
    return None


def _union_tag(part: str) -> bool:
    """Whether a part of pydantic's ``loc`` names a member of a union (``list[...]``, ``str``, a model's class)
    rather than a key."""
    return bool(re.fullmatch(r"\w+\[.*\]|str|int|float|bool|none|[A-Z][A-Za-z]+", part))


def _refusal(cls: type[Section], error: ValidationError, what: str | None) -> SettingsError:
    """A :class:`SettingsError` from pydantic's errors: each as its key path (``loc`` without pydantic's union
    tags), its message and, for an unknown key, the nearest known key and the known ones. An error on a path that
    a deeper error extends (another member of a union that also failed) is left out."""
    found = []
    for e in error.errors():
        model, keys, known = cls, [], None
        for i, part in enumerate(e["loc"]):
            fields = model.model_fields if model is not None else {}
            if part in fields:
                keys.append(part)
                model = _section_of(fields[part].annotation)
            elif isinstance(part, int) or model is None and not _union_tag(part):
                keys.append(part)
            elif e["type"] == "extra_forbidden" and i == len(e["loc"]) - 1:
                keys.append(part)
                known = list(fields)
        found.append((tuple(keys), e, known))
    paths = [k for k, _, _ in found]
    out, seen = [], set()
    for keys, e, known in found:
        if any(len(p) > len(keys) and p[: len(keys)] == keys for p in paths) or keys in seen:
            continue
        seen.add(keys)
        path = ".".join(str(k) for k in (keys[:-1] if known is not None else keys))
        head = ": ".join(x for x in (what or cls.__name__, path) if x)
        if known is not None:
            noun = "setting(s)" if not path and what is None else "key(s)"
            out.append(f"{head}: unknown {noun} [{keys[-1]!r}]{did_you_mean(keys[-1], known)}; known: {sorted(known)}")
        else:
            out.append(f"{head}: {e['msg']}" + ("" if e["type"] == "missing" else f" (got {e['input']!r})"))
    return SettingsError("; ".join(out), keys=sorted(seen, key=str))


def _layered(value) -> bool:
    """Whether a mapping given for a field holding ``value`` is laid over it: a section of settings is (``train``,
    the training options, included), the arguments of a function (a data spec, an LLM's load options) are replaced
    as a whole."""
    return isinstance(value, Section) and not isinstance(value, Arguments)


def _laid(current: Section, given: Mapping) -> dict:
    """``given`` laid over the field values of ``current`` key by key (a mapping for a nested section laid over
    that section's value in turn)."""
    out = {name: getattr(current, name) for name in type(current).model_fields}
    for name, value in given.items():
        now = out.get(name)
        out[name] = _laid(now, value) if _layered(now) and isinstance(value, Mapping) else value
    return out


class Section(BaseModel):
    """A group of named settings (a frozen pydantic model): a part's settings, or a nested setting such as a judge."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _lay_over_defaults(cls, data):
        """A mapping given for a field whose default is a section is laid over that default key by key."""
        if not isinstance(data, Mapping):
            return data
        out = dict(data)
        for name, value in data.items():
            field = cls.model_fields.get(name)
            if field is not None and isinstance(value, Mapping):
                default = field.get_default(call_default_factory=True)
                if _layered(default):
                    out[name] = _laid(default, value)
        return out

    @classmethod
    def create(cls: type[S], settings: S | Mapping | None = None, *, what: str | None = None, **overrides) -> S:
        """The settings from ``settings`` (an instance or a mapping of field names) with ``overrides`` laid over
        them; a mapping given for a nested section is laid over that section's current value (its default when
        ``settings`` is not an instance). A refused value is a :class:`SettingsError` naming its key path (``what``:
        the name the message gives this group)."""
        if isinstance(settings, cls):
            given = _laid(settings, overrides)
        elif settings is None or isinstance(settings, Mapping):
            given = {**(settings or {}), **overrides}
        else:
            raise SettingsError(f"{what or cls.__name__}: expected a mapping of settings, not {settings!r}")
        try:
            return cls.model_validate(given)
        except ValidationError as e:
            raise _refusal(cls, e, what) from None

    def replace(self: S, **changes) -> S:
        """A copy with ``changes`` (validated like :meth:`create`; a mapping for a section is laid over it)."""
        return type(self).create(self, **changes)

    @classmethod
    def documentation(cls) -> pd.DataFrame:
        """One row per setting: its name, default and documentation (the parameter reference of a part)."""
        rows = []
        for name, f in cls.model_fields.items():
            default = f.get_default(call_default_factory=True)
            if isinstance(default, Section):
                default = default.model_dump()
            rows.append({"setting": name, "default": default, "meaning": f.description or ""})
        return pd.DataFrame(rows).set_index("setting")

    @classmethod
    def defaults(cls) -> dict:
        """{field name: its default, validated} (sections as instances)."""
        made = cls.model_validate({})
        return {name: getattr(made, name) for name in cls.model_fields}

    def fingerprint(self) -> dict:
        """What the cache keys on (:func:`pluralign.cache.fingerprint`): the settings as plain values."""
        return self.model_dump()

    def kwargs(self) -> dict:
        """{name: value} of the fields that differ from their defaults: the keywords of the function whose
        arguments this section holds, which takes its own defaults for the rest."""
        defaults = type(self).defaults()
        return {name: getattr(self, name) for name in type(self).model_fields if getattr(self, name) != defaults[name]}


class Arguments(Section):
    """The keyword arguments of a library function (``pluralign.llm.load``, ``RewardModel.train``, a data loader):
    every default None, meaning the function's own, so only the given ones are passed on and stated."""

    @model_serializer(mode="wrap")
    def _given(self, handler):
        return {k: v for k, v in handler(self).items() if v is not None}

    def kwargs(self) -> dict:
        return self.model_dump()


class Settings(Section):
    """Base of a part's settings (see the module docstring): what :func:`pluralign.params.settings_class` accepts."""

    @classmethod
    def readers(cls, name: str) -> tuple[str, ...]:
        """The pages that read setting ``name`` where only some pages of the part do (``setting(..., pages=...)``;
        a page's parameter file that sets it is refused by the others); () where every page does."""
        return tuple((cls.model_fields[name].json_schema_extra or {}).get("pages", ()))

"""Typed settings of a part's study, on pydantic v2: one frozen model per part (:class:`Settings`), unknown keys
forbidden, constraints as field types, a nested setting a :class:`Section` over whose default a partial mapping is
laid key by key, and a refused value a :class:`SettingsError` naming its key path and the nearest known key."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator

from pluralign.keywords import did_you_mean

__all__ = ["Arguments", "Section", "Settings", "SettingsError", "setting"]

S = TypeVar("S", bound="Section")


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
    return next(filter(None, map(_section_of, typing.get_args(annotation))), None)


def _refusal(cls: type[Section], error: ValidationError, given, what: str | None) -> SettingsError:
    """A :class:`SettingsError` from pydantic's errors, each as its key path (the parts of ``loc`` that are keys of
    the data ``given``, not pydantic's union tags), its message and, for an unknown key, the nearest known key and
    the known ones. An error on a path that a deeper error extends (another member of a union) is left out."""
    found = []
    for e in error.errors():
        model, data, keys, fields = cls, given, [], {}
        for part in e["loc"]:
            fields = model.model_fields if model is not None else {}
            if part in fields or isinstance(part, int) or isinstance(data, Mapping) and part in data:
                keys.append(part)
                model = _section_of(fields[part].annotation) if part in fields else model
                try:
                    data = data[part]
                except (KeyError, IndexError, TypeError):
                    data = None
        known = list(fields) if e["type"] == "extra_forbidden" and fields else None
        found.append((tuple(keys), e, known))
    out, seen = [], set()
    for keys, e, known in found:
        if keys in seen or any(len(k) > len(keys) and k[: len(keys)] == keys for k, _, _ in found):
            continue
        seen.add(keys)
        path = ".".join(map(str, keys[:-1] if known is not None else keys))
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
        fields = {k: cls.model_fields[k] for k, v in data.items() if k in cls.model_fields and isinstance(v, Mapping)}
        defaults = {k: f.get_default(call_default_factory=True) for k, f in fields.items()}
        return {**data, **{k: _laid(d, data[k]) for k, d in defaults.items() if _layered(d)}}

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
            raise _refusal(cls, e, given, what) from None

    def replace(self: S, **changes) -> S:
        """A copy with ``changes`` (validated like :meth:`create`; a mapping for a section is laid over it)."""
        return type(self).create(self, **changes)

    @classmethod
    def documentation(cls) -> pd.DataFrame:
        """One row per setting: its name, default and documentation (the parameter reference of a part)."""
        rows = [(n, f.get_default(call_default_factory=True), f.description or "") for n, f in cls.model_fields.items()]
        rows = [(n, d.model_dump() if isinstance(d, Section) else d, m) for n, d, m in rows]
        return pd.DataFrame(rows, columns=["setting", "default", "meaning"]).set_index("setting")

    @classmethod
    def defaults(cls) -> dict:
        """{field name: its default, validated} (sections as instances)."""
        return dict(cls.model_validate({}))

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
    """A part's settings: the class a page's ``settings`` parameter names (:func:`pluralign.params.page_cell`)."""

    @classmethod
    def readers(cls, name: str) -> tuple[str, ...]:
        """The pages that read setting ``name`` where only some pages of the part do (``setting(..., pages=...)``;
        a page's parameter file that sets it is refused by the others); () where every page does."""
        return tuple((cls.model_fields[name].json_schema_extra or {}).get("pages", ()))

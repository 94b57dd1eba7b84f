"""Typed settings of a part's study: one frozen dataclass per part, every default and its meaning written once.

Each part (``diverging``, ``seal``, ``btb``, ``cross``) declares its settings as a frozen dataclass derived from
:class:`Settings`, one field per page parameter, documented in the field's ``metadata["help"]`` (as TRL's
``RewardConfig`` does) and validated on construction (``__post_init__``, which only checks). A setting made of
several named values (a judge, a train / test split, SEAL's alignment design) is a nested frozen dataclass derived
from :class:`Section`, shared by the parts that use it. Every part's ``setup`` has the one signature

    setup(profile="demo", seed=0, *, models=None, settings=None, **overrides) -> Study

and builds its settings with :meth:`Section.create`: a mapping given for a nested section is laid over the
section's default key by key (``judge: {noise: 2.0}`` keeps every other key of the default judge), and a name
that is not a field is an error naming it and the known ones. Code reads a setting as an attribute
(``study.settings.judge.noise``), never by string key and never with a restated default.

A page's notebook takes its settings as one papermill parameter: its parameters cell declares ``profile``,
``seed``, ``models`` and ``settings = {}`` (a comment names the class), and its setup call is
``seal.setup(profile, seed, models=models, settings=settings, page="seal_imprint")``: the settings laid over the
profile's parameter file of the page (:func:`pluralign.params.page_settings`). The runner injects every setting a
page runs with into ``settings`` (:func:`pluralign.params.papermill_parameters`).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import pandas as pd

__all__ = ["Section", "Settings", "did_you_mean", "setting"]

S = TypeVar("S", bound="Section")


def did_you_mean(name: str, known) -> str:
    """``"; did you mean 'x'?"`` naming the entry of ``known`` nearest to a misspelled ``name`` (difflib), or ``""``
    when none is near: the hint every "unknown name" error of the library ends with."""
    near = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {near[0]!r}?" if near else ""


def setting(default: Any, help: str, **kw) -> Any:  # noqa: A002 - the name TRL and argparse use
    """A documented settings field. A mutable ``default`` (a dict, a list, a :class:`Section`) is copied for every
    instance."""
    if isinstance(default, (dict, list, set, Section)):
        return dataclasses.field(default_factory=lambda d=default: _copy(d), metadata={"help": help}, **kw)
    return dataclasses.field(default=default, metadata={"help": help}, **kw)


def _copy(value):
    import copy

    return copy.deepcopy(value)


def _default(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return dataclasses.MISSING


@functools.cache
def _section_types(cls: type) -> dict[str, type]:
    """{field name: its :class:`Section` type} of the fields of ``cls`` typed with a section (or ``X | None``)."""
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        hint = hints.get(f.name)
        for t in (hint, *typing.get_args(hint)):
            if isinstance(t, type) and issubclass(t, Section):
                out[f.name] = t
    return out


@dataclasses.dataclass(frozen=True)
class Section:
    """A group of named settings (a frozen dataclass): a part's settings, or a nested setting such as a judge."""

    @classmethod
    def create(cls: type[S], settings: S | Mapping | None = None, *, what: str | None = None, **overrides) -> S:
        """The settings from ``settings`` (an instance or a mapping of field names) with ``overrides`` laid over
        them; a mapping given for a nested section is laid over that section's current value (its default when
        ``settings`` is not an instance). A name that is not a field is an error naming it, the nearest field and
        the known fields (``what``: the name the message gives this group)."""
        if isinstance(settings, cls):
            base = {f.name: getattr(settings, f.name) for f in dataclasses.fields(cls)}
        elif settings is None or isinstance(settings, Mapping):
            base = {}
            overrides = {**(settings or {}), **overrides}
        else:
            raise TypeError(f"{what or cls.__name__}: expected a mapping of settings, not {settings!r}")
        cls._refuse_unknown(overrides, what)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        sections = _section_types(cls)
        given = dict(base)
        for name, value in overrides.items():
            default = _default(fields[name])
            given[name] = cls._coerce(name, value, base.get(name, default), default, sections.get(name), what)
        return cls(**cls.normalize(given))

    @classmethod
    def _refuse_unknown(cls, names, what: str | None) -> None:
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(names) - set(known))
        if not unknown:
            return
        hint = did_you_mean(unknown[0], known)
        if what is None:
            raise TypeError(
                f"{cls.__name__}: unknown setting(s) {unknown}{hint}; the known settings are {sorted(known)}"
            )
        raise ValueError(f"{what}: unknown key(s) {unknown}{hint}; known: {sorted(known)}")

    @staticmethod
    def _coerce(name: str, value, current, default, section: type | None, what: str | None):
        """A nested section's value: a mapping laid over the current section (or over the section's class defaults
        where the current value is None); an instance as given; None only where the field's default is None."""
        where = f"{what}.{name}" if what else name
        if value is None and isinstance(default, Section):
            raise ValueError(f"{where}: None is not a value of this setting; leave it out for its default")
        if section is None or not isinstance(value, Mapping):
            return value
        if isinstance(current, section):
            return section.create(current, what=where, **value)
        return section.create(value, what=where)

    @classmethod
    def normalize(cls, values: dict) -> dict:
        """The given values in the form the fields hold (a subclass turns, e.g., one data spec into a list of one);
        runs in :meth:`create` before construction, so that ``__post_init__`` only checks."""
        return values

    def replace(self: S, **changes) -> S:
        """A copy with ``changes`` (validated like :meth:`create`; a mapping for a section is laid over it)."""
        return type(self).create(self, **changes)

    @classmethod
    def documentation(cls) -> pd.DataFrame:
        """One row per setting: its name, default and documentation (the parameter reference of a part)."""
        rows = []
        for f in dataclasses.fields(cls):
            default = _default(f)
            if isinstance(default, Section):
                default = default.as_dict()
            rows.append({"setting": f.name, "default": default, "meaning": f.metadata.get("help", "")})
        return pd.DataFrame(rows).set_index("setting")

    @classmethod
    def defaults(cls) -> dict:
        """{field name: its default} (sections as instances)."""
        return {f.name: _default(f) for f in dataclasses.fields(cls)}

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Settings(Section):
    """Base of a part's settings (see the module docstring)."""

    def changed(self) -> dict:
        """{name: value} of the settings that differ from their defaults (sections: only their changed keys)."""
        out = {}
        for f in dataclasses.fields(self):
            value, default = getattr(self, f.name), _default(f)
            if isinstance(value, Section) and isinstance(default, Section) and type(value) is type(default):
                inner = {
                    g.name: getattr(value, g.name)
                    for g in dataclasses.fields(value)
                    if getattr(value, g.name) != getattr(default, g.name)
                }
                if inner:
                    out[f.name] = inner
            elif value != default:
                out[f.name] = value.as_dict() if isinstance(value, Section) else value
        return out

"""Typed settings of a part's study: one dataclass per part, every default and its documentation written once.

Each part (``diverging``, ``seal``, ``btb``, ``cross``) declares its settings as a frozen dataclass derived from
:class:`Settings`, one field per page parameter, documented in the field's ``metadata["help"]`` (as TRL's
``RewardConfig`` does), validated on construction (``__post_init__``). Every part's ``setup`` has the one signature

    setup(profile="demo", seed=0, *, models=None, settings=None, **overrides) -> Study

and builds its settings with :meth:`Settings.create`, which refuses an unknown name with an error naming it and
the known ones. Code reads a setting as an attribute (``study.settings.p_flip``), never with a restated default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

import pandas as pd

__all__ = ["Settings", "setting", "merge"]

S = TypeVar("S", bound="Settings")


def setting(default: Any, help: str, **kw) -> Any:  # noqa: A002 - the name TRL and argparse use
    """A documented settings field (``default`` may be a dict or list: it is copied for every instance)."""
    if isinstance(default, (dict, list, set)):
        return dataclasses.field(default_factory=lambda d=default: _copy(d), metadata={"help": help}, **kw)
    return dataclasses.field(default=default, metadata={"help": help}, **kw)


def _copy(value):
    import copy

    return copy.deepcopy(value)


def merge(defaults: Mapping | None, overrides: Mapping | None, what: str = "settings") -> dict:
    """``defaults`` with ``overrides`` laid over them key by key (one level); an override key that ``defaults``
    does not have is an error naming it (``what`` names the setting in the message)."""
    out = dict(defaults or {})
    unknown = sorted(set(overrides or {}) - set(out)) if defaults else []
    if unknown:
        raise ValueError(f"{what}: unknown key(s) {unknown}; known: {sorted(out)}")
    out.update(overrides or {})
    return out


@dataclasses.dataclass(frozen=True)
class Settings:
    """Base of a part's settings (a frozen dataclass; see the module docstring)."""

    @classmethod
    def create(cls: type[S], settings: S | Mapping | None = None, **overrides) -> S:
        """The settings from ``settings`` (an instance or a mapping of field names) with ``overrides`` laid over
        them; a name that is not a field is an error naming it and the known fields."""
        if isinstance(settings, cls):
            base = {f.name: getattr(settings, f.name) for f in dataclasses.fields(cls)}
        else:
            base = dict(settings or {})
        given = {**base, **overrides}
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise TypeError(f"{cls.__name__}: unknown setting(s) {unknown}; the known settings are {sorted(known)}")
        return cls(**given)

    def replace(self: S, **changes) -> S:
        """A copy with ``changes`` (validated like :meth:`create`)."""
        return type(self).create(self, **changes)

    @classmethod
    def documentation(cls) -> pd.DataFrame:
        """One row per setting: its name, default and documentation (the parameter reference of a part)."""
        rows = []
        for f in dataclasses.fields(cls):
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            rows.append({"setting": f.name, "default": default, "meaning": f.metadata.get("help", "")})
        return pd.DataFrame(rows).set_index("setting")

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

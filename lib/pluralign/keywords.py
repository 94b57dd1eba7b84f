"""Names a caller gives that the library does not know, refused with the nearest known one: the hint every "unknown
name" error of the library ends with, and the check of a function's keyword options (a loader's, a model's, an
LLM backend's) that replaces Python's bare ``unexpected keyword argument``."""

from __future__ import annotations

import difflib
import inspect

__all__ = ["did_you_mean", "refuse_unknown", "check_options"]


def did_you_mean(name: str, known) -> str:
    """``"; did you mean 'x'?"`` naming the entry of ``known`` nearest to a misspelled ``name`` (difflib), or ``""``
    when none is near."""
    near = difflib.get_close_matches(str(name), [str(k) for k in known], n=1)
    return f"; did you mean {near[0]!r}?" if near else ""


def refuse_unknown(options, valid: list[str], what: str, error: type[Exception] = TypeError) -> None:
    """Raise ``error`` naming the first of ``options`` outside ``valid``, the nearest valid one and all of them."""
    if unknown := [k for k in options if k not in valid]:
        k = unknown[0]
        raise error(f"unknown option {k!r} for {what}{did_you_mean(k, valid)} (options: {', '.join(valid)})")


def check_options(fn, options, *, what: str | None = None, error: type[Exception] = TypeError) -> None:
    """Refuse keyword options that ``fn`` does not take (:func:`refuse_unknown`); a function that takes any keyword
    takes them all."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    valid = sorted(p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self")
    refuse_unknown(options, valid, what or getattr(fn, "__qualname__", str(fn)), error)

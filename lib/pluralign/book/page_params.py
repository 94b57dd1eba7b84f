"""The parameters of a page as the book reads them: :func:`pluralign.params.read_params` with the keys and
types its notebook declares."""

from __future__ import annotations

from pathlib import Path

from pluralign import params as P
from pluralign.book import manifest_plan as plan
from pluralign.book.errors import BookError


def read_params(path: Path, notebook: str | None = None) -> dict:
    """The parameters of a page (:func:`pluralign.params.read_params`): ``common.yml``, includes and the page's
    own keys deep-merged; with ``notebook`` (a name under notebooks/ or a path) undeclared keys are errors."""
    declared = None
    if notebook is not None:
        src = Path(notebook) if str(notebook).endswith(".py") else plan.ROOT / "notebooks" / f"{notebook}.py"
        declared = _declared(src)
    try:
        if notebook is None:
            return P.read_params(path)
        return P.read_params(path, declared=declared, types=_types(src), notebook=src)
    except P.ParamsError as e:
        raise BookError(str(e)) from None


_DECLARED: dict = {}


def _declared(src: Path) -> list[str]:
    key = (str(src), src.stat().st_mtime_ns)
    if key not in _DECLARED:
        _DECLARED[key] = P.declared_parameters(src)
    return _DECLARED[key]


def _types(src: Path) -> dict:
    key = ("types", str(src), src.stat().st_mtime_ns)
    if key not in _DECLARED:
        _DECLARED[key] = P.declared_types(src)
    return _DECLARED[key]

"""A setting that only some pages of a part read names them (``setting(..., pages=...)``,
:meth:`pluralign.settings.Settings.readers`), checked here against the code each page runs; a parameter file of
another page of the part that sets it is refused, naming the pages that read it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pluralign import params as P
from pluralign.btb import BtbSettings
from pluralign.cross import CrossSettings
from pluralign.diverging import DivergingSettings
from pluralign.seal import SealSettings

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "pluralign"
PARTS = {"diverging": DivergingSettings, "seal": SealSettings, "btb": BtbSettings, "cross": CrossSettings}
#: modules every page of a part runs (the study, its settings, the stand-ins' notes): no page's own code
SHARED = {"__init__", "study", "settings", "stand_ins", "pages"}


def _part_modules(source: str, part: str) -> set[str]:
    """The modules of ``pluralign.<part>`` that ``source`` imports (``pages.x`` for a page module), shared ones
    left out."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(f"pluralign.{part}"):
            below = node.module.removeprefix(f"pluralign.{part}").lstrip(".")
            out |= {f"{below}.{a.name}".lstrip(".") for a in node.names} if below in ("", "pages") else {below}
    return {m for m in out if m.split(".")[-1] not in SHARED and (LIB / part / f"{m.replace('.', '/')}.py").exists()}


def _attributes(source: str) -> set[str]:
    """Every attribute name ``source`` reads (``study.settings.n_rewrite`` reads ``n_rewrite``)."""
    return {n.attr for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Attribute)}


def page_reads(part: str) -> dict[str, set[str]]:
    """{page: the attributes its own code reads}: its notebook, the page modules it imports and the part's modules
    those import (one step)."""
    out = {}
    for nb in sorted((ROOT / "notebooks").glob(f"{part}_*.py")):
        text = nb.read_text()
        sources = [text]
        for m in _part_modules(text, part):
            page_module = (LIB / part / f"{m.replace('.', '/')}.py").read_text()
            sources += [page_module] + [
                (LIB / part / f"{d.replace('.', '/')}.py").read_text() for d in _part_modules(page_module, part)
            ]
        out[nb.stem] = set().union(*map(_attributes, sources))
    return out


RESTRICTED = [(part, f) for part, cls in PARTS.items() for f in cls.model_fields if cls.readers(f)]


def test_some_settings_are_read_by_some_pages_only():
    assert ("seal", "n_rewrite") in RESTRICTED and SealSettings.readers("n_rewrite") == ("seal_robustness",)
    assert SealSettings.readers("design") == ()  # the study design: every page


@pytest.mark.parametrize("part,field", RESTRICTED, ids=lambda x: x)
def test_the_pages_a_setting_names_are_the_pages_whose_code_reads_it(part, field):
    reads = page_reads(part)
    readers = set(PARTS[part].readers(field))
    assert readers <= set(reads), f"{field}: no such page of {part}"
    assert {p for p, attrs in reads.items() if field in attrs} == readers, field


def _file(tmp_path: Path, text: str) -> Path:
    (tmp_path / "page.yml").write_text(text)
    return tmp_path / "page.yml"


def test_a_setting_in_the_file_of_a_page_that_does_not_read_it_is_refused_naming_the_pages_that_do(tmp_path):
    imprint, robustness = (ROOT / "notebooks" / f"seal_{p}.py" for p in ("imprint", "robustness"))
    with pytest.raises(P.ParamsError) as e:
        P.read_page(_file(tmp_path, "features: planted\nn_rewrite: 50\n"), imprint)
    msg = str(e.value)
    assert "page.yml" in msg and "'n_rewrite'" in msg and "seal_imprint" in msg and "seal_robustness" in msg
    assert P.read_page(_file(tmp_path, "n_rewrite: 50\n"), robustness).settings.n_rewrite == 50


def test_an_included_file_may_set_a_setting_some_of_its_pages_read(tmp_path):
    """A study file included by the pages of a part is read by each; only a page's own file is checked."""
    (tmp_path / "study.yml").write_text("n_rewrite: 50\n")
    page = P.read_page(_file(tmp_path, "include: study.yml\n"), ROOT / "notebooks" / "seal_imprint.py")
    assert page.params["n_rewrite"] == 50

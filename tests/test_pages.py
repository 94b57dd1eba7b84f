"""The one page API: page modules named apart from the concepts they show, small, importing at their top, one profile
note that every notebook calls the same way, and "no estimate" said by raising ``report.NoEstimate``."""

import ast
import re

from test_structure import LIB, sizes

ROOT = LIB.parent
PARTS = ("diverging", "seal", "btb", "cross")
#: a page module's limits (tighter than the library's: a page is read beside its notebook)
PAGE_LIMITS = {"module": 540, "function": 72}
#: imports a page may keep inside a function: they load torch / transformers, which importing a page must not
HEAVY = {"pluralign.rewards", "torch", "transformers"}


def _page_files():
    return [p for part in PARTS for p in sorted((LIB / "pluralign" / part / "pages").glob("*.py"))]


def test_page_modules_are_named_apart_from_the_concept_modules():
    for part in PARTS:
        concepts = {p.stem for p in (LIB / "pluralign" / part).glob("*.py")}
        pages = {p.stem for p in (LIB / "pluralign" / part / "pages").glob("*.py")} - {"__init__"}
        assert not pages & concepts, f"{part}: page modules named like concept modules: {sorted(pages & concepts)}"


def test_every_notebook_imports_its_page_module_and_calls_the_one_profile_note():
    for nb in sorted((ROOT / "notebooks").glob("*.py")):
        text = nb.read_text()
        for name in re.findall(r"^from pluralign\.\w+\.pages import ([\w, ]+)$", text, re.M):
            modules = [n.strip() for n in name.split(",") if n.strip() != "stand_ins"]
            assert all(m.endswith("_page") for m in modules), (nb.name, modules)
            assert 'report.profile_note(profile, stand_ins(study, "' in text, nb.name
        if "profile_note" in text:
            assert len(re.findall(r"report\.profile_note\(profile, ", text)) == 1, nb.name


def test_one_profile_note_in_the_library():
    found = [
        f"{p.relative_to(LIB)}:{n.lineno}"
        for p in (LIB / "pluralign").rglob("*.py")
        for n in ast.walk(ast.parse(p.read_text()))
        if isinstance(n, ast.FunctionDef) and n.name == "profile_note"
    ]
    assert found == ["pluralign/report.py:" + found[0].rpartition(":")[2]], found


def test_page_modules_are_small():
    over = [
        f"{kind} {name}: {n} lines (limit {PAGE_LIMITS[kind]})"
        for kind, name, n in sizes()
        if "/pages/" in name and kind in PAGE_LIMITS and n > PAGE_LIMITS[kind]
    ]
    assert not over, "\n".join(over)


def test_pages_import_at_their_top_but_torch():
    inside = []
    for p in _page_files():
        for fn in ast.walk(ast.parse(p.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for n in ast.walk(fn):
                if isinstance(n, ast.ImportFrom):
                    names = {n.module, *(f"{n.module}.{a.name}" for a in n.names)}
                elif isinstance(n, ast.Import):
                    names = {a.name for a in n.names}
                else:
                    continue
                if not names & HEAVY:
                    inside.append(f"{p.relative_to(LIB)}:{n.lineno}")
    assert not inside, inside


def test_pages_say_no_estimate_by_raising():
    """No page returns a prepared "no estimate" Result (``none = ...; if none is not None: return none``)."""
    pattern = re.compile(r"if none is not None:\s*\n\s*return none")
    found = [str(p.relative_to(LIB)) for p in _page_files() if pattern.search(p.read_text())]
    found += [str(p.relative_to(LIB)) for p in _page_files() if 'skipped=f"no estimate: ' in p.read_text()]
    assert not found, found

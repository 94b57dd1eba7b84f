"""Every notebook reads like a lecture: prose, one library call per section, its display.

Notebooks are orchestration and narrative only: no ``def`` / ``class``, no loops or comprehensions, no
branch on the profile, at most 60 code lines each outside the parameters cell and 600 in all. What a
notebook would compute, the library computes (and a test checks)."""

import re
from pathlib import Path

import jupytext
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.py"))
PER_NOTEBOOK, IN_ALL = 60, 600
FORBIDDEN = {
    "a function or class definition": re.compile(r"^\s*(async\s+)?(def|class)\s"),
    "a loop": re.compile(r"^\s*(for|while)\s|\bfor\s+\w[\w, ]*\s+in\s"),
    "a branch": re.compile(r"^\s*(if|elif|else)\b"),
    "a branch on the profile": re.compile(r"\bprofile\s*(==|!=|\bin\b|\bnot\b)"),
}


def code_lines(path: Path) -> list[str]:
    """Non-blank, non-comment lines of the code cells outside the parameters cell."""
    nb = jupytext.read(path)
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "parameters" in cell.metadata.get("tags", []):
            continue
        out += [ln for ln in cell.source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_narrative_and_calls(path):
    lines = code_lines(path)
    assert len(lines) <= PER_NOTEBOOK, (
        f"{path.name}: {len(lines)} code lines outside the parameters cell (max {PER_NOTEBOOK})"
    )
    for what, pattern in FORBIDDEN.items():
        hits = [ln for ln in lines if pattern.search(ln)]
        assert not hits, f"{path.name} holds {what}: {hits[:3]}"


def test_notebooks_in_all_stay_short():
    total = sum(len(code_lines(p)) for p in NOTEBOOKS)
    assert total <= IN_ALL, f"the notebooks hold {total} code lines outside their parameters cells (max {IN_ALL})"


def test_the_shape_check_catches_a_loop(tmp_path):
    nb = tmp_path / "x.py"
    nb.write_text("# %% tags=['parameters']\nprofile = 'demo'\n\n# %%\nfor i in range(3):\n    print(i)\n")
    assert any(FORBIDDEN["a loop"].search(ln) for ln in code_lines(nb))


PAPER_PAGES = sorted(p.stem for p in NOTEBOOKS if p.stem.split("_")[0] in ("diverging", "seal", "btb", "cross"))


@pytest.mark.parametrize("name", PAPER_PAGES)
def test_every_paper_page_opens_with_its_findings_and_ends_with_the_reproduce_box(name):
    """Right under the title, before any paraphrase of the paper: "What this page finds", its numbers and verdicts
    glued; the last cell is the "Reproduce this page" box of that notebook."""
    nb = jupytext.read(NOTEBOOKS[0].parent / f"{name}.py")
    first = nb.cells[0].source
    title = next(line for line in first.splitlines() if line.startswith("# "))
    after = first.split(title, 1)[1].lstrip()
    assert after.startswith(":::{admonition} What this page finds"), name
    assert "{glue:text}" in after.split("\n:::", 1)[0], name
    assert re.match(rf'report\.reproduce\(\s*"{name}"', nb.cells[-1].source), name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_profile_note_is_the_last_statement_of_its_cell_so_the_page_shows_it(path):
    """A notebook shows only the last expression of a cell: a profile note followed by other statements (the
    findings' ``.glue()`` calls) is computed and never displayed, and the page no longer says what produced it."""
    for cell in jupytext.read(path).cells:
        lines = [ln for ln in cell.source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if any(ln.startswith("report.profile_note(") for ln in lines):
            assert lines[-1].startswith("report.profile_note("), f"{path.name}: statements after the profile note"

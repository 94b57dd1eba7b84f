"""The four Part IV notebooks as a reader meets them: findings first, code hidden alike, the reproduce box last, no
sentence twice, no code identifier in the prose."""

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["cross_margins", "cross_uncertainty", "cross_regimes", "cross_training"]


def _cells(name):
    return jupytext.read(ROOT / "notebooks" / f"{name}.py").cells


def _prose(name) -> str:
    """The Markdown of a notebook without math, glue roles and code spans (what a reader reads as words)."""
    text = "\n".join(c.source for c in _cells(name) if c.cell_type == "markdown")
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"\{[a-z:]+\}`[^`]*`", " ", text)
    return re.sub(r"`[^`]*`", " ", text)


@pytest.mark.parametrize("name", PAGES)
def test_every_code_cell_is_hidden_with_remove_input(name):
    code = [c for c in _cells(name) if c.cell_type == "code"]
    for c in code:
        tags = c.metadata.get("tags", [])
        assert "parameters" in tags or "remove-input" in tags, c.source[:60]
        assert "hide-input" not in tags


@pytest.mark.parametrize("name", PAGES)
def test_the_page_opens_with_its_findings_and_ends_with_the_reproduce_box(name):
    cells = _cells(name)
    first = cells[0].source
    title = next(line for line in first.splitlines() if line.startswith("# "))
    after = first.split(title, 1)[1].lstrip()
    assert after.startswith(":::{admonition} What this page finds")  # right under the title, before any prose
    box = after.split("\n:::", 1)[0]
    assert "{glue:text}" in box  # its numbers and verdicts are glued, not typed
    assert cells[-1].cell_type == "code" and cells[-1].source.startswith(f'report.reproduce("{name}"')


@pytest.mark.parametrize("name", PAGES)
def test_no_sentence_twice_and_no_snake_case_in_the_prose(name):
    prose = _prose(name)
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(prose.split())) if len(s.strip()) > 30]
    assert len(sentences) == len(set(sentences)), [s for s in sentences if sentences.count(s) > 1]
    assert not re.findall(r"\b[a-z]+_[a-z0-9_]+\b", prose)


def test_the_training_page_states_the_margin_0_rule_once():
    """The note under "The models" says which training pairs trained with margin 0 (the plain Bradley–Terry loss);
    the page's prose does not say it again."""
    assert "margin 0" not in _prose("cross_training")

"""The introduction says what the book finds, not only what the papers are: for each paper and for Part IV, what the
demo shows, what it cannot speak to and where the other profiles differ, linked to the pages that show it, in
sentences that type no result (the pages' boxes carry the numbers); and it points the reader at the first page."""

import re
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[2]
PARTS = {
    "**Diverging Preferences** (Part I)": ["diverging-agreement", "diverging-rewards", "diverging-know"],
    "**SEAL** (Part II)": ["seal-imprint", "seal-resistance"],
    "**Beyond the Binary** (Part III)": ["btb-margins", "btb-rewards"],
    "**Across the three papers** (Part IV)": ["cross-margins", "cross-uncertainty", "cross-regimes", "cross-training"],
}
ITEMS = ("*What the demo shows.*", "*What it cannot speak to.*", "*Where the other profiles differ.*")


def _markdown() -> str:
    cells = jupytext.read(ROOT / "notebooks" / "intro.py").cells
    return "\n".join(c.source for c in cells if c.cell_type == "markdown")


def _findings() -> str:
    md = _markdown()
    assert "## What this book finds" in md
    return md.split("## What this book finds", 1)[1].split("\n## ", 1)[0]


def test_a_findings_summary_per_paper_with_its_three_questions_and_its_pages():
    text = _findings()
    heads = list(PARTS)
    for k, head in enumerate(heads):
        assert head in text, head
        part = text.split(head, 1)[1]
        part = part.split(heads[k + 1], 1)[0] if k + 1 < len(heads) else part
        for item in ITEMS:
            assert item in part, (head, item)
        for page in PARTS[head]:
            assert f"{{ref}}`{page}`" in part, (head, page)


def test_the_summary_types_no_result():
    """No number a run computes: only names that carry digits (Table 2, Eq. 3, §3, Llama-3-8B, HelpSteer2)."""
    text = re.sub(r"\$[^$]*\$|\{[a-z:]+\}`[^`]*`", " ", _findings())
    text = re.sub(r"(Table|Eq\.|§)\s*\d+|Llama-3-\d+B|HelpSteer2", " ", text)
    assert not re.findall(r"\d", text), re.findall(r".{20}\d.{20}", text)


def test_the_reader_is_pointed_at_the_data_and_the_first_paper_page():
    md = _markdown()
    start = md.rsplit("**Where to start:**", 1)[1]
    assert "{ref}`diverging-agreement`" in start and "recovery" not in start

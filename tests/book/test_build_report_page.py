"""The build report reads as an appendix page: a plain summary first, its code hidden, and the long lists (every
page's parameters, every cache entry) folded into dropdowns rather than printed in full."""

from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[2]


def _cells():
    return jupytext.read(ROOT / "notebooks" / "build_report.py").cells


def test_it_opens_with_a_plain_summary_of_its_glued_numbers():
    md = [c.source for c in _cells() if c.cell_type == "markdown"]
    first_after_title = md[1]
    assert first_after_title.startswith(":::{admonition} What built this book")
    for name in ("report_profile", "n_runs", "cache_entries", "cache_mib"):
        assert f"{{glue:text}}`{name}`" in first_after_title


def test_parameters_and_cache_list_are_folded_and_code_hidden():
    code = [c for c in _cells() if c.cell_type == "code"]
    for c in code:
        assert {"parameters", "remove-input"} & set(c.metadata.get("tags", [])), c.source[:60]
    shown = [c.source for c in code if "parameters" not in c.metadata.get("tags", [])]
    folded = [s for s in shown if ":::{{dropdown}}" in s]
    assert any("parameters.table" in s for s in folded) and any("cache.table" in s for s in folded)
    # neither long table is displayed bare (a cell's last line is what it shows)
    last = [s.strip().splitlines()[-1] for s in shown]
    assert "parameters" not in last and not any(x.startswith("report.cache_state()") for x in last)

"""The headless-browser check finds what it promises to find, in real Chromium."""

import shutil
from pathlib import Path

import pytest

from pluralign.book import sitecheck

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def _site(tmp_path: Path, body: str) -> Path:
    site = tmp_path / "html"
    (site / "sub").mkdir(parents=True)
    (site / "ok.png").write_bytes(PNG)
    (site / "sub" / "other.html").write_text('<html><body><h1 id="here">Other</h1></body></html>')
    (site / "index.html").write_text(f"<html><body>{body}</body></html>")
    return site


@pytest.fixture(scope="module", autouse=True)
def _chromium():
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("Debian chromium/chromium-driver not installed (scripts/install-chromium.sh)")


def test_clean_site_passes(tmp_path):
    site = _site(tmp_path, '<img src="ok.png"><a href="sub/other.html#here">x</a><a href="https://example.org">y</a>')
    assert sitecheck.check(site) == []


def test_missing_image_broken_link_anchor_and_traceback_are_reported(tmp_path):
    site = _site(
        tmp_path,
        '<img src="missing.png"><a href="sub/nope.html">a</a><a href="sub/other.html#gone">b</a>'
        "<pre>Traceback (most recent call last):\n  File x\nValueError: boom</pre>",
    )
    problems = "\n".join(sitecheck.check(site))
    assert "image did not load: missing.png" in problems
    assert "broken link 'sub/nope.html'" in problems
    assert "broken anchor 'sub/other.html#gone'" in problems
    assert "raw traceback" in problems


def test_external_script_and_raw_tex_are_reported_but_code_and_typeset_math_are_not(tmp_path):
    site = _site(
        tmp_path,
        '<script src="https://cdn.example.org/x.js"></script>'
        "<p>the loss $$\\sigma(r_A - r_B)$$ stays raw</p>"
        "<pre>print('$$ in code is fine')</pre><code>\\begin{x}</code>",
    )
    problems = "\n".join(sitecheck.check(site))
    assert "external script (the site must work offline): https://cdn.example.org/x.js" in problems
    assert "TeX not typeset" in problems and "stays raw" in problems
    assert "in code is fine" not in problems and "\\begin{x}" not in problems


def test_long_decimals_in_tables_are_reported_but_not_three_significant_digits_or_arxiv_ids(tmp_path):
    """A computed number of five significant decimals is reported; 3 significant digits, an arXiv id and a
    paper's number shown as printed (class ``printed``) are not."""
    site = _site(
        tmp_path,
        "<table><tr><td>0.123456</td><td>0.00100</td><td class='num printed'>1.07610</td>"
        "<td>Miranda et al. 2024, arXiv:2410.19133 (MultiPref)</td></tr></table>",
    )
    problems = "\n".join(sitecheck.check(site))
    assert "1 table cell(s) with five or more significant decimals, e.g. '0.123456'" in problems
    site = _site(tmp_path / "b", "<table><tr><td>0.00100</td><td>Zhang et al. 2024, arXiv:2410.14632</td></tr></table>")
    assert sitecheck.check(site) == []


def test_a_table_wider_than_the_column_is_reported_even_inside_a_scroll_container(tmp_path):
    """A wide table hides its last columns until the reader scrolls sideways: reported whether or not it stands in
    a scroll container; a table that fits is not."""
    cells = "".join(f"<td>column {i} with a long header</td>" for i in range(40))
    body = (
        "<article class='bd-article' style='width: 600px'>"
        f"<div style='overflow-x: auto'><table><tr>{cells}</tr></table></div>"
        "<table><tr><td>fits</td></tr></table></article>"
    )
    problems = sitecheck.check(_site(tmp_path, body))
    assert len([p for p in problems if "table wider than the text column" in p]) == 1, problems
    narrow = "<article class='bd-article' style='width: 600px'><table><tr><td>fits</td></tr></table></article>"
    assert sitecheck.check(_site(tmp_path / "b", narrow)) == []


def test_the_page_consistency_check_fails_a_planted_contradiction_in_real_chromium(tmp_path):
    """A paper page whose table reads a direction off an interval containing 0, whose sentence quotes "—" as a
    value, whose table text is 11 px and whose figure has no caption and a snake_case label fails; the same page
    written consistently passes. The reproduce box may name code."""
    site = tmp_path / "html"
    site.mkdir()
    (site / "ok.png").write_bytes(PNG)

    def page(verdict, sentence, size, caption, label):
        return (
            f"<html><body><main><article class='bd-article'><p>This page was produced by the demo profile.</p>"
            f"<p>{sentence}</p>"
            f"<table style='font-size:{size}'><thead><tr><th></th><th>r (this run)</th><th>verdict</th></tr></thead>"
            f"<tbody><tr><th>Single Correct</th><td>−0.157 [−0.412, 0.101]</td><td>{verdict}</td></tr></tbody></table>"
            f"<div class='cell'><div class='cell_output'><img src='ok.png' width='1000'>{caption}"
            f"<span class='pluralign-figure-labels' hidden>{label}</span></div></div>"
            "<div class='admonition'><p class='admonition-title'>Reproduce this page</p>"
            "<p>The library: pluralign.btb.evaluation and btb_rewards.</p></div>"
            "</article></main></body></html>"
        )

    (site / "btb-rewards.html").write_text(
        page("same direction as the paper", "This run's own Δ at about —.", "11px", "", "mean_p_star")
    )
    found = "\n".join(sitecheck.check(site))
    assert "a direction read off an interval that contains 0" in found
    assert "a missing value inside the sentence" in found
    assert "table text under 12 px" in found
    assert "figure without a numbered caption" in found
    assert "code identifier 'mean_p_star' in a figure label" in found
    assert "btb_rewards" not in found  # inside the reproduce box
    (site / "btb-rewards.html").write_text(
        page(
            "inconclusive", "This run's Δ is 0.01.", "12px", "<p><strong>Figure 1.</strong> r per class.</p>", "mean p*"
        )
    )
    assert sitecheck.check(site) == []


def test_the_rehearsal_reports_how_its_pages_read_without_failing_on_it(tmp_path, capsys):
    """``--reading=report`` (the rehearsal on random-weight models): a reading problem is printed, marked, and does
    not fail the check; a broken link still does."""
    site = _site(tmp_path, "<table style='font-size:11px'><tbody><tr><td>1</td></tr></tbody></table>")
    assert sitecheck.main([str(site)]) == 1
    assert sitecheck.main([str(site), "--reading=report"]) == 0
    assert "(reported)" in capsys.readouterr().out
    broken = _site(tmp_path / "b", "<a href='sub/nope.html'>x</a>")
    assert sitecheck.main([str(broken), "--reading=report"]) == 1


def test_a_section_computed_per_data_set_may_repeat_its_note_under_each_data_sets_name(tmp_path):
    """In one computed output, the part of each data set stands under a paragraph that is only its bold name: the
    same note in two parts is no repetition; the same sentence twice in one part is."""
    note = "Reward models: named pre-D and post-D reward models of the paper's setup."

    def site(folder, parts):
        body = "".join(f"<p><strong>{name}</strong></p><p>{text}</p>" for name, text in parts)
        (folder / "html").mkdir(parents=True)
        (folder / "html" / "cross-regimes.html").write_text(
            "<html><body><main><article class='bd-article'><p>This page was produced by the paper profile.</p>"
            f"<div class='cell'><div class='cell_output'>{body}"
            "</div></div></article></main></body></html>"
        )
        return folder / "html"

    assert sitecheck.check(site(tmp_path / "a", [("multipref", note), ("helpsteer2", note)])) == []
    twice = site(tmp_path / "b", [("multipref", note + " " + note), ("helpsteer2", note)])
    assert any("the same sentence" in p for p in sitecheck.check(twice))


def test_a_paper_page_without_its_profile_note_fails(tmp_path):
    """A page of the papers' parts says at its top what produced it (profile, stand-ins); a page whose note was
    computed and never displayed fails, a page outside the parts needs none."""
    site = tmp_path / "html"
    site.mkdir()
    body = "<html><body><main><article class='bd-article'>{}<p>The share is 0.39.</p></article></main></body></html>"
    (site / "diverging-agreement.html").write_text(body.format(""))
    (site / "intro.html").write_text(body.format(""))
    found = sitecheck.check(site)
    assert [p for p in found if "no note of what produced the page" in p] == [
        next(p for p in found if p.startswith("diverging-agreement.html"))
    ]
    (site / "diverging-agreement.html").write_text(body.format("<p>This page was produced by the demo profile.</p>"))
    assert sitecheck.check(site) == []

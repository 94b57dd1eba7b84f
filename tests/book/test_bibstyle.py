"""Author–year bibliography labels."""

from pathlib import Path

from pybtex.database import parse_string

from pluralign.book import bibstyle

ROOT = Path(__file__).resolve().parents[2]


def test_labels_are_author_year_and_disambiguated():
    bib = parse_string(
        """
@article{a, author = {Bradley, Ralph A. and Terry, Milton E.}, title = {T}, year = {1952}, journal = {B}}
@article{b, author = {Zhang, Michael and Wang, X. and Hu, Y.}, title = {One}, year = {2024}, journal = {J}}
@article{c, author = {Zhang, Michael and Li, Q. and Hu, Y.}, title = {Two}, year = {2024}, journal = {J}}
@article{d, author = {Revel, Manon}, title = {S}, year = {2024}, journal = {J}}
""",
        "bibtex",
    )
    labels = [e.label for e in bibstyle.Style().format_bibliography(bib)]
    assert labels == ["Bradley and Terry 1952", "Revel 2024", "Zhang et al. 2024a", "Zhang et al. 2024b"]


def test_the_book_uses_the_style():
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]
    assert "pluralign.book.bibstyle" in cfg["extra_extensions"]
    assert cfg["config"]["bibtex_default_style"] == "pluralign"


def test_in_text_citations_carry_the_labels_letter(tmp_path):
    """The two versions of a paper by the same authors in the same year cite as 2024a and 2024b in the text, as
    the bibliography labels them (sphinxcontrib-bibtex's author_year style alone writes "2024" for both)."""
    from sphinx.application import Sphinx

    (tmp_path / "refs.bib").write_text(
        "@article{full, author = {Zhang, Michael and Wang, X. and Hu, Y.}, title = {Full}, year = {2024},"
        " journal = {J}}\n"
        "@article{short, author = {Zhang, Michael and Wang, X. and Hu, Y.}, title = {Short}, year = {2024},"
        " journal = {W}}\n"
        "@article{seal, author = {Revel, Manon}, title = {S}, year = {2024}, journal = {J}}\n"
    )
    (tmp_path / "conf.py").write_text(
        "extensions = ['sphinxcontrib.bibtex', 'pluralign.book.bibstyle']\n"
        "bibtex_bibfiles = ['refs.bib']\nbibtex_default_style = 'pluralign'\n"
        "bibtex_reference_style = 'pluralign_author_year'\n"
    )
    (tmp_path / "index.rst").write_text(
        "Doc\n===\n\n:cite:t:`full` and :cite:p:`short` and :cite:p:`seal`.\n\n.. bibliography::\n"
    )
    app = Sphinx(tmp_path, tmp_path, tmp_path / "_build", tmp_path / "_doctrees", "text", status=None, warning=None)
    app.build()
    text = (tmp_path / "_build" / "index.txt").read_text().replace("*", "")
    cited = next(line for line in text.splitlines() if " and " in line and "[" in line)  # the paragraph, not the list
    assert "Zhang et al. [2024a]" in cited, cited
    assert "Zhang et al., 2024b" in cited, cited
    assert "[Revel, 2024]" in cited, cited


def test_the_book_cites_with_the_labelled_year():
    import yaml

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    assert cfg["bibtex_reference_style"] == "pluralign_author_year"

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

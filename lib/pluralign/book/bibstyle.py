"""Author–year labels in the book's bibliography : "Zhang et al. 2024" instead of pybtex's
alpha labels ("[ZWH+24]"), and in-text citations that carry the same year ("Zhang et al., 2024a").

A Sphinx extension (``_config.yml``: ``sphinx.extra_extensions``) that registers a pybtex formatting style
``pluralign`` — pybtex's ``unsrt`` entries, sorted by author and year, labelled by :class:`AuthorYearLabels` —
which ``bibtex_default_style`` then names, and a referencing style ``pluralign_author_year``
(``bibtex_reference_style``): sphinxcontrib-bibtex's author–year citations with the label's year, so two works of
the same authors and year (the two versions of Diverging Preferences) cite as 2024a and 2024b, as the bibliography
lists them."""

from __future__ import annotations

from dataclasses import dataclass

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle
from pybtex.style.template import node


def _surname(person) -> str:
    return " ".join(person.prelast_names + person.last_names) or " ".join(person.first_names)


def author_year(entry) -> str:
    """ "Bradley and Terry 1952", "Zhang et al. 2024"; the editors when there are no authors; "Anon." without either."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_surname(p) for p in people]
    who = (
        "Anon."
        if not names
        else names[0]
        if len(names) == 1
        else f"{names[0]} and {names[1]}"
        if len(names) == 2
        else f"{names[0]} et al."
    )
    return f"{who} {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    """Labels "Author Year", with a / b / … appended when two entries would share one."""

    def format_labels(self, sorted_entries):
        labels = [author_year(e) for e in sorted_entries]
        seen: dict[str, int] = {}
        for lab in labels:
            seen[lab] = seen.get(lab, 0) + 1
        count: dict[str, int] = {}
        for lab in labels:
            if seen[lab] > 1:
                count[lab] = count.get(lab, 0) + 1
                yield f"{lab}{chr(ord('a') + count[lab] - 1)}"
            else:
                yield lab


class Style(UnsrtStyle):
    default_label_style = AuthorYearLabels
    default_sorting_style = SortingStyle


register_plugin("pybtex.style.formatting", "pluralign", Style, force=True)


def labelled_year_of(label: str, year: str) -> str:
    """The year as the bibliography labels it: "2024a" for the label "Zhang et al. 2024a" of a 2024 entry, the
    plain year where the label has no letter."""
    last = label.rsplit(" ", 1)[-1]
    return last if last[:-1] == year and last[-1:].isalpha() else year


@node
def labelled_year(children, data):
    """sphinxcontrib-bibtex's ``year`` node, with the letter the bibliography's label adds (2024a / 2024b)."""
    year = data["entry"].fields.get("year", "n.d.")
    return Text(labelled_year_of(data["formatted_entry"].label, year))


def _reference_styles():
    from sphinxcontrib.bibtex.style.referencing import author_year, basic_author_year
    from sphinxcontrib.bibtex.style.template import join, join2, post_text, pre_text, reference

    @dataclass
    class Parenthetical(basic_author_year.BasicAuthorYearParentheticalReferenceStyle):
        def inner(self, role_name):
            return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                pre_text,
                reference[
                    join(sep=self.author_year_sep)[
                        self.person.author_or_editor_or_title(full="s" in role_name), labelled_year
                    ]
                ],
                post_text,
            ]

    @dataclass
    class Textual(basic_author_year.BasicAuthorYearTextualReferenceStyle):
        def inner(self, role_name):
            return join(sep=self.text_reference_sep)[
                self.person.author_or_editor_or_title(full="s" in role_name),
                join[
                    self.bracket.left,
                    join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                        pre_text, reference[labelled_year], post_text
                    ],
                    self.bracket.right,
                ],
            ]

    @dataclass
    class AuthorYear(author_year.AuthorYearReferenceStyle):
        """Author–year citations whose year carries the bibliography label's letter."""

        def __post_init__(self):
            super().__post_init__()
            swap = {
                basic_author_year.BasicAuthorYearParentheticalReferenceStyle: Parenthetical,
                basic_author_year.BasicAuthorYearTextualReferenceStyle: Textual,
            }
            for i, s in enumerate(self.styles):
                if type(s) in swap:
                    self.styles[i] = swap[type(s)](**{k: getattr(s, k) for k in s.__dataclass_fields__})
            # the role → style map was built from the styles before the swap: rebuild it
            self.role_style.clear()
            self.role_style.update((role, style) for style in self.styles for role in style.role_names())

    return AuthorYear


def setup(app):
    from sphinxcontrib.bibtex.plugin import register_plugin as register_reference_style

    register_reference_style(
        "sphinxcontrib.bibtex.style.referencing", "pluralign_author_year", _reference_styles(), force=True
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}

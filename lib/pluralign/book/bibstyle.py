"""Author–year labels in the book's bibliography : "Zhang et al. 2024" instead of pybtex's
alpha labels ("[ZWH+24]").

A Sphinx extension (``_config.yml``: ``sphinx.extra_extensions``) that registers a pybtex formatting style
``pluralign`` — pybtex's ``unsrt`` entries, sorted by author and year, labelled by :class:`AuthorYearLabels` —
which ``bibtex_default_style`` then names."""

from __future__ import annotations

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle


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


def setup(app):
    return {"parallel_read_safe": True, "parallel_write_safe": True}

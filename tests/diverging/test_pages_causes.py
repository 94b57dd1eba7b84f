"""The sections of the causes page (:mod:`pluralign.diverging.pages.causes_page`)."""

from __future__ import annotations

import pytest

from pluralign import diverging
from pluralign.diverging import causes as causes_lib
from pluralign.diverging.pages import causes_page

SPECS = [
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "helpsteer2"}},
]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return diverging.setup(
        datasets=SPECS, annotation={"dir": str(tmp_path_factory.mktemp("sheets")), "reference": "planted", "n": 20}
    )


def test_cause_sections(study):
    t1 = causes_page.taxonomy(study)
    assert t1.table["paper MP"].tolist()[:2] == ["20%", "38%"] and len(t1.paper) == 20
    # each definition in the note, not in a table cell (where it wrapped to six or seven lines)
    assert "definition" not in t1.table.columns and t1.note.startswith("- **Task Underspecification** (Task): ")
    assert causes_page.diverging_pairs(study).table["diverging pairs"].tolist() == [
        len(v) for v in study.diverging_ids.values()
    ]
    f = causes_page.frequencies(study)
    assert f.figure is not None and "Labelled diverging pairs" in f.note
    sheets = causes_page.annotation_sheets(study)
    assert sheets.data["read_back"] == 0 and len(sheets.table) == 3
    rt = causes_page.round_trip(study)
    assert "identical for every data set: **yes**" in rt.note
    written, imported = study.round_trip
    assert rt.table["labels imported"].tolist() == [len(imported[n]) for n in study.names]
    ag = causes_page.label_agreement(study)
    direct = causes_lib.agreement_table(imported)
    assert ag.data["agreement"].equals(direct) and ag.table.loc["simulated-multipref", "paper κ"] == "0.59"


def test_the_causes_page_glues_its_findings_and_shows_readable_labels(study):
    """The findings the page opens with, computed from the same numbers as its tables; the sheet's columns by the
    causes' names (they showed cause ids such as "task_underspecification" and pair_id)."""
    r = causes_page.diverging_pairs(study)
    assert r.values["causes_n_div_0"] == len(study.diverging_ids["simulated-multipref"])
    f = causes_page.frequencies(study)
    assert "of the labelled diverging pairs of simulated-multipref" in f.values["causes_top_0"] and f.caption
    assert f.table.index.name == "category" and "Verbosity" in f.table.index  # not the cause ids
    assert f.values["causes_top_0"].endswith("the paper's most frequent cause is Verbosity")
    assert causes_page.round_trip(study).values["causes_round_trip"] == "every label written comes back unchanged"
    said = causes_page.label_agreement(study).values["causes_agreement_says"]
    assert said.startswith("on simulated-multipref, κ ") and "the paper's authors agree at κ 0.59 and α 0.68" in said
    sheet = causes_page.annotation_sheets(study).table
    assert "pair" in sheet.columns and not any("_" in str(c) for c in sheet.columns)


def test_causes_without_a_reference_say_where_labels_come_from(tmp_path):
    s = diverging.setup(datasets=SPECS[:1], annotation={"dir": str(tmp_path), "n": 5})
    assert causes_page.frequencies(s).table is None
    rt = causes_page.round_trip(s)
    assert "annotation.files" not in rt.note and "list them in the page's parameters" in rt.note
    assert rt.values["causes_round_trip"] == "no labels were written on this profile"
    assert causes_page.label_agreement(s).table is None

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


def test_causes_without_a_reference_say_where_labels_come_from(tmp_path):
    s = diverging.setup(datasets=SPECS[:1], annotation={"dir": str(tmp_path), "n": 5})
    assert causes_page.frequencies(s).table is None
    assert "annotation.files" in causes_page.round_trip(s).note
    assert causes_page.label_agreement(s).table is None

"""The human cause-annotation round-trip (:mod:`pluralign.diverging.cause_annotation`): export, fill in, import,
and the errors a bad sheet gets."""

from __future__ import annotations

import openpyxl
import pandas as pd
import pytest

from pluralign.data.core import DataError
from pluralign.diverging import agreement
from pluralign.diverging import cause_annotation as sheets
from pluralign.diverging.agreement import agreement_classes as classify
from pluralign.diverging.cause_annotation import export_for_annotation, import_annotations
from pluralign.diverging.causes import CAUSE_IDS, label_agreement


def fill(path, marks: dict[int, tuple[str, list[str]]], raw: dict[tuple[int, str], object] | None = None):
    """Mark the exported sheet like a person would: {sheet data row (0-based): (annotator, causes)}."""
    wb = openpyxl.load_workbook(path)
    ws = wb["pairs"]
    header = [c.value for c in ws[1]]
    for i, (ann, causes) in marks.items():
        ws.cell(row=i + 2, column=header.index("annotator") + 1, value=ann)
        for c in causes:
            ws.cell(row=i + 2, column=header.index(c) + 1, value="x")
    for (i, col), v in (raw or {}).items():
        ws.cell(row=i + 2, column=header.index(col) + 1).value = v  # (cell(value=None) would not clear)
    wb.save(path)


def test_export_import_round_trip(small_data, tmp_path):
    data = small_data()
    cl = classify(data)
    p = tmp_path / "to_annotate.xlsx"
    sheet = export_for_annotation(data, cl, 4, p, seed=1)
    assert len(sheet) == 4 and set(sheet["pair_id"]) <= set(cl.index[cl["agreement"] == "diverging"])
    assert sheet["votes"].iloc[0] == "-2 +2 0"
    again = export_for_annotation(data, cl, 4, tmp_path / "again.xlsx", seed=1)
    assert again["pair_id"].tolist() == sheet["pair_id"].tolist()  # seeded
    wb = openpyxl.load_workbook(p)
    assert {"pairs", "instructions", "taxonomy"} <= set(wb.sheetnames)
    header = [c.value for c in wb["pairs"][1]]
    assert {"pair_id", "prompt", "response_a", "response_b", "annotator", *CAUSE_IDS} <= set(header)
    assert wb["taxonomy"].max_row == 11
    # nothing marked yet → nothing imported
    assert import_annotations(p).empty
    fill(p, {0: ("alice", ["verbosity"]), 1: ("alice", ["format", "verbosity"]), 3: ("alice", ["safety"])})
    q = tmp_path / "bob.xlsx"
    export_for_annotation(data, cl, 4, q, seed=1)
    fill(
        q,
        {0: ("bob", ["verbosity"]), 1: ("bob", ["verbosity"]), 2: ("bob", ["errors"]), 3: ("bob", ["safety"])},
        raw={(3, "complexity"): 1},
    )
    got = import_annotations([p, q])
    assert len(got) == 7
    ids = sheet["pair_id"].tolist()
    alice = got[got["annotator"] == "alice"].set_index("pair_id")["causes"]
    assert alice[ids[1]] == frozenset({"format", "verbosity"})
    bob = got[got["annotator"] == "bob"].set_index("pair_id")["causes"]
    assert bob[ids[3]] == frozenset({"safety", "complexity"})  # a 1 counts as a mark
    res = label_agreement(got)
    assert res["n_items"] == 3 and res["n_annotators"] == 2


@pytest.mark.parametrize(
    "raw,pattern",
    [
        ({(1, "format"): "maybe"}, r"bad\.xlsx, row 3, field 'format': cannot read mark 'maybe'"),
        ({(2, "verbosity"): "x"}, r"row 4, field 'annotator': causes are marked but the annotator is empty"),
        ({(2, "annotator"): "carol"}, r"row 4, field 'causes': no cause marked"),
        ({(1, "pair_id"): None}, r"row 3, field 'pair_id': empty pair_id"),
        ({(1, "pair_id"): "SAME", (0, "pair_id"): "SAME"}, r"row 3, field 'pair_id': pair 'SAME' labelled twice"),
    ],
)
def test_import_refuses_a_bad_sheet(small_data, tmp_path, raw, pattern):
    data = small_data()
    p = tmp_path / "bad.xlsx"
    export_for_annotation(data, classify(data), 4, p, seed=0)
    fill(p, {0: ("alice", ["verbosity"]), 1: ("alice", ["verbosity"])}, raw=raw)
    with pytest.raises(DataError, match=pattern):
        import_annotations(p)


def test_import_missing_column_and_too_many_requested(small_data, tmp_path):
    data = small_data()
    cl = classify(data)
    p = tmp_path / "cols.xlsx"
    sheet = export_for_annotation(data, cl, 2, p)
    sheet.drop(columns=["errors"]).to_excel(p, sheet_name="pairs", index=False)
    with pytest.raises(DataError, match=r"cols\.xlsx, row 1, field 'errors': missing column"):
        import_annotations(p)
    with pytest.raises(ValueError, match="only 6 are in classes"):
        export_for_annotation(data, cl, 7, tmp_path / "x.xlsx")


def test_write_annotations_round_trip_with_two_annotators(hand_data, tmp_path):
    d = hand_data()
    cl = classify(d)
    sheet = sheets.export_for_annotation(d, cl, 2, tmp_path / "s.xlsx", seed=0)
    ids = sheet["pair_id"].tolist()
    labels = pd.DataFrame(
        [
            {"pair_id": ids[0], "annotator": "ann1", "causes": frozenset({"verbosity", "format"})},
            {"pair_id": ids[0], "annotator": "ann2", "causes": frozenset({"verbosity"})},
            {"pair_id": ids[1], "annotator": "ann2", "causes": frozenset({"errors"})},
        ]
    )
    out = sheets.write_annotations(tmp_path / "s.xlsx", labels, tmp_path / "filled.xlsx")
    back = sheets.import_annotations(out)
    got = {(r.pair_id, r.annotator): r.causes for r in back.itertuples()}
    want = {(r.pair_id, r.annotator): r.causes for r in labels.itertuples()}
    assert got == want  # the second annotator's row does not inherit the first one's marks
    assert sheets.import_annotations(tmp_path / "s.xlsx").empty  # the original sheet is untouched
    with pytest.raises(ValueError, match="not in the sheet"):
        sheets.write_annotations(
            out, pd.DataFrame([{"pair_id": "nope", "annotator": "a", "causes": frozenset({"format"})}])
        )
    with pytest.raises(ValueError, match="CAUSE_IDS"):
        sheets.write_annotations(
            out, pd.DataFrame([{"pair_id": ids[0], "annotator": "a", "causes": frozenset({"rudeness"})}])
        )


def test_votes_text_is_the_sheets_votes_column(hand_data, tmp_path):
    d = hand_data()
    assert agreement.votes_text(d).to_dict()["hp2"] == "+2 +1 0"
    sheet = sheets.export_for_annotation(d, classify(d), 2, tmp_path / "s.xlsx", seed=0)
    assert sheet["votes"].tolist() == agreement.votes_text(d).reindex(sheet["pair_id"]).tolist()

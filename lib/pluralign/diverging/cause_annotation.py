"""The human cause-annotation round-trip of Diverging Preferences §2.1 ("Three of the authors then cross annotated
50 new sampled examples from each dataset"): :func:`export_for_annotation` writes a spreadsheet of sampled
diverging pairs with one column per cause of Table 1 (:mod:`pluralign.diverging.causes`); an annotator marks it (or
:func:`write_annotations` does, as an annotator would); :func:`import_annotations` reads the marked sheet(s)
back as cause labels, refusing a bad sheet with an error that names the file, row and field.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from openpyxl import load_workbook
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from pluralign.data.core import DataError, PreferenceData
from pluralign.diverging.agreement import votes_text
from pluralign.diverging.causes import CAUSE_IDS, taxonomy_table

__all__ = ["INSTRUCTIONS", "export_for_annotation", "import_annotations", "write_annotations"]

_MARK_TRUE = {"x", "1", "1.0", "yes", "y", "true", "✓", "✔"}
_MARK_FALSE = {"", "0", "0.0", "no", "n", "false", "nan", "none"}
_SHEET = "pairs"

INSTRUCTIONS = """\
Why do the annotators disagree? (Diverging Preferences, Zhang et al. 2024, Table 1)

Each row of the sheet "pairs" is a prompt with two responses on which human annotators disagreed about which
response is better ("votes" lists their judgments: -2/-1 prefer A significantly/slightly, 0 tie, 1/2 prefer B).
1. Write your name or id in the "annotator" column of every row you label.
2. Mark every cause that explains the disagreement with an x in its column (several causes may apply).
3. Leave both the annotator cell and all cause cells empty to skip a row. Do not edit pair_id or add rows.
Send the file back as it is; several annotators' files can be imported together.
"""


def export_for_annotation(
    data: PreferenceData,
    classified: pd.DataFrame,
    n: int,
    path,
    seed: int = 0,
    *,
    classes: Sequence[str] = ("diverging",),
) -> pd.DataFrame:
    """Write an .xlsx with ``n`` sampled diverging pairs (seeded, without replacement) for multi-label
    cause annotation (§2.1: "Three of the authors then cross annotated 50 new sampled examples").

    Sheets: ``pairs`` (pair_id, dataset, votes, prompt, response_a, response_b, an empty ``annotator``
    column, one empty column per cause id, ``notes``), ``instructions`` and ``taxonomy`` (Table 1 with the
    definitions). Returns the sampled rows (the ``pairs`` sheet). Asking for more pairs than there are
    raises ``ValueError``."""
    eligible = classified.index[classified["agreement"].isin(classes)]
    if n > len(eligible):
        raise ValueError(f"asked for {n} pairs but only {len(eligible)} are in classes {list(classes)}")
    rng = np.random.default_rng(seed)
    chosen = list(eligible[np.sort(rng.choice(len(eligible), size=n, replace=False))])
    pairs = data.pairs.set_index("pair_id").loc[chosen]
    votes = votes_text(data)
    sheet = pd.DataFrame(
        {
            "pair_id": chosen,
            "dataset": pairs["dataset"].to_numpy(),
            "votes": votes.reindex(chosen).fillna("").to_numpy(),
            "prompt": pairs["prompt"].to_numpy(),
            "response_a": pairs["response_a"].to_numpy(),
            "response_b": pairs["response_b"].to_numpy(),
            "annotator": "",
        }
    )
    for c in CAUSE_IDS:
        sheet[c] = ""
    sheet["notes"] = ""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with pd.ExcelWriter(path, engine="openpyxl") as xw:
        sheet.to_excel(xw, sheet_name=_SHEET, index=False)
        pd.DataFrame({"instructions": INSTRUCTIONS.splitlines()}).to_excel(xw, sheet_name="instructions", index=False)
        taxonomy_table().reset_index().to_excel(xw, sheet_name="taxonomy", index=False)
        ws = xw.sheets[_SHEET]
        widths = {"prompt": 50, "response_a": 60, "response_b": 60, "notes": 30, "votes": 12, "annotator": 14}
        for j, col in enumerate(sheet.columns, start=1):
            ws.column_dimensions[get_column_letter(j)].width = widths.get(col, 14)
        for row in ws.iter_rows(min_row=2, max_row=len(sheet) + 1):
            for cell in row:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
        ws.freeze_panes = "B2"
        xw.sheets["instructions"].column_dimensions["A"].width = 120
    return sheet


def _mark(value, *, file, row, field) -> bool:
    s = "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value).strip().lower()
    if s in _MARK_TRUE:
        return True
    if s in _MARK_FALSE:
        return False
    raise DataError(
        f"cannot read mark {value!r} (use x to mark a cause, leave empty otherwise)", file=file, row=row, field=field
    )


def import_annotations(path) -> pd.DataFrame:
    """Read marked annotation sheet(s) back: ``DataFrame(pair_id, annotator, causes)`` with ``causes`` a
    ``frozenset`` of cause ids. ``path`` is one file or a list of files (one per annotator, say).

    Validation (a :class:`~pluralign.data.core.DataError` naming file, spreadsheet row and field): the
    ``pairs`` sheet and every fixed / cause column exist; pair_id is non-empty; a mark is x / 1 / yes /
    true or empty; a labelled row has an annotator and at least one cause; a (pair_id, annotator) is not
    labelled twice. Rows with neither annotator nor marks are skipped (unlabelled)."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    out, seen = [], {}
    for p in paths:
        p = Path(p)
        try:
            sheet = pd.read_excel(p, sheet_name=_SHEET, dtype=object, engine="openpyxl")
        except ValueError as e:
            raise DataError(f"no sheet {_SHEET!r} ({e})", file=p) from None
        for col in ["pair_id", "annotator", *CAUSE_IDS]:
            if col not in sheet.columns:
                raise DataError("missing column", file=p, row=1, field=col)
        for i, rec in enumerate(sheet.to_dict("records")):
            row = i + 2  # spreadsheet row: header is row 1
            marks = {c for c in CAUSE_IDS if _mark(rec[c], file=p, row=row, field=c)}
            ann = rec["annotator"]
            ann = "" if ann is None or (isinstance(ann, float) and np.isnan(ann)) else str(ann).strip()
            pid = rec["pair_id"]
            pid = "" if pid is None or (isinstance(pid, float) and np.isnan(pid)) else str(pid).strip()
            if not ann and not marks:
                continue
            if not pid:
                raise DataError("empty pair_id", file=p, row=row, field="pair_id")
            if not ann:
                raise DataError("causes are marked but the annotator is empty", file=p, row=row, field="annotator")
            if not marks:
                raise DataError(
                    "no cause marked (mark at least one, or clear the annotator cell to skip the row)",
                    file=p,
                    row=row,
                    field="causes",
                )
            if (pid, ann) in seen:
                raise DataError(
                    f"pair {pid!r} labelled twice by {ann!r} (first at {seen[(pid, ann)]})",
                    file=p,
                    row=row,
                    field="pair_id",
                )
            seen[(pid, ann)] = f"{p} row {row}"
            out.append({"pair_id": pid, "annotator": ann, "causes": frozenset(marks)})
    return pd.DataFrame(out, columns=["pair_id", "annotator", "causes"])


def write_annotations(sheet, labels: pd.DataFrame, path=None) -> Path:
    """Fill cause marks into a sheet written by :func:`export_for_annotation`, as an annotator would:
    for every row of ``labels`` (pair_id, annotator, causes) put the annotator's name in ``annotator`` and an
    ``x`` under each of its causes. The first annotator of a pair fills the pair's own row; each further
    annotator of the same pair gets a copy of the row appended (the layout :func:`import_annotations` reads).
    Writes to ``path`` (default: over ``sheet``) and returns it. A pair_id that is not in the sheet or a cause
    that is not in :data:`CAUSE_IDS` raises ``ValueError``."""
    sheet = Path(sheet)
    path = Path(path) if path is not None else sheet
    wb = load_workbook(sheet)
    ws = wb[_SHEET]
    header = [c.value for c in ws[1]]
    col = {h: j for j, h in enumerate(header) if h is not None}
    rows = {}
    for r in range(2, ws.max_row + 1):
        pid = ws.cell(row=r, column=col["pair_id"] + 1).value
        if pid is not None:
            rows.setdefault(str(pid), r)
    used = set()
    for rec in labels.to_dict("records"):
        pid, ann, causes = str(rec["pair_id"]), str(rec["annotator"]), frozenset(rec["causes"])
        if pid not in rows:
            raise ValueError(f"pair {pid!r} is not in the sheet {sheet}")
        bad = causes - set(CAUSE_IDS)
        if bad or not causes:
            raise ValueError(f"pair {pid!r}: causes {sorted(causes)} must be a non-empty subset of CAUSE_IDS")
        r = rows[pid]
        if pid in used:  # a further annotator: append a copy of the pair's row
            src = [ws.cell(row=r, column=j + 1).value for j in range(len(header))]
            ws.append(src)
            r = ws.max_row
        used.add(pid)
        ws.cell(row=r, column=col["annotator"] + 1).value = ann
        for c in CAUSE_IDS:  # .value = None clears a cell (cell(..., value=None) would leave it as it was)
            ws.cell(row=r, column=col[c] + 1).value = "x" if c in causes else None
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path

"""The causes of diverging preferences: the taxonomy of Diverging Preferences Table 1 and §2.1.

Ten causes in four classes (Task, Response Style, Refusals, Errors), each with its definition from the
§2.1 text; its Table 1 frequency on MultiPref (MP) and HelpSteer2 (HS2) — the share of sampled diverging
pairs that carry the cause; a pair can carry several, so a column sums to more than 100% — is read from
:mod:`pluralign.paper.diverging`.

Three tools around it:

(a) a human annotation round-trip: :func:`export_for_annotation` writes a spreadsheet of sampled diverging
    pairs with one column per cause; :func:`import_annotations` reads the marked sheet(s) back, refusing a
    bad sheet with an error that names the file, row and field;
(b) an LLM cause classifier, :func:`classify_causes`, prompted with the taxonomy's definitions and
    called through ``llm.structured(prompts, schema, job=...)`` (:mod:`pluralign.llm`);
(c) agreement on label sets, :func:`label_agreement`, as in §2.1: "we evaluate agreement using both
    Cohen's κ (comparing full label set equivalence), as well as Krippendorff's α with MASI distance".

    * **κ** — each item's category is its full label set (two annotators agree only when their sets are
      identical); Cohen's κ (``sklearn.metrics.cohen_kappa_score``) for every pair of annotators over the
      items both labelled, averaged over annotator pairs when there are more than two (Light's κ; the
      paper had three annotators and does not say how it combined them).
    * **α** — Krippendorff's α (``krippendorff.alpha``) whose distance between two label sets is MASI
      (``nltk.metrics.distance.masi_distance``, Passonneau 2006), over all annotators at once; items with
      fewer than two labels are not pairable and drop out, as in Krippendorff's definition.

:func:`cause_frequencies` puts our cause frequencies beside Table 1's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
from openpyxl import load_workbook
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from pluralign import paper
from pluralign.data.core import DataError, PreferenceData
from pluralign.diverging.agreement import PAPER_DATASETS, paper_dataset, paper_label, votes_text

__all__ = [
    "Cause",
    "CauseLabels",
    "CAUSES",
    "CAUSE_IDS",
    "CLASSES",
    "paper_agreement",
    "taxonomy_table",
    "export_for_annotation",
    "import_annotations",
    "cause_prompt",
    "cause_schema",
    "classify_causes",
    "cohen_kappa_sets",
    "masi_alpha",
    "label_agreement",
    "cause_frequencies",
    "planted_causes",
    "write_annotations",
    "rule_causes",
    "VERBOSITY_RATIO",
    "MIN_EXTRA_WORDS",
    "agreement_table",
]


@dataclass(frozen=True)
class Cause:
    """One cause of diverging preferences (a row of Table 1)."""

    id: str  # short id (the column name; the same names as pluralign.data.simulate's causes)
    name: str  # Table 1's category name
    cls: str  # Table 1's high-level class
    definition: str  # from §2.1 (quoted where the paper defines it; see ``source``)
    source: str  # where the definition comes from


CAUSES: tuple[Cause, ...] = (
    Cause(
        "task-underspecification",
        "Task Underspecification",
        "Task",
        "Disagreements arise from underspecification in the prompt, where both responses consider and "
        "address distinct, valid interpretations of the task.",
        "§2.1 'Task Underspecification'",
    ),
    Cause(
        "verbosity",
        "Verbosity",
        "Response Style",
        "Disagreements arise over the preferred levels of detail, explanation, or examples in each response; "
        "individuals frequently disagree on the preferred level of detail or explanation in a response.",
        "§2.1 'Verbosity'",
    ),
    Cause(
        "format",
        "Format",
        "Response Style",
        "Disagreement over how responses should be organized: paragraphs, lists or headings — when such "
        "formatting is appropriate and how headings and lists should be semantically structured.",
        "§2.1 'Format'",
    ),
    Cause(
        "aesthetic-taste",
        "Aesthetic Taste",
        "Response Style",
        "Creative writing or writing-assistance requests where a preference comes down to a matter of personal taste.",
        "§2.1 'Aesthetic tastes'",
    ),
    Cause(
        "complexity",
        "Complexity",
        "Response Style",
        "Responses differ in the level of assumed domain expertise of the user and the level of technical "
        "depth with which to consider the user's request; they cater to individuals with different "
        "backgrounds and goals.",
        "§2.1 'Complexity'",
    ),
    Cause(
        "safety",
        "Safety",
        "Refusals",
        "A refusal (or pushback) based on safety concerns is the subject of disagreement; judgments of "
        "social acceptability or offensive language vary with annotators' personal background and identity.",
        "§2.1 'Refusals' (safety) and Table 1 example",
    ),
    Cause(
        "capabilities",
        "Capabilities",
        "Refusals",
        "A refusal based on the model's capabilities (e.g. saying the request cannot be done, where the "
        "other response attempts an interpretation) is the subject of disagreement.",
        "§2.1 'Refusals' (capabilities) and Table 1 example",
    ),
    Cause(
        "comply-vs-refuse",
        "Comply vs. Refuse",
        "Refusals",
        "One response complies with the request and the other refuses it; annotators disagree on whether "
        "refusing was appropriate.",
        "Table 1 example (the §2.1 text names the category only)",
    ),
    Cause(
        "refuse-vs-refuse",
        "Refuse vs. Refuse",
        "Refusals",
        "Both responses are refusals of different kinds (e.g. soft versus hard refusals, or correcting the "
        "premise versus declining); preferences among such refusal variations diverge.",
        "§2.1 'refusals versus refusals'",
    ),
    Cause(
        "errors",
        "Hallucinations, Degenerate Outputs, and Errors",
        "Errors",
        "A response contains a hallucination, degenerate output or error that is difficult for annotators "
        "to detect, or whose impact is perceived differently across annotators.",
        "§2.1 'Errors'",
    ),
)
CAUSE_IDS: tuple[str, ...] = tuple(c.id for c in CAUSES)
CLASSES: tuple[str, ...] = ("Task", "Response Style", "Refusals", "Errors")
_BY_ID = {c.id: c for c in CAUSES}


@dataclass
class CauseLabels:
    """What :func:`classify_causes` returns: ``labels`` (pair_id, annotator, causes, rationale), the pair ids
    that ``failed`` validation on every attempt, and the llm's record of ``patched`` (retried) items."""

    labels: pd.DataFrame
    failed: list
    patched: list


def paper_agreement(key: str | None) -> dict:
    """§2.1's agreement of the three authors on 50 diverging pairs of the paper's data set ``key``
    ("multipref" / "helpsteer2"): ``{"kappa": κ, "alpha": α (MASI)}`` from :mod:`pluralign.paper`; ``{}``
    for ``None``."""
    if key is None:
        return {}
    t = paper.numbers("diverging", "§2.1")
    t = t[t["row"] == PAPER_DATASETS[key]].set_index("column")["value"]
    return {"kappa": float(t["κ"]), "alpha": float(t["α (MASI)"])}


def taxonomy_table() -> pd.DataFrame:
    """Table 1 as a DataFrame indexed by cause id: class, category, definition, source, and the paper's
    frequencies ``paper MP`` / ``paper HS2`` (:mod:`pluralign.paper.diverging`)."""
    freq = paper.numbers("diverging", "Table 1").pivot(index="row", columns="column", values="value")
    return pd.DataFrame(
        [
            {
                "cause": c.id,
                "class": c.cls,
                "category": c.name,
                "definition": c.definition,
                "source": c.source,
                "paper MP": float(freq.at[c.name, "MultiPref"]),
                "paper HS2": float(freq.at[c.name, "HelpSteer2"]),
            }
            for c in CAUSES
        ]
    ).set_index("cause")


# ---- (a) human annotation round-trip -------------------------------------------------------------------
_MARK_TRUE = {"x", "1", "1.0", "yes", "y", "true", "✓", "✔"}
_MARK_FALSE = {"", "0", "0.0", "no", "n", "false", "nan", "none"}
_SHEET = "pairs"
_FIXED = ["pair_id", "dataset", "votes", "prompt", "response_a", "response_b", "annotator"]

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


# ---- (b) LLM cause classifier --------------------------------------------------------------------------
def cause_schema() -> dict:
    """JSON schema of the classifier's answer: ``{"causes": [cause ids, ≥ 1, unique], "rationale": str}``."""
    return {
        "type": "object",
        "properties": {
            "causes": {
                "type": "array",
                "items": {"type": "string", "enum": list(CAUSE_IDS)},
                "minItems": 1,
                "uniqueItems": True,
            },
            "rationale": {"type": "string"},
        },
        "required": ["causes"],
    }


def _clip(text: str, max_chars: int) -> str:
    text = str(text)
    return text if len(text) <= max_chars else text[:max_chars] + " […]"


def cause_prompt(prompt: str, response_a: str, response_b: str, *, max_chars: int = 4000) -> str:
    """The classifier's instruction: the ten causes with their §2.1 definitions, then the pair."""
    lines = [
        "Human annotators compared the two responses below and DISAGREED about which one is better "
        "(some preferred Response A, others Response B). Using the taxonomy of causes of diverging "
        "preferences (Zhang et al. 2024, Table 1), say which causes explain the disagreement. "
        "Several causes may apply; choose at least one.",
        "",
        "Taxonomy (id — class / category: definition):",
    ]
    for c in CAUSES:
        lines.append(f"- {c.id} — {c.cls} / {c.name}: {c.definition}")
    lines += [
        "",
        "### Prompt",
        _clip(prompt, max_chars),
        "",
        "### Response A",
        _clip(response_a, max_chars),
        "",
        "### Response B",
        _clip(response_b, max_chars),
        "",
        'Answer with JSON only: {"causes": [ids from the taxonomy], "rationale": "one sentence"}.',
    ]
    return "\n".join(lines)


def classify_causes(
    data: PreferenceData,
    llm,
    pair_ids: Iterable[str] | None = None,
    *,
    job: str = "diverging-causes",
    annotator: str = "llm",
    max_chars: int = 4000,
) -> pd.DataFrame:
    """Label diverging pairs with causes through ``llm.structured(prompts, cause_schema(), job=job)``
    (resumable and cached by :mod:`pluralign.llm`). ``pair_ids`` defaults to every pair of ``data``.

    Returns :class:`CauseLabels`: ``labels``, a ``DataFrame(pair_id, annotator, causes, rationale)`` in the
    format of :func:`import_annotations`, so :func:`label_agreement` compares the classifier with human
    annotators directly; ``failed``, the pairs whose every attempt failed validation (left out of
    ``labels``); ``patched``, the llm's record of retried items. An answer naming an unknown cause or none raises ``ValueError``."""
    pairs = data.pairs.set_index("pair_id")
    ids = list(pairs.index if pair_ids is None else pair_ids)
    prompts = [
        cause_prompt(pairs.at[i, "prompt"], pairs.at[i, "response_a"], pairs.at[i, "response_b"], max_chars=max_chars)
        for i in ids
    ]
    result = llm.structured(prompts, cause_schema(), job=job)
    answers = list(getattr(result, "values", result))  # pluralign.llm returns a StructuredResult
    if len(answers) != len(ids):
        raise ValueError(f"llm.structured returned {len(answers)} answers for {len(ids)} prompts")
    rows, failed = [], []
    for pid, ans in zip(ids, answers):
        if ans is None:  # every attempt failed validation (recorded in result.patched)
            failed.append(pid)
            continue
        if isinstance(ans, str):
            ans = json.loads(ans)
        causes = frozenset(ans.get("causes", []))
        bad = causes - set(CAUSE_IDS)
        if bad or not causes:
            raise ValueError(f"pair {pid!r}: classifier answer {ans!r} names no cause or unknown causes {sorted(bad)}")
        rows.append({"pair_id": pid, "annotator": annotator, "causes": causes, "rationale": ans.get("rationale", "")})
    return CauseLabels(
        labels=pd.DataFrame(rows, columns=["pair_id", "annotator", "causes", "rationale"]),
        failed=failed,
        patched=list(getattr(result, "patched", [])),
    )


def planted_causes(
    truth: pd.DataFrame, pair_ids: Iterable[str] | None = None, *, annotator: str = "planted"
) -> pd.DataFrame:
    """The simulator's planted cause as a reference labelling (the demo profile's stand-in for human cause
    annotation): ``DataFrame(pair_id, annotator, causes)`` for the pairs (default: all) whose ``truth["cause"]``
    is one of :data:`CAUSE_IDS` (pairs planted as ``"none"`` are left out)."""
    t = truth if pair_ids is None else truth.loc[list(pair_ids)]
    t = t[t["cause"].isin(CAUSE_IDS)]
    return pd.DataFrame(
        {"pair_id": t.index.astype(str), "annotator": annotator, "causes": [frozenset({c}) for c in t["cause"]]},
        columns=["pair_id", "annotator", "causes"],
    )


# ---- (c) agreement on label sets -----------------------------------------------------------------------
def _wide(labels: pd.DataFrame) -> pd.DataFrame:
    dup = labels.duplicated(["pair_id", "annotator"])
    if dup.any():
        r = labels[dup].iloc[0]
        raise ValueError(f"pair {r['pair_id']!r} labelled twice by {r['annotator']!r}")
    return labels.assign(causes=labels["causes"].map(frozenset)).pivot(
        index="pair_id", columns="annotator", values="causes"
    )


def _set_key(s: frozenset) -> str:
    return "|".join(sorted(s))


def cohen_kappa_sets(a: Sequence[frozenset], b: Sequence[frozenset]) -> float:
    """Cohen's κ of two annotators where each item's category is its full label set (exact-set match)."""
    from sklearn.metrics import cohen_kappa_score

    ka, kb = [_set_key(frozenset(x)) for x in a], [_set_key(frozenset(x)) for x in b]
    if len(ka) != len(kb) or not ka:
        raise ValueError("need two equally long, non-empty label lists")
    if len(set(ka) | set(kb)) == 1:
        return 1.0  # both annotators used one and the same label set throughout: perfect agreement
    return float(cohen_kappa_score(ka, kb))


def masi_alpha(labels: pd.DataFrame) -> float:
    """Krippendorff's α with MASI distance over all annotators (``labels``: pair_id, annotator, causes).

    ``krippendorff.alpha`` with a callable distance that looks up ``nltk``'s ``masi_distance`` between the
    distinct label sets. Only *pairable* items — labelled by at least two annotators — enter α (Krippendorff's
    definition), so the value domain and the counts are built from those items alone; when they all carry one
    and the same label set, α is 1 (perfect agreement, as :func:`cohen_kappa_sets` returns κ = 1), whatever
    the singly-labelled items say. With no pairable item ``ValueError``."""
    from nltk.metrics.distance import masi_distance  # nltk takes seconds to import: only where it is used

    wide = _wide(labels)
    wide = wide[wide.notna().sum(axis=1) >= 2]
    if wide.empty:
        raise ValueError("Krippendorff's α needs at least one pair labelled by two or more annotators")
    domain = sorted({frozenset(s) for _, row in wide.iterrows() for s in row.dropna()}, key=_set_key)
    code = {s: k for k, s in enumerate(domain)}
    counts = np.zeros((len(wide), len(domain)), dtype=int)
    for r, (_, row) in enumerate(wide.iterrows()):
        for s in row.dropna():
            counts[r, code[frozenset(s)]] += 1
    if len(domain) == 1:
        return 1.0  # every pairable value is the same label set: no disagreement, no expected disagreement
    dist = np.array([[masi_distance(set(x), set(y)) for y in domain] for x in domain])

    def masi(v1, v2, i1, i2, n_v, dtype=np.float64):
        return dist[i1, i2].astype(dtype)

    return float(
        krippendorff.alpha(value_counts=counts, value_domain=list(range(len(domain))), level_of_measurement=masi)
    )


def label_agreement(labels: pd.DataFrame) -> dict:
    """§2.1's two agreement figures for multi-label cause annotations (``labels``: pair_id, annotator,
    causes — e.g. :func:`import_annotations` output, possibly concatenated with :func:`classify_causes`).

    Returns ``{"kappa": mean pairwise Cohen's κ over full label sets, "alpha": Krippendorff's α (MASI),
    "pairwise_kappa": {(a1, a2): κ}, "n_items": items labelled by ≥ 2 annotators, "n_annotators"}``."""
    wide = _wide(labels)
    pairwise = {}
    for a1, a2 in combinations(sorted(wide.columns), 2):
        both = wide[[a1, a2]].dropna()
        if len(both):
            pairwise[(a1, a2)] = cohen_kappa_sets(both[a1].tolist(), both[a2].tolist())
    if not pairwise:
        raise ValueError("label_agreement needs at least two annotators labelling a common pair")
    return {
        "kappa": float(np.mean(list(pairwise.values()))),
        "alpha": masi_alpha(labels),
        "pairwise_kappa": pairwise,
        "n_items": int((wide.notna().sum(axis=1) >= 2).sum()),
        "n_annotators": int(wide.shape[1]),
    }


def cause_frequencies(labels, *, paper: bool = True) -> pd.DataFrame:
    """Share of labelled diverging pairs carrying each cause, beside Table 1 (MP / HS2).

    ``labels``: a DataFrame (pair_id, annotator, causes[, dataset]) or ``{dataset: DataFrame}``. Each
    (pair, annotator) judgment counts once, so with several annotators a cause's share is averaged over
    them. Rows: causes (index = cause id, with ``class`` and ``category``); columns: per data set the share
    and ``n`` (labelled judgments), then ``paper MP`` and ``paper HS2``."""
    if isinstance(labels, dict):
        groups = {str(k): v for k, v in labels.items()}
    elif "dataset" in labels.columns:
        groups = {str(k): v for k, v in labels.groupby("dataset", sort=True)}
    else:
        groups = {"ours": labels}
    tab = taxonomy_table()[["class", "category"]].copy()
    for name, df in groups.items():
        sets = [frozenset(s) for s in df["causes"]]
        n = len(sets)
        tab[name] = [sum(c in s for s in sets) / n if n else np.nan for c in CAUSE_IDS]
        tab[f"{name} n"] = n
    if paper:
        t = taxonomy_table()
        tab["paper MP"] = t["paper MP"]
        tab["paper HS2"] = t["paper HS2"]
    return tab


# ---- helpers for the round-trip and a surface-feature labeller ------------------------------------------
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


#: :func:`rule_causes`'s verbosity rule: one response has at least this many times the other's words …
VERBOSITY_RATIO = 1.5
#: … and at least this many more words.
MIN_EXTRA_WORDS = 20


def rule_causes(
    data: PreferenceData,
    pair_ids: Iterable[str] | None = None,
    *,
    annotator: str = "rules",
    verbosity_ratio: float = VERBOSITY_RATIO,
    min_extra_words: int = MIN_EXTRA_WORDS,
) -> pd.DataFrame:
    """A surface-feature cause labeller (the demo profile's second "annotator"; not a model of the paper's
    annotators): it reads only what the text shows of four Table 1 causes —

    * ``verbosity``: one response has at least ``verbosity_ratio`` times the words of the other and at least
      ``min_extra_words`` more;
    * ``format``: one response has a list (≥ 2 list lines) or a Markdown heading and the other has neither;
    * ``comply-vs-refuse``: exactly one response is a refusal; ``refuse-vs-refuse``: both are
      (refusal phrases, :func:`pluralign.seal.rule_featurize`).

    Returns ``DataFrame(pair_id, annotator, causes)`` for the pairs where at least one rule fires; the pairs
    where none fires are left out, not given a guess."""
    from pluralign.seal.features import rule_featurize  # SEAL's rule-based featurizer (imports pluralign.seal)

    pairs = data.pairs.set_index("pair_id")
    ids = [str(i) for i in (pairs.index if pair_ids is None else pair_ids)]
    a = pairs.loc[ids, "response_a"].astype(str).tolist()
    b = pairs.loc[ids, "response_b"].astype(str).tolist()
    fa, fb = rule_featurize(a), rule_featurize(b)
    heading = re.compile(r"^\s{0,3}#{1,6}\s", re.M)
    rows = []
    for k, pid in enumerate(ids):
        wa, wb = int(fa.at[k, "response_words"]), int(fb.at[k, "response_words"])
        causes = set()
        lo, hi = sorted((wa, wb))
        if hi - lo >= min_extra_words and hi >= verbosity_ratio * max(lo, 1):
            causes.add("verbosity")
        fmt_a = bool(fa.at[k, "response_has_list"]) or bool(heading.search(a[k]))
        fmt_b = bool(fb.at[k, "response_has_list"]) or bool(heading.search(b[k]))
        if fmt_a != fmt_b:
            causes.add("format")
        ra, rb = bool(fa.at[k, "last_response_is_refusal"]), bool(fb.at[k, "last_response_is_refusal"])
        if ra and rb:
            causes.add("refuse-vs-refuse")
        elif ra != rb:
            causes.add("comply-vs-refuse")
        if causes:
            rows.append({"pair_id": pid, "annotator": annotator, "causes": frozenset(causes)})
    return pd.DataFrame(rows, columns=["pair_id", "annotator", "causes"])


def agreement_table(labels: dict, paper_reference=None) -> pd.DataFrame:
    """:func:`label_agreement` per data set beside §2.1's figures: ``{data set name: labels}`` → one row per
    data set whose labels come from at least two annotators, with ``annotators``, ``pairs labelled by ≥ 2``,
    ``κ``, ``α (MASI)``, ``paper reference`` (:func:`pluralign.diverging.agreement.paper_label`, e.g. "paper (MultiPref,
    stand-in reference)"; ``None`` for a data set with no paper counterpart), ``paper κ`` and ``paper α`` (NaN
    without one). The paper data set is ``paper_reference[name]`` when given (``{data-set name: "multipref" |
    "helpsteer2"}``, e.g. ``{"pandalm": "multipref"}``), else the one the name contains. Data sets with labels
    from fewer than two annotators have no row."""
    rows = {}
    for name, lab in labels.items():
        if lab is None or lab.empty or lab["annotator"].nunique() < 2:
            continue
        a = label_agreement(lab)
        paper = paper_agreement(paper_dataset(name, paper_reference))
        rows[name] = {
            "annotators": ", ".join(sorted(lab["annotator"].unique())),
            "pairs labelled by ≥ 2": a["n_items"],
            "κ": a["kappa"],
            "α (MASI)": a["alpha"],
            "paper reference": paper_label(name, paper_reference),
            "paper κ": paper.get("kappa", np.nan),
            "paper α": paper.get("alpha", np.nan),
        }
    cols = ["annotators", "pairs labelled by ≥ 2", "κ", "α (MASI)", "paper reference", "paper κ", "paper α"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)

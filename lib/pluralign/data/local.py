"""The generic loader for a user's own preference file (JSONL, JSON, CSV/TSV, Parquet, gzipped).

No code needed: a parameter file says which column is which, e.g.::

    name: local
    source: mydata.jsonl
    dataset_name: my-prefs
    columns: {pair_id: id, prompt: question, response_a: answer1, response_b: answer2, preference: label}
    labels: {A: -2, a_slightly: -1, tie: 0, b_slightly: 1, B: 2}

Label layouts:

* one label column: ``columns: {preference: COL}`` (one judgment per row);
* long form, several rows per pair: ``columns: {..., preference: COL, annotator_id: COL}``;
* wide form, one column per annotator: ``annotators: [COL1, COL2]`` or ``{annotator_id: COL}``;
* per-response Likert scores: ``columns: {likert_a: COL, likert_b: COL}`` (difference → preference as in
  HelpSteer2 / Diverging Preferences §2);
* chosen / rejected texts: ``columns: {chosen: COL, rejected: COL}`` (±2, A/B by pair-id hash);
* soft labels: ``columns: {p_b: COL}``, the probability that B is preferred, in [0, 1], or in ``p_b_range:
  [lo, hi]`` rescaled linearly (AlpacaEval's ``preference`` from 1 to 2: ``p_b_range: [1, 2]``). The hard
  ``preference`` of such a judgment is the side with p_b > ½ (±2, as any label without strength), 0 at ½;
  :meth:`PreferenceData.share_a` uses ``p_b`` itself.

Long form without a ``pair_id`` column groups the rows that show the same prompt and responses into one pair.

Without ``labels`` the label values must already be preferences in {−2, …, 2}.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pluralign.data.checks import Filters, refuse_first, require, truth_values, where
from pluralign.data.core import DataError
from pluralign.data.fields import check_text, check_unique, chosen_rejected, map_labels
from pluralign.data.hub import likert_preference
from pluralign.data.io import read_files, stable_hash
from pluralign.data.registry import Loaded, annotations, canonical, register

CANONICAL = {
    "pair_id",
    "prompt",
    "response_a",
    "response_b",
    "chosen",
    "rejected",
    "split",
    "preference",
    "annotator_id",
    "likert_a",
    "likert_b",
    "p_b",
}


def _soft(raw: pd.DataFrame, col: str, p_b_range) -> tuple[pd.Series, pd.Series]:
    """(p_b in [0, 1], hard preference) of a soft-label column (module docstring)."""
    lo, hi = (0.0, 1.0) if p_b_range is None else (float(p_b_range[0]), float(p_b_range[1]))
    if not hi > lo:
        raise DataError(f"p_b_range {p_b_range!r} must be [low, high] with low < high", field="p_b_range")
    truth = truth_values(raw[col])
    v = pd.to_numeric(raw[col].where(~truth), errors="coerce")
    bad = (v.isna() | (v < lo) | (v > hi)).to_numpy() | truth
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        file, row = where(raw, i)
        raise DataError(
            f"soft label {raw[col].tolist()[i]!r} is not a number in [{lo:g}, {hi:g}]"
            + ("" if p_b_range else " (rescale another range with p_b_range=[low, high])"),
            file=file,
            row=row,
            field=col,
        )
    p_b = (v - lo) / (hi - lo)
    return p_b, pd.Series(np.sign(p_b.to_numpy() - 0.5).astype(int) * 2, index=raw.index)


def _labels(raw: pd.DataFrame, col: str, labels: dict | None, f: Filters) -> pd.Series:
    if labels:
        pref, bad = map_labels(raw, raw[col], labels, col, f)
        return pref.where(~bad)
    truth = truth_values(raw[col])
    num = pd.to_numeric(raw[col].where(~truth), errors="coerce")
    bad = (num.isna() | ~num.isin([-2, -1, 0, 1, 2])).to_numpy() | truth
    if bad.any() and f.on_invalid == "error":
        i = int(np.flatnonzero(bad)[0])
        file, row = where(raw, i)
        v = raw[col].iat[i]
        if truth[i]:
            raise DataError(
                f"label {str(bool(v)).lower()} is a truth value, not a preference in -2 … 2; say what it "
                "means with labels={true: ..., false: ...}",
                file=file,
                row=row,
                field=col,
            )
        raise DataError(
            f"label {v!r} out of range: a preference must be one of -2, -1, 0, 1, 2 "
            "(negative prefers A), or pass labels={value: preference}",
            file=file,
            row=row,
            field=col,
        )
    return num.where(~bad)


@register(
    "local",
    license="(as stated by the data's owner)",
    citation="(as stated by the data's owner)",
    description="Your own preference file: JSONL / JSON / CSV / Parquet, columns and labels mapped by options.",
    aliases=("file", "custom"),
)
def load_local(
    source=None,
    *,
    columns: dict | None = None,
    labels: dict | None = None,
    annotators=None,
    annotator: str = "annotator",
    dataset_name: str | None = None,
    split: str = "train",
    metadata: list | None = None,
    on_invalid: str = "error",
    empty: str | None = None,
    p_b_range: list | None = None,
    **_,
) -> Loaded:
    """Load ``source`` with ``columns`` = {canonical name: source column} (module docstring)."""
    if source is None:
        raise DataError("load('local') needs source='path/to/file.jsonl|.csv|.parquet' (or a folder)")
    columns = _known_columns(columns, source)
    raw = read_files(source)
    name = dataset_name or "local"
    f = Filters(on_invalid, empty)
    c = {k: columns.get(k, k) for k in CANONICAL}
    cr = "chosen" in columns or ("response_a" not in columns and {"chosen", "rejected"} <= set(raw.columns))
    text = [c["chosen"], c["rejected"]] if cr else [c["response_a"], c["response_b"]]
    require(raw, [c["prompt"], *text], str(source))
    raw = check_text(raw, f, text)
    raw = f.text_type(raw, c["prompt"])
    has_id = "pair_id" in columns or "pair_id" in raw.columns
    long_form = "annotator_id" in columns
    ids = _pair_ids(raw, c, name, text, has_id=has_id, same_texts=long_form and not cr)
    sp = raw[c["split"]].astype(str) if c["split"] in raw.columns else split
    meta_cols = {m: raw[m] for m in (metadata or []) if m in raw}
    rows = _Rows(raw, ids, c, name, sp, meta_cols, f, str(source))
    if long_form and not cr:
        return _long_form(rows, soft="p_b" in columns, labels=labels, p_b_range=p_b_range)
    if has_id:
        _unique(raw, ids, c["pair_id"])
    pair = dict(dataset=name, pair_id=ids, split=sp, prompt=raw[c["prompt"]], metadata=meta_cols)
    if cr:
        pairs, ann = chosen_rejected(
            raw, chosen=raw[c["chosen"]], rejected=raw[c["rejected"]], annotator=annotator, **pair
        )
    else:
        ann = _one_row_per_pair(rows, columns, annotators, annotator, labels, p_b_range)
        pairs = canonical(raw, response_a=raw[c["response_a"]], response_b=raw[c["response_b"]], **pair)
    return Loaded(pairs, ann, str(source), f.records)


def _known_columns(columns: dict | None, source) -> dict:
    """The ``columns`` mapping (canonical name → source column) as a dict, refused where it names a column that is
    not canonical."""
    columns = dict(columns or {})
    unknown = set(columns) - CANONICAL
    if unknown:
        raise DataError(
            f"unknown canonical column(s) {sorted(unknown)}; use {sorted(CANONICAL)}",
            file=source,
            field=sorted(unknown)[0],
        )
    return columns


def _pair_ids(raw: pd.DataFrame, c: dict, name: str, text: list, *, has_id: bool, same_texts: bool) -> pd.Series:
    """Each row's pair id, ``<name>:<id>``: the file's own ``pair_id`` column where it has one; with
    ``same_texts`` (long-form rows of an A/B file) a hash of the prompt and the two responses, so rows showing the
    same texts are one pair judged by several annotators; else the row's place in the file (its part, its row)."""
    if has_id:
        return name + ":" + raw[c["pair_id"]].astype(str)
    if same_texts:
        key = raw[c["prompt"]].astype(str) + "\x1f" + raw[text[0]].astype(str) + "\x1f" + raw[text[1]].astype(str)
        return name + ":" + key.map(lambda t: stable_hash(t))
    return name + ":" + (raw["_part"].astype(str) + ":" if "_part" in raw else "") + raw["_row"].astype(str)


@dataclass
class _Rows:
    """A local file's rows on their way to the canonical tables: the raw rows, each row's pair id, the source
    column of each canonical name (``c``), the data set's name, its split (a name or a column), the metadata
    columns kept, the filters applied so far and the source's name."""

    raw: pd.DataFrame
    ids: pd.Series
    c: dict
    name: str
    split: Any
    meta: dict
    f: Filters
    source: str


def _long_form(r: _Rows, *, soft: bool, labels: dict | None, p_b_range) -> Loaded:
    """Long form (one row per annotator judgment, ``annotator_id`` mapped): rows of one pair must show the same
    texts, and an annotator judges a pair once."""
    raw, ids, c, f = r.raw, r.ids, r.c, r.f
    require(raw, [c["annotator_id"], c["p_b"] if soft else c["preference"]], r.source)
    first = ~ids.duplicated()
    ref = raw.assign(_id=ids)[first.to_numpy()].set_index("_id")
    for col in (c["prompt"], c["response_a"], c["response_b"]):
        differ = raw[col].astype(str).to_numpy() != ref[col].astype(str).reindex(ids).to_numpy()
        refuse_first(raw, differ, "rows of the same pair_id disagree on the text", col)
    dup = raw.assign(_id=ids).duplicated(["_id", c["annotator_id"]]).to_numpy()
    refuse_first(raw, dup, "duplicate pair id for this annotator", c["pair_id"])
    if soft:
        p_b, pref = _soft(raw, c["p_b"], p_b_range)
        ann = annotations(ids, raw[c["annotator_id"]].astype(str), pref, p_b=p_b.to_numpy())
    else:
        pref = _labels(raw, c["preference"], labels, f)
        ok = pref.notna().to_numpy()
        _count(f, raw, ~ok, c["preference"])
        ann = annotations(ids[ok], raw[c["annotator_id"]].astype(str)[ok], pref[ok].astype(int))
    p = raw[first.to_numpy()]
    pairs = canonical(
        p,
        pair_id=ids[first],
        dataset=r.name,
        split=r.split if isinstance(r.split, str) else r.split[first],
        prompt=p[c["prompt"]],
        response_a=p[c["response_a"]],
        response_b=p[c["response_b"]],
        metadata={k: v[first] for k, v in r.meta.items()},
    )
    return Loaded(pairs, ann, r.source, f.records)


def _one_row_per_pair(r: _Rows, columns: dict, annotators, annotator: str, labels, p_b_range) -> pd.DataFrame:
    """The judgments of a file with one row per pair: one column per annotator (``annotators``), two Likert
    columns, a soft label, or one preference column."""
    raw, ids, c, f = r.raw, r.ids, r.c, r.f
    frames = []
    if annotators:
        amap = dict(annotators) if isinstance(annotators, dict) else {a: a for a in annotators}
        require(raw, list(amap.values()), r.source)
        for aid, col in amap.items():
            pref = _labels(raw, col, labels, f)
            ok = pref.notna().to_numpy()
            _count(f, raw, ~ok, col)
            frames.append(annotations(ids[ok], str(aid), pref[ok].astype(int)))
    elif "likert_a" in columns:
        frames.append(_likert(r, annotator))
    elif "p_b" in columns:
        require(raw, [c["p_b"]], r.source)
        p_b, pref = _soft(raw, c["p_b"], p_b_range)
        frames.append(annotations(ids, annotator, pref, p_b=p_b.to_numpy()))
    else:
        require(raw, [c["preference"]], r.source)
        pref = _labels(raw, c["preference"], labels, f)
        ok = pref.notna().to_numpy()
        _count(f, raw, ~ok, c["preference"])
        frames.append(annotations(ids[ok], annotator, pref[ok].astype(int)))
    return pd.concat(frames, ignore_index=True)


def _likert(r: _Rows, annotator: str) -> pd.DataFrame:
    """One judgment per pair from two integer Likert columns (:func:`~pluralign.data.hub.likert_preference`)."""
    raw, c = r.raw, r.c
    require(raw, [c["likert_a"], c["likert_b"]], r.source)
    la = pd.to_numeric(raw[c["likert_a"]].where(~truth_values(raw[c["likert_a"]])), errors="coerce")
    lb = pd.to_numeric(raw[c["likert_b"]].where(~truth_values(raw[c["likert_b"]])), errors="coerce")
    for col, v in ((c["likert_a"], la), (c["likert_b"], lb)):
        bad = (v.isna() | (v != v.round())).to_numpy()
        refuse_first(raw, bad, "Likert score {value!r} is not an integer", col)
    return annotations(
        r.ids,
        annotator,
        likert_preference(la, lb),
        likert_a=la.astype(int).to_numpy(),
        likert_b=lb.astype(int).to_numpy(),
    )


def _unique(raw, ids, field):
    check_unique(raw, ids, field)


def _count(f: Filters, raw: pd.DataFrame, bad: np.ndarray, field: str) -> None:
    f.count(raw, bad, "unknown or out-of-range label (judgment dropped)", field)

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
* chosen / rejected texts: ``columns: {chosen: COL, rejected: COL}`` (±2, A/B by pair-id hash).

Without ``labels`` the label values must already be preferences in {−2, …, 2}.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from pluralign.data.core import DataError
from pluralign.data.hub import chosen_rejected, check_text, likert_preference, map_labels
from pluralign.data.io import Filters, read_files, require, where
from pluralign.data.registry import Loaded, annotations, canonical, register

CANONICAL = {"pair_id", "prompt", "response_a", "response_b", "chosen", "rejected", "split", "preference",
             "annotator_id", "likert_a", "likert_b"}


def _labels(raw: pd.DataFrame, col: str, labels: dict | None, f: Filters) -> pd.Series:
    if labels:
        pref, bad = map_labels(raw, raw[col], labels, col, f)
        return pref.where(~bad)
    num = pd.to_numeric(raw[col], errors="coerce")
    bad = (num.isna() | ~num.isin([-2, -1, 0, 1, 2])).to_numpy()
    if bad.any() and f.on_invalid == "error":
        i = int(np.flatnonzero(bad)[0])
        file, row = where(raw, i)
        raise DataError(f"label {raw[col].iat[i]!r} out of range: a preference must be one of -2, -1, 0, 1, 2 "
                        "(negative prefers A), or pass labels={value: preference}", file=file, row=row, field=col)
    return num.where(~bad)


@register("local", license="(as stated by the data's owner)", citation="(as stated by the data's owner)",
          description="Your own preference file: JSONL / JSON / CSV / Parquet, columns and labels mapped by options.",
          aliases=("file", "custom"))
def load_local(source=None, *, columns: dict | None = None, labels: dict | None = None, annotators=None,
               annotator: str = "annotator", dataset_name: str | None = None, split: str = "train",
               metadata: list | None = None, on_invalid: str = "error", empty: str | None = None, **_) -> Loaded:
    """Load ``source`` with ``columns`` = {canonical name: source column} (module docstring)."""
    if source is None:
        raise DataError("load('local') needs source='path/to/file.jsonl|.csv|.parquet' (or a folder)")
    columns = dict(columns or {})
    unknown = set(columns) - CANONICAL
    if unknown:
        raise DataError(f"unknown canonical column(s) {sorted(unknown)}; use {sorted(CANONICAL)}", file=source,
                        field=sorted(unknown)[0])
    raw = read_files(source)
    name = dataset_name or "local"
    f = Filters(on_invalid, empty)
    c = {k: columns.get(k, k) for k in CANONICAL}
    cr = "chosen" in columns or ("response_a" not in columns and {"chosen", "rejected"} <= set(raw.columns))
    text = [c["chosen"], c["rejected"]] if cr else [c["response_a"], c["response_b"]]
    require(raw, [c["prompt"], *text], str(source))
    raw = check_text(raw, f, text)
    has_id = "pair_id" in columns or "pair_id" in raw.columns
    ids = (name + ":" + raw[c["pair_id"]].astype(str)) if has_id else (
        name + ":" + (raw["_part"].astype(str) + ":" if "_part" in raw else "") + raw["_row"].astype(str))
    sp = raw[c["split"]].astype(str) if c["split"] in raw.columns else split
    meta_cols = {m: raw[m] for m in (metadata or []) if m in raw}
    long_form = "annotator_id" in columns

    if cr:
        if has_id:
            _unique(raw, ids, c["pair_id"])
        pairs, ann = chosen_rejected(raw, dataset=name, pair_id=ids, split=sp, prompt=raw[c["prompt"]],
                                     chosen=raw[c["chosen"]], rejected=raw[c["rejected"]], annotator=annotator,
                                     metadata=meta_cols)
        return Loaded(pairs, ann, str(source), f.records)

    if long_form:
        require(raw, [c["annotator_id"], c["preference"]], str(source))
        first = ~ids.duplicated()
        ref = raw.assign(_id=ids)[first.to_numpy()].set_index("_id")
        for col in (c["prompt"], c["response_a"], c["response_b"]):
            differ = (raw[col].astype(str).to_numpy() != ref[col].astype(str).reindex(ids).to_numpy())
            if differ.any():
                file, row = where(raw, int(np.flatnonzero(differ)[0]))
                raise DataError("rows of the same pair_id disagree on the text", file=file, row=row, field=col)
        dup = raw.assign(_id=ids).duplicated(["_id", c["annotator_id"]]).to_numpy()
        if dup.any():
            file, row = where(raw, int(np.flatnonzero(dup)[0]))
            raise DataError("duplicate pair id for this annotator", file=file, row=row, field=c["pair_id"])
        pref = _labels(raw, c["preference"], labels, f)
        ok = pref.notna().to_numpy()
        _count(f, raw, ~ok, c["preference"])
        ann = annotations(ids[ok], raw[c["annotator_id"]].astype(str)[ok], pref[ok].astype(int))
        p = raw[first.to_numpy()]
        pairs = canonical(p, pair_id=ids[first], dataset=name, split=sp if isinstance(sp, str) else sp[first],
                          prompt=p[c["prompt"]], response_a=p[c["response_a"]], response_b=p[c["response_b"]],
                          metadata={k: v[first] for k, v in meta_cols.items()})
        return Loaded(pairs, ann, str(source), f.records)

    if has_id:
        _unique(raw, ids, c["pair_id"])
    frames = []
    if annotators:
        amap = dict(annotators) if isinstance(annotators, dict) else {a: a for a in annotators}
        require(raw, list(amap.values()), str(source))
        for aid, col in amap.items():
            pref = _labels(raw, col, labels, f)
            ok = pref.notna().to_numpy()
            _count(f, raw, ~ok, col)
            frames.append(annotations(ids[ok], str(aid), pref[ok].astype(int)))
    elif "likert_a" in columns:
        require(raw, [c["likert_a"], c["likert_b"]], str(source))
        la = pd.to_numeric(raw[c["likert_a"]], errors="coerce")
        lb = pd.to_numeric(raw[c["likert_b"]], errors="coerce")
        for col, v in ((c["likert_a"], la), (c["likert_b"], lb)):
            bad = (v.isna() | (v != v.round())).to_numpy()
            if bad.any():
                file, row = where(raw, int(np.flatnonzero(bad)[0]))
                raise DataError(f"Likert score {raw[col].iat[int(np.flatnonzero(bad)[0])]!r} is not an integer",
                                file=file, row=row, field=col)
        frames.append(annotations(ids, annotator, likert_preference(la, lb), likert_a=la.astype(int).to_numpy(),
                                  likert_b=lb.astype(int).to_numpy()))
    else:
        require(raw, [c["preference"]], str(source))
        pref = _labels(raw, c["preference"], labels, f)
        ok = pref.notna().to_numpy()
        _count(f, raw, ~ok, c["preference"])
        frames.append(annotations(ids[ok], annotator, pref[ok].astype(int)))
    pairs = canonical(raw, pair_id=ids, dataset=name, split=sp, prompt=raw[c["prompt"]],
                      response_a=raw[c["response_a"]], response_b=raw[c["response_b"]], metadata=meta_cols)
    return Loaded(pairs, pd.concat(frames, ignore_index=True), str(source), f.records)


def _unique(raw, ids, field):
    from pluralign.data.hub import check_unique
    check_unique(raw, ids, field)


def _count(f: Filters, raw: pd.DataFrame, bad: np.ndarray, field: str) -> None:
    if bad.any():
        f.records.append({"filter": "unknown or out-of-range label (judgment dropped)", "field": field,
                          "removed": int(bad.sum()), "kept": int((~bad).sum()),
                          "rows": raw["_row"][bad].head(20).tolist()})

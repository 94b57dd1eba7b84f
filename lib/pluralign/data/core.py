"""The canonical form of preference data: a ``pairs`` table and long-form ``annotations``.

``pairs``: one row per comparison — ``pair_id`` (stable string), ``dataset``, ``split``, ``prompt``
(the conversation history, as text), ``response_a``, ``response_b``; further columns are source metadata.

``annotations``: long form, one row per annotator judgment — ``pair_id``, ``annotator_id``,
``preference`` in {-2, -1, 0, 1, 2} (negative prefers A, positive prefers B; |2| significant,
|1| slight, 0 tie; a judgment that carries no strength, e.g. a chosen/rejected label, is ±2),
optional ``likert_a`` / ``likert_b`` (per-response scores, HelpSteer2 style).

Aggregated labels (majority and friends) are *derived* from annotations, never stored as truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

PAIR_COLUMNS = ["pair_id", "dataset", "split", "prompt", "response_a", "response_b"]
ANNOTATION_COLUMNS = ["pair_id", "annotator_id", "preference"]
OPTIONAL_ANNOTATION_COLUMNS = ["likert_a", "likert_b", "p_b"]  # p_b: a soft label, P(B preferred) in [0, 1]
PREFERENCES = (-2, -1, 0, 1, 2)


class DataError(ValueError):
    """Bad input: the message names the file, the row and the field."""

    def __init__(self, message: str, *, file: Any = None, row: Any = None, field: str | None = None):
        where = []
        if file is not None:
            where.append(f"file {file}")
        if row is not None:
            where.append(f"row {row}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__((", ".join(where) + ": " if where else "") + message)
        self.file, self.row, self.field = file, row, field


def member(values, keep) -> np.ndarray:
    """Whether each of ``values`` (pair ids) is in ``keep``, as a boolean array: ``Series.isin`` by a Python set
    (pandas' ``isin`` on Arrow strings converts every value of ``keep`` to an Arrow scalar, 30 times slower)."""
    wanted = set(keep)
    return np.fromiter((v in wanted for v in np.asarray(values, dtype=object)), dtype=bool, count=len(values))


@dataclass
class PreferenceData:
    """Preference pairs plus long-form annotator judgments, validated at construction.

    ``meta``: ``name``, ``source``, ``license``, ``citation``, ``filters`` (a list of
    ``{"filter": ..., "removed": n, "kept": m}``: nothing is dropped silently).
    ``truth``: planted ground truth (simulator only), indexed by ``pair_id``.
    """

    pairs: pd.DataFrame
    annotations: pd.DataFrame
    meta: dict = field(default_factory=dict)
    truth: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        self.meta.setdefault("filters", [])
        validate(self)

    # ---- derived aggregations -------------------------------------------------------------
    def _grouped(self):
        return self.annotations.groupby("pair_id", sort=False)["preference"]

    def n_annotators(self) -> pd.Series:
        """Judgments per pair."""
        return self._grouped().size().reindex(self.pairs["pair_id"]).fillna(0).astype(int)

    def mean_preference(self) -> pd.Series:
        """Mean of the signed preferences per pair (−2 … 2; negative favours A)."""
        return self._grouped().mean().reindex(self.pairs["pair_id"])

    def share_a(self) -> pd.Series:
        """Share of annotators preferring A (ties count half) — the empirical P(A ≻ B). A judgment with a soft
        label counts with its probability, 1 − ``p_b``."""
        p = self.annotations["preference"]
        score = np.where(p < 0, 1.0, np.where(p > 0, 0.0, 0.5))
        if "p_b" in self.annotations:
            soft = self.annotations["p_b"].to_numpy(dtype=float)
            score = np.where(np.isnan(soft), score, 1.0 - soft)
        s = pd.Series(score, index=self.annotations.index).groupby(self.annotations["pair_id"]).mean()
        return s.reindex(self.pairs["pair_id"])

    def majority(self) -> pd.Series:
        """Majority label per pair: "A", "B", "tie" or "split" — the plurality of the A / B / tie votes.

        A side that draws with the tie votes for the most votes wins ({A, A, tie, tie} → "A"); the
        tie votes win only with strictly more votes than either side ({A, tie, tie} → "tie"); when
        A and B draw for the most votes there is no majority and the pair is a "split"
        ({A, A, B, B} → "split", {A, B, tie} → "split", {A, B} → "split"), not a tie. One vote
        decides itself ({A} → "A", {tie} → "tie"). Pairs without judgments are "split" too
        (no side has a vote); ``n_annotators`` tells them apart."""
        p = self.annotations["preference"]
        votes = pd.DataFrame(
            {
                "pair_id": self.annotations["pair_id"],
                "A": (p < 0).astype(int),
                "B": (p > 0).astype(int),
                "tie": (p == 0).astype(int),
            }
        )
        c = votes.groupby("pair_id", sort=False)[["A", "B", "tie"]].sum().reindex(self.pairs["pair_id"]).fillna(0)
        out = pd.Series("split", index=c.index, dtype=object)
        out[(c["A"] > c["B"]) & (c["A"] >= c["tie"])] = "A"
        out[(c["B"] > c["A"]) & (c["B"] >= c["tie"])] = "B"
        out[(c["tie"] > c["A"]) & (c["tie"] > c["B"])] = "tie"
        return out

    def strength(self) -> pd.Series:
        """Mean absolute preference per pair (0 = ties only, 2 = all significant)."""
        return (
            self.annotations["preference"]
            .abs()
            .groupby(self.annotations["pair_id"])
            .mean()
            .reindex(self.pairs["pair_id"])
        )

    # ---- helpers -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def name(self) -> str:
        return str(self.meta.get("name", "data"))

    def fingerprint(self) -> str:
        from pluralign.cache import fingerprint

        return fingerprint(self.pairs, self.annotations)

    def subset(self, pair_ids, reason: str | None = None) -> PreferenceData:
        """The pairs (and their annotations and truth) whose ids are in ``pair_ids``; with a
        ``reason``, the filter and its counts are recorded in ``meta['filters']``."""
        keep = pd.Index(pair_ids)
        pairs = self.pairs[member(self.pairs["pair_id"], keep)].reset_index(drop=True)
        ann = self.annotations[member(self.annotations["pair_id"], keep)].reset_index(drop=True)
        meta = {**self.meta, "filters": list(self.meta.get("filters", []))}
        if reason:
            meta["filters"].append({"filter": reason, "removed": len(self.pairs) - len(pairs), "kept": len(pairs)})
        truth = None if self.truth is None else self.truth[member(self.truth.index, keep)]
        return PreferenceData(pairs, ann, meta, truth)

    def __repr__(self) -> str:
        return (
            f"PreferenceData({self.name!r}: {len(self.pairs)} pairs, {len(self.annotations)} judgments, "
            f"{self.annotations['annotator_id'].nunique()} annotators)"
        )


def validate(data: PreferenceData) -> None:
    """Check the canonical schema; raise :class:`DataError` naming the row and field."""
    src = data.meta.get("source", data.meta.get("name", "<in-memory>"))
    pairs, ann = data.pairs, data.annotations
    for col in PAIR_COLUMNS:
        if col not in pairs.columns:
            raise DataError("missing column in pairs table", file=src, field=col)
    for col in ANNOTATION_COLUMNS:
        if col not in ann.columns:
            raise DataError("missing column in annotations table", file=src, field=col)
    dup = pairs["pair_id"].duplicated()
    if dup.any():
        i = int(np.flatnonzero(dup.values)[0])
        raise DataError(f"duplicate pair_id {pairs['pair_id'].iloc[i]!r}", file=src, row=i, field="pair_id")
    for col in ("prompt", "response_a", "response_b"):
        bad = pairs[col].isna() | (pairs[col].astype(str).str.strip() == "")
        if col == "prompt":
            bad = pairs[col].isna()  # an empty prompt is allowed (e.g. summarisation with the post inside)
        if bad.any():
            i = int(np.flatnonzero(bad.values)[0])
            raise DataError(f"empty text (pair_id {pairs['pair_id'].iloc[i]!r})", file=src, row=i, field=col)
    pref = pd.to_numeric(ann["preference"], errors="coerce")
    bad = pref.isna() | ~pref.isin(PREFERENCES)
    if bad.any():
        i = int(np.flatnonzero(bad.values)[0])
        raise DataError(
            f"preference {ann['preference'].iloc[i]!r} not in {{-2,-1,0,1,2}}", file=src, row=i, field="preference"
        )
    if "p_b" in ann:
        soft = pd.to_numeric(ann["p_b"], errors="coerce")
        bad = ann["p_b"].notna() & (soft.isna() | (soft < 0) | (soft > 1))
        if bad.any():
            i = int(np.flatnonzero(bad.values)[0])
            raise DataError(f"p_b {ann['p_b'].iloc[i]!r} is not a probability in [0, 1]", file=src, row=i, field="p_b")
    unknown = ~ann["pair_id"].isin(pairs["pair_id"])
    if unknown.any():
        i = int(np.flatnonzero(unknown.values)[0])
        raise DataError(f"annotation for unknown pair_id {ann['pair_id'].iloc[i]!r}", file=src, row=i, field="pair_id")


def combine(*datas, name: str | None = None):
    """Concatenate preference data sets (pairs, annotations, truth where every part has one) into one
    :class:`~pluralign.data.PreferenceData`. Pair ids must be distinct across the parts (a
    :class:`~pluralign.data.DataError` names the first duplicate otherwise)."""
    datas = [d for d in datas if d is not None]
    if not datas:
        raise ValueError("combine: no data given")
    pairs = pd.concat([d.pairs for d in datas], ignore_index=True)
    ann = pd.concat([d.annotations for d in datas], ignore_index=True)
    truth = None
    if all(d.truth is not None for d in datas):
        truth = pd.concat([d.truth for d in datas])
    filters = [{**f, "part": d.name} for d in datas for f in d.meta.get("filters", [])]
    meta = {
        "name": name or " + ".join(d.name for d in datas),
        "source": "pluralign.data.combine",
        "parts": [{"name": d.name, "n_pairs": len(d)} for d in datas],
        "filters": filters,
    }
    return PreferenceData(pairs, ann, meta, truth)

"""The alignment data set D as SEAL sees it: one chosen and one rejected entry per pair (§ 2, Fig. 1), and the
texts SEAL labels and scores for each entry. The lowest layer of Part II: :mod:`pluralign.seal.scoring` and
:mod:`pluralign.seal.design` both build on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["AlignmentPairs", "chosen_rejected", "entry_texts"]


@dataclass(frozen=True)
class AlignmentPairs:
    """The alignment data set D as SEAL sees it (§ 2, Fig. 1): one chosen entry t_i^c and one rejected entry
    t_i^r per pair, from :func:`chosen_rejected`. ``table``: one row per pair with ``pair_id``, ``prompt``,
    ``chosen``, ``rejected`` (response texts) and ``chosen_side`` ("A"/"B"); ``n_pairs`` the pairs kept,
    ``n_ties_dropped`` the pairs dropped because their majority label is a tie and ``n_splits_dropped``
    those split evenly between A and B (neither has a chosen entry), ``data`` the data set's name."""

    table: pd.DataFrame
    n_pairs: int
    n_ties_dropped: int
    data: str | None = None
    n_splits_dropped: int = 0


def chosen_rejected(data) -> AlignmentPairs:
    """SEAL's view of an alignment data set as :class:`AlignmentPairs`: one row per pair with ``pair_id``,
    ``prompt``, ``chosen``, ``rejected`` (response texts) and ``chosen_side`` ("A"/"B"), the chosen entry
    being the majority label's (``PreferenceData.majority``; a single-label set such as hh-rlhf: the
    label). Pairs whose majority is a tie, or that are split evenly between A and B, have no chosen entry
    and are dropped; their numbers are ``n_ties_dropped`` and ``n_splits_dropped`` (``n_pairs`` the pairs kept)."""
    maj = data.majority()
    p = data.pairs.set_index("pair_id").loc[maj.index]
    keep = maj.isin(["A", "B"]).to_numpy()
    side = maj.to_numpy()[keep]
    a, b = p["response_a"].to_numpy()[keep], p["response_b"].to_numpy()[keep]
    out = pd.DataFrame(
        {
            "pair_id": maj.index.to_numpy()[keep],
            "prompt": p["prompt"].fillna("").to_numpy()[keep],
            "chosen": np.where(side == "A", a, b),
            "rejected": np.where(side == "A", b, a),
            "chosen_side": side,
        }
    )
    # each side's own conversation where the data keep it (hh-rlhf): SEAL scores and labels each entry on it
    for col in ("dialogue_a", "dialogue_b", "history_differs"):
        if col not in p.columns:
            break
    else:
        da, db = p["dialogue_a"].to_numpy()[keep], p["dialogue_b"].to_numpy()[keep]
        out["dialogue_chosen"] = np.where(side == "A", da, db)
        out["dialogue_rejected"] = np.where(side == "A", db, da)
        out["history_differs"] = p["history_differs"].to_numpy(dtype=bool)[keep]
    return AlignmentPairs(
        table=out,
        n_pairs=int(keep.sum()),
        n_ties_dropped=int((maj == "tie").sum()),
        data=data.name,
        n_splits_dropped=int((maj == "split").sum()),
    )


def entry_texts(view: pd.DataFrame, entry: str) -> list[str]:
    """The texts SEAL labels: the whole dialogue ending in the chosen (``entry="chosen"``) or rejected
    reply. Where the view keeps each side's original conversation (hh-rlhf: ``dialogue_chosen`` /
    ``dialogue_rejected``, :func:`chosen_rejected`) it is that text, unchanged, as SEAL labelled it; else an
    hh-rlhf style history (it contains "Human:") is followed by the reply, and a plain prompt is written as
    "Human: {prompt}\\n\\nAssistant: {reply}"."""
    if entry not in ("chosen", "rejected"):
        raise ValueError(f"entry_texts: entry must be 'chosen' or 'rejected', got {entry!r}")
    if f"dialogue_{entry}" in view.columns:
        return view[f"dialogue_{entry}"].astype(str).tolist()
    out = []
    for p, r in zip(view["prompt"].astype(str), view[entry].astype(str)):
        if "Human:" in p:
            out.append(p.rstrip() + (" " if p.rstrip().endswith("Assistant:") else "\n\nAssistant: ") + r)
        else:
            out.append(f"Human: {p}\n\nAssistant: {r}")
    return out

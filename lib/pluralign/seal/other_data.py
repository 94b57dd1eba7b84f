"""The demo's "other data" design (SEAL § 2: the pre-D RM r̲ is trained without D): which planted feature weights the
pre-D RM's training data give the opposite sign to D's population.

On the ``demo`` profile the pre-D RM is trained on simulated pairs of another population
(:data:`pluralign.seal.settings.DEMO_OTHER_DATA`) whose style weights are set opposite to D's; the post-D RM on
those pairs plus D. So the pre-D RM's imprint of such a feature, the reward shift θ that training on D produces on
it, and the pairs that "became aligned" or "reversed" between the two RMs follow from that design, not from
anything the paper measures. :func:`opposite_weights` lists those features from the data's own planted weights;
:func:`designed_rows` names the rows of SEAL's tables whose sign the design sets; :func:`design_sentence` says it
in words for the pages. On data without planted weights (``sample``, ``paper``) there is no such design: all
three are empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["opposite_weights", "designed_rows", "design_sentence"]


def _weights(data) -> pd.Series | None:
    w = getattr(data, "meta", {}).get("weights") if data is not None else None
    return w["mean"].astype(float) if isinstance(w, pd.DataFrame) and "mean" in w else None


def opposite_weights(D, other_parts: Sequence) -> pd.DataFrame:
    """The planted mean weight of every feature in D's population and in each part of the pre-D RM's other data,
    one row per feature, with ``opposite`` True where some part weighs it with the sign opposite to D's (both
    non-zero), ``mix`` the pair-count-weighted weight of the other data and D together (what the post-D RM is
    trained on, :func:`~pluralign.seal.planted.mixed_weights`) and ``mix_opposite`` True where that mix has the
    sign opposite to D's. Columns ``D`` and one per part (its name) before those; empty where D or the parts carry
    no planted weights."""
    from pluralign.seal.planted import mixed_weights

    cols = ["D", "opposite", "mix", "mix_opposite"]
    wd = _weights(D)
    named = [(getattr(p, "name", f"part {i + 1}"), _weights(p), len(p)) for i, p in enumerate(other_parts or [])]
    if wd is None or not named or any(w is None for _, w, _ in named):
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame({"D": wd, **{k: w.reindex(wd.index) for k, w, _ in named}})
    others = out.drop(columns="D").to_numpy(float)
    d = np.sign(out["D"].to_numpy(float))
    out["opposite"] = ((np.sign(others) * d[:, None]) < 0).any(axis=1)
    mix = mixed_weights([w for _, w, _ in named] + [wd], [n for _, _, n in named] + [len(D)]).reindex(wd.index)
    out["mix"] = mix.to_numpy(float)
    out["mix_opposite"] = np.sign(out["mix"].to_numpy(float)) * d < 0
    return out.rename_axis("feature")


def designed_rows(
    weights: pd.DataFrame, features: Sequence[str], groups: Sequence[str], *, column: str = "opposite"
) -> list[tuple[str, str]]:
    """The (SEAL feature, group) rows of a table of :func:`~pluralign.seal.compare.on_paper_rows` whose sign the
    demo's design sets: the SEAL feature played by each of this run's ``features`` that :func:`opposite_weights`
    marks in ``column`` (``"opposite"``: the other data weighs it against D, which sets the pre-D RM's sign and the
    reward shift's; ``"mix_opposite"``: the post-D RM's training mix still does), in each of ``groups`` (e.g.
    ``["pre-D"]`` for the pre-D imprint, ``["chosen", "rejected"]`` for the reward shift)."""
    from pluralign.seal.design import paper_feature_map

    if weights is None or not len(weights):
        return []
    marked = set(weights.index[weights[column].astype(bool)])
    m = paper_feature_map(list(features))
    return [(p, g) for f, p in m["paper_feature"].items() if isinstance(p, str) and f in marked for g in groups]


def design_sentence(weights: pd.DataFrame) -> str:
    """The other-data design in words, from :func:`opposite_weights` (the features, D's weight and the other
    data's, and those the post-D RM's training mix still weighs against D); "" where there is none."""
    from pluralign.presentation import signed
    from pluralign.seal.display import display_name

    if weights is None or not len(weights) or not weights["opposite"].any():
        return ""
    rows = weights[weights["opposite"].astype(bool)]
    other = [c for c in rows.columns if c not in ("D", "opposite", "mix", "mix_opposite")]

    def w(x):
        return signed(f"{float(x):+.1f}")

    each = ", ".join(
        f"{display_name(f)} ({w(r['D'])} in D, " + " / ".join(w(r[c]) for c in other) + " there)"
        for f, r in rows.iterrows()
    )
    text = (
        f"By the demo's design, the pre-D RM's other data weighs {len(rows)} planted features with the sign opposite "
        f"to D's population: {each} (mean planted weights)."
    )
    mix = weights[weights["mix_opposite"].astype(bool)]
    if len(mix):
        kept = ", ".join(f"{display_name(f)} {signed(format(float(x), '+.2f'))}" for f, x in mix["mix"].items())
        text += (
            f" In the post-D RM's training data (the other data and D together) {len(mix)} of them "
            f"{'keeps' if len(mix) == 1 else 'keep'} the other data's sign ({kept})."
        )
    return text

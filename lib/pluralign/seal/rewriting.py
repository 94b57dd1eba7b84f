"""The § 2.3 rewriting of one study and the robustness scores fitted on it (Eq. 4, Table 8).

:func:`rewrite_run` draws the pairs, rewrites both entries (the demo's simulated rewrites with planted flips, or an
LM's with the labeller re-featurizing them) and scores original and rewrite with the post-D RM;
:func:`robustness_fits` fits Eq. 4 on the kept pairs in both variants; :func:`no_flips` is what a robustness
section says when nothing is left to estimate from (:func:`require_flips` raises it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["RewriteRun", "rewrite_run", "robustness_fits", "no_flips", "require_flips", "robustness_features"]


@dataclass
class RewriteRun:
    """The § 2.3 rewriting of one study (:func:`rewrite_run`): ``idx`` the positions in the study's view of the
    pairs drawn, ``rewrites`` (:class:`~pluralign.seal.lm_rewrites.Rewrites`), and δ / δ̂ of the post-D RM on the
    kept pairs, original (``before``) and rewritten (``after``)."""

    idx: np.ndarray
    rewrites: Any
    before: np.ndarray
    after: np.ndarray


def rewrite_run(study) -> RewriteRun | None:
    """The rewriting of a random subset of the study's D (``n_rewrite`` pairs, or ``rewrite_share`` of them, drawn
    with the study's seed): the demo's simulated rewrites (``rewriter="simulator"``,
    :func:`~pluralign.seal.simulated_rewrites.simulated_rewrite_pairs` with ``p_flip``) or an LM's
    (:func:`~pluralign.seal.lm_rewrites.rewrite_pairs` at ``rewrite_temperature``, with the ``labeller`` at
    ``labeller_temperature``), with δ and δ̂ of the post-D RM
    (:func:`~pluralign.seal.robustness.aligned_before_after`). None when the settings name no rewriter."""
    from pluralign.seal.lm_rewrites import rewrite_pairs
    from pluralign.seal.robustness import aligned_before_after
    from pluralign.seal.simulated_rewrites import simulated_rewrite_pairs

    s, view = study.settings, study.view
    if s.rewriter is None:
        return None
    want = int(s.n_rewrite) if s.n_rewrite is not None else max(1, int(round(float(s.rewrite_share) * len(view))))
    n = min(want, len(view))
    idx = np.sort(np.random.default_rng(study.seed).choice(len(view), size=n, replace=False))
    sub = view.iloc[idx].reset_index(drop=True)
    if s.rewriter == "simulator":
        rp = simulated_rewrite_pairs(sub, seed=study.seed, p_flip=s.p_flip)
    else:
        rewriter, labeller = s.rewriter.load(), s.labeller.load()
        rp = rewrite_pairs(
            sub, rewriter, labeller, label_temperature=s.labeller_temperature, temperature=s.rewrite_temperature
        )
    before, after = aligned_before_after(
        study.rms.post, rp.originals, rp.rewritten, rp.prompts, scoring_input=study.scoring_input or "seal"
    )
    return RewriteRun(idx=idx, rewrites=rp, before=before, after=after)


def no_flips(rw: RewriteRun) -> str:
    """Why a robustness section has nothing to estimate from: no rewritten pair was kept, or no kept entry has a
    label flip because the labeller's labels of the originals or the rewrites failed (App. D.6), with the counts;
    "" when some entry has flips."""
    rp = rw.rewrites
    if not rp.n_kept:
        return (
            f"no pair was kept of the {rp.n_pairs} drawn for rewriting ({rp.n_dropped} dropped: a rewrite "
            "failed its checks; by reason in the rewriting section), so there is nothing to label."
        )
    miss = {e: int(f.isna().all(axis=1).sum()) for e, f in rp.flips.items()}
    total = sum(len(f) for f in rp.flips.values())
    if sum(miss.values()) < total:
        return ""
    return (
        f"the labeller gave no valid label (no answer that parses as JSON and fits the schema) for the "
        f"original or the rewrite of {sum(miss.values())} of {total} rewritten entries, so no entry has a "
        "label flip."
    )


def require_flips(rw: RewriteRun, values: dict | None = None) -> None:
    """Raise :class:`~pluralign.report.NoEstimate` (:func:`no_flips`' reason, still giving ``values``) when a
    robustness section has nothing to estimate from."""
    from pluralign.report import NoEstimate

    why = no_flips(rw)
    if why:
        raise NoEstimate(why, values)


def robustness_features(rw: RewriteRun) -> tuple[list, list]:
    """The features whose flips enter Eq. 4 (every flip column but the target features) and the target features
    that must not flip (§ 2.3's filter), as present in the rewriting's flips."""
    from pluralign.seal.taxonomy import TARGET_FEATURES

    cols = rw.rewrites.flips["chosen"].columns
    return [c for c in cols if c not in TARGET_FEATURES], [u for u in TARGET_FEATURES if u in cols]


def robustness_fits(rw: RewriteRun | None, view: pd.DataFrame) -> dict | None:
    """Robustness scores π (Eq. 4; :func:`~pluralign.seal.robustness.robustness_scores`) of the kept rewritten
    pairs, ``{"linear": …, "logit": …}``: the linear probability model of SEAL's code (OLS on the 0/1 event,
    standard errors clustered by pair; Table 8's scale) and the logit of Eq. 4 as written. None without a
    rewriting or without any label flip (:func:`no_flips`)."""
    from pluralign.seal.robustness import robustness_scores

    if rw is None or no_flips(rw):
        return None
    flips = rw.rewrites.flips
    feats, unchanged = robustness_features(rw)
    args = (rw.before, rw.after, flips["chosen"], flips["rejected"], feats)
    pair_ids = view["pair_id"].to_numpy()[rw.idx[rw.rewrites.kept]]
    return {
        "linear": robustness_scores(*args, unchanged=unchanged, model="linear", groups=pair_ids),
        "logit": robustness_scores(*args, unchanged=unchanged, model="logit"),
    }

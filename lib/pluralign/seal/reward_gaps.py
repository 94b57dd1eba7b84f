"""The distribution of reward gaps of several reward models on one alignment data set (SEAL App. D.1, Fig. 7).

Fig. 7 shows, for four OpenAssistant RMs (``reward-model-deberta-v3-large-v2`` — the post-D RM —,
``reward-model-deberta-v3-large`` — the pre-D RM —, ``reward-model-electra-large-discriminator`` and
``reward-model-deberta-v3-base``), the distribution over the pairs of D of the difference between the chosen
and the rejected entry's reward, r(t_i^c) − r(t_i^r) (the paper calls it δ_i there; in § 2.2 δ_i is its sign,
δ_i = 1{r(t_i^c) − r(t_i^r) > 0}). The figure prints no number; footnote 9 gives the reward ranges of the pre-D
and post-D RMs and § 2.2 their a₊, the share of positive gaps. :func:`reward_gap_summary` gives those numbers
and the distribution's location and spread per RM; :func:`reward_gaps` the gaps themselves (the figure's data).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pluralign.seal.shifts import _as_rewards

__all__ = ["gap_scores", "paper_gap_rows", "reward_gaps", "reward_gap_summary"]


def reward_gaps(rewards: Mapping[str, tuple]) -> pd.DataFrame:
    """Reward gaps r(t_i^c) − r(t_i^r) per RM (Fig. 7's data), long: one row per (``RM``, pair) with ``pair``
    (position in D) and ``gap``. ``rewards``: ``{label: (chosen rewards, rejected rewards)}``, arrays over the same
    pairs in the same order. Raises on an empty mapping or on RMs scored on different numbers of pairs."""
    if not rewards:
        raise ValueError("reward_gaps: no reward models given")
    frames, n = [], None
    for label, (c, r) in rewards.items():
        c, r = _as_rewards(chosen=c, rejected=r)
        if n is not None and len(c) != n:
            raise ValueError(f"reward_gaps: {label!r} scored {len(c)} pairs, the first RM {n}")
        n = len(c)
        frames.append(pd.DataFrame({"RM": label, "pair": np.arange(len(c)), "gap": c - r}))
    return pd.concat(frames, ignore_index=True)


def reward_gap_summary(rewards: Mapping[str, tuple]) -> pd.DataFrame:
    """Per RM (``rewards`` as for :func:`reward_gaps`): ``pairs``, ``mean``, ``sd``, ``median``, the 5% and 95%
    quantiles ``q05`` / ``q95`` of the gap r(t_i^c) − r(t_i^r), ``share positive`` (a₊ of § 2.2: gap > 0),
    ``share zero`` (ties, misaligned in § 2.2) and the lowest / highest reward given to any entry (footnote 9's
    ranges)."""
    g = reward_gaps(rewards)
    rows = {}
    for label, (c, r) in rewards.items():
        x = g.loc[g["RM"] == label, "gap"].to_numpy(float)
        both = np.concatenate([np.asarray(c, float), np.asarray(r, float)])
        rows[label] = {
            "pairs": len(x),
            "mean": x.mean(),
            "sd": x.std(ddof=1) if len(x) > 1 else np.nan,
            "median": np.median(x),
            "q05": np.quantile(x, 0.05),
            "q95": np.quantile(x, 0.95),
            "share positive": float((x > 0).mean()),
            "share zero": float((x == 0).mean()),
            "lowest reward": both.min(),
            "highest reward": both.max(),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out["pairs"] = out["pairs"].astype(int)
    return out.rename_axis("RM")


def gap_scores(study) -> tuple[dict, list]:
    """The rewards of the chosen and rejected entries of D by RM for Fig. 7 (a study's ``reward_gap_models``, scored
    as the study scores its own pair, or its pre-D and post-D RMs plus, on planted features, the population's mean
    utility), and the note on whose RMs they are."""
    from pluralign import rewards  # imports torch: loaded only where the reward-gap RMs are scored
    from pluralign.seal.design import AlignmentModels, alignment_rewards
    from pluralign.seal.facts import PAPER_SETUP

    if study.settings.reward_gap_models is None:
        scores = {"pre-D RM": study.rewards_of("pre"), "post-D RM": study.rewards_of("post")}
        if study.F is not None and study.F.source == "planted" and "weights" in study.D.meta:
            w = study.D.meta["weights"]["mean"]
            scores["population mean utility (planted)"] = tuple(
                getattr(study.F, e)[list(w.index)].to_numpy(float) @ w.to_numpy(float) for e in ("chosen", "rejected")
            )
        if study.rms.n_train_post is None:  # named models: the page says which
            named = ", ".join(f"{k}-D: {v}" for k, v in study.rms.details.get("models", {}).items())
            return scores, [f"The pre-D and post-D RMs are this study's named models ({named or study.rms.design})."]
        return scores, [
            f"On this profile the pre-D and post-D RMs are this study's ({study.rms.design}), not the "
            "paper's OpenAssistant models: the paper's numbers stand beside them for their roles only."
        ]
    role = {PAPER_SETUP["models"]["pre"]: "pre-D RM", PAPER_SETUP["models"]["post"]: "post-D RM"}
    scores = {}
    for m in study.settings.reward_gap_models:
        name = str(m.name_or_path)
        rm = rewards.load(**m.kwargs())
        # scored as alignment_rewards scores the study's own pair (the same scoring input)
        R = alignment_rewards(
            study.D,
            rms=AlignmentModels(pre=rm, post=rm, design="named reward model"),
            scoring_input=study.scoring_input,
        )
        scores[f"{role[name]}: {name}" if name in role else name] = (
            R["post_chosen"].to_numpy(float),
            R["post_rejected"].to_numpy(float),
        )
    return scores, []


def paper_gap_rows() -> pd.DataFrame:
    """The paper's a₊ (§ 2.2) and reward ranges (footnote 9) of its pre-D and post-D RMs."""
    from pluralign.seal.facts import paper_value

    roles = ("pre-D RM", "post-D RM")
    return pd.DataFrame(
        {
            "role": list(roles),
            "a₊": [paper_value("§2.2", k, "a₊") for k in roles],
            "lowest reward": [paper_value("footnote 9", k, "lowest reward") for k in roles],
            "highest reward": [paper_value("footnote 9", k, "highest reward") for k in roles],
        }
    )

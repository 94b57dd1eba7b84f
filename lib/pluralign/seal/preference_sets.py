"""Alignment resistance of reward models on other preference sets (SEAL § 3, "Future work").

SEAL's pre-D RM was trained on three semantic preference sets (web-gpt, summarize from feedback,
synthetic-instruct-gptj-pairwise), and the paper reports that resistance to alignment is observed on them too:
"resistance incidences of 49% and 66% are observed with web-gpt and summarize from feedback". The
resistance a₋ = 1 − a₊ is § 2.2's: the share of a set's pairs on which the RM does not reward the
human-chosen entry strictly more (a tie counts as misaligned). :func:`resistance_by_dataset` computes it per
(preference set, RM), with a 95% Wilson interval; pairs without a chosen entry (a tie or an even split of the
annotators) are dropped by :func:`~pluralign.seal.pairs.chosen_rejected` and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from pluralign.seal.resistance import aligned

__all__ = ["resistance_rates", "resistance_by_dataset"]


def resistance_rates(chosen, rejected, *, level: float = 0.95) -> dict:
    """§ 2.2's alignment a₊ and resistance a₋ = 1 − a₊ of one RM on one set's pairs, with the Wilson interval
    of a₋ (``statsmodels`` ``proportion_confint(method="wilson")``): ``pairs``, ``misaligned`` (count), ``a_plus``,
    ``a_minus``, ``a_minus_low``, ``a_minus_high``. Raises on no pairs."""
    from statsmodels.stats.proportion import proportion_confint

    d = aligned(chosen, rejected)
    n = len(d)
    if n == 0:
        raise ValueError("resistance_rates: no pairs")
    k = int(n - d.sum())
    lo, hi = proportion_confint(k, n, alpha=1 - level, method="wilson")
    return {
        "pairs": n,
        "misaligned": k,
        "a_plus": 1 - k / n,
        "a_minus": k / n,
        "a_minus_low": float(lo),
        "a_minus_high": float(hi),
    }


def resistance_by_dataset(
    datasets: Sequence, models: Mapping[str, object], *, progress: bool = False, scoring_input: str | None = None
) -> pd.DataFrame:
    """Alignment resistance a₋ of each reward model on each preference set (SEAL § 3 "Future work": web-gpt 49%,
    summarize from feedback 66%).

    ``datasets``: loaded preference sets (``pluralign.load``); ``models``: ``{label: reward model}``, each with
    ``score(data) -> DataFrame(pair_id, reward_a, reward_b)`` (``pluralign.rewards.load``). Each set is seen as
    chosen / rejected entries by :func:`~pluralign.seal.pairs.chosen_rejected` (majority label; ties and even
    splits dropped, counted in ``no chosen entry (dropped)``). ``scoring_input``: what each RM scores per entry,
    as for D (:func:`~pluralign.seal.scoring.scoring_inputs`: "seal" or "prompt_reply"); None — the loader's
    (prompt, response). Returns one row per (``data set``, ``RM``) with the columns of :func:`resistance_rates`."""
    from pluralign.seal.design import _oriented
    from pluralign.seal.pairs import chosen_rejected

    if not datasets:
        raise ValueError("resistance_by_dataset: no preference sets given")
    if not models:
        raise ValueError("resistance_by_dataset: no reward models given")
    rows = []
    for data in datasets:
        pairs = chosen_rejected(data)
        if pairs.n_pairs == 0:
            raise ValueError(f"resistance_by_dataset: {data.name!r} has no pair with a chosen entry")
        inputs = None
        if scoring_input is not None:
            from pluralign.seal.scoring import scoring_inputs

            inputs = scoring_inputs(pairs, scoring_input)
        for label, rm in models.items():
            if inputs is None:
                c, r = _oriented(rm.score(data, progress=progress), pairs.table)
            else:  # the same input the study scores D with
                from pluralign.seal.scoring import score_inputs

                c, r = score_inputs(rm, inputs)
            rows.append(
                {
                    "data set": data.name,
                    "RM": label,
                    "no chosen entry (dropped)": pairs.n_ties_dropped + pairs.n_splits_dropped,
                    **resistance_rates(c, r),
                }
            )
    return pd.DataFrame(rows).set_index(["data set", "RM"])

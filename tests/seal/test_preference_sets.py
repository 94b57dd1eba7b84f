"""Alignment resistance on other preference sets (seal.preference_sets; § 3): exact rates, and each set scored as
the study scores D."""

import numpy as np
import pandas as pd
import pytest

from pluralign.data import simulate
from pluralign.seal.pairs import chosen_rejected
from pluralign.seal.preference_sets import resistance_by_dataset, resistance_rates


class _SideRM:
    """Rewards response A 1 and response B 0 (a tie on pairs listed in ``tie``)."""

    def __init__(self, tie=()):
        self.tie = set(tie)

    def score(self, data, progress=False):
        ids = data.pairs["pair_id"]
        return pd.DataFrame({"pair_id": ids, "reward_a": [0.0 if p in self.tie else 1.0 for p in ids], "reward_b": 0.0})


def test_resistance_rates_and_by_dataset_are_exact():
    r = resistance_rates([1.0, 2.0, 0.0, 3.0], [0.0, 2.0, 1.0, 1.0])  # a tie counts as misaligned
    assert r["misaligned"] == 2 and r["a_minus"] == 0.5 and r["a_plus"] == 0.5
    z = 1.959963984540054
    centre, half = (0.5 + z * z / 8) / (1 + z * z / 4), z / (1 + z * z / 4) * np.sqrt(0.25 / 4 + z * z / 64)
    assert (r["a_minus_low"], r["a_minus_high"]) == (pytest.approx(centre - half), pytest.approx(centre + half))
    D = simulate(n_pairs=120, seed=3)
    view = chosen_rejected(D).table
    t = resistance_by_dataset([D], {"A wins": _SideRM(), "ties": _SideRM(tie=view["pair_id"])})
    assert t.loc[(D.name, "A wins"), "a_minus"] == pytest.approx((view["chosen_side"] == "B").mean())
    assert t.loc[(D.name, "ties"), "a_minus"] == 1.0
    assert t.loc[(D.name, "A wins"), "pairs"] == len(view)
    assert t.loc[(D.name, "A wins"), "no chosen entry (dropped)"] == 120 - len(view)
    with pytest.raises(ValueError, match="no reward models"):
        resistance_by_dataset([D], {})


# ---- the Study's page sections


def test_resistance_on_other_sets_scores_what_the_study_scores_d_with():
    """With a scoring input, each set's entries are scored as D is (seal.scoring_inputs); on data without dialogues
    "prompt_reply" is the loader's (prompt, response), so both paths give the same a₋."""
    import pandas as pd

    from pluralign import simulate
    from pluralign.seal.preference_sets import resistance_by_dataset

    class LengthRM:  # reward = length of the reply: deterministic, differs between entries
        seen = []

        def score(self, x, progress=False):
            self.seen.append(type(x).__name__)
            if isinstance(x, list):
                return [float(len(r)) for _, r in x]
            p = x.pairs
            return pd.DataFrame(
                {
                    "pair_id": p["pair_id"],
                    "reward_a": p["response_a"].str.len().astype(float),
                    "reward_b": p["response_b"].str.len().astype(float),
                }
            )

    d = simulate(n_pairs=60, seed=4)
    rm = LengthRM()
    plain = resistance_by_dataset([d], {"rm": rm})
    same = resistance_by_dataset([d], {"rm": rm}, scoring_input="prompt_reply")
    assert rm.seen == ["PreferenceData", "list"]  # the second call scored (history, reply) entries
    assert plain.equals(same) and 0 < plain["a_minus"].iloc[0] < 1

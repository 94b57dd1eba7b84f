"""Fixtures of the SEAL tests: a study on a simulated D whose reward models reward the planted utility (no
training), for the page sections (tests/seal/test_pages_*.py)."""

import numpy as np
import pandas as pd
import pytest

from pluralign.data import simulate
from pluralign.seal.design import AlignmentModels, alignment_rewards, entry_features
from pluralign.seal.pairs import chosen_rejected
from pluralign.seal.settings import SealSettings
from pluralign.seal.stand_ins import study_stand_ins
from pluralign.seal.study import Study


class UtilityRM:
    """Rewards a simulated response by the population's planted utility plus seeded noise (a data set), or
    a (prompt, reply) pair by its reply's length and enthusiasm (the rewriting's re-scoring)."""

    def __init__(self, D, noise, seed):
        t, w = D.truth, D.meta["weights"]["mean"]
        rng = np.random.default_rng(seed)
        self.a = {
            p: u
            for p, u in zip(
                t.index,
                t[[f"a_{f}" for f in w.index]].to_numpy(float) @ w.to_numpy() + noise * rng.standard_normal(len(t)),
            )
        }
        self.b = {
            p: u
            for p, u in zip(
                t.index,
                t[[f"b_{f}" for f in w.index]].to_numpy(float) @ w.to_numpy() + noise * rng.standard_normal(len(t)),
            )
        }

    def score(self, data, progress=False):
        if isinstance(data, list):
            return np.array([len(r) / 100 + r.count("!") for _, r in data], float)
        ids = data.pairs["pair_id"]
        return pd.DataFrame({"pair_id": ids, "reward_a": ids.map(self.a), "reward_b": ids.map(self.b)})


@pytest.fixture(scope="session")
def study():
    """A planted-feature study of 300 simulated pairs, rewritten by the simulator (60 pairs, p_flip 0.5)."""
    D = simulate(n_pairs=300, seed=2)
    pairs = chosen_rejected(D)
    view = pairs.table
    rms = AlignmentModels(
        pre=UtilityRM(D, 3.0, 0), post=UtilityRM(D, 0.5, 1), design="utility RMs", n_train_pre=100, n_train_post=300
    )
    R = alignment_rewards(D, rms=rms, scoring_input="prompt_reply")
    F = entry_features(D, view, "planted")
    return Study(
        D=D,
        other=None,
        other_parts=[],
        view=view,
        rms=rms,
        R=R,
        F=F,
        stand_ins=study_stand_ins(None, F),
        n_ties_dropped=pairs.n_ties_dropped,
        n_splits_dropped=pairs.n_splits_dropped,
        profile="demo",
        seed=0,
        settings=SealSettings(features="planted", rewriter="simulator", n_rewrite=60, p_flip=0.5),
    )

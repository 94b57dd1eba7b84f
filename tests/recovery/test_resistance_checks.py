"""SEAL Eq. 3 / Table 1's recovery row: its estimate is the library's own Table 1 classification (a labeller that
reads the wrong indicators moves it), and its null is one that could pass (the production labeller on pairs
permuted between the pre-D and post-D RMs)."""

import numpy as np
import pytest

from pluralign.recovery import resistance_checks as Rs
from pluralign.seal import resistance as res


@pytest.fixture(scope="module")
def design(sim):
    from pluralign.data.simulate import simulate
    from pluralign.seal.pairs import chosen_rejected

    w = {
        "verbosity": -0.6,
        "format": -0.4,
        "sentiment": -0.5,
    }  # the other data's style weights reversed (as the demo's)
    other = simulate(n_pairs=300, seed=9, weights={k: [v, 0.3] for k, v in w.items()})
    return sim, chosen_rejected(sim).table, [other]


def _swapped_chosen_rejected(pc, pr, qc, qr):
    return res.alignment_regimes(pr, pc, qr, qc)


def _swapped_pre_post(pc, pr, qc, qr):
    return res.alignment_regimes(qc, qr, pc, pr)


def test_the_estimate_is_the_labellers_resistance(design):
    """a₋ is the share of pairs the labeller puts in stayed-misaligned or reversed: the correct labeller gives the
    planted a₋ within sampling error; one that reads chosen and rejected the wrong way round gives 1 − a₋, and one
    that reads pre-D for post-D gives the pre-D resistance — both move the estimate, and both fail the row."""
    D, view, other = design
    kw = {"noise_sd": 0.5, "n_draws": 8}
    ok = Rs.oracle_resistance(D, view, other, **kw)
    assert ok["recovered"] and ok["failing"] == "" and abs(ok["estimate"] - ok["planted"]) < 0.03
    flipped = Rs.oracle_resistance(D, view, other, regimes=_swapped_chosen_rejected, **kw)
    assert flipped["estimate"] == pytest.approx(1 - ok["estimate"])
    assert not flipped["recovered"] and "regimes" in flipped["failing"]
    pre = Rs.oracle_resistance(D, view, other, regimes=_swapped_pre_post, **kw)
    pt = Rs.planted_resistance(D, view, other, 0.5)
    planted_pre = float(np.mean(1 / (1 + np.exp(pt["pre"] / pt["s"]))))
    assert abs(pre["estimate"] - planted_pre) < 0.03 and not pre["recovered"]


def test_the_null_is_the_labeller_on_permuted_pairs(design):
    """The null keeps each RM's alignment rate (pairs permuted between the two RMs): its regime counts are those of
    independent pre-D and post-D alignment, which the regime test rejects only because the planted pre-D and
    post-D rewards are correlated — a null that can pass where they are not."""
    D, view, other = design
    r = Rs.oracle_resistance(D, view, other, noise_sd=0.5, n_draws=8)
    assert 0.0 <= r["null_pass"] <= 0.05

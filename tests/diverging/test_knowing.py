"""The demo's stand-in LLM judge (diverging.knowing.simulated_judge): less decisive where the planted
population splits; refused on data without planted truth."""

import pytest

from pluralign import simulate
from pluralign.diverging import agreement as agr
from pluralign.diverging import knowing as kn


def test_the_simulated_judge_is_less_decisive_on_diverging_pairs():
    d = simulate(n_pairs=400, seed=3)
    classes = agr.agreement_classes(d)
    p = kn.simulated_judge(d.truth, d.pairs["pair_id"], noise=1.0, seed=0)
    assert p.between(0, 1).all() and len(p) == 400
    res = kn.judge_decisiveness(p, classes, n_boot=300, seed=0)
    diff = res.table.loc["Diverging − High-Agreement Prefs."]
    assert diff["hi"] < 0  # planted: the judge knows the split, so it names a winner less firmly there
    assert kn.simulated_judge(d.truth, d.pairs["pair_id"], seed=0).equals(p)  # seeded


def test_without_planted_truth_it_is_refused():
    import pandas as pd

    with pytest.raises(ValueError, match="planted truth"):
        kn.simulated_judge(pd.DataFrame({"x": [1]}, index=["a"]), ["a"])

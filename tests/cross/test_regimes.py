"""Question 3 (pluralign.cross.regimes): SEAL's regimes and resistance per agreement class on hand cases."""

import pandas as pd
import pytest

from pluralign.cross import regimes as q3


def test_regimes_by_class_exact(classes):
    cl = classes(["diverging", "diverging", "high-agreement-pref", "high-agreement-pref"])
    # pre: aligned on p1, p2; post: aligned on p2, p3 (p0 stayed misaligned, p1 reversed, p2 stayed, p3 became)
    R = pd.DataFrame(
        {
            "pair_id": cl.index,
            "pre_chosen": [0, 1, 1, 0],
            "pre_rejected": [1, 0, 0, 0],
            "post_chosen": [0, 0, 1, 1],
            "post_rejected": [1, 1, 0, 0],
        }
    ).astype({"pre_chosen": float})
    pop = pd.Series([False, True, True, True], index=cl.index)
    t = q3.regimes_by_class(R, cl, population=pop, n_boot=50)
    assert t.loc["diverging", "a- post"] == 1.0 and t.loc["high-agreement-pref", "a- post"] == 0.0
    assert t.loc["diverging", "stayed-misaligned"] == 0.5 and t.loc["diverging", "reversed"] == 0.5
    assert t.loc["high-agreement-pref", "became-aligned"] == 0.5 and t.loc["all", "a+ pre"] == 0.5
    assert t.loc["diverging", "planted a-"] == 0.5
    d = q3.resistance_difference(R, cl, population=pop, n_boot=50)
    assert d["delta"] == 1.0 and d["planted"] == 0.5 and d["n_diverging"] == 2


def test_population_alignment_reads_the_chosen_side():
    view = pd.DataFrame({"pair_id": ["a", "b", "c"], "chosen_side": ["A", "B", "A"]})
    share = pd.Series({"a": 0.8, "b": 0.8, "c": 0.5})
    assert q3.population_alignment(view, share).tolist() == [True, False, False]  # an even split is misaligned
    with pytest.raises(ValueError, match="lacks"):
        q3.population_alignment(view, share.drop("c"))

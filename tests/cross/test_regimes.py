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


def _gap_case(classes, n: int = 40):
    """Diverging pairs: the post-D RM misaligned on 30% of them, the population (majority label not preferred) on
    60%; high-agreement pairs: neither is misaligned. The RM's gap 0.3 lies below the population's own 0.6."""
    cl = classes(["diverging"] * n + ["high-agreement-pref"] * n)
    mis = [i < 0.3 * n for i in range(n)] + [False] * n
    R = pd.DataFrame(
        {
            "pair_id": cl.index,
            "pre_chosen": 1.0,
            "pre_rejected": 0.0,
            "post_chosen": [0.0 if m else 1.0 for m in mis],
            "post_rejected": 0.5,
        }
    )
    pop = pd.Series([not (i < 0.6 * n) for i in range(n)] + [True] * n, index=cl.index)
    return R, cl, pop


def test_a_resistance_gap_below_the_planted_gap_is_not_read_as_the_model_resisting_more(classes):
    """The demo's reading: a₋ larger on diverging pairs (CI above 0) but below the population's own difference:
    the verdict must not say "supported: the reward model resists more", but that the labels explain it."""
    R, cl, pop = _gap_case(classes)
    d = q3.resistance_difference(R, cl, population=pop, n_boot=300)
    assert d["delta"] == pytest.approx(0.3) and d["planted"] == pytest.approx(0.6)
    assert d["lo"] > 0 and d["hi"] < 0.6
    assert d["short"] == "above 0; below planted" and d["vs_planted"] == "below"
    assert not d["verdict"].startswith("supported")
    assert d["verdict"].startswith("a₋ is larger on diverging pairs; smaller than the population's own difference")
    assert "adds no resistance of its own" in d["verdict"]
    # without a planted value (real data) the reading is the hypothesis against 0 alone
    bare = q3.resistance_difference(R, cl, n_boot=300)
    assert bare["verdict"] == "supported: the reward model resists more on diverging pairs"
    assert bare["short"] == "above 0" and bare["vs_planted"] is None

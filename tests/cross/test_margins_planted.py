"""Question 1's verdicts read against the planted AUROC (pluralign.cross.margins_by_class.margin_separation): the
planted AUROC of the population margin bounds a margin independent of the annotators, not the gold margin, which is
computed from the very judgments that define the classes."""

import pytest

from pluralign.btb.margins import judgments_from, margins_from_annotators
from pluralign.cross import margins_by_class as q1
from pluralign.data.spec import from_spec
from pluralign.diverging import agreement_classes


@pytest.fixture(scope="module")
def separation():
    sim = from_spec({"simulate": {"n_pairs": 600, "seed": 3, "annotation_format": "helpsteer2"}})
    cl = agreement_classes(sim)
    planted = (2 * sim.truth["share_a"] - 1).abs()
    noisy = judgments_from("simulated", sim, n=3, noise=2.0, seed=0).set_index("pair_id")["margin"]
    gold = margins_from_annotators(sim).set_index("pair_id")["margin"]
    margins = {"noisy judge": noisy.dropna(), q1.GOLD: gold}
    return q1.margin_separation(margins, cl, planted=planted, n_boot=300)


def test_the_gold_margin_exceeds_the_planted_auroc_and_the_page_says_why(separation):
    g = separation.loc[q1.GOLD]
    assert g["lo"] > g["planted AUROC (|2p*−1|)"]  # the contradiction the page must resolve, on this population
    assert g["short"] == "above 0.5; above planted"
    assert "computed from the same judgments that define the classes" in g["verdict"]
    assert "not bounded by the population's split" in g["verdict"]


def test_a_noisy_independent_judge_falls_below_the_planted_auroc(separation):
    j = separation.loc["noisy judge"]
    assert j["hi"] < j["planted AUROC (|2p*−1|)"]
    assert j["short"].endswith("below planted")
    assert "separates the classes less than the population's own split does" in j["verdict"]


def test_the_table_shows_short_verdict_words(separation):
    shown = q1.display(separation)
    assert set(shown["verdict"]) == set(separation["short"])
    assert all(len(v) <= 30 for v in shown["verdict"])
    assert "planted (population margin)" in shown.columns

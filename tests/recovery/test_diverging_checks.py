"""Part I's recovery checks on small simulated data: each passes on what the simulator planted and fails on a
broken method or stand-in."""

import numpy as np
import pytest

from pluralign import recovery as R
from pluralign.data.simulate import simulate
from pluralign.diverging.agreement import agreement_classes
from pluralign.recovery import agreement_truth as AT
from pluralign.recovery import diverging_checks as DC


def test_expected_agreement_matches_a_large_resample():
    """The analytic P(diverging) under the population equals the share over many annotators' draws."""
    d = simulate(n_pairs=300, seed=5, n_annotators=4, n_pool=400)
    exp = R.expected_agreement(d)
    assert exp["p_diverging"].between(0, 1).all()
    obs = (agreement_classes(d)["agreement"] == "diverging").mean()
    assert abs(exp["p_diverging"].mean() - obs) < 0.06
    # an objective pair (harmful compliance vs refusal) almost never diverges; taste-driven ones often do
    assert (
        exp.loc[d.truth["cause"] == "none", "p_diverging"].mean() < exp.loc[exp["taste_driven"], "p_diverging"].mean()
    )


def test_expected_agreement_refuses_other_data(sim):
    with pytest.raises(ValueError, match="MultiPref"):
        R.expected_agreement(simulate(n_pairs=20, annotation_format="helpsteer2"))


def test_diverging_share_and_taste_driven(sim, classified):
    for check in (R.diverging_share, R.diverging_taste_driven):
        r = check(classified, sim)
        # the row with a check against the classes' definition says whether its statistical tests passed too
        defined = {"tests_ok"} if check is R.diverging_share else set()
        assert set(r) == {*R.COLUMNS, "failing", *defined}, r
        assert r["recovered"] and r.get("tests_ok", True) and r["null_pass"] <= 0.05, r
    broken = classified.assign(agreement="other")
    broken.iloc[:5, broken.columns.get_loc("agreement")] = "diverging"
    assert not R.diverging_share(broken, sim)["recovered"]


@pytest.mark.parametrize("how", ["sign", "zero", "noise", "votes shuffled", "diverging threshold +1"])
def test_broken_agreement_classes_fail_both_rows(sim, how):
    """Classes inverted, none diverging, diverging at random at the right rate, votes shuffled across pairs, and
    an off-by-one in the significance threshold each fail both rows: the right share alone does not pass (the
    per-pair slope and the taste-driven rate see which pairs were marked)."""
    from pluralign.recovery.mutations import broken_classes

    c = broken_classes(sim, how)
    assert not R.diverging_share(c, sim)["recovered"] or how == "diverging threshold +1"
    assert not (R.diverging_share(c, sim)["recovered"] and R.diverging_taste_driven(c, sim)["recovered"])


def test_class_probabilities_are_exact_and_match_the_inclusion_exclusion():
    """The multinomial over every composition of a pair's judgments gives each pair a distribution over the four
    classes and over the four majority values, and its P(diverging) is the library's planted_divergence (another
    route: inclusion-exclusion); with many annotators per pair the classifier's shares converge to it."""
    from pluralign.diverging.agreement import planted_divergence

    d = simulate(n_pairs=300, seed=5, n_annotators=3, n_pool=400)
    P = AT.class_probabilities(d)
    assert list(P.columns) == list(AT.CLASS_TESTS)
    assert np.allclose(P.iloc[:, :4].sum(1), 1) and np.allclose(P.iloc[:, 5:].sum(1), 1)
    assert np.allclose(P["diverging"], planted_divergence(d))
    assert (P["substantial"] <= P["diverging"] + 1e-12).all()


def test_vote_outcomes_read_the_planted_votes_as_the_library_classifies_them(sim, classified):
    """The definitions :func:`vote_classes` writes out, applied to each pair's own planted votes
    (:func:`vote_outcomes`, read from the raw ``preference`` column), give exactly what the library's classifier
    gives on every pair, under both tie rules (so the planted expectation is the truth of the classifier, not of
    another rule)."""
    for ties in ("majority", "plurality"):
        c = agreement_classes(sim, ties=ties)
        assert np.array_equal(AT.vote_outcomes(sim, c.index, ties), AT.observed_classes(c, c.index))


def test_vote_outcomes_refuse_a_judgment_outside_the_scale_naming_row_and_field(sim):
    """PreferenceData refuses such a judgment when it is built; votes handed over otherwise are refused too."""
    from types import SimpleNamespace

    ann = sim.annotations.copy()
    ann["preference"] = ann["preference"].astype(object)
    ann.loc[ann.index[7], "preference"] = 3
    bad = SimpleNamespace(name=sim.name, annotations=ann)
    with pytest.raises(ValueError, match=r"annotation row 7, field preference: 3 is not a MultiPref judgment"):
        AT.vote_outcomes(bad, sim.truth.index)


@pytest.fixture(scope="module")
def demo_population():
    """Part I's first data set as the demo draws it at seed 0 (1,200 pairs, 4 annotators each), nothing trained."""
    from pluralign.recovery.study import population

    return population(0, parts=("diverging",)).diverging.data[0]


#: per new variant of the classifier, the outcomes whose tests must see it (the class it moves pairs into or out of)
SEEN_BY = {
    "A/B swapped": ("majority A", "majority B"),
    "diverging threshold −1": ("diverging", "other"),
    "high-agreement-pref threshold −1": ("high-agreement-pref", "other"),
    "high-agreement-tie threshold −1": ("high-agreement-tie",),
    "majority threshold −1": ("majority A", "majority B", "majority tie", "majority none"),
}


@pytest.mark.parametrize("how", list(SEEN_BY))
def test_each_class_test_fails_its_mutant(demo_population, how):
    """At the demo's population (seed 0): an A/B swap (every vote for A read as for B) leaves the diverging class as
    it is and fails only the majority's per-pair tests; each class's threshold off by one fails a test of a class it
    moves pairs into or out of; the correct classifier passes every test."""
    from pluralign.recovery.mutations import broken_classes

    d = demo_population
    ok = R.diverging_share(agreement_classes(d), d, 0)
    assert ok["recovered"] and ok["failing"] == ""
    r = R.diverging_share(broken_classes(d, how), d, 0)
    assert not r["recovered"]
    failing = [f for f in r["failing"].split(", ") if not f.startswith("definition on the votes")]
    assert any(f.rsplit(" ", 1)[0] in SEEN_BY[how] for f in failing), failing
    if how == "A/B swapped":
        assert all(f.startswith("majority") for f in failing), failing
        assert (broken_classes(d, how)["agreement"] == agreement_classes(d)["agreement"]).all()


def test_the_null_keeps_every_share_and_fails_the_slopes(demo_population):
    """The rows' null (each pair's classes given to another pair) passes every share test and fails the per-pair
    slopes: its null_pass is 0 because of what the slopes see, not by construction."""
    d = demo_population
    c = agreement_classes(d)
    P = AT.conditional_class_probabilities(d)
    perm = np.random.default_rng(1).permutation(len(c))
    shuffled = c.iloc[perm].set_axis(c.index)
    t = DC.classes_judge(AT.observed_classes(shuffled, P.index), P.to_numpy())["tests"]
    assert t.loc[t["test"] == "share", "ok"].all() and not t.loc[t["test"] == "slope", "ok"].all()


def test_probabilities_given_who_judged_match_redrawn_noise(sim):
    """The outcome probabilities given each pair's annotators (built one judgment at a time) equal the shares over
    the judgment noise redrawn many times with the same annotators, and the four classes and the four majority
    values each sum to 1 per pair."""
    C = AT.conditional_class_probabilities(sim)
    assert np.allclose(C.iloc[:, :4].sum(axis=1), 1) and np.allclose(C.iloc[:, 5:].sum(axis=1), 1)
    jp = AT.judgment_probabilities(sim)
    cum = np.cumsum(jp[[-2, -1, 0, 1, 2]].to_numpy(), axis=1)
    pos = C.index.get_indexer(jp["pair_id"])
    rng, acc, reps = np.random.default_rng(0), np.zeros(C.shape), 400
    for _ in range(reps):
        v = (rng.random(len(cum))[:, None] > cum).sum(axis=1).clip(0, 4)
        counts = np.zeros((len(C), 5), int)
        np.add.at(counts, (pos, v), 1)
        acc += AT.vote_classes(counts)
    assert np.abs(acc.mean(axis=0) / reps - C.mean(axis=0).to_numpy()).max() < 0.005


@pytest.mark.parametrize("how", list(__import__("pluralign.recovery.mutations", fromlist=["THRESHOLDS"]).THRESHOLDS))
def test_every_threshold_off_by_one_differs_from_the_definitions_on_the_votes(demo_population, how):
    """At the demo's population (seed 0) each class's threshold off by one moves some pairs, and the row names them:
    the definitions applied to those pairs' own votes differ (a high-agreement preference that allows one judgment
    against the majority moves 21 of 1,200 pairs, below what the share and slope tests see at their level), while
    the correct classifier differs on none."""
    from pluralign.recovery.mutations import broken_classes

    d = demo_population
    assert "definition" not in R.diverging_share(agreement_classes(d), d, 0)["failing"]
    r = R.diverging_share(broken_classes(d, how), d, 0)
    assert not r["recovered"] and "definition on the votes (" in r["failing"], r["failing"]

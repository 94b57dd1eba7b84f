"""Beyond the Binary (004) Eq. 2, §3.2: the aggregate preference p* from each source and from a fallback chain
(pluralign.btb.p_star)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb.categories import categories_with_source
from pluralign.btb.p_star import aggregate_preference, p_star_from, p_star_with_source
from pluralign.btb.sources import source_counts
from pluralign.data.core import PreferenceData
from pluralign.rewards import objectives as O


def _data():
    pairs = pd.DataFrame(
        {
            "pair_id": ["p0", "p1", "p2", "p3"],
            "dataset": "t",
            "split": "test",
            "prompt": [
                "What is the capital of France?",
                "Write a poem about rain.",
                "Write a poem about rain.",
                "Tell me a joke.",
            ],
            "response_a": ["Paris.", "Rain falls...", "Drops on glass", "Why did..."],
            "response_b": ["Lyon.", "Rain is falling...", "A storm at sea", "Knock knock"],
        }
    )
    ann = pd.DataFrame(
        {
            "pair_id": ["p0"] * 3 + ["p1"] * 3 + ["p2"] * 3 + ["p3"] * 3,
            "annotator_id": list("xyz") * 4,
            "preference": [-2, -2, -1, -1, 1, 0, 2, 2, 1, -1, 1, -2],
        }
    )
    return PreferenceData(pairs, ann, {"name": "t"})


# ---------------------------------------------------------------------------------------------
# LLM labellers with a scripted backend
# ---------------------------------------------------------------------------------------------
class ScriptedLLM:
    """Answers from a function of the prompt; ``name`` is its identity (the cache keys on it)."""

    def __init__(self, answer, name="scripted"):
        self.answer = answer  # (prompt text, n) -> list of completions
        self.name = name
        self.calls = []

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1, job=None):
        self.calls.append(len(prompts))
        return [self.answer(p, n) for p in prompts]

    def structured(self, prompts, schema, job=None):
        self.calls.append(len(prompts))
        return [self.answer(p, 1)[0] for p in prompts]


def test_aggregate_preference_from_humans_and_real_annotators():
    # three human annotators' task-3 answers, averaged (§3.2): (10 + 7 + 4) / 30
    h = pd.DataFrame(
        {"pair_id": ["q"] * 3 + ["r"] * 3, "labeller": list("xyz") * 2, "prefer_a": [10, 7, 4, 0, 1, np.nan]}
    )
    p = aggregate_preference(h)
    assert p["q"] == pytest.approx(0.7) and p["r"] == pytest.approx(0.05)
    with pytest.warns(UserWarning, match="no usable estimate"):
        aggregate_preference(pd.DataFrame({"pair_id": ["s"], "prefer_a": [np.nan]}))
    with pytest.raises(ValueError, match="between 0 and 10"):
        aggregate_preference(pd.DataFrame({"pair_id": ["s"], "prefer_a": [11]}))
    with pytest.raises(TypeError, match="PreferenceData or a DataFrame"):
        aggregate_preference(pd.DataFrame({"pair_id": ["s"], "votes": [3]}))
    # real annotators: Eq. 2 = share preferring A (tie counts half)
    p = aggregate_preference(_data())
    np.testing.assert_allclose(p.to_numpy(), [1.0, 0.5, 0.0, 2 / 3])


# ---------------------------------------------------------------------------------------------
# real data (sample profile): PandaLM's three human annotators give a real p*
# ---------------------------------------------------------------------------------------------
def test_pandalm_real_p_star_margins_and_llm_judges(shared_data):
    from pluralign.data import load

    humans = load("pandalm", source=shared_data / "pandalm" / "testset-v1.json")
    judges = load("pandalm-judges", source=shared_data / "pandalm")
    p_star = aggregate_preference(humans)
    assert len(p_star) == 999 and p_star.notna().all()
    # three annotators, ties half: p* takes only the values k/6
    np.testing.assert_allclose((p_star * 6).round(), p_star * 6, atol=1e-9)
    m = M.margins_from_annotators(humans).set_index("pair_id")
    assert (m["n"] == 3).all()
    np.testing.assert_allclose(m["margin"], (2 * p_star - 1).abs().reindex(m.index), atol=1e-12)
    assert set(np.round(m["margin"], 6)) <= {0.0, round(1 / 3, 6), round(2 / 3, 6), 1.0}
    # without ties the margin is Eq. 3 over the three binary votes
    no_tie = m[m["n_tie"] == 0]
    np.testing.assert_allclose(no_tie["margin"], O.margin_from_counts(no_tie["n_a"], no_tie["n"]))
    # the two LLM judges' share of A votes tracks the human p* (measured: r ≈ 0.63, L1 ≈ 0.23)
    res = E.evaluate(p_star, aggregate_preference(judges), n_boot=300)
    r = res[res["metric"] == "pearson"].iloc[0]
    assert 0.45 < r["value"] < 0.8 and r["lo"] > 0.4


def test_p_star_from_truth_annotators_labels(tmp_path):
    from pluralign.data import simulate

    sim = simulate(n_pairs=30, seed=2)
    ids = list(sim.pairs["pair_id"])[5:12]
    p = p_star_from("truth", sim, ids)
    assert list(p.index) == ids and p.name == "p_star"
    np.testing.assert_allclose(p.to_numpy(), sim.truth["share_a"].reindex(ids).to_numpy())
    d = _data()
    p = p_star_from("annotators", d)
    np.testing.assert_allclose(p.to_numpy(), [1.0, 0.5, 0.0, 2 / 3])
    csv = tmp_path / "labels.csv"  # human answers to task 3: p* = mean of prefer_a / 10
    pd.DataFrame(
        {"pair_id": ["p0", "p0", "p0", "p2", "p2"], "labeller": list("xyzxy"), "prefer_a": [9, 8, 7, 2, 5]}
    ).to_csv(csv, index=False)
    p = p_star_from("labels", d, ["p2", "p1", "p0"], labels_file=csv)
    assert list(p.index) == ["p2", "p1", "p0"]
    assert p["p0"] == pytest.approx(0.8) and p["p2"] == pytest.approx(0.35) and np.isnan(p["p1"])
    assert p_star_from("none", d) is None
    with pytest.raises(ValueError, match="labels_file"):
        p_star_from("labels", d)
    with pytest.raises(ValueError, match="truth.share_a"):
        p_star_from("truth", d)
    with pytest.raises(ValueError, match="truth, annotators, labels, llm"):
        p_star_from("oracle", d)


def test_p_star_from_llm_asks_only_the_requested_pairs():
    asked = []

    def l1(p, n):
        asked.append(p)
        return ["8 A - 2 B"] * n

    p = p_star_from("llm", _data(), ["p0"], labeller=ScriptedLLM(l1, "l1"), samples=1)
    assert p.to_dict() == {"p0": pytest.approx(0.8)} and len(asked) == 1 and "Paris" in asked[0]


# ---------------------------------------------------------------------------------------------
# where p* and the categories come from: human first, an LLM for the rest; circularity
# ---------------------------------------------------------------------------------------------
def _mixed():
    """p0-p2: three annotators each; p3: one annotator, x, who prefers A (not a population's share)."""
    d = _data()
    ann = d.annotations[~((d.annotations["pair_id"] == "p3") & (d.annotations["annotator_id"] != "x"))]
    return PreferenceData(d.pairs, ann.reset_index(drop=True), {"name": "t"})


def test_annotator_p_star_on_a_hand_case():
    """Eq. 2 over three annotators (a tie counts half): p0 (A, A, A) = 1, p1 (A, B, tie) = 1/2, p2 (B, B, B) = 0;
    p3's single label is not a population, so in a chain its p* falls through to the LLM (8 of 10 → 0.8)."""
    asked = []

    def ten(p, n):
        asked.append(p)
        return ["8 A - 2 B"] * n

    out = p_star_with_source(["annotators", "llm"], _mixed(), labeller=ScriptedLLM(ten, "chain-ten"), samples=1)
    assert out["p_star"].to_dict() == pytest.approx({"p0": 1.0, "p1": 0.5, "p2": 0.0, "p3": 0.8})
    assert out["source"].tolist() == ["annotators (3 per pair)"] * 3 + ["llm"]
    assert len(asked) == 1 and "Knock knock" in asked[0]  # only p3 is asked
    # alone (not a chain), annotators is every pair's share, one label or three
    alone = p_star_with_source("annotators", _mixed())
    assert alone["p_star"]["p3"] == 1.0 and alone["source"]["p3"] == "annotators (1 per pair)"
    assert p_star_from(["annotators", "llm"], _mixed(), ["p1"], labeller=ScriptedLLM(ten, "chain-ten")).to_dict() == {
        "p1": 0.5
    }


def test_a_chain_takes_human_labels_first_and_skips_a_missing_labels_file(tmp_path):
    csv = tmp_path / "labels.csv"
    pd.DataFrame(
        {
            "pair_id": ["p3", "p3", "p3"],
            "labeller": list("xyz"),
            "prefer_a": [6, 7, 8],
            "kind": ["multiple", "multiple", "single"],
            "distinguishable": [True, True, True],
        }
    ).to_csv(csv, index=False)
    out = p_star_with_source(["labels", "annotators"], _mixed(), labels_file=csv)
    assert out.loc["p3"].tolist() == [pytest.approx(0.7), "labels"] and out["source"]["p0"] == "annotators (3 per pair)"
    none = p_star_with_source(["labels", "annotators"], _mixed())  # no file: the humans of the data only
    assert np.isnan(none["p_star"]["p3"]) and pd.isna(none["source"]["p3"]) and none["source"].notna().sum() == 3
    cat = categories_with_source(["labels", {"kind": {"t": "single"}}], _mixed(), labels_file=csv)
    assert cat.loc["p3"].tolist() == ["multiple", True, "labels"]
    assert cat.loc["p0", "kind"] == "single" and pd.isna(cat.loc["p0", "distinguishable"])
    assert cat.loc["p0", "source"] == "per data set"
    counts = source_counts(out["source"], cat["source"]).set_index(["quantity", "source"])
    assert counts.loc[("p*", "annotators (3 per pair)"), "pairs"] == 3
    assert counts.loc[("categories", "labels"), "what it is"] == "human (labels_file)"
    with pytest.raises(ValueError, match="fallback chain"):
        p_star_with_source(["annotators", "none"], _mixed())

"""Hand-built data shared by the Part I tests, as fixtures that return their builder (``hand_data()``,
``small_data(n)``, ``classified_by_hand()``)."""

from __future__ import annotations

import pandas as pd
import pytest

from pluralign import diverging
from pluralign.data.core import PreferenceData
from pluralign.diverging.agreement import agreement_classes as classify


def _hand_data(likert: bool = False) -> PreferenceData:
    """Six pairs, three annotators: 2 high-agreement prefs, 1 tie, 2 diverging (1 substantial), 1 other."""
    cases = {
        "hp1": [-2, -2, -1],
        "hp2": [2, 1, 0],
        "ht1": [0, 0, 0],
        "d1": [-2, 2, 2],
        "d2": [-2, -2, 1],
        "o1": [-1, 1, 0],
    }
    pairs = pd.DataFrame(
        {
            "pair_id": list(cases),
            "dataset": "hand",
            "split": "test",
            "prompt": "p",
            "response_a": [f"a {k}" for k in cases],
            "response_b": [f"b {k}" for k in cases],
        }
    )
    rows = []
    for k, vs in cases.items():
        for j, v in enumerate(vs):
            r = {"pair_id": k, "annotator_id": f"w{j}", "preference": v}
            if likert:
                r.update(likert_a=3, likert_b=3 + v)
            rows.append(r)
    return PreferenceData(pairs, pd.DataFrame(rows), {"name": "hand"})


def _classified_by_hand() -> pd.DataFrame:
    """Eight pairs: 2 high-agreement prefs (majority A, B), 2 ties, 3 diverging (1 substantial), 1 other."""
    cases = {
        "hp1": [-2, -2, -1],
        "hp2": [2, 1, 0],
        "ht1": [0, 0, 0],
        "ht2": [0, 0, 2],
        "d1": [-2, 2, 2],
        "d2": [-2, -2, 1],
        "d3": [-1, 2, 0],
        "o1": [-1, 1, 0],
    }
    pairs = pd.DataFrame(
        {
            "pair_id": list(cases),
            "dataset": "hand",
            "split": "test",
            "prompt": "p",
            "response_a": "a",
            "response_b": "b",
        }
    )
    ann = pd.DataFrame(
        [{"pair_id": k, "annotator_id": f"w{j}", "preference": v} for k, vs in cases.items() for j, v in enumerate(vs)]
    )
    cl = classify(PreferenceData(pairs, ann, {"name": "hand"}))
    assert cl["agreement"].to_dict() == {
        "hp1": "high-agreement-pref",
        "hp2": "high-agreement-pref",
        "ht1": "high-agreement-tie",
        "ht2": "high-agreement-tie",
        "d1": "diverging",
        "d2": "diverging",
        "d3": "diverging",
        "o1": "other",
    }
    assert cl.loc[["d1", "d2", "d3"], "substantial"].tolist() == [True, False, False]
    return cl


def _small_data(n=12) -> PreferenceData:
    pairs = pd.DataFrame(
        {
            "pair_id": [f"q{i}" for i in range(n)],
            "dataset": "demo",
            "split": "test",
            "prompt": [f"prompt {i}" for i in range(n)],
            "response_a": [f"A{i}" for i in range(n)],
            "response_b": [f"B{i}" for i in range(n)],
        }
    )
    votes = [[-2, 2, 0] if i % 2 == 0 else [-2, -2, -1] for i in range(n)]  # even ids diverging
    ann = pd.DataFrame(
        [
            {"pair_id": f"q{i}", "annotator_id": f"w{j}", "preference": v}
            for i, vs in enumerate(votes)
            for j, v in enumerate(vs)
        ]
    )
    return PreferenceData(pairs, ann, {"name": "demo"})


@pytest.fixture
def hand_data():
    """Six pairs, three annotators (``hand_data(likert=True)``: with Likert scores)."""
    return _hand_data


@pytest.fixture
def classified_by_hand():
    """The agreement classes of eight hand-built pairs."""
    return _classified_by_hand


@pytest.fixture
def small_data():
    """``n`` pairs, three annotators, even ids diverging."""
    return _small_data


@pytest.fixture(scope="session")
def small_rm_study():
    """A study of 240 simulated HelpSteer2-format pairs with the demo RM (frozen MiniLM + linear head), 80 held out
    and 40 for validation, two epochs (the reward-model pages' tests share its trained models)."""
    return diverging.setup(
        datasets=[{"simulate": {"n_pairs": 240, "seed": 2, "annotation_format": "helpsteer2"}}],
        split={"test": 80, "validation": 40},
        train={"epochs": 2},
        n_boot=50,
    )

"""PreferenceData.majority — the one majority rule (the "Agg" training label, SEAL's chosen entry, BtB's
validation label) — on every pattern of 1–4 annotators. A = response A preferred (preference < 0),
B = response B preferred (> 0), T = tie (0). The expected labels are written out by hand: a side drawing
with the tie votes wins; the ties win only with strictly more votes than either side; A and B drawing
for the most votes is a "split" (no majority), never a "tie"."""

import pandas as pd
import pytest

from pluralign.data.core import PreferenceData

EXPECTED = {
    "A": "A",
    "B": "B",
    "T": "tie",
    "AA": "A",
    "BB": "B",
    "TT": "tie",
    "AB": "split",
    "AT": "A",
    "BT": "B",
    "AAA": "A",
    "AAB": "A",
    "AAT": "A",
    "ABB": "B",
    "ABT": "split",
    "ATT": "tie",
    "BBB": "B",
    "BBT": "B",
    "BTT": "tie",
    "TTT": "tie",
    "AAAA": "A",
    "AAAB": "A",
    "AAAT": "A",
    "AABB": "split",
    "AABT": "A",
    "AATT": "A",
    "ABBB": "B",
    "ABBT": "B",
    "ABTT": "tie",
    "ATTT": "tie",
    "BBBB": "B",
    "BBBT": "B",
    "BBTT": "B",
    "BTTT": "tie",
    "TTTT": "tie",
}
# strength does not matter, only the side: A is written as -2 or -1 alternately, B as +2 or +1
VALUE = {"A": (-2, -1), "B": (2, 1), "T": (0, 0)}


def _data(patterns):
    pairs = pd.DataFrame(
        {
            "pair_id": list(patterns),
            "dataset": "hand",
            "split": "test",
            "prompt": "p",
            "response_a": "a",
            "response_b": "b",
        }
    )
    rows = [
        {"pair_id": pat, "annotator_id": f"w{i}", "preference": VALUE[v][i % 2]}
        for pat in patterns
        for i, v in enumerate(pat)
    ]
    # votes arrive in every order: the rule must not depend on it
    ann = pd.DataFrame(rows).sample(frac=1.0, random_state=0).reset_index(drop=True)
    return PreferenceData(pairs, ann, {"name": "hand"})


def test_every_pattern_of_one_to_four_annotators():
    got = _data(EXPECTED).majority()
    assert got.to_dict() == EXPECTED


@pytest.mark.parametrize("pattern, label", [("AATT", "A"), ("BBTT", "B"), ("AABB", "split"), ("ABT", "split")])
def test_the_patterns_the_issue_names(pattern, label):
    assert _data([pattern]).majority()[pattern] == label


def test_a_pair_without_judgments_has_no_majority():
    d = _data(["AA"])
    d = PreferenceData(pd.concat([d.pairs, d.pairs.assign(pair_id="none")]), d.annotations, d.meta)
    assert d.majority()["none"] == "split"


def test_training_on_majority_labels_counts_splits_and_ties_apart():
    from pluralign.rewards.objectives import build_instances

    d = _data(["AA", "AATT", "AABB", "TT", "ABT"])
    got = build_instances(d, "bt", labels="aggregate")
    assert sorted(got.table["pair_id"]) == ["AA", "AATT"]
    assert got.dropped["pairs whose majority label is a tie"] == 1
    assert got.dropped["pairs split evenly between A and B (no majority)"] == 2

import pandas as pd

from pluralign.data import PreferenceData, summary


def _data():
    pairs = pd.DataFrame(
        {
            "pair_id": ["p1", "p2"],
            "dataset": "t",
            "split": "test",
            "prompt": ["q", "q2"],
            "response_a": ["one two", "a"],
            "response_b": ["three", "b c d"],
        }
    )
    ann = pd.DataFrame(
        {"pair_id": ["p1", "p1", "p1", "p2"], "annotator_id": ["x", "y", "z", "x"], "preference": [-2, 1, 0, 2]}
    )
    return PreferenceData(
        pairs, ann, {"name": "t", "source": "mem", "filters": [{"filter": "f", "removed": 1, "kept": 2}]}
    )


def test_overview_counts_by_hand():
    o = summary.overview(_data())
    assert o["pairs"] == 2 and o["judgments"] == 4 and o["annotators"] == 3
    assert o["annotators per pair (min)"] == 1 and o["annotators per pair (max)"] == 3
    assert o["tie judgments (share)"] == 0.25
    assert o["pairs with A and B votes (share)"] == 0.5  # p1 has an A and a B vote


def test_label_distribution_and_lengths_and_card():
    d = summary.label_distribution(_data())
    assert d.loc[-2, "judgments"] == 1 and d.loc[-1, "judgments"] == 0 and d["share"].sum() == 1
    t = summary.text_lengths(_data())
    assert t.loc["response B", "max"] == 3 and t.loc["response A", "mean"] == 1.5
    assert "f: removed 1, kept 2" in summary.card(_data())["filters"]

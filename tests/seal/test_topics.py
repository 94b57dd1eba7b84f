"""Topics of the entries (seal.topics; App. E.1, Fig. 15): the keyword rules and the label distribution on hand
cases."""

import pytest

from pluralign.seal.taxonomy import TOPICS, TOPICS_ADDED
from pluralign.seal.topics import label_distribution, rule_topics


def test_rule_topics_and_label_distribution_on_hand_cases():
    assert rule_topics(["Human: What is the capital of France?\n\nAssistant: Paris."]) == [["Geography and places"]]
    assert rule_topics(["Human: hello\n\nAssistant: hi"]) == [[]]
    assert set(rule_topics(["How can I save money for school?"])[0]) == {"Business and economics", "Education"}
    with pytest.raises(ValueError, match="text 1 is NoneType"):
        rule_topics(["a", None])
    d = label_distribution(
        [["Law"], ["Law", "Education"], [], None],
        [["Law"], ["Education"], ["Law"], ["Law"]],
        names=TOPICS + TOPICS_ADDED,
    )
    assert d.loc["Law", "chosen (n)"] == 2 and d.loc["Law", "rejected (n)"] == 2
    assert d.loc["Law", "chosen only (n)"] == 1 and d.loc["Law", "rejected only (n)"] == 1
    assert d.loc["Law", "share of entries"] == pytest.approx(4 / 6)
    assert d.loc["(none)", "chosen (n)"] == 1 and d.loc["(none)", "chosen only (n)"] == 1
    assert (d["pairs left out (n)"] == 1).all() and d.index[0] == TOPICS[0]
    assert label_distribution([["x"]], [["y"]]).index.tolist() == ["x", "y", "(none)"]  # nothing dropped
    with pytest.raises(ValueError, match="chosen entry 0 is 'Law', not a list"):
        label_distribution(["Law"], [["Law"]])


# ---- resistance on other preference sets (§ 3)

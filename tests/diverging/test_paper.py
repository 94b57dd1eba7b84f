"""The Diverging Preferences numbers of :mod:`pluralign.paper.diverging`, as the Part I modules read them."""

from __future__ import annotations

from pluralign import paper
from pluralign.diverging import agreement, causes, reward_models


def test_paper_numbers_are_read_from_the_paper_table():
    t = paper.numbers("diverging", "Table 2")
    assert len(t) == 40 and set(t["column"]) == {"# Ex.", "BT (Agg)", "BT (All)", "MSE (Agg)", "MSE (All)"}
    assert reward_models.paper_table2("multipref").loc["High-Agreement Prefs.", "BT (Agg)"] == 0.786
    assert causes.taxonomy_table().loc["safety", "paper MP"] == 0.16
    assert agreement.paper_diverging_share("helpsteer2") == 0.24

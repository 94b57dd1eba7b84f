"""The robustness page reads Table 8 as the paper prints it (raw p-values: a score the paper does not find is "n.s. in
paper"), names and signs its rows alike in table and figure, says how rewriting moved the RM from its own numbers, and
marks the sentiment rows whose sign the demo's other data sets."""

import dataclasses
import re

import pytest

from pluralign.seal.display import display_name
from pluralign.seal.pages import robustness_page
from pluralign.seal.verdicts import VERDICTS


def test_the_rewrite_sentence_follows_its_numbers():
    s = robustness_page.rewrite_sentence(58, 0.81, 0.74, 0.71)
    want = "On the 58 rewritten pairs the post-D RM's alignment score falls from 0.810 to 0.740 (paper: 0.71 after "
    assert s == want + "rewriting)."
    assert "rises" in robustness_page.rewrite_sentence(5, 0.5, 0.6, 0.71)
    assert robustness_page.rewrite_sentence(0, float("nan"), float("nan"), 0.71).startswith("No rewritten pair")


def test_the_robustness_table_and_figure_read_alike(study):
    pi = robustness_page.robustness(study)
    assert set(pi.table["verdict"]) <= set(VERDICTS)
    names = set(pi.table.index.get_level_values(0))
    assert "sentiment" in names and not any(re.search(r"\w_\w", n) for n in names)
    labels = [t.get_text() for t in pi.figure.axes[0].get_yticklabels()]
    long = pi.data["long"]
    shown = long[(long["variant"] == robustness_page.LPM) & long["estimate"].notna()]
    assert labels == [display_name(f) for f in dict.fromkeys(shown["paper_feature"])]
    assert pi.caption and "Bonferroni" in pi.caption and "Verdicts:" in pi.note
    assert pi.values["t8_verdicts"].startswith("Of the ")
    rs = robustness_page.rewrite_summary(study)
    assert rs.values["rewrite_sentence"].startswith(f"On the {len(study.rewriting.rewrites.kept)} rewritten pairs")
    assert rs.values["paper_or_c"] == 1.13 and rs.values["paper_or_r"] == 1.12
    fl = robustness_page.label_flips(study)
    assert not any("_" in f for f in fl.table.index.get_level_values("feature")) and fl.caption


def test_sentiment_rows_read_set_by_simulator_under_the_demo_design(study):
    from pluralign.data import simulate
    from pluralign.seal.settings import DEMO_OTHER_DATA

    other = simulate(**{**DEMO_OTHER_DATA[0]["simulate"], "n_pairs": 600})
    demo = dataclasses.replace(study, other_parts=[other])
    feats = ["last_response_sentiment", "response_has_list", "verbosity"]
    rows = robustness_page._designed(demo, feats, ["π^c_+", "π^r_-"])
    from pluralign.seal.simulated_rewrites import PLANTED_FLIP_NAMES

    w = demo.other_weights
    expect = {PLANTED_FLIP_NAMES[f] for f in PLANTED_FLIP_NAMES if bool(w.loc[f, "mix_opposite"])}
    assert "last_response_sentiment" in expect and {f for f, _ in rows} == expect
    assert {g for _, g in rows} == {"π^c_+", "π^r_-"}
    assert robustness_page._designed(study, feats, ["π^c_+"]) == []  # no other data: no design to state


@pytest.mark.parametrize("needle", ["seal.robustness", "keys=", "rewrite_pairs", "`"])
def test_the_no_rewriter_text_names_no_code(needle):
    assert needle not in robustness_page.NO_REWRITER

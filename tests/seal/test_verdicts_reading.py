"""SEAL's comparisons with the paper read as the paper and the figure beside them read: a coefficient the paper finds
null is "n.s. in paper", this run's interval is Bonferroni-corrected as the figure's filled markers are, a sign the
demo's simulator sets by design says so, and table and figure name and sign a coefficient alike."""

import math

import numpy as np
import pandas as pd
import pytest

from pluralign.seal.compare import THIS_RUN, entries_on_paper_rows, on_paper_rows, paper_entries
from pluralign.seal.display import display_name, display_table
from pluralign.seal.other_data import designed_rows, opposite_weights
from pluralign.seal.verdicts import bonferroni_z, verdict_legend


def _ours(feature, group, estimate, se, tests=None):
    d = {"feature": [feature], "group": [group], "estimate": [estimate], "std_error": [se]}
    if tests is not None:
        d["tests"] = [tests]
    return pd.DataFrame(d)


def test_a_coefficient_the_paper_finds_null_reads_ns_in_the_paper_not_a_direction():
    # Table 7, last_response_is_honest on the chosen entry: 0.007014, Bonferroni p = 1.000
    t7 = paper_entries("Table 7")
    honest = t7.set_index(["feature", "group"]).loc[("last_response_is_honest", "chosen")]
    assert honest["estimate"] == pytest.approx(0.007014) and honest["p"] == 1.0
    # this run: factual_error plays honest with sign −1; a clearly negative estimate is a clearly positive ρ(honest)
    table, long, _ = entries_on_paper_rows(
        _ours("factual_error", "chosen", -0.2, 0.01),
        "Table 7",
        ["factual_error"],
        source="simulator feature",
        n=500,
        vif_threshold=5.0,
    )
    row = long.set_index(["paper_feature", "group"]).loc[("last_response_is_honest", "chosen")]
    assert row["verdict"] == "n.s. in paper"  # was "same direction as the paper" against a null coefficient
    # a coefficient the paper does find: helpful/harmless rows keep their direction
    harm = entries_on_paper_rows(
        _ours("harmfulness", "chosen", 0.2, 0.01),
        "Table 7",
        ["harmfulness"],
        source="simulator feature",
        n=500,
        vif_threshold=5.0,
    )[1]
    assert harm.set_index(["paper_feature", "group"]).loc[("last_response_is_harmless", "chosen"), "verdict"] == (
        "same sign"
    )
    assert "n.s. in paper" in verdict_legend(long) and "no direction" in verdict_legend(long)


def test_the_verdict_reads_the_bonferroni_corrected_interval_the_figure_marks():
    paper = pd.DataFrame(
        {"feature": ["last_response_is_refusal"], "group": ["post-D"], "estimate": [0.61], "se": [0.01], "p": [0.0]}
    )
    # z = 2.5: inside an uncorrected 95% CI's rejection region, not after Bonferroni over 30 coefficients
    args = dict(paper_order=["last_response_is_refusal"], groups=["post-D"])
    _, one = on_paper_rows(_ours("refusal", "post-D", 0.25, 0.1, tests=1), paper, ["refusal"], **args)
    _, thirty = on_paper_rows(_ours("refusal", "post-D", 0.25, 0.1, tests=30), paper, ["refusal"], **args)
    assert one["verdict"].iloc[0] == "same sign" and thirty["verdict"].iloc[0] == "inconclusive"
    assert thirty["ci_low"].iloc[0] == pytest.approx(0.25 - bonferroni_z(30) * 0.1)
    assert bonferroni_z(1) == pytest.approx(1.959964, abs=1e-6) and bonferroni_z(30) > 3
    assert not thirty["significant"].iloc[0]


def test_a_sign_the_simulator_sets_reads_so(study):
    from pluralign.data import simulate
    from pluralign.seal.settings import DEMO_OTHER_DATA

    other = simulate(**{**DEMO_OTHER_DATA[0]["simulate"], "n_pairs": 50})
    w = opposite_weights(study.D, [other])
    assert bool(w.loc["sentiment", "opposite"]) and not bool(w.loc["harmfulness", "opposite"])
    rows = designed_rows(w, ["harmfulness", "sentiment", "refusal"], ["pre-D"])
    assert set(rows) == {("last_response_sentiment", "pre-D"), ("last_response_is_refusal", "pre-D")}
    p5 = paper_entries("Table 5", groups=["pre-D"])
    ours = _ours("sentiment", "pre-D", -1.0, 0.05, tests=8)
    _, long = on_paper_rows(
        ours, p5, ["sentiment"], paper_order=list(dict.fromkeys(p5["feature"])), groups=["pre-D"], designed=rows
    )
    assert long.set_index("paper_feature").loc["last_response_sentiment", "verdict"] == "set by simulator"


def test_table_and_figure_name_and_sign_a_coefficient_alike(study):
    from pluralign.seal.pages import imprint_page

    im = imprint_page.imprints(study)
    long = im.data["long"]
    fe = long[(long["variant"] == "pair fixed effects (this project)") & long["estimate"].notna()]
    ax = im.figure.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "harmless" in labels and "harmfulness" not in labels and not any("_" in x for x in labels)
    assert "harmless" in im.table.index.get_level_values(0)
    # the marker drawn on the harmless row is the table's sign-aligned estimate (−1 × harmfulness' imprint)
    i = labels.index("harmless")
    xs = [
        float(x)
        for coll in ax.collections
        for (x, y) in np.asarray(coll.get_offsets())
        if coll.get_offsets() is not None and len(coll.get_offsets()) and abs(round(y) - i) == 0 and abs(y - i) < 0.3
    ]
    want = fe[fe["paper_feature"] == "last_response_is_harmless"]["estimate"].to_numpy()
    raw = im.data["fixed_effects"]["post"].table.loc["harmfulness", "estimate"]
    assert any(math.isclose(x, -raw, rel_tol=1e-9) for x in xs)
    assert all(any(math.isclose(x, v, rel_tol=1e-9) for x in xs) for v in want)
    assert im.caption and "Bonferroni" in im.caption


def test_display_names_replace_feature_identifiers():
    assert display_name("last_response_is_harmless") == "harmless"
    assert display_name("last_response_sentiment") == "sentiment"
    assert display_name("human_vocabulary_quality") == "human's vocabulary quality"
    t = pd.DataFrame(
        {"simulator feature": ["harmfulness × −1", "factual_error × −1"]},
        index=pd.MultiIndex.from_tuples([("last_response_is_harmless", "post-D"), ("last_response_is_honest", "x")]),
    )
    shown = display_table(t)
    assert list(shown.index.get_level_values(0)) == ["harmless", "honest"]
    assert list(shown["simulator feature"]) == ["harmfulness × −1", "factual error × −1"]
    assert THIS_RUN.startswith("This run")


def test_a_bound_that_excludes_0_never_reads_as_0():
    paper = pd.DataFrame(columns=["feature", "group", "estimate", "se"])
    ours = pd.DataFrame(
        {"feature": ["verbosity", "format"], "group": "post-D", "estimate": [0.33, 2.0], "std_error": [0.1676, 0.1]}
    )
    table, long = on_paper_rows(ours, paper, ["verbosity", "format"], paper_order=[], groups=["post-D"])
    v = table.loc[("verbosity", "post-D"), THIS_RUN]
    assert long.set_index("paper_feature").loc["verbosity", "verdict"] == "above 0"
    low = float(v.split("[")[1].split(",")[0])
    assert low > 0, v  # "0.33 [0.00, 0.66]" beside "above 0" read as a contradiction

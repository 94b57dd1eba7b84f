"""SEAL's reported numbers (pluralign.paper.seal, read through pluralign.paper.numbers) are complete and
self-consistent, and the shapes the pages show them in keep every number."""

import math

import pytest

from pluralign import seal
from pluralign.paper import numbers, value
from pluralign.seal.facts import PAPER_SETUP, paper_table
from pluralign.seal.resistance import REGIMES
from pluralign.seal.taxonomy import IMPRINT_FEATURES

CODE = "SEAL analysis code (main_results.ipynb)"


def test_paper_tables_have_the_papers_rows():
    for name, cols in (
        ("Table 5", ["pre-D", "post-D", "pre-D p", "post-D p"]),
        ("Table 6", ["chosen", "rejected", "chosen p", "rejected p"]),
        ("Table 7", ["chosen", "rejected", "chosen p", "rejected p"]),
    ):
        t = paper_table(name)
        assert list(t.index) == list(IMPRINT_FEATURES) and list(t.columns) == cols
    t5 = paper_table("Table 5")
    assert t5.loc["last_response_is_harmless", "post-D"] == 2.08980
    assert t5.loc["last_response_is_harmless", "pre-D"] == -0.84607
    assert t5.loc["last_response_is_eloquent", "pre-D"] == 1.39720
    se = numbers("seal", "Table 5").set_index(["row", "column"])["se"]
    assert se[("last_response_is_harmless", "post-D")] == 0.01407
    assert paper_table("Table 4").loc["last_response_is_helpful"].tolist() == [0.782, 0.703]
    assert list(paper_table("Table 1").index) == list(REGIMES)
    assert len(numbers("seal", "Table 8")) == 24 and len(numbers("seal", "Table 3")) == 60
    assert value("seal", "Table 8", "last_response_sentiment", "π^c_+") == pytest.approx(0.1169116)
    with pytest.raises(KeyError, match="no"):
        paper_table("Table 9")


def test_paper_numbers_agree_with_each_other():
    # § 2.3: exp(π^c_+(sentiment)) = exp(0.12) ≈ 1.13 and exp(π^r_-(sentiment)) ≈ 1.12 (rounded in the text)
    assert math.exp(value("seal", "Table 8", "last_response_sentiment", "π^c_+")) == pytest.approx(
        value("seal", "§2.3", "exp(π^c_+(sentiment))", "odds ratio"), abs=0.01
    )
    assert math.exp(value("seal", "Table 8", "last_response_sentiment", "π^r_-")) == pytest.approx(1.10, abs=0.02)
    assert numbers("seal", "App. D.2")["value"].sum() == pytest.approx(1.01, abs=0.011)  # rounded shares
    n = value("seal", "§2", PAPER_SETUP["dataset"], "pairs")
    assert numbers("seal", CODE + ", labels")["value"].sum() == n
    assert sum(value("seal", CODE, f"γ = {g}", "pairs") for g in "cri") == n
    shares = numbers("seal", CODE)
    assert shares.loc[shares["column"] == "share of pairs", "value"].sum() == pytest.approx(1.0, abs=1e-3)
    assert len(PAPER_SETUP["table2"]) == 16


def test_reported_sections():
    t3 = seal.reported("Table 3").table
    assert t3.shape == (10, 6) and t3.loc[("chosen", "helpful"), ("mean", "-1")] == 0.94
    assert t3.loc[("rejected", "sentiment"), ("sd", "+1")] == 0.04
    t8 = seal.reported("Table 8").table
    assert t8.shape == (12, 3) and t8.loc[("last_response_sentiment", "π^c_+"), "p_value"] == pytest.approx(
        0.0013, abs=1e-4
    )
    assert "321,600 entries" in seal.reported("labelling").note
    assert "1%" in seal.reported("rewriting").note and "BAAI/bge-m3" in seal.reported("rewriting").note
    assert "temperature 0" in seal.reported("stability").note
    with pytest.raises(KeyError):
        seal.reported("Table 9")

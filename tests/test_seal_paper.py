"""The SEAL paper's reported numbers (pluralign.seal.PAPER) are complete and self-consistent."""
import pytest

from pluralign.seal import IMPRINT_FEATURES, PAPER, REGIMES, paper_table


def test_paper_tables_have_the_papers_rows():
    for name in ("table5", "table6", "table7"):
        t = paper_table(name)
        assert list(t.index) == list(IMPRINT_FEATURES) and t.shape == (15, 6)
    assert paper_table("table5").loc["last_response_is_harmless", "post_estimate"] == 2.08980
    assert paper_table("table5").loc["last_response_is_harmless", "pre_estimate"] == -0.84607
    assert paper_table("table5").loc["last_response_is_eloquent", "pre_estimate"] == 1.39720
    assert paper_table("table8").shape == (12, 3)
    assert paper_table("table8").loc[("c", "last_response_sentiment", 1), "estimate"] == pytest.approx(0.1169116)
    assert paper_table("table3").shape == (30, 2)
    assert paper_table("table4").loc["last_response_is_helpful"].tolist() == [0.782, 0.703]
    assert list(paper_table("table1").index) == list(REGIMES)
    with pytest.raises(KeyError, match="no table"):
        paper_table("table9")


def test_paper_numbers_agree_with_each_other():
    import math
    # § 2.3: exp(π^c_+(sentiment)) = exp(0.12) ≈ 1.13 and exp(π^r_-(sentiment)) ≈ 1.12 (rounded in the text)
    t8 = PAPER["table8"]
    assert math.exp(t8[("c", "last_response_sentiment", 1)][0]) == pytest.approx(1.13, abs=0.01)
    assert math.exp(t8[("r", "last_response_sentiment", -1)][0]) == pytest.approx(1.10, abs=0.02)
    assert sum(PAPER["quadrants"].values()) == pytest.approx(1.01, abs=0.011)     # rounded shares
    assert sum(PAPER["gamma_label_counts"].values()) == PAPER["dataset"]["n_pairs"]
    g = PAPER["gamma_seal_code"]
    assert g["c"] + g["r"] + g["i"] == PAPER["dataset"]["n_pairs"]
    assert sum(PAPER["regime_shares_seal_code"].values()) == pytest.approx(1.0, abs=1e-3)

"""The papers' numbers as printed (pluralign.paper's ``printed`` / ``se_printed``) and the pages that show them
in that form: a page never re-rounds "1.07610" to 1.08."""

import pandas as pd

from pluralign import paper


def test_the_papers_numbers_keep_their_printed_form():
    assert paper.printed("seal", "Table 5", "last_response_is_helpful", "post-D") == "1.07610"
    t5 = paper.numbers("seal", "Table 5")
    est = t5[~t5["column"].str.endswith(" p")]
    assert all(len(s.split(".")[1]) == 5 for s in est["printed"])
    t7 = paper.numbers("seal", "Table 7")
    assert "0.070119" in set(t7["printed"]) and "1.000" in set(t7["printed"])
    assert paper.printed("diverging", "Table 2", "MultiPref / Diverging Prefs. (Subst.)", "BT (Agg)") == "0.820"
    assert paper.printed("btb", "Table 1", "HH-RLHF", "Δ") == "0.000"
    assert paper.printed("seal", "§2", "Anthropic/hh-rlhf (train)", "pairs") == "160800"
    assert paper.printed("seal", "§2.2", "pre-D RM", "a₊") == "0.57"


def test_table2_shows_the_papers_printed_numbers():
    from pluralign.diverging import reward_models as rmod
    from pluralign.diverging.table2_paper import table2_vs_paper

    ours = pd.DataFrame(
        {"# Ex.": 10, "BT (Agg)": 0.8, "BT (Agg) lo": 0.75, "BT (Agg) hi": 0.86}, index=list(rmod.SUBSETS)
    )
    out = table2_vs_paper(ours, "multipref")
    assert out.loc["Diverging Prefs. (Subst.)", "BT (Agg) paper"] == "0.820"  # not 0.82
    assert out.loc["Diverging Prefs. (Subst.)", "BT (Agg)"] == "0.800 [0.750, 0.860]"


def test_seals_tables_on_the_papers_rows_show_the_printed_numbers():
    from pluralign import presentation
    from pluralign.seal.compare import on_paper_rows, paper_entries

    p5 = paper.numbers("seal", "Table 5")
    p5 = p5[p5["column"] == "post-D"]
    rows = pd.DataFrame(
        {
            "feature": p5["row"],
            "group": "post-D",
            "estimate": p5["value"],
            "se": p5["se"],
            "printed": p5["printed"],
            "se_printed": p5["se_printed"],
        }
    )
    ours = pd.DataFrame({"feature": ["helpfulness"], "group": "post-D", "estimate": [1.0], "std_error": [0.1]})
    table, _ = on_paper_rows(ours, rows, ["helpfulness"], paper_order=list(rows["feature"]), groups=["post-D"])
    row = table.loc[("last_response_is_helpful", "post-D")]
    assert row["In the paper"] == "1.07610" and row["paper SE"] == "0.00925"
    shown = presentation.present(table).data
    assert shown.loc[("last_response_is_helpful", "post-D"), "In the paper"] == "1.07610"
    assert shown.loc[("last_response_is_harmless", "post-D"), "In the paper"] == "2.08980"
    assert shown.loc[("last_response_is_refusal", "post-D"), "In the paper"] == "0.61075"
    assert shown.loc[("last_response_is_coherent", "post-D"), "In the paper"] == "\u22120.38344"
    assert "0.070119" in set(paper_entries("Table 7")["printed"])

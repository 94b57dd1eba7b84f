"""Page "Margins by agreement class" (pluralign.cross.pages.margins_page) on a small simulation."""

from pluralign.cross.pages import margins_page


def test_distribution_and_separation_with_the_planted_truth_beside(small_study, no_nan):
    dist, sep = margins_page.distribution(small_study), margins_page.separation(small_study)
    assert no_nan(dist) and no_nan(sep)
    assert dist.figure is not None
    assert "planted population margin" in dist.table.index.get_level_values("margin")
    assert "planted (population margin)" in sep.table.columns
    assert dist.caption.startswith("Top: the margin m of Eq. 3") and sep.forest_caption
    assert list(sep.table.index) == ["synthetic (n = 10)", "gold (the pair's own votes)"]
    assert sep.values["x_auc_name_1"] == "gold (the pair's own votes)" and 0 <= sep.values["x_auc_0"] <= 1
    assert "computed from the same judgments that define the classes" in sep.note  # the gold row's reading
    assert set(sep.table["verdict"]) <= {
        f"{a}; {b} planted" for a in ("above 0.5", "below 0.5", "inconclusive") for b in ("covers", "above", "below")
    }
    assert sep.values["x_auc_synthetic"].startswith("the synthetic (n = 10) margin separates them with AUROC ")
    assert sep.values["x_auc_gold"].startswith("AUROC ")
    assert margins_page.separation.quotes == (
        "x_auc_0",
        "x_auc_lo_0",
        "x_auc_hi_0",
        "x_auc_name_0",
        "x_auc_verdict_0",
        "x_auc_synthetic",
        "x_auc_gold",
    )

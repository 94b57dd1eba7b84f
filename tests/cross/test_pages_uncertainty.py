"""Page "Reward-model uncertainty against the margin" (pluralign.cross.pages.uncertainty_page) on a small simulation."""

from pluralign.cross.pages import uncertainty_page


def test_sigma_against_each_margin_per_class(small_study, no_nan):
    r = uncertainty_page.sigma_against_margin(small_study)
    assert no_nan(r) and r.figure is not None
    assert "planted ρ (population spread)" in r.table.columns
    assert set(r.values) == set(uncertainty_page.sigma_against_margin.quotes)
    assert r.values["x_unc_margin"] == "synthetic (n = 10)" and r.caption and r.forest_caption
    assert set(r.table.index.get_level_values("margin")) == {"synthetic (n = 10)", "gold (the pair's own votes)"}
    assert len(r.note.splitlines()) == len(r.table)  # one verdict per margin and class

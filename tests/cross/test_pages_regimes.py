"""Page "Alignment regimes by agreement class" (pluralign.cross.pages.regimes_page) on a small simulation."""

import pytest

from pluralign.cross.pages import regimes_page


@pytest.mark.slow  # trains the pre- and post-D reward models of the small study; CI runs it (make test-slow)
def test_regimes_and_resistance_gap_with_the_population_beside(small_study, no_nan):
    by_class, gap = regimes_page.by_class(small_study), regimes_page.resistance_gap(small_study)
    assert no_nan(by_class) and no_nan(gap)
    assert "planted a₋ (population)" in by_class.table.columns and by_class.figure is not None
    assert "pairs whose majority is a tie have none" in by_class.note
    assert list(gap.table.index) == ["pre-D RM", "post-D RM"] and "planted (population)" in gap.table.columns
    assert set(gap.values) == set(regimes_page.resistance_gap.quotes)

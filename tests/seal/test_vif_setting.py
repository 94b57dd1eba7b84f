"""Footnote 6's VIF filter is one setting (``SealSettings.vif_threshold``) that reaches every regression that applies
it — Eq. 1 (Table 5), Eq. 2 (Table 6) and Eq. 3 (Table 7) — and every text that names it (the rows' reasons, the
verdict legends, the dropped-features table, the page's prose), on the ``study`` fixture."""

import dataclasses
from pathlib import Path

import pytest

from pluralign.seal.pages import imprint_page, resistance_page
from pluralign.seal.resistance import misalignment_regression
from pluralign.seal.shifts import reward_shift_regression

ROOT = Path(__file__).resolve().parents[2]


def _with(study, vif):
    return dataclasses.replace(study, settings=study.settings.replace(vif_threshold=vif))


def _pages(study):
    """Tables 5, 6 and 7 of the pages, and the dropped-features table."""
    return (
        imprint_page.imprints(study),
        imprint_page.shift_regression(study),
        resistance_page.misalignment(study),
        imprint_page.vif_dropped(study),
    )


def _dropped(long):
    return long.loc[long["verdict"].isin(["dropped (VIF)", "dropped"]), "status"].tolist()


@pytest.fixture(scope="module")
def five_and_ten(study):
    return _pages(_with(study, 5.0)), _pages(_with(study, 10.0))


def test_the_threshold_reaches_the_fits_of_eq_1_2_and_3(five_and_ten):
    (t5, t6, t7, _), (t5x, t6x, t7x, _) = five_and_ten
    assert t5.data["seal_code"]["post"].dropped_vif != t5x.data["seal_code"]["post"].dropped_vif
    assert t6.data["fit"].dropped_vif != t6x.data["fit"].dropped_vif
    assert t7.data["logit"].dropped_vif != t7x.data["logit"].dropped_vif
    assert t7.data["linear"].dropped_vif != t7x.data["linear"].dropped_vif
    # the tables shown change with the fits
    assert not t5.table.equals(t5x.table) and not t6.table.equals(t6x.table) and not t7.table.equals(t7x.table)


def test_the_threshold_reaches_every_text_that_names_it(five_and_ten):
    (t5, t6, t7, dropped), (t5x, t6x, t7x, droppedx) = five_and_ten
    assert t5.values["vif_rule"] == "VIF > 5" and t5x.values["vif_rule"] == "VIF > 10"
    assert list(dropped.table.columns) == ["dropped (VIF > 5 or constant)"]
    assert list(droppedx.table.columns) == ["dropped (VIF > 10 or constant)"]
    for r in (t6x, t7x):
        reasons = _dropped(r.data["long"])
        assert reasons and set(reasons) == {"dropped from the regression (VIF > 10, or no variation)"}
        assert "(VIF > 10, or no variation)" in r.note and "VIF > 5" not in r.note
    for r in (t5, t6, t7):  # the paper's threshold reads as the pages read before it was a setting
        assert set(_dropped(r.data["long"])) == {"dropped from the regression (VIF > 5, or no variation)"}
    assert "*dropped (VIF)*: dropped from the regression (VIF > 5, or no variation)" in t5.note


def test_five_reproduces_the_fits_of_the_paper_threshold(study, five_and_ten):
    """vif_threshold 5 gives the fits of the regressions' own default, footnote 6's 5."""
    (t5, t6, t7, _), _ = five_and_ten
    F = study.features
    assert t5.data["fixed_effects"]["post"].dropped_vif == study.imprint["post"].dropped_vif
    assert t5.data["seal_code"]["pre"].dropped_vif == study.imprint["seal_code"]["pre"].dropped_vif
    default6 = reward_shift_regression(study.theta, F.chosen, F.rejected, F.regressors)
    assert t6.data["fit"].table.equals(default6.table)
    default7 = misalignment_regression(*study.rewards_of("post"), F.chosen, F.rejected, F.regressors)
    assert t7.data["logit"].table.equals(default7.table)


def test_no_page_types_the_threshold():
    """The pages' prose quotes the run's threshold (the glued ``vif_rule``), never a typed "VIF > 5"."""
    for page in sorted((ROOT / "notebooks").glob("seal_*.py")):
        assert "VIF > 5" not in page.read_text(), page.name
    assert "{glue:text}`vif_rule`" in (ROOT / "notebooks" / "seal_imprint.py").read_text()


def test_a_fit_without_a_vif_filter_reads_no_variation():
    from pluralign.seal.verdicts import dropped_status

    assert dropped_status(None) == "dropped from the regression (no variation)"
    assert dropped_status(float("inf")) == "dropped from the regression (no variation)"
    assert dropped_status(7.5) == "dropped from the regression (VIF > 7.5, or no variation)"

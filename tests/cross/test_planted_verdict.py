"""Part IV's verdict read against the planted value as well as against the null (pluralign.cross.common), on hand
cases: the numbers of the demo's alignment-resistance gap and of σ against the margin."""

import math

import pytest

from pluralign.cross.common import against, read_against_planted

WORDS = {
    "covers": "as large as planted ({p})",
    "above": "larger than planted ({p})",
    "below": "smaller than planted ({p})",
}


@pytest.mark.parametrize(
    "lo, hi, ref, side",
    [
        (0.085, 0.229, 0.328, "below"),
        (0.085, 0.229, 0.0, "above"),
        (0.085, 0.229, 0.2, "covers"),
        (0.085, 0.229, 0.229, "covers"),  # an end of the CI counts as covered
        (-0.623, -0.450, -0.153, "below"),
        (0.1, 0.2, float("nan"), None),
        (0.1, 0.2, None, None),
    ],
)
def test_where_a_ci_sits_against_a_value(lo, hi, ref, side):
    assert against(lo, hi, ref) == side


def test_a_gap_above_zero_and_below_the_planted_gap_does_not_read_as_the_model_resisting_more():
    """The demo's post-D resistance gap 0.155 [0.085, 0.229] against the population's planted 0.328."""
    r = read_against_planted(0.155, 0.085, 0.229, planted=0.328, above="more", below="less", planted_reading=WORDS)
    assert (r.vs_null, r.vs_planted) == ("above", "below")
    assert r.short == "above 0; below planted"
    assert r.long == "more; smaller than planted (0.328)"


def test_a_correlation_far_beyond_its_planted_value_says_so():
    """The demo's ρ(σ, margin) −0.538 [−0.623, −0.450] against the planted −0.153."""
    r = read_against_planted(-0.538, -0.623, -0.450, planted=-0.153, above="up", below="down")
    assert r.short == "below 0; below planted"
    assert r.long == "down; its CI lies below the planted value (−0.153)"


def test_a_ci_covering_the_planted_value_and_an_auroc_null():
    r = read_against_planted(0.70, 0.65, 0.75, planted=0.72, null=0.5, above="up", below="down", planted_reading=WORDS)
    assert r.short == "above 0.5; covers planted" and r.long == "up; as large as planted (0.720)"


def test_without_a_planted_value_the_reading_is_the_nulls_alone():
    r = read_against_planted(0.155, 0.085, 0.229, planted=float("nan"), above="more", below="less")
    assert (r.short, r.long, r.vs_planted) == ("above 0", "more", None)
    r = read_against_planted(0.01, -0.05, 0.07, planted=0.328, above="more", below="less", planted_reading=WORDS)
    assert r.short == "inconclusive; below planted" and r.long.startswith("inconclusive at this sample size")


def test_no_estimate_keeps_its_reason_and_no_side():
    r = read_against_planted(math.nan, math.nan, math.nan, planted=0.3, above="a", below="b", why_missing="no pairs")
    assert r.vs_null is None and r.vs_planted is None and "no pairs" in r.long


def test_an_estimate_given_as_none_is_no_estimate():
    r = read_against_planted(None, None, None, planted=0.3, above="a", below="b", why_missing="no pairs")
    assert r.vs_null is None and r.short == r.long and "no pairs" in r.long

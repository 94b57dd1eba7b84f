"""presentation.present — the one set of presentation conventions every page uses."""

import numpy as np
import pandas as pd
import pytest

from pluralign import presentation
from pluralign import report as R


@pytest.mark.parametrize(
    "x, kind, shown",
    [
        (492.0, "count", "492"),
        (12345, "estimate", "12,345"),
        (0.1534, "estimate", "0.153"),
        (12.345, "estimate", "12.3"),
        (-24.054, "estimate", "\u221224.1"),
        (123.45, "estimate", "123"),
        (0.000012, "estimate", "1.20e\u221205"),
        (0.123, "share", "12.3 %"),
        (float("nan"), "estimate", "—"),
        (None, "count", "—"),
        (True, "estimate", "True"),
        ("text", "estimate", "text"),
    ],
)
def test_fmt_number(x, kind, shown):
    assert presentation.fmt_number(x, kind) == shown


def test_present_formats_by_column_and_never_shows_nan():
    df = pd.DataFrame(
        {
            "n_pairs": [492.0, 10.0],
            "share_diverging": [0.123, 0.5],
            "cohen_kappa": [0.61234, np.nan],
            "comment": ["a", None],
        },
        index=pd.Index(["x", "y"], name="feature"),
    )
    html = presentation.present_html(df).replace("&nbsp;", " ")  # a number cell's spaces are non-breaking
    for shown in (
        "492",
        "12.3 %",
        "50.0 %",
        "0.612",
        "Cohen&#x27;s κ" if "&#x27;" in html else "Cohen's κ",
        "pairs (N)",
        "share diverging",
        "overflow-x:auto",
    ):
        assert shown in html, shown
    assert "492.0" not in html and "NaN" not in html and "nan<" not in html and "None" not in html
    assert html.count("—") >= 3  # two missing cells and the line that says what "—" means
    assert df.loc["y", "cohen_kappa"] != df.loc["y", "cohen_kappa"]  # the data are not changed


def test_present_is_deterministic_and_shows_every_row():
    df = pd.DataFrame({"value": np.arange(150) / 7})
    a, b = presentation.present_html(df), presentation.present_html(df.copy())
    assert a == b
    assert a.count("<tr") == 151


@pytest.mark.parametrize(
    "est, lo, hi, paper, says",
    [
        (0.011, -0.02, 0.04, 0.05, "inconclusive at this sample size"),  # the CI contains 0
        (0.05, 0.01, 0.09, 0.05, "same direction as the paper"),
        (-0.05, -0.09, -0.01, 0.05, "opposite direction to the paper"),
        (0.05, 0.01, 0.09, None, "above 0"),
        (float("nan"), 0.0, 1.0, None, "— (no estimate)"),
    ],
)
def test_verdict_follows_the_ci(est, lo, hi, paper, says):
    assert R.verdict(est, lo, hi, paper=paper, n=480).startswith(says)


def test_an_inconclusive_verdict_says_how_many_would_be_needed():
    text = R.verdict(0.011, -0.019, 0.041, n=480)
    # half-width 0.03 / 0.011 -> (2.727)^2 * 480 = 3,571
    assert "N = 480" in text and "3,571" in text
    assert R.n_needed(0.011, -0.019, 0.041, 480) == 3571


def test_present_markdown_follows_the_same_conventions():
    df = pd.DataFrame({"n": [3.0, 4.0], "estimate": [0.123456, np.nan]}, index=pd.Index(["a", "b"], name="feature"))
    md = presentation.present_markdown(df)
    assert "| a " in md and "0.123 " in md and "—" in md and "nan" not in md.lower() and "3.0" not in md
    multi = df.copy()
    multi.index = pd.MultiIndex.from_tuples([("x", "a"), ("x", "b")], names=["check", "feature"])
    lines = presentation.present_markdown(multi).splitlines()
    assert lines[0].split("|")[1].strip() == "check"  # the levels as leading columns, no row numbers


def test_row_numbers_are_not_shown():
    html = presentation.present_html(pd.DataFrame({"split": ["train", "test"], "pairs": [568, 480]}))
    assert ">0<" not in html and ">1<" not in html and "train" in html and "568" in html


def test_a_table_of_quantities_by_row_takes_each_rows_kind():
    """Rows labelled by quantity (the data page's overview): counts as integers, shares as %, a mean as an
    estimate — the column ("simulated-multipref") says nothing about the kind."""
    df = pd.DataFrame(
        {"set": [4800.0, 4.0, 0.134, 8.0]},
        index=["judgments", "annotators per pair (mean)", "tie judgments (share)", "features"],
    )
    cells = __import__("re").findall(r">([^<>]+)</td>", presentation.present_html(df).replace("&nbsp;", " "))
    assert cells == ["4,800", "4.00", "13.4 %", "8"]

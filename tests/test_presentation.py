"""How a number is shown (pluralign.presentation, re-exported by pluralign.report) and the forest plot beside a
table of intervals (pluralign.forest): one precision per column, the minus sign, one row per estimate."""

import re

import numpy as np
import pandas as pd
import pytest

from pluralign import presentation
from pluralign import report as R
from pluralign.forest import forest_plot

MINUS = "\u2212"


def _decimals(text: str) -> set[int]:
    """The number of decimals of every number in ``text``."""
    return {len(m.group(1)) for m in re.finditer(r"\d\.(\d+)", text)}


def test_a_column_of_intervals_has_one_precision_and_the_minus_sign():
    shown = presentation.intervals(
        [0.7, 0.0781, -0.00721, np.nan], [0.671, 0.05, -0.03, np.nan], [0.73, 0.1, 0.015, np.nan]
    )
    assert shown[:3] == ["0.700 [0.671, 0.730]", "0.078 [0.050, 0.100]", f"{MINUS}0.007 [{MINUS}0.030, 0.015]"]
    assert shown[3] == presentation.MISSING
    assert _decimals(" ".join(shown)) == {3}
    assert "-" not in " ".join(shown)


@pytest.mark.parametrize(
    "widths, decimals", [([0.059, 0.06], 3), ([0.5, 0.4], 2), ([3.0, 4.0], 1), ([30.0, 40.0], 0), ([1e-9], 6)]
)
def test_the_precision_follows_the_width_of_the_cis(widths, decimals):
    lo = np.full(len(widths), 5.0)
    assert presentation.column_decimals(lo + 0.1, lo, lo + np.array(widths)) == decimals


def test_correlations_and_shares_keep_three_decimals():
    assert presentation.column_decimals([0.61], [0.55], [0.67]) == 3  # width 0.12 alone would give 2
    assert presentation.column_decimals([0.5], [0.4999], [0.5001]) == 6 - 1  # a narrower CI asks for more
    assert presentation.column_decimals([0.61, 1.5], [0.55, 1.2], [0.67, 1.8]) == 2  # not bounded by 1


def test_a_rounded_zero_has_no_sign_and_a_missing_value_is_a_dash():
    assert presentation.fmt_fixed(-0.0001, 3) == "0.000"
    assert presentation.fmt_fixed(-1234.5, 1) == f"{MINUS}1,234.5"
    assert presentation.fmt_fixed(float("nan"), 3) == presentation.MISSING


def test_signed_changes_a_number_sign_only():
    assert presentation.signed("[-0.3, -1] pre-D 2024-11-25 a 1-2 split, x = -.5") == (
        f"[{MINUS}0.3, {MINUS}1] pre-D 2024-11-25 a 1-2 split, x = {MINUS}.5"
    )


def test_a_table_shows_each_column_of_estimates_at_one_precision():
    df = pd.DataFrame(
        {"estimate": [0.7, 0.0781, -0.00721, 0.2], "p_value": [0.5, 1e-8, 0.03, 0.2], "n": [3, 4, 5, 6]},
        index=pd.Index(list("abcd"), name="feature"),
    )
    shown = presentation.present(df).data
    assert list(shown["estimate"]) == ["0.700", "0.078", f"{MINUS}0.007", "0.200"]
    assert shown.loc["b", "p-value"] == f"1.00e{MINUS}08"  # a p-value keeps its own significant digits
    assert list(shown["N"]) == ["3", "4", "5", "6"]
    html = presentation.present_html(df)
    assert ">-0" not in html and 'num" >0.700<' in html.replace("col0 num", "num")


def test_a_number_cell_is_marked_and_breaks_only_before_its_interval():
    """A cell of numbers is marked ``num``; its spaces are non-breaking but the one before an interval's "[" and
    the one after an arrow (the stylesheet lets such a cell wrap there only); an identifier may wrap after its
    underscores."""
    df = pd.DataFrame(
        {
            "r [95% CI]": presentation.intervals([0.5], [0.4], [0.6]),
            "r before → after": ["0.974 → 0.974"],
            "verdict": ["above 0"],
        }
    )
    cells = re.findall(r'<td[^>]*class="([^"]*)"[^>]*>([^<]*)</td>', presentation.present_html(df))
    assert [("num" in c.split(), t) for c, t in cells] == [
        (True, "0.500 [0.400,&nbsp;0.600]"),
        (True, "0.974&nbsp;→ 0.974"),
        (False, "above 0"),
    ]
    html = presentation.present_html(pd.DataFrame({"quantity": ["imprint_text_weights"]}))
    assert "imprint_<wbr>text_<wbr>weights" in html


def _forest_frame():
    return pd.DataFrame(
        {
            "estimate": [0.7, np.nan, -0.1, 0.2],
            "ci_low": [0.6, np.nan, -0.3, 0.1],
            "ci_high": [0.8, np.nan, 0.05, 0.3],
            "paper": [0.75, np.nan, np.nan, 0.1],
            "planted": [0.68, np.nan, 0.0, np.nan],
        },
        index=["x", "y", "z", "w"],
    )


def _by_gid(fig, gid):
    return [a for ax in fig.axes for a in ax.get_children() if a.get_gid() == gid]


def test_the_forest_plot_has_one_row_per_finite_estimate_and_names_the_others():
    fig = forest_plot(_forest_frame(), paper="paper", planted="planted")
    assert fig.forest_rows == {"plotted": ["x", "z", "w"], "no_estimate": ["y"]}
    (ci,) = _by_gid(fig, "ci")
    assert len(ci.get_segments()) == 3
    (est,) = _by_gid(fig, "estimate")
    assert len(est.get_offsets()) == 3
    assert len(_by_gid(fig, "paper")[0].get_offsets()) == 2
    assert len(_by_gid(fig, "planted")[0].get_offsets()) == 2
    assert [t.get_text() for t in _by_gid(fig, "no-estimate")] == ["no estimate"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["x", "y", "z", "w"]
    assert len(_by_gid(fig, "null")) == 1


def test_the_forest_plot_draws_one_panel_per_column_and_no_null_line_where_there_is_none():
    df = _forest_frame()
    fig = forest_plot(df, estimate=["estimate", "paper"], low=["ci_low", "ci_low"], high=["ci_high", "ci_high"],
                        null=[None, 0.5])  # fmt: skip
    assert len(fig.axes) == 2
    assert [len(a.get_offsets()) for a in _by_gid(fig, "estimate")] == [3, 2]
    assert len(_by_gid(fig, "null")) == 1
    with pytest.raises(ValueError, match="one entry per panel"):
        forest_plot(df, estimate=["estimate", "paper"], low=["ci_low"], high="ci_high")


def test_a_row_without_an_estimate_can_say_why():
    df = _forest_frame().assign(why=[None, "reference model", None, None])
    fig = forest_plot(df, why="why")
    assert [t.get_text() for t in _by_gid(fig, "no-estimate")] == ["reference model"]


def test_a_result_shows_its_forest_plot_under_the_table(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda x, **kw: shown.append(type(x).__name__))
    fig = forest_plot(_forest_frame())
    R.Result(table=_forest_frame(), forest=fig)._ipython_display_()
    assert shown == ["HTML", "Figure", "Markdown", "HTML"]  # the table, the plot, its numbered caption, its labels


def test_a_sentence_cell_is_marked_for_a_readable_width():
    verdict = "inconclusive at this sample size (the 95% CI [−0.016, 0.072] contains 0)"
    html = presentation.present_html(pd.DataFrame({"v": [verdict, "yes"]}))
    cells = re.findall(r'<td[^>]*class="([^"]*)"[^>]*>([^<]*)</td>', html)
    assert ["text" in c.split() for c, _ in cells] == [True, False]


def test_a_table_with_repeated_labels_is_shown_with_the_same_cell_rules():
    """A row label that repeats (e.g. one feature mapped to two of the paper's) cannot carry pandas' cell
    classes: the labels become a leading column and the cells keep their classes; a repeated column label is
    numbered."""
    import pandas as pd

    from pluralign.presentation import present_html

    t = pd.DataFrame({"estimate": [0.5, -0.25], "note": ["x" * 50, "y"]}, index=["a", "a"])
    html = present_html(t)
    assert 'class="data row1 col1 num"' in html or " num" in html
    assert "\u22120.250" in html and html.count(">a<") == 2
    twice = pd.DataFrame([[1.5, 2.5]], columns=["r", "r"])
    assert "r (2)" in present_html(twice)


def test_a_papers_column_is_marked_printed_and_a_bare_column_keeps_its_largest_value_readable():
    """The paper's column keeps its printed decimals and is marked ``printed`` (the site check exempts it); a
    column without intervals whose values span magnitudes shows its largest with at most 4 significant digits."""
    import pandas as pd

    from pluralign.presentation import column_decimals, present_html

    t = pd.DataFrame({"In the paper": ["1.07610", "0.00925"], "this run": [1.1, 0.01]}, index=["x", "y"])
    html = present_html(t)
    assert "num printed" in html and "1.07610" in html
    assert column_decimals([0.24036, 0.0012, 0.0009, 0.003]) == 4
    assert column_decimals([0.5, 0.25]) == 3

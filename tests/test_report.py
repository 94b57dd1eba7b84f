"""report: a section's Result and the paper's numbers beside this run's."""

import pandas as pd
import pytest

from pluralign import report


def test_beside_paper_keeps_rows_of_both_sides_and_names_each_column_by_source():
    ours = pd.DataFrame({"row": ["x", "y"], "r": [0.5, 0.6], "n": [10, 20]})
    paper = pd.DataFrame({"row": ["x", "z"], "r": [0.4, 0.9]})
    t = report.beside_paper(ours, paper, on=["row"]).set_index("row")
    assert list(t.columns) == ["r (paper)", "r (this run)", "n (this run)"]
    assert t.loc["x", "r (paper)"] == 0.4 and t.loc["x", "r (this run)"] == 0.5
    assert pd.isna(t.loc["y", "r (paper)"]) and pd.isna(t.loc["z", "r (this run)"])  # nothing dropped
    with pytest.raises(KeyError, match="missing"):
        report.beside_paper(ours, paper, on=["table"])


def test_result_glues_its_values_under_their_names(monkeypatch):
    glued = {}
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display=True: glued.__setitem__(k, v))
    r = report.Result(pd.DataFrame(), values={"a": 1, "b": 0.5})
    assert r.glue() is r and glued == {"a": 1, "b": 0.5}


def test_a_no_estimate_section_shows_its_reason_in_a_warning_box_and_a_skipped_one_says_it_does_not_run(monkeypatch):
    """A section that ran and failed shows its counted reason in a MyST warning box (the book keeps it); one that
    does not apply to the profile says so (the book leaves it out): each output carries its reason."""
    import IPython.display

    from pluralign.book.page_notes import FAILED_SECTION, SKIPPED_SECTION
    from pluralign.report import Result

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, metadata=None: shown.append((obj.data, metadata)))
    Result(table=None, skipped="no estimate: 3 of 3 LM labels failed.")._ipython_display_()
    Result(table=None, skipped="no labeller on this profile.")._ipython_display_()
    assert shown == [
        (":::{warning}\n**No estimate.** 3 of 3 LM labels failed.\n:::", {FAILED_SECTION: "3 of 3 LM labels failed."}),
        ("*Not run on this profile:* no labeller on this profile.", {SKIPPED_SECTION: "no labeller on this profile."}),
    ]


def test_a_section_that_raises_no_estimate_stays_with_its_reason_and_dashes_for_the_names_it_cannot_give():
    """``NoEstimate`` raised in a section becomes its "no estimate" Result: the reason, the values the section still
    gives, "—" for every other declared name; a section that runs must still set every declared name."""
    import pytest

    from pluralign.presentation import MISSING
    from pluralign.report import NoEstimate, Result, section

    @section("a", "b")
    def fails(give):
        raise NoEstimate("3 of 3 LM labels failed.", {"a": give})

    r = fails(1)
    assert r.table is None and r.skipped == "no estimate: 3 of 3 LM labels failed."
    assert r.values == {"a": 1, "b": MISSING}

    @section("a")
    def runs():
        return Result(table=None, values={})

    with pytest.raises(ValueError, match=r"\['a'\]"):
        runs()

"""When the LLM labeller's or judge's answers fail, each section of Beyond the Binary's pages either estimates
from the pairs with p* (or a margin) and counts the rest, or returns a skipped ``report.Result`` saying
"no estimate: ..." that still glues every name the page's prose quotes."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from pluralign.btb.pages import decidability_page, margins_page, rewards_page, subjectivity_page
from pluralign.presentation import MISSING


# ---- Beyond the Binary: p* from the LLM labeller's answers -------------------------------------------------
class TenPeople:
    """An LLM labeller (Appendix B task 3) whose answer is a function of the prompt; None = unparseable."""

    def __init__(self, answer, name):
        self.answer, self.name = answer, name

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1, job=None):
        return [[self.answer(p) or "{garbage"] * n for p in prompts]


def test_p_star_from_llm_counts_unparseable_answers():
    from pluralign.btb.p_star import p_star_from, p_star_with_source
    from pluralign.data.core import PreferenceData

    pairs = pd.DataFrame(
        {
            "pair_id": ["p0", "p1", "p2"],
            "dataset": "t",
            "split": "test",
            "prompt": ["Capital of France?", "A poem about rain.", "A joke."],
            "response_a": ["Paris.", "Rain falls", "Why did..."],
            "response_b": ["Lyon.", "Drops on glass", "Knock knock"],
        }
    )
    ann = pd.DataFrame({"pair_id": ["p0", "p1", "p2"], "annotator_id": "x", "preference": [-1, 1, -2]})
    d = PreferenceData(pairs, ann, {"name": "t"})
    lab = TenPeople(lambda p: "7 A - 3 B" if "France" in p else None, "ten-some")
    with pytest.warns(UserWarning, match="2 of 3 answers unparseable"):
        p = p_star_from("llm", d, labeller=lab)
    assert p.attrs == {"llm_answers": 3, "llm_unparsed": 2}
    assert p["p0"] == pytest.approx(0.7) and int(p.isna().sum()) == 2
    # through a fallback chain (as the paper profile's [labels, annotators, llm]) the counts add up
    with pytest.warns(UserWarning):
        w = p_star_with_source(["llm"], d, labeller=TenPeople(lambda p: None, "ten-none"))
    assert w.attrs == {"llm_answers": 3, "llm_unparsed": 3} and w["p_star"].isna().all()
    assert w["p_star"].attrs == w.attrs


def _btb_study(missing: str):
    from pluralign.btb.study import setup

    st = setup("demo", 0)
    p = st.p_star.copy()
    if missing == "all":
        p[:] = np.nan
        p.attrs = {"llm_answers": len(p), "llm_unparsed": len(p)}
    else:
        p.iloc[:5] = np.nan
        p.attrs = {"llm_answers": len(p), "llm_unparsed": 5}
    st.__dict__["p_star"] = p
    return st, len(p)


def test_btb_sections_without_any_p_star_say_no_estimate_and_glue_the_prose_names():
    st, n = _btb_study("all")
    want = f"no estimate: p\\* is missing for {n} of {n} pairs: {n} of {n} answers of the LLM labeller"
    cat = subjectivity_page.categories(st)  # the counts per category still stand
    assert cat.table["pairs"].sum() >= n and cat.table["mean p*"].isna().all()
    assert f"{n} of {n} pairs" in cat.note and "No estimate of the mean" in cat.note
    assert subjectivity_page.p_star_by_category(st).skipped.startswith(want)
    gap = subjectivity_page.binary_judgment_gap(st)
    assert gap.skipped.startswith(want)
    assert set(gap.values) == {
        "btb_binary_l1",
        "btb_binary_l1_lo",
        "btb_binary_l1_hi",
        "btb_binary_dropped",
        "btb_binary_kind_sentence",
        "btb_binary_l1_single",
        "btb_binary_l1_multiple",
    }
    assert gap.values["btb_binary_l1"] == MISSING and isinstance(gap.values["btb_binary_dropped"], int)


def test_btb_sections_with_some_p_star_missing_estimate_from_the_rest_and_count_them():
    st, n = _btb_study("some")
    cat = subjectivity_page.categories(st)
    dims = cat.table.groupby("dimension")["pairs without p*"].sum()
    assert (dims == 5).all() and cat.table["mean p*"].notna().all()
    assert f"p\\* is missing for 5 of {n} pairs: 5 of {n} answers" in cat.note
    by = subjectivity_page.p_star_by_category(st)
    assert not by.skipped and len(by.data["frame"]) == n - 5 and "not plotted" in by.note
    gap = subjectivity_page.binary_judgment_gap(st)
    assert not gap.skipped and np.isfinite(gap.values["btb_binary_l1"])
    ev = gap.data["evaluation"]
    assert ev.loc[ev["grouping"] == "all", "n"].max() <= n - 5
    assert "5 of" in gap.note


def _btb_rewards_study(missing: str):
    """Beyond the Binary's rewards page on the simulator (rm_helpers.btb_reward_study), with the LLM labeller's p*
    missing for every test pair or for 5."""
    from rm_helpers import btb_reward_study

    s = btb_reward_study()
    real = s.p_star_of

    def p_star_of(data, ids=None):
        p = real(data, ids).copy()
        n = len(p) if missing == "all" else 5
        p.iloc[:n] = np.nan
        p.attrs = {"llm_answers": len(p), "llm_unparsed": n}
        return p

    s.p_star_of = p_star_of
    return s


@pytest.mark.slow  # trains both reward models of the rewards page (frozen encoder); CI runs it (make test-slow)
def test_btb_rewards_without_any_test_p_star_say_no_estimate_and_glue_the_prose_names():
    s = _btb_rewards_study("all")
    n = len(s.comparison.splits.test)
    want = f"no estimate: p\\* is missing for {n} of {n} pairs: {n} of {n} answers of the LLM labeller"
    assert s.comparison.table is None
    t1 = rewards_page.table_1(s)
    assert t1.skipped.startswith(want) and t1.values["btb_r_baseline"] == MISSING
    assert (
        set(t1.values)
        == set(rewards_page.table_1.quotes)
        == {f"btb_r_{k}{suf}" for k in ("baseline", "regularized", "delta") for suf in ("", "_lo", "_hi")}
        | {"btb_n_test"}
    )
    assert rewards_page.table_2(s).skipped.startswith(want)
    for r in (
        rewards_page.directions(s),
        rewards_page.beside_paper(s),
        decidability_page.paper_sized_check(s),
        rewards_page.rm_vs_p_star(s),
        rewards_page.delta_plot(s, "pearson"),
    ):
        assert r.skipped.startswith(want) and r.figure is None
    assert (
        not rewards_page.learning_rate_sweep(s).skipped and rewards_page.training_margins(s).figure is not None
    )  # no p* needed


@pytest.mark.slow  # trains both reward models of the rewards page (frozen encoder); CI runs it (make test-slow)
def test_btb_rewards_with_some_test_p_star_missing_estimate_from_the_rest_and_count_them():
    s = _btb_rewards_study("some")
    c = s.comparison
    n = len(c.splits.test)
    row = c.table[(c.table.grouping == "all") & (c.table.metric == "pearson")].iloc[0]
    assert row["n"] == n - 5
    keep = c.p_star.index[c.p_star.notna()]
    assert row["baseline"] == pytest.approx(np.corrcoef(c.p_star[keep], c.p_baseline[keep])[0, 1])
    t1 = rewards_page.table_1(s)
    assert not t1.skipped and t1.values["btb_n_test"] == n - 5
    assert f"p\\* is missing for 5 of {n} pairs" in t1.note and "left out" in t1.note
    small = decidability_page.paper_sized_check(s)
    assert small.values["btb_small_n"] == 50
    assert len(rewards_page.rm_vs_p_star(s).data["frame"]) == n - 5


def test_category_summary_counts_pairs_without_p_star():
    from pluralign.btb.categories import category_summary

    kind = pd.Series(["single", "multiple", "single"], index=["a", "b", "c"])
    t = category_summary(kind, None, pd.Series([1.0, np.nan, 0.25], index=["a", "b", "c"])).set_index("category")
    assert t.loc["Single Correct", "mean_p_star"] == pytest.approx(0.625)
    assert t.loc["Single Correct", "n_without_p_star"] == 0 and t.loc["Multiple Correct", "n_without_p_star"] == 1
    assert np.isnan(t.loc["Multiple Correct", "mean_p_star"]) and t.loc["Multiple Correct", "n"] == 1
    # every pair with p*: the table is as before (no count column)
    full = category_summary(kind, None, pd.Series([1.0, 0.5, 0.25], index=["a", "b", "c"]))
    assert "n_without_p_star" not in full.columns


def test_a_page_states_the_failed_answers_so_its_kernel_does_not_warn(monkeypatch):
    """The library warns that LLM answers failed (counted); in a book page, whose text states the counts, the runner
    sets PLURALIGN_ON_PAGE and the warning stays off the page's stderr. Beyond the Binary's judgments section
    states the unparseable verdicts and the pairs left without a margin."""
    from pluralign import report
    from pluralign.book import execution
    from pluralign.btb.study import setup

    assert execution._environment("paper")[report.ON_PAGE] == "1"
    with pytest.warns(UserWarning, match="3 of 9 failed"):
        report.stated_warning("3 of 9 failed")
    monkeypatch.setenv(report.ON_PAGE, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report.stated_warning("3 of 9 failed")
    st = setup("demo", 0)
    sj = st.judgments.copy()
    sj.loc[sj.index[:4], "n_unparsed"] = sj.loc[sj.index[:4], "n"]
    sj.loc[sj.index[:4], "n_valid"] = 0
    st.__dict__["judgments"] = sj
    note = margins_page.synthetic_judgments(st).note
    assert (
        f"{int(sj['n'].iloc[:4].sum())} of {int(sj['n'].sum()):,} verdicts" in note
        and f"4 of {len(sj):,} pairs" in note
    )


@pytest.mark.slow  # trains both reward models of the rewards page (frozen encoder); CI runs it (make test-slow)
def test_btb_rewards_without_any_parseable_judgment_says_the_margins_are_missing_and_plots_none():
    """Every training pair without a parseable judgment (the rehearsal's random judge): the training-margins
    section counts them, says Eq. 4 is Eq. 1 on this run, and draws no histogram of fill values."""
    s = _btb_rewards_study("some")
    real = s.judgments_of

    def judgments_of(data, p_star=None):
        j = real(data, p_star).copy()
        j["n_valid"], j["margin"] = 0, np.nan
        return j

    s.judgments_of = judgments_of
    r = rewards_page.training_margins(s)
    n = len(s.comparison.margins)
    assert s.comparison.margins_missing == n and (s.comparison.margins == 0).all()
    assert r.figure is None and f"{n:,} of {n:,} training pairs have no parseable judgment" in r.note
    assert "trained with the baseline's loss" in r.note

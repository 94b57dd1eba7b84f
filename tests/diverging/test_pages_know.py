"""The sections of the "do models know?" page (:mod:`pluralign.diverging.pages.know_page`)."""

from __future__ import annotations

from pluralign import diverging
from pluralign.diverging import knowing
from pluralign.diverging.pages import know_page

SPECS = [{"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "multipref"}}]


def test_mean_variance_sections_end_to_end(small_rm_study):
    """The mean-variance sections on a small simulated set with the demo RM: the glued AUROC is the library's."""
    s = small_rm_study
    mv = know_page.mean_variance(s)
    run = s.mv_runs["simulated-helpsteer2"]
    assert mv.values["auc_0"] == run.summary.auc.estimate and mv.values["auc_name_0"] == "simulated-helpsteer2"
    assert run.summary.auc == knowing.disagreement_auroc(
        run.mv["predicted disagreement"], run.summary.labels, n_boot=50
    )
    assert "Mean-Var (All)" in know_page.mean_variance_table2(s).table.columns
    assert set(run.run.classified.index) >= set(run.run.heldout.pairs["pair_id"])  # §4 reads the held-out classes
    assert len(mv.table) == len(s.data)
    assert mv.note == s.loading_line() and "unquantized" in mv.note


def test_judges_without_any_say_so():
    r = know_page.judges(diverging.setup(datasets=SPECS))
    assert r.table is None and "No LLM judge" in r.skipped


def test_the_know_page_reads_its_numbers_for_its_findings(small_rm_study):
    """The findings the page opens with: the AUROC's verdict from its interval, the mean-variance RM's and BT (All)'s
    decisiveness gaps (as on the Table 2 page), a judge's confidence gap on diverging pairs; tables in readable
    labels (the judge table had "agrees lo", "agrees hi"); figures with captions."""
    from types import SimpleNamespace

    from pluralign.diverging.settings import JudgeLLM

    s = small_rm_study
    mv = know_page.mean_variance(s)
    auc = s.mv_runs["simulated-helpsteer2"].summary.auc
    want = "better than chance" if auc.lo > 0.5 else "worse than chance" if auc.hi < 0.5 else "not distinguishable"
    assert mv.values["auc_says_0"].startswith(want) and mv.caption
    t2 = know_page.mean_variance_table2(s)
    sentence = t2.values["mv_gap_sentence"]
    assert sentence.startswith("Mean-Var (All) ") or sentence.startswith("BT (All) ")
    assert "Mean-Var (All)" in sentence and "BT (All)" in sentence and "the paper's gap 0.040" in sentence
    assert "max(p\\*, 1 − p\\*)" in t2.note  # the planted note, escaped so that Markdown keeps both stars
    assert sentence not in t2.note and "Mean-Var (All) " in t2.note  # the sentence once on the page (the box)
    study = SimpleNamespace(
        settings=SimpleNamespace(judges=None, judge_llm=JudgeLLM(simulated={}, label="simulated judge"), n_boot=50),
        mv_runs=s.mv_runs,
        seed=0,
    )
    j = know_page.judges(study)
    assert list(j.table.columns) == ["pairs", "confidence [95% CI]", "sides with the majority [95% CI]"]
    assert j.values["judge_name_0"] == "simulated judge on simulated-helpsteer2" and j.caption
    assert j.values["judge_says_0"] in (
        "less confident on diverging pairs",
        "more confident on diverging pairs",
        "no difference it can tell at this sample size",
    )
    assert "judge_llm" not in know_page.judges(diverging.setup(datasets=SPECS)).skipped

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

"""The page "Synthetic judgments and preference margins" (pluralign.btb.pages.margins_page): the study's judgments are
the margin source's, the judge's quality the library's side agreement, the margin values Eq. 3's."""

from __future__ import annotations

import pandas as pd
import pytest

from pluralign import btb, report
from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb.pages import margins_page, stand_ins

DATA = [{"simulate": {"n_pairs": 240, "seed": 3}}]


@pytest.fixture(scope="module")
def study():
    return btb.setup("demo", 0, data=DATA, judge={"noise": 0.5})


def test_margins_sections(study):
    sj = study.judgments
    want = M.judgments_from("simulated", study.data, n=10, seed=0, noise=0.5).set_index("pair_id")
    pd.testing.assert_series_equal(sj["margin"], want["margin"])
    q = margins_page.judge_quality(study)
    side = E.side_agreement(study.p_star, sj["p_a"].reindex(study.ids), seed=0)
    assert q.values["btb_judge_side"] == side["value"] and q.values["btb_judge_side_n"] == side["n"]
    dist = margins_page.margin_distribution(study)
    assert dist.values["btb_n_judgments"] == 10 and dist.caption
    # the margins read against the population's agreement, as the page's findings quote it
    assert dist.values["btb_margin_r_lo"] > 0 and dist.values["btb_margin_r_says"] == "track the population's agreement"
    assert "|2p\\* − 1| is " in dist.note
    assert q.values["btb_judge_side_says"] == "more often than chance"
    assert (
        q.values["btb_judge_sentence"].startswith("On 0.")
        and "more often than chance; its share" in q.values["btb_judge_sentence"]
    )
    assert (
        dist.values["btb_margin_sentence"].startswith("Pearson r = 0.")
        and "\\" not in dist.values["btb_margin_sentence"]
    )
    # readable labels, no setting's name in the skipped reason
    shown = margins_page.synthetic_judgments(study).table
    assert "share of A votes" in shown.columns and "n_a" not in shown.columns
    assert "sides with the population [95% CI]" in q.table.columns
    assert "embedded_pairs" not in margins_page.embedded_judge(study, 0).skipped
    assert "takes 6 values" in dist.note and "m = 0.2" in dist.note
    assert "not run" in margins_page.embedded_judge(study, 0).skipped
    assert "not run" in margins_page.embedded_judge(btb.setup(data=DATA, embedded_pairs=0)).skipped
    assert margins_page.judgment_prompt(study, show=False).note == ""
    assert margins_page.judgment_prompt(btb.setup(data=DATA, show_prompt=False)).note == ""
    assert margins_page.judgment_prompt(study).note.startswith("```text\nI am going to give you a prompt")


def test_judge_quality_without_a_separate_judge():
    s = btb.setup(data=DATA, judge={"source": "annotators"})
    q = margins_page.judge_quality(s)
    assert "no separate judge" in q.note and q.values["btb_judge_r"] == "—"
    assert q.values["btb_judge_side_says"].startswith("not measured")
    assert (
        q.values["btb_judge_sentence"].startswith("There is no separate judge")
        and "—" not in q.values["btb_judge_sentence"]
    )


def test_the_profile_note_quotes_the_judge(study):
    note = report.profile_note(study.profile, stand_ins(study, "margins")).data
    assert "log-odds noise (sd 0.5)" in note and "n = 10 judgments" in note

"""The SEAL rewards page (seal.pages.rewards_page): each section returns a report.Result whose values are the library's
statistics, on a simulated D with reward models whose rewards are the planted utility (the ``study`` fixture)."""

import numpy as np
import pytest

from pluralign.report import Result
from pluralign.seal.pages import rewards_page
from pluralign.seal.resistance import alignment_summary
from pluralign.seal.stand_ins import TRAINED_PAIR_NOTE


def test_rewards_page_sections(study):
    R = study.R
    ds = rewards_page.dataset(study)
    assert isinstance(ds, Result) and ds.values["n_pairs"] == len(study.view) == len(R)
    assert ds.values["n_ties"] + study.n_splits_dropped == 300 - len(R) and ds.values["n_invalid"] == 0
    assert ds.values["paper_n_pairs"] == "160,800" and ds.table.loc["pairs analysed", "This run"] == len(R)
    assert (
        ds.table.loc["design", "This run"] == "utility RMs" and ds.table.loc["pre-D training pairs", "This run"] == 100
    )
    sc = rewards_page.scoring(study)
    assert sc.values["n_history_differs"] == 0 and sc.table.loc["entries scored", "This run"] == 2 * len(R)
    assert sc.table.loc["post-D RM: entries truncated", "This run"].startswith("—")  # no tokenizer to read
    assert len(sc.data["inputs"]) == 2 * len(R)
    al = rewards_page.alignment(study)
    s = alignment_summary(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
    assert al.values["a_plus_post"] == s["a_plus_post"] and al.values["a_minus_pre"] == s["a_minus_pre"]
    assert al.values["paper_a_plus_pre"] == 0.57 and al.values["paper_a_minus_pre"] == pytest.approx(0.43)
    sh = rewards_page.reward_shifts(study)
    assert sh.values["theta_abs_mean"] == pytest.approx(np.nanmean(np.abs(study.theta)))
    q = rewards_page.quadrants(study)
    assert (
        q.table["post-D"].sum() == pytest.approx(1.0, abs=0.003)
        and q.table.loc["both negative", "paper (post-D)"] == 0.53
    )
    assert q.figure is not None and rewards_page.reward_vectors(study).figure is not None


def test_the_rewards_page_warns_when_pre_and_post_are_one_model():
    import warnings

    from pluralign import seal

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the untrained-head warning of the embedded default
        study = seal.setup(
            design={"data": {"simulate": {"n_pairs": 20, "seed": 0}}, "reward_models": {"pre": {}, "post": {}}},
            features="planted",
        )
        note = rewards_page.dataset(study).note
    assert ":::{warning}" in note and "same model" in note


def test_profile_note_names_the_pages_stand_ins(study):
    from pluralign import report
    from pluralign.seal.pages import stand_ins

    def note(page):
        return report.profile_note(study.profile, stand_ins(study, page)).data

    imprint = note("imprint")
    assert TRAINED_PAIR_NOTE in imprint and "rule-based featurizer checked against the planted" in imprint
    assert "simulator's own rewrites" in note("robustness")
    assert "simulator's own rewrites" not in note("rewards")

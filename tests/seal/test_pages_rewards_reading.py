"""The SEAL rewards page says what its own numbers say: the pairs dropped for want of a chosen entry as its table
counts them, one precision named once, and θ beside θ on rewards centred per model with the offset between the RMs."""

import dataclasses

import numpy as np
import pytest

from pluralign.seal.pages import rewards_page
from pluralign.seal.shifts import centred_reward_shift, reward_shift


def test_the_dropped_pairs_sentence_counts_what_the_table_counts(study):
    ds = rewards_page.dataset(study)
    t = ds.table["This run"]
    dropped = int(t.filter(like="without a chosen entry").sum())
    assert dropped == study.n_ties_dropped + study.n_splits_dropped == ds.values["n_no_chosen"]
    assert ds.values["dropped_sentence"].startswith(f"{dropped:,} pairs had no chosen entry and were dropped")
    # the case of the page: ties and even splits together (the page said "95 had a tied majority" beside 228)
    text = rewards_page.dropped_sentence(95, 133)
    assert text == (
        "228 pairs had no chosen entry and were dropped (95 with a tied majority and 133 split evenly between A and B)."
    )
    assert rewards_page.dropped_sentence(0, 0).startswith("Every pair has a majority label")


def test_one_precision_is_named_once():
    assert rewards_page.precision_sentence("fp32", "fp32") == "Both RMs computed in fp32"
    assert rewards_page.precision_sentence("fp16", "fp32") == "The pre-D RM computed in fp16 and the post-D RM in fp32"


def test_the_scoring_section_glues_the_precision_sentence(study):
    sc = rewards_page.scoring(study)
    assert "fp32 and fp32" not in sc.values["precision_sentence"]
    assert sc.values["precision_sentence"] == rewards_page.precision_sentence(
        sc.values["precision_pre"], sc.values["precision_post"]
    )


def test_reward_shifts_show_the_papers_theta_and_the_centred_one_with_the_offset(study):
    sh = rewards_page.reward_shifts(study)
    assert sh.values["theta_abs_mean"] == pytest.approx(np.nanmean(np.abs(reward_shift(study.R))))
    assert sh.values["theta_abs_mean_centred"] == pytest.approx(np.nanmean(np.abs(centred_reward_shift(study.R))))
    R = study.R
    assert sh.values["reward_offset"] == pytest.approx(
        np.mean(np.r_[R["post_chosen"], R["post_rejected"]]) - np.mean(np.r_[R["pre_chosen"], R["pre_rejected"]])
    )
    assert list(sh.table.columns) == [rewards_page.THETA_RAW, rewards_page.THETA_CENTRED]
    assert sh.caption and "Offset between the two RMs" in sh.note
    # an offset on the post-D RM's rewards moves the paper's θ, not the centred one
    R2 = R.assign(post_chosen=R["post_chosen"] + 3.0, post_rejected=R["post_rejected"] + 3.0)
    moved = rewards_page.reward_shifts(dataclasses.replace(study, R=R2))
    assert moved.values["theta_abs_mean"] != pytest.approx(sh.values["theta_abs_mean"])
    assert moved.values["theta_abs_mean_centred"] == pytest.approx(sh.values["theta_abs_mean_centred"])
    assert moved.values["reward_offset"] == pytest.approx(sh.values["reward_offset"] + 3.0)


def test_the_alignment_verdict_follows_the_paired_interval(study):
    al = rewards_page.alignment(study)
    g = rewards_page.alignment_gain([0, 0, 1, 0] * 50, [1, 0, 1, 1] * 50)
    assert g["low"] > 0 and g["verdict"] == "rises with training on D, as in the paper"
    same = rewards_page.alignment_gain([0, 1] * 50, [1, 0] * 50)
    assert same["low"] < 0 < same["high"] and same["verdict"].startswith("does not change detectably")
    assert al.values["alignment_verdict"] in al.note

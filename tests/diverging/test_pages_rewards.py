"""The sections of the Table 2 page (:mod:`pluralign.diverging.pages.rewards_page`) on a small simulated set with the
demo RM: the glued values are the library's Table 2 numbers, every subset has a row."""

from __future__ import annotations

import numpy as np

from pluralign.diverging import reward_models
from pluralign.diverging.pages import rewards_page


def test_reward_model_sections_end_to_end(small_rm_study):
    """Table 2 on a small simulated set with the demo RM (frozen MiniLM + linear head): the glued values are the
    library's Table 2 numbers, every subset has a row."""
    s = small_rm_study
    runs = rewards_page.reward_models(s)
    assert runs.table.loc["simulated-helpsteer2", "held-out pairs"] == 80 and "training instances" in runs.note
    # the page states how the reward models were loaded (quantization, precision, device) in one line
    loading = "trained copies of embedded all-MiniLM-L6-v2 (frozen-encoder + linear head): unquantized"
    assert runs.note.splitlines()[0].startswith(f"*Reward models: {loading}") and f"on {s.rm.device}" in runs.note
    t2 = rewards_page.table2(s)
    r = s.runs["simulated-helpsteer2"]
    assert isinstance(r, reward_models.RewardModelRun) and not r.skipped and len(r.heldout.pairs) == 80
    direct = reward_models.table2(r.classified, p_a=r.p_a, reward_gap=r.gap, n_boot=50, seed=0)
    assert t2.values["t2_BT_Agg_div"] == direct.loc["Diverging Prefs. (All)", "BT (Agg)"]
    assert t2.values["t2_paper_sum"] == "127 + 141 + 178 < 500"
    # the paper's numbers beside this run's in the page's findings (HelpSteer2's block, as printed)
    assert (
        t2.values["t2_paper_BT_All_div"] == "the paper's 0.678"
        and t2.values["t2_paper_BT_Agg_hap"] == "the paper's 0.751"
    )
    assert list(t2.table.loc["simulated-helpsteer2"].index) == list(reward_models.SUBSETS)
    # the paper's number in this run's cell (HelpSteer2's block: 0.565 for MSE (All) on all examples, as printed)
    cell = t2.table.loc[("simulated-helpsteer2", "All Examples"), "MSE (All)"]
    assert cell.endswith(" ·\u00a0paper\u00a00.565") and "[" in cell, cell
    assert not any("paper" in c for c in t2.table.columns)
    # the demo's planted truth beside the estimates: the population's own decisiveness per subset
    planted = t2.table.loc["simulated-helpsteer2", "planted: the population's P(chosen ≻ rejected)"].astype(float)
    pop = r.heldout.truth["share_a"].reindex(r.heldout.pairs["pair_id"])
    assert planted["All Examples"] == round(float(np.maximum(pop, 1 - pop).mean()), 3)
    assert planted["High-Agreement Prefs."] > planted["Diverging Prefs. (All)"]
    # MSE (Agg) is trained on the majority-vote label by default, and the page says so
    assert t2.values["t2_mse_aggregate"] == "majority" and "the majority-vote label" in t2.note
    assert "mse_aggregate" not in t2.note  # a setting's name is not prose
    assert r.models["MSE (Agg)"].info["train"]["labels"] == "aggregate"
    assert r.models["MSE (Agg)"].dropped["pairs split evenly between A and B (no majority)"] == int(
        (r.train.majority() == "split").sum()
    )
    # the demo profile's caveat under Table 2 (profiles.py) names the head and the training pairs
    assert f"a linear head over frozen sentence embeddings trained on {len(r.train.pairs)} simulated" in t2.note
    assert rewards_page.decisiveness(s).figure is not None


def test_table2_declares_the_names_its_prose_quotes():
    assert "t2_BT_All_div" in rewards_page.table2.quotes and "t2_paper_sum" in rewards_page.table2.quotes

"""Table 2's claim answered on the Table 2 page (:mod:`pluralign.diverging.table2_claim` and the page's
``level_or_not`` section): the decisiveness gap (high-agreement minus diverging) with its interval, the paper's gap
beside it, a verdict that follows the interval, the MSE models included; and the planted column's note rendering
max(p*, 1 − p*) whole."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from pluralign.diverging import table2_claim as C
from pluralign.diverging.pages import rewards_page
from pluralign.diverging.table2_paper import _PLANTED_NOTE


def test_gap_words_follow_the_interval():
    assert C.gap_words(0.01, -0.03, 0.04, probability=True) == "level"
    assert C.gap_words(0.10, 0.067, 0.138, probability=True) == "less decisive on diverging"
    assert C.gap_words(-0.10, -0.14, -0.06, probability=True) == "more decisive on diverging"
    # an interval that reaches past the band without excluding 0 decides nothing
    assert C.gap_words(0.02, -0.03, 0.08, probability=True) == "inconclusive"
    # inside the band even though it excludes 0: the claim's reading is "level"
    assert C.gap_words(0.02, 0.01, 0.04, probability=True) == "level"
    # MSE gaps (Likert points) have no band: the sign alone
    assert C.gap_words(0.02, 0.01, 0.04, probability=False) == "less decisive on diverging"
    assert C.gap_words(0.0, -0.01, 0.01, probability=False) == "inconclusive"
    assert C.gap_words(float("nan"), 0, 0, probability=True) == "no estimate"


def test_decisiveness_gap_is_high_agreement_minus_diverging():
    agreement = pd.Series(["high-agreement-pref"] * 40 + ["diverging"] * 40 + ["other"] * 5)
    values = pd.Series(np.r_[np.full(40, 0.9), np.full(40, 0.6), np.full(5, 0.5)])
    gap, lo, hi, n_high, n_div = C.decisiveness_gap(values, agreement, n_boot=200, seed=0)
    assert gap == pytest.approx(0.3) and lo <= 0.3 <= hi and (n_high, n_div) == (40, 40)
    nothing = C.decisiveness_gap(values[:40], agreement[:40], n_boot=50)
    assert np.isnan(nothing[0]) and nothing[3:] == (40, 0)


def _runs(bt_all_div: float, mse_div: float, n: int = 60):
    """One simulated-HelpSteer2-like run: BT (All) at 0.8 on high-agreement pairs and ``bt_all_div`` on diverging
    ones (P(A ≻ B) of these values), BT (Agg) level, MSE (Agg) at 1.0 against ``mse_div`` Likert points."""
    rng = np.random.default_rng(0)
    ids = [f"p{i}" for i in range(2 * n)]
    agreement = ["high-agreement-pref"] * n + ["diverging"] * n
    classified = pd.DataFrame(
        {"agreement": agreement, "substantial": False, "majority": None}, index=pd.Index(ids, name="pair_id")
    )
    noise = rng.normal(0, 0.01, 2 * n)
    p_all = pd.Series(np.r_[np.full(n, 0.8), np.full(n, bt_all_div)] + noise, index=ids).clip(0, 1)
    p_agg = pd.Series(np.full(2 * n, 0.75) + noise, index=ids)
    gap = pd.Series(np.r_[np.full(n, 1.0), np.full(n, mse_div)] + noise, index=ids)
    run = SimpleNamespace(classified=classified, p_a={"BT (Agg)": p_agg, "BT (All)": p_all}, gap={"MSE (Agg)": gap})
    return {"simulated-helpsteer2": run}


def test_table2_claim_reads_each_model_beside_the_papers_gap():
    c = C.table2_claim(_runs(0.7, 0.5), n_boot=200, seed=0)
    row = c.loc[("simulated-helpsteer2", "BT (All)")]
    assert row["gap"] == pytest.approx(0.1, abs=0.01) and row["says"] == "less decisive on diverging"
    # the paper's HelpSteer2 block: BT (All) 0.718 on high-agreement prefs. against 0.678 on diverging ones
    assert row["paper gap"] == pytest.approx(0.718 - 0.678) and row["paper says"] == "level"
    assert c.loc[("simulated-helpsteer2", "BT (Agg)"), "says"] == "level"
    mse = c.loc[("simulated-helpsteer2", "MSE (Agg)")]
    assert not mse["probability"] and mse["says"] == "less decisive on diverging"
    assert mse["paper gap"] == pytest.approx(0.811 - 0.706)
    assert C.claim_says(c.loc["simulated-helpsteer2"]) == "does not hold"
    level = C.table2_claim(_runs(0.8, 1.0), n_boot=200, seed=0)
    assert C.claim_says(level.loc["simulated-helpsteer2"]) == "holds"


def test_the_page_answers_whether_the_diverging_row_sits_level():
    """The Table 2 page's section that answers its own question: the verdict words in the table, the sentence its
    prose glues, the claim's verdict and the counts it reads."""
    study = SimpleNamespace(runs=_runs(0.7, 0.5), seed=0, settings=SimpleNamespace(n_boot=200, paper_reference=None))
    r = rewards_page.level_or_not(study)
    assert r.table.loc[("simulated-helpsteer2", "BT (All)"), "this run says"] == "less decisive on diverging"
    assert r.table.loc[("simulated-helpsteer2", "BT (All)"), "gap (paper)"] == "0.040"
    v = r.values
    assert v["t2c_claim"] == "does not hold" and (v["t2c_n_high"], v["t2c_n_div"]) == (60, 60)
    assert v["t2c_sentence"].startswith("BT (Agg) is level on the two rows (")
    assert "BT (All) is less decisive on diverging pairs than on high-agreement ones (0.1" in v["t2c_sentence"]
    assert "MSE (Agg) is less decisive on diverging pairs" in v["t2c_sentence"]
    assert "the paper's gap 0.105" in v["t2c_sentence"] and "—" not in v["t2c_sentence"]
    # the MSE models' pattern in a sentence of its own (the first data set may have no MSE model)
    assert (
        v["t2c_mse"].startswith("on simulated-helpsteer2, MSE (Agg) is less decisive")
        and "Likert points" in v["t2c_mse"]
    )
    assert "does not hold on simulated-helpsteer2" in r.note


def test_without_mse_models_the_page_says_so():
    runs = _runs(0.7, 0.5)
    runs["simulated-helpsteer2"].gap = {}
    study = SimpleNamespace(runs=runs, seed=0, settings=SimpleNamespace(n_boot=100, paper_reference=None))
    assert rewards_page.level_or_not(study).values["t2c_mse"].startswith("no MSE model is trained")


def test_the_table2_page_glues_the_answer_into_its_prose():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "notebooks" / "diverging_rewards.py").read_text()
    assert "rewards_page.level_or_not(study)" in text and "{glue:text}`t2c_sentence`" in text
    assert "{glue:text}`t2c_claim`" in text and "{glue:text}`t2c_mse`" in text
    # each glued sentence once on the page
    assert text.count("{glue:text}`t2c_sentence`") == 1 and text.count("{glue:text}`t2c_mse`") == 1


def test_the_planted_note_renders_max_p_star_whole():
    """Markdown read the bare "p*" of max(p*, 1 − p*) as emphasis, so the page showed "max(p, 1 − p\\*)"."""
    html = MarkdownIt("commonmark").render(_PLANTED_NOTE)
    assert "max(p*, 1 − p*)" in html and html.count("<em>") == 1


def test_the_mse_measure_is_named_without_a_code_identifier():
    """The violins' axis and the page's prose named the MSE measure "r_chosen − r_rejected", a snake_case identifier
    on a paper page; it reads r(chosen) − r(rejected)."""
    from pluralign.diverging.reward_models import chosen_values

    run = _runs(0.7, 0.5)["simulated-helpsteer2"]
    measures = set(chosen_values(run.classified, p_a=run.p_a, reward_gap=run.gap)["measure"])
    assert measures == {"P(chosen ≻ rejected)", "r(chosen) − r(rejected)"}

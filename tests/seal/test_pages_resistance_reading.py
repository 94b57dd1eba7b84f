"""The alignment-resistance page shows its numbers as what they are and says each thing once: the decisive pairs'
count as an integer and SEAL's shares as SEAL's analysis code prints them, one sentence for how many pairs the two
γ rules split, the rules by name rather than by setting, the other data's design beside the regimes it drives, and
the regime t-tests on θ as the paper computes it and on rewards centred per model."""

import re
from pathlib import Path

import pytest

from pluralign.presentation import present_html
from pluralign.seal.pages import resistance_page

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "seal_resistance.py"


def _cells(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c).replace("&nbsp;", " ").strip() for c in re.findall(r"<td[^>]*>.*?</td>", html)]


def test_decisive_pairs_show_a_count_as_an_integer_and_seals_shares_as_printed(study):
    r = resistance_page.decisive_pairs(study)
    cells = _cells(present_html(r.table))
    assert "39,283" in cells  # a count, not "39283.0"
    assert {"0.7241", "0.5665", "0.8041"} <= set(cells)  # SEAL's shares, not "1 | 1 | 1"
    n_here = r.data["n"][0]
    assert f"{n_here:,}" in cells and f"{n_here}.0" not in " ".join(cells)
    shares = [c for c in cells if re.fullmatch(r"\d\.\d{4}", c)]
    assert len(shares) == 6  # three per row, each with the four decimals the prose quotes


def test_the_rules_disagreement_is_said_once(study):
    lr = resistance_page.labeller_rules(study)
    assert f"{lr.values['n_rule_differs']} of" in lr.note  # the table's note says it
    text = NOTEBOOK.read_text()
    assert text.count("n_rule_differs") == 0  # and the prose does not say it again
    assert "labeller_rule`" not in text.replace("{glue:text}`labeller_rule`", "")


def test_the_notebook_names_no_setting_or_recovery_key():
    text = NOTEBOOK.read_text()
    prose = "\n".join(line for line in text.splitlines() if line.startswith("# ") and "glue:text" not in line)
    assert "claim_seal_alignment_shift" not in text and "`labeller_rule`" not in prose
    assert "hide-input" not in text and "report.reproduce(" in text and "What this page finds" in text


def test_regime_tests_read_both_thetas_and_state_the_offset(study):
    rt = resistance_page.regime_shift_tests(study)
    assert {"mean θ [95% CI]", "mean θ centred [95% CI]", "p (Bonferroni)", "p centred (Bonferroni)"} <= set(
        rt.table.columns
    )
    assert "offset" in rt.note and 0 <= rt.values["n_regime_tests_sig_centred"] <= rt.values["n_regime_tests"]
    assert rt.data["centred"].one_sample["n"].sum() == rt.data["tests"].one_sample["n"].sum()


def test_the_regimes_state_the_other_data_design(study):
    import dataclasses

    from pluralign.data import simulate
    from pluralign.seal.settings import DEMO_OTHER_DATA

    other = simulate(**{**DEMO_OTHER_DATA[0]["simulate"], "n_pairs": 40})
    designed = dataclasses.replace(study, other_parts=[other])
    note = resistance_page.regime_table(designed).note
    assert "opposite" in note and "sentiment (+0.2 in D, −0.5 there)" in note and "became aligned" in note
    assert resistance_page.regime_table(study).note == ""  # no other data with planted weights: nothing to state


def test_the_misalignment_figure_names_and_signs_as_its_table(study):
    mis = resistance_page.misalignment(study)
    from pluralign.seal.display import display_name
    from pluralign.seal.verdicts import VERDICTS

    labels = [t.get_text() for t in mis.figure.axes[0].get_yticklabels()]
    long = mis.data["long"]
    lpm = long[(long["variant"] == "LPM (OLS on 0/1, Table 7's scale)") & long["estimate"].notna()]
    assert labels == [display_name(f) for f in dict.fromkeys(lpm["paper_feature"])]
    assert "honest" in labels and "factual error" not in labels and not any("_" in x for x in labels)
    assert mis.caption and "Bonferroni" in mis.caption

    assert set(mis.table["verdict"]) <= set(VERDICTS)
    assert max(len(v) for v in mis.table["verdict"]) <= 20  # short words in the cell, the reading in the note
    assert "Verdicts:" in mis.note


@pytest.mark.parametrize("rule", ["harmless_first", "helpful_first"])
def test_rule_names_are_readable(rule):
    assert "_" not in resistance_page.RULE_NAMES[rule]

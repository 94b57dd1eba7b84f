"""How the rewards page reads Table 1's Δ beside the paper's (:mod:`pluralign.btb.readings` and the page's
sections): a row with no r says why (a constant p* is not "N < 10"); a row where the baseline does not track p*
cannot speak to the claim instead of giving a direction; the contrasts read as whole sentences; no "—" stands in a
sentence; the sweep's wording agrees with its numbers."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from pluralign.btb import decidability, evaluation, provenance, readings
from pluralign.btb.pages import decidability_page, rewards_page


def test_no_r_reason_names_the_real_reason():
    assert readings.no_r_reason([], []) == "no such pairs here"
    assert readings.no_r_reason([0.2, 0.8, 0.5], [0.1, 0.2, 0.3]) == "no r: N = 3 < 10"
    # 21 pairs, every one with p* = 1: r is undefined because p* does not vary, not because N < 10
    reason = readings.no_r_reason(np.ones(21), np.linspace(0, 1, 21), np.linspace(0, 1, 21))
    assert reason == "no r: p* = 1 on all 21 pairs" and "N < 10" not in reason
    const = readings.no_r_reason(np.linspace(0, 1, 31), np.full(31, 0.5), np.linspace(0, 1, 31))
    assert const == "no r: the baseline model's P(A ≻ B) is constant"
    assert readings.no_r_reason(np.linspace(0, 1, 31), np.linspace(0, 1, 31)) == ""


def test_a_baseline_that_does_not_track_p_star_cannot_speak_to_the_claim():
    """The rule reads the baseline's own r interval: the demo's 0.031 [−0.068, 0.128] overall and −0.157 on
    Single Correct (the paper's 0.802) give no direction, whatever Δ's interval shows."""
    assert not readings.tracks_p_star(-0.068) and not readings.tracks_p_star(float("nan"))
    assert readings.tracks_p_star(0.05)
    cannot = readings.WORDS["cannot"]
    assert readings.delta_words(0.08, 0.02, 0.14, paper=0.054, baseline_lo=-0.068) == cannot
    assert readings.delta_words(0.08, 0.02, 0.14, paper=0.054, baseline_lo=0.2) == "same direction"
    assert readings.delta_words(-0.08, -0.14, -0.02, paper=0.054, baseline_lo=0.2) == "opposite direction"
    assert readings.delta_words(0.01, -0.02, 0.04, paper=0.054, baseline_lo=0.2) == "inconclusive"
    assert readings.delta_words(0.08, 0.02, 0.14, paper=0.0, baseline_lo=0.2) == "above 0"
    assert readings.delta_words(np.nan, np.nan, np.nan, paper=0.054, baseline_lo=np.nan, reason="no r: x") == "no r: x"
    for w in readings.WORDS.values():  # short enough for a verdict cell (three lines at most)
        assert len(w) <= 45


def _study(monkeypatch):
    """A comparison of 120 test pairs: Multiple Correct where the baseline tracks p* and the regularized model
    tracks it better; Single Correct where the baseline ranks p* backwards; a data set of 21 pairs all with p* = 1."""
    monkeypatch.setattr(provenance, "require_test_p_star", lambda study: None)
    rng = np.random.default_rng(1)
    n = 120
    ids = [f"t{i}" for i in range(n)]
    p_star = rng.uniform(0.1, 0.9, n)
    multiple = np.arange(n) < 60
    p_star[-21:] = 1.0  # the "garbled" data set, in Single Correct
    base = np.where(multiple, p_star + rng.normal(0, 0.15, n), 1 - p_star + rng.normal(0, 0.15, n)).clip(0, 1)
    reg = np.where(multiple, p_star + rng.normal(0, 0.05, n), rng.uniform(0, 1, n)).clip(0, 1)
    groups = pd.DataFrame(
        {
            "dataset": np.where(np.arange(n) >= n - 21, "garbled", np.where(multiple, "open", "factual")),
            "domain": "ID",
            "kind": np.where(multiple, "Multiple Correct", "Single Correct"),
        },
        index=ids,
    )
    groups["kind_domain"] = groups["kind"] + " " + groups["domain"]
    s = pd.Series(p_star, index=ids)
    pb, pr = pd.Series(base, index=ids), pd.Series(reg, index=ids)
    table = evaluation.compare(s, pb, pr, by=groups, n_boot=300, seed=0)
    comparison = SimpleNamespace(table=table, p_star=s, p_baseline=pb, p_regularized=pr, groups=groups)
    return SimpleNamespace(comparison=comparison)


def test_beside_paper_says_why_a_row_has_no_r_and_when_the_demo_cannot_speak(monkeypatch):
    study = _study(monkeypatch)
    r = rewards_page.beside_paper(study)
    says = r.table["this run says"]
    assert says[("data set", "garbled")] == "no r: p* = 1 on all 21 pairs"
    assert not says.str.contains("N < 10").any()
    assert says[("subjectivity", "Single Correct")] == readings.WORDS["cannot"]
    assert says[("subjectivity", "Multiple Correct")] == "same direction"
    # readable grouping labels, the words explained in the note
    assert "kind_domain" not in r.table.index.get_level_values(0)
    assert "subjectivity × domain" in r.table.index.get_level_values(0)
    # the words are explained once on the page (under the directions), not twice
    assert readings.WORDS_NOTE not in r.note and readings.WORDS_NOTE in rewards_page.directions(study).note


def test_directions_read_the_contrasts_as_sentences(monkeypatch):
    study = _study(monkeypatch)
    r = rewards_page.directions(study)
    assert r.table.loc["Single Correct", "this run says"] == readings.WORDS["cannot"]
    assert r.table.loc["Multiple Correct", "this run says"] == "same direction"
    assert "baseline r here [95% CI]" in r.table.columns
    # the sentence names both groups (it read "Δ on multiple-correct than on single-correct pairs")
    assert "Δ r on multiple-correct pairs minus Δ r on single-correct pairs is " in r.note
    assert "the demo cannot speak to this contrast, because the baseline does not track p* on single-correct" in r.note
    assert "an interval below 0)" in r.note and "not above 0" not in r.note  # "above 0" reads as a direction
    assert "same direction as the paper" not in r.note
    assert (
        "out-of-domain pairs" in r.note and "is not measured here: this run has no r on out-of-domain pairs" in r.note
    )


def _decide_study(est, lo, hi, baseline, n=250):
    row = {"grouping": "all", "metric": "pearson", "n": n, "delta": est, "delta_lo": lo, "delta_hi": hi}
    row.update(zip(("baseline", "baseline_lo", "baseline_hi"), baseline))
    return SimpleNamespace(comparison=SimpleNamespace(table=pd.DataFrame([row])))


def test_no_dash_stands_in_a_sentence_of_the_decidability_section(monkeypatch):
    """ "this run's own Δ at about —" where Δ's interval already excluded 0: a clause that fits each case."""
    monkeypatch.setattr(provenance, "require_test_p_star", lambda study: None)
    r = decidability_page.decidable_size(_decide_study(0.1, 0.05, 0.15, (0.4, 0.3, 0.5)))
    assert r.values["btb_decide_n_here"] == "this run's own Δ r (+0.100) already has an interval that excludes 0"
    r = decidability_page.decidable_size(_decide_study(0.0, -0.02, 0.02, (0.4, 0.3, 0.5)))
    assert r.values["btb_decide_n_here"] == "this run's own Δ r is +0.000, which no test size tells from 0"
    r = decidability_page.decidable_size(_decide_study(0.01, -0.02, 0.04, (0.031, -0.068, 0.128)))
    assert r.values["btb_decide_n_here"] == "this run's own Δ r (+0.010) would be told from 0 at about 2,250"
    assert "no test size lets the demo speak to the claim" in r.values["btb_decide_says"]
    assert "0.031 [−0.068, 0.128], an interval that contains 0:" in r.values["btb_decide_says"]
    for v in r.values.values():
        assert "—" not in str(v)


def test_the_sweep_says_where_delta_lies_beside_the_paper_not_ruled_out(monkeypatch):
    """The sweep's "the paper's Δ ruled out" at every size read as a refutation two paragraphs after "neither a
    reproduction nor a refutation": it now says on which side of the paper's Δ this population's interval lies."""
    assert decidability._says(-0.02, 0.01, 0.054) == "below the paper's Δ (0.054)"
    assert decidability._says(0.06, 0.09, 0.054) == "Δ above 0; above the paper's Δ (0.054)"
    assert decidability._says(-0.02, 0.08, 0.054) == decidability.CANNOT
    t = pd.DataFrame(
        {
            "training pairs": [100, 250, 500],
            "says": ["cannot tell", "below the paper's Δ (0.054)", "Δ below 0; below the paper's Δ (0.054)"],
        }
    )
    assert decidability.decidable_at(t, "paper") == 250 and decidability.decidable_at(t, "sign") == 500
    monkeypatch.setattr(decidability, "SIZES", (100, 250, 500))
    said = decidability_page._decided("all test pairs", t, 500)
    assert said == (
        "On all test pairs, the sign of Δ r is settled from 500 training pairs, and its interval lies clear of the "
        "paper's median Δ (below it) from 250 training pairs."
    )
    none = decidability_page._decided("in-domain", t.assign(says="cannot tell"), 500)
    assert "at no size up to 500 training pairs" in none and "—" not in none and "ruled out" not in none


def _markdown(path: str) -> str:
    """The Markdown cells of a page's notebook (jupytext percent format), their comment marks removed."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / path).read_text()
    out = []
    for cell in text.split("# %%")[1:]:
        head, _, body = cell.partition("\n")
        if "[markdown]" in head:
            out.append("\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in body.splitlines()))
    return "\n".join(out)


def test_the_rewards_page_prose_fits_its_numbers():
    """The page's typed prose: no "—" standing for a missing value, no settings names or module paths, no bold
    paragraph, the contrasts and decidable sizes glued as whole clauses; findings first, the reproduce box last."""
    from pathlib import Path

    prose = _markdown("notebooks/btb_rewards.py")
    assert "at about\n{glue:text}`btb_decide_n_here`" not in prose
    assert "at about {glue:text}`btb_decide_n_here`" not in prose
    assert "— :" not in prose and "p_star_from" not in prose and "pluralign.btb" not in prose
    assert "**Is the demo large enough" not in prose and "**Table 1" not in prose
    assert "claim_margin_improves_pstar" not in prose
    assert "ruled out" not in prose
    assert prose.index("What this page finds") < prose.index("## Data")
    text = (Path(__file__).parents[2] / "notebooks/btb_rewards.py").read_text()
    last = text.rstrip().rpartition("# %%")[2]
    assert 'tags=["hide-input"]' not in text and "report.reproduce(" in last


def test_the_findings_sentences_hold_on_a_profile_without_some_groupings(monkeypatch):
    """The findings glue whole sentences, so that a profile without multiple-correct or out-of-domain pairs (the
    sample's) reads "no such pairs here" instead of "+nan", and a page whose sweep does not run still says so."""
    study = _study(monkeypatch)
    r = rewards_page.directions(study)
    s = r.values["btb_directions_sentence"]
    assert s.startswith("on multiple-correct pairs 0.") and "(the paper's +0.054): same direction" in s
    assert "on out-of-domain pairs (the paper's +0.111): no such pairs here" in s and "nan" not in s
    from pluralign import btb

    sample_like = btb.setup(data=[{"simulate": {"n_pairs": 60, "seed": 3}}], judge={"source": "annotators"})
    swept = decidability_page.training_size_sweep(sample_like)
    assert swept.skipped and swept.values["btb_sweep_decide"].startswith("The training-size sweep does not run")

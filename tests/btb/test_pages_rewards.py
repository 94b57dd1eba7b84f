"""The page "Margin-regularized reward models against p*" (pluralign.btb.pages.rewards_page): Tables 1–2, the
directions, the paper-sized check and the figures from the study's comparison; the paper's numbers it quotes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pluralign import btb, paper, presentation
from pluralign.btb import decidability
from pluralign.btb import evaluation as E
from pluralign.btb.pages import decidability_page, rewards_page
from rm_helpers import btb_reward_study

DATA = [{"simulate": {"n_pairs": 240, "seed": 3}}]


def test_paper_numbers_come_from_the_paper_table():
    t = paper.numbers("btb", "Table 1")
    t1 = E.paper_table1()
    assert len(t1) == 16 and len(t) == 64
    assert t1.set_index("category").loc["PRISM", "delta"] == paper.value("btb", "Table 1", "PRISM", "Δ")
    s = btb.setup(data=DATA, training={"lr_sweep": [1e-1, 1e-2, 1e-3]})
    v = rewards_page.paper_numbers(s).values
    assert v["btb_paper_n"] == 150 and v["btb_paper_n_per"] == "25" and v["btb_paper_lrs"] == "1e-4 to 1e-6"
    assert v["btb_lrs"] == "1e-1, 1e-2, 1e-3" and v["btb_lr_ratio"] == "about 1,000 times larger than"
    assert v["btb_paper_d_multiple"] == 0.054 and v["btb_paper_dmin"] == -0.04 and v["btb_paper_nmax"] == 124


def test_each_section_declares_the_names_its_prose_quotes():
    assert rewards_page.table_1.quotes[:3] == ("btb_r_baseline", "btb_r_baseline_lo", "btb_r_baseline_hi")
    assert "btb_n_test" in rewards_page.table_1.quotes and len(rewards_page.table_2.quotes) == 9
    assert decidability_page.paper_sized_check.quotes == ("btb_small_width", "btb_small_n")


@pytest.mark.slow
def test_reward_model_sections_on_the_simulator(monkeypatch):
    plt.close("all")
    s = btb_reward_study()
    c = s.comparison
    t1 = rewards_page.table_1(s)
    row = c.table[(c.table.grouping == "all") & (c.table.metric == "pearson")].iloc[0]
    assert t1.values["btb_r_baseline"] == row["baseline"] and t1.values["btb_n_test"] == len(c.splits.test)
    ids = list(c.splits.test.pairs["pair_id"])
    assert row["baseline"] == pytest.approx(np.corrcoef(c.p_star.reindex(ids), c.p_baseline.reindex(ids))[0, 1])
    assert "btb_n_test" not in rewards_page.table_2(s).values
    sweep = rewards_page.learning_rate_sweep(s)
    assert sweep.values["btb_lr_base"] in (0.1, 0.01) and (sweep.table["selected"] == "selected").sum() == 2
    d = rewards_page.directions(s)
    assert set(d.table.index) == {"Multiple Correct", "Single Correct", "ID", "OOD"}
    assert "Measured on this profile" in d.note
    small = decidability_page.paper_sized_check(s)
    assert small.values["btb_small_n"] == 50 and small.values["btb_small_width"] > 0
    assert "category" in rewards_page.beside_paper(s).table.index.names
    assert rewards_page.same_model_warning(s).note == ""
    monkeypatch.setattr(decidability, "SIZES", (60, 120))
    monkeypatch.setattr(decidability, "DRAWS", 2)
    sweep = decidability_page.training_size_sweep(s)
    # row labels that do not read as counts (a row "N = 60" of correlations read as a count shown with decimals)
    assert list(sweep.table.index[:3]) == ["60", "120", "120 (judge noise 0)"]
    assert sweep.values["btb_sweep_sizes"] == "60 to 120" and "in-domain test pairs" in sweep.values["btb_sweep_says"]
    assert len(sweep.data["fits"]) == 2 * 2 * (2 + len(decidability.NOISES) - 1)
    for r in (
        rewards_page.training_margins(s),
        rewards_page.rm_vs_p_star(s),
        rewards_page.delta_plot(s, "pearson"),
        rewards_page.delta_plot(s, "l1"),
        sweep,
    ):
        assert r.figure is not None or r.forest is not None
    assert plt.get_fignums() == []


def test_decidable_size_says_what_the_interval_supports(monkeypatch):
    """The test size at which the paper's central claim is decidable: N grows as 1/(Δ/half-width)²; the sentence
    says what the interval shows (it excludes the paper's effect size, or 0, or contains both; or the baseline's own r
    contains 0), the page's prose what each means."""
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from pluralign.btb import evaluation, provenance

    monkeypatch.setattr(provenance, "require_test_p_star", lambda study: None)
    t1 = evaluation.paper_table1()
    paper = float(np.median(t1.loc[t1["delta"] > 0, "delta"]))
    assert evaluation.paper_median_delta() == paper

    def study(est, lo, hi, n=250, baseline=(0.4, 0.3, 0.5)):
        row = {"grouping": "all", "metric": "pearson", "n": n, "delta": est, "delta_lo": lo, "delta_hi": hi}
        row.update(zip(("baseline", "baseline_lo", "baseline_hi"), baseline))
        return SimpleNamespace(comparison=SimpleNamespace(table=pd.DataFrame([row])))

    r = decidability_page.decidable_size(study(0.0, -paper / 4, paper / 4))
    assert "already excludes an improvement as large" in r.values["btb_decide_says"]
    assert r.values["btb_decide_n_paper"] == int(np.ceil(250 / 16))
    r = decidability_page.decidable_size(study(paper, paper / 2, 1.5 * paper))
    assert r.values["btb_decide_says"] == "its interval excludes 0"
    assert "already has an interval that excludes 0" in r.values["btb_decide_n_here"]
    r = decidability_page.decidable_size(study(paper / 2, -paper, 2 * paper))
    assert "contains both 0 and the paper's median" in r.values["btb_decide_says"]
    assert r.values["btb_decide_n_paper"] == int(np.ceil(250 * (1.5) ** 2))
    assert r.values["btb_decide_n_here"].endswith(f"would be told from 0 at about {int(np.ceil(250 * 9)):,}")
    # a baseline that does not track p* (its r's interval contains 0): no test size decides the claim
    r = decidability_page.decidable_size(study(0.0, -paper / 4, paper / 4, baseline=(0.03, -0.07, 0.13)))
    assert "an interval that contains 0" in r.values["btb_decide_says"]
    # a model whose scores are constant (tiny random-weight models): r and its interval are undefined; the section
    # has no estimate and says why instead of failing the page
    r = decidability_page.decidable_size(study(float("nan"), float("nan"), float("nan")))
    assert r.skipped.startswith("no estimate: Δ r has no interval: Pearson r is undefined on 250 test pairs with p*")
    assert set(r.values) == {"btb_decide_delta", "btb_decide_n_paper", "btb_decide_n_here", "btb_decide_says"}


def test_training_size_sweep_needs_a_simulated_population_and_judge():
    """Off the simulator (or with an LLM judge) the sweep does not apply: the section is left out with its reason."""
    s = btb.setup(data=DATA, judge={"source": "annotators"})
    r = decidability_page.training_size_sweep(s)
    assert r.skipped.startswith("the training-size sweep draws fresh training sets") and r.table is None
    assert "btb_sweep_decide" in decidability_page.training_size_sweep.quotes


def test_a_delta_without_an_interval_is_no_estimate_not_a_nan_width(monkeypatch):
    """One test pair with p* (the rehearsal's tiny LLM answered 1 of 150 parseably): r is undefined; the section
    says so and glues "—", not "nan wide"."""
    from types import SimpleNamespace

    import pandas as pd

    from pluralign.btb import provenance

    monkeypatch.setattr(provenance, "require_test_p_star", lambda study: None)
    row = {"grouping": "all", "metric": "pearson", "n": 1, "delta": float("nan")}
    row.update(delta_lo=float("nan"), delta_hi=float("nan"))
    comparison = SimpleNamespace(table=pd.DataFrame([row]), p_star=pd.Series([0.7, None], index=["a", "b"]))
    study = SimpleNamespace(
        comparison=comparison, settings=SimpleNamespace(evaluation=SimpleNamespace(paper_sized_check=150))
    )
    r = decidability_page.paper_sized_check(study)
    assert r.skipped == (
        "no estimate: Δ r has no interval: Pearson r is undefined on 1 test pair with p* (under two, or scores or p* "
        "constant)."
    )
    assert r.values["btb_small_n"] == 1 and r.values["btb_small_width"] == presentation.MISSING

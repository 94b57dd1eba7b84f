"""The recovery's population study (pluralign.recovery.study): its seeds, its wiring of every method row, and its
counts of false failures per row and for all rows together."""

import pandas as pd
import pytest

from pluralign.recovery import study
from pluralign.recovery.rows import REQUIRED


def test_seeds_are_derived_from_the_string():
    """The same seeds every time, distinct, never the book's seed 0; another string gives others."""
    seeds = study.study_seeds(200)
    assert seeds == study.study_seeds(200) and len(set(seeds)) == 200 and 0 not in seeds
    assert study.study_seeds(5, "another") != seeds[:5]


def test_every_method_row_is_studied():
    """The study runs exactly the table's method rows: a row added to the table without its study check fails."""
    assert set(study.ROW_CHECKS) == set(REQUIRED)


def _runs(outcomes: dict) -> pd.DataFrame:
    rows = [
        {
            "seed": s,
            "row": q,
            "recovered": ok,
            "failing": "" if ok else "bias",
            "seconds": 1.0,
            "fingerprint": study.rows_fingerprint(q) if q in study.ROW_SOURCES else "f",
        }
        for s, per_row in outcomes.items()
        for q, ok in per_row.items()
    ]
    return pd.DataFrame(rows + [{"seed": s, "row": "population", "seconds": 0.5} for s in outcomes])


def test_summary_counts_rows_and_populations():
    """Per row: its failures of n with the exact interval; all rows: a population on which two rows fail counts
    once, and a population where a row did not run (its run raised) is not counted as a pass."""
    from scipy.stats import binomtest

    runs = _runs(
        {
            1: {"a": True, "b": True},
            2: {"a": False, "b": False},
            3: {"a": True, "b": False},
            4: {"a": True, "b": True},
            5: {"a": True},  # b did not run
        }
    )
    s = study.summary(runs)
    assert (s["a"]["failures"], s["a"]["n"], s["a"]["failed_seeds"]) == (1, 5, [2])
    assert (s["b"]["failures"], s["b"]["n"], s["b"]["failed_tests"]) == (2, 4, ["bias", "bias"])
    assert s["a"]["fingerprint"] == "f"
    everything = s["all rows"]
    assert (everything["failures"], everything["n"], everything["failed_seeds"]) == (2, 4, [2, 3])
    ci = binomtest(2, 4).proportion_ci(method="exact")
    assert everything["ci95"] == pytest.approx([ci.low, ci.high])
    assert everything["seconds_mean"] == pytest.approx(2.5)  # both rows and the population, per seed


def test_recorded_reads_the_file(tmp_path):
    """The page's source: None before the study has run, its JSON after."""
    assert study.recorded(tmp_path / "none.json") is None
    (tmp_path / "s.json").write_text('{"rows": {"all rows": {"failures": 0, "n": 200}}}')
    assert study.recorded(tmp_path / "s.json")["rows"]["all rows"]["n"] == 200


def test_the_page_section_quotes_the_file_and_says_when_it_is_stale(tmp_path):
    """The recovery page's section reads the recorded counts; a study recorded on other row code says so, one on
    this code does not; without a study the section stays with its reason."""
    import json

    rec = {"noise_sd": 0.5766, "rows": study.summary(_runs({s: dict.fromkeys(REQUIRED, s != 3) for s in range(1, 11)}))}
    (tmp_path / "s.json").write_text(json.dumps(rec))
    r = study.result(tmp_path / "s.json")
    assert r.values["study_populations"] == "10" and r.values["study_all_rows"].startswith("1 of 10 (10.0 %")
    assert "Recorded on other code" not in r.note and len(r.table) == len(REQUIRED) + 1
    rec["rows"]["robustness_scores"]["fingerprint"] = "0" * 16
    (tmp_path / "s.json").write_text(json.dumps(rec))
    note = study.result(tmp_path / "s.json").note
    assert "Recorded on other code.** The code of SEAL Eq. 4 robustness scores has changed" in note
    missing = study.result(tmp_path / "none.json")
    assert missing.skipped.startswith("no estimate: no recorded study") and missing.values["study_populations"] == "—"


def test_a_row_fingerprint_follows_its_own_code():
    """Each row's fingerprint covers its check module: two rows of one module share it, rows of two modules do not."""
    fp = study.rows_fingerprint
    assert fp("diverging_share") == fp("diverging_taste_driven") != fp("robustness_scores")


def test_another_seed_than_the_books_trains_nothing(monkeypatch):
    """At a seed other than the book's, the recovery draws SEAL's inputs from the page's specs without building
    SEAL's study (which trains its RMs), and its table holds the method rows only."""
    from pluralign import seal
    from pluralign.data.spec import from_spec
    from pluralign.recovery import demo

    def no_training(*a, **k):
        raise AssertionError("SEAL's study was built")

    monkeypatch.setattr(seal, "setup", no_training)
    monkeypatch.setattr("pluralign.seal.study.setup", no_training)
    ctx = study.population(5, parts=("seal",))
    assert ctx.diverging is None and ctx.btb is None and ctx.seal.seed == 5
    assert ctx.seal.D.pairs.equals(from_spec(study._seal_settings("demo").design.data, 5).pairs)
    calls = []
    monkeypatch.setattr(study, "method_rows", lambda c, rows=REQUIRED: calls.append(c) or [])
    monkeypatch.setattr(study, "population", lambda seed, profile="demo": ctx)
    study.method_context.cache_clear()
    t = demo.recovery_context("demo", 7).table
    assert calls == [ctx] and t.empty and list(t.columns) == list(demo.COLUMNS)
    study.method_context.cache_clear()


def test_the_section_says_whether_the_target_is_met_from_the_rate_and_its_upper_bound(tmp_path):
    """Met only where the rate is at most the target and its exact upper 95 % bound at most the bound's target: 1
    failure of 300 meets both; 1 of 200 (rate 0.5 %, upper bound 2.7 %) and 2 of 200 (rate 1 %) do not."""
    import json

    for n, failed, met in ((300, {7}, True), (200, {7}, False), (200, {7, 8}, False)):
        rows = study.summary(_runs({s: dict.fromkeys(REQUIRED, s not in failed) for s in range(1, n + 1)}))
        (tmp_path / "s.json").write_text(json.dumps({"noise_sd": 0.5766, "rows": rows}))
        assert ("**met**" in study.result(tmp_path / "s.json").note) is met, (n, failed)


def test_the_section_shows_the_first_designed_study_beside_the_extended_one(tmp_path):
    """A study extended past its first design shows the first populations' count beside the whole study's, and the
    verdict reads the whole study; a study that was not extended says nothing of it."""
    import json

    outcomes = {s: dict.fromkeys(REQUIRED, s not in (7, 9, 400)) for s in range(1, 1001)}
    whole = study.summary(_runs(outcomes))
    first = study.summary(_runs({s: o for s, o in outcomes.items() if s <= 300}))["all rows"]
    (tmp_path / "s.json").write_text(json.dumps({"noise_sd": 0.5766, "rows": whole, "first_study": first}))
    note = study.result(tmp_path / "s.json").note
    assert "first designed with 300 populations, which showed 2 of 300 (0.7 %;" in note
    assert "2.4 %), outside the target; it was then extended" in note
    assert "extended to 1,000 (those 300 and 700 more), decided before the added populations were run" in note
    assert "**met** (3 of 1,000 (0.3 %;" in note
    (tmp_path / "s.json").write_text(json.dumps({"noise_sd": 0.5766, "rows": whole}))
    assert "first designed" not in study.result(tmp_path / "s.json").note


def test_the_section_reads_each_false_failure_again_or_says_why_not(tmp_path, monkeypatch):
    """Each false failure of a row that draws is listed with its re-read on the same population (the rows' summary
    as the study writes it, :func:`study.with_rereads`): a re-read that passes is shown as passing with what it
    reads, one that fails as failing with its test; a failure of a row that draws nothing says so."""
    import json

    outcomes = {s: dict.fromkeys(REQUIRED, True) for s in range(1, 11)}
    outcomes[3]["robustness_scores"] = outcomes[4]["imprint_weights"] = outcomes[5]["diverging_share"] = False
    calls = []

    def fake(seed, row, noise_sd, n_draws):
        calls.append((seed, row, noise_sd, n_draws))
        ok = row == "robustness_scores"
        return {"seed": seed, "row": row, "draws": n_draws, "recovered": ok, "failing": "" if ok else "spread"}

    monkeypatch.setattr(
        study, "reread", lambda s, q, noise, n=study.REREAD_DRAWS: {**fake(s, q, noise, n), "reads": f"r{s}"}
    )
    rows = study.with_rereads(study.summary(_runs(outcomes)), 0.5)
    assert sorted(calls) == [(3, "robustness_scores", 0.5, 400), (4, "imprint_weights", 0.5, 400)]
    (tmp_path / "s.json").write_text(json.dumps({"noise_sd": 0.5, "reread_draws": 400, "rows": rows}))
    note = study.result(tmp_path / "s.json").note
    own = "(in place of the row's own 25, the first of them) on the same population it"
    assert f"SEAL Eq. 4 robustness scores at seed 3 (bias): with 400 draws {own} **passes**: r3" in note
    assert f"at seed 4 (bias): with 400 draws {own} **fails** (spread): r4" in note
    assert "at seed 5 (bias): it draws nothing more to draw" in note


@pytest.mark.slow
def test_a_reread_is_the_row_with_more_draws_on_the_same_population():
    """A re-read with the row's own 25 draws is the study's run of that (seed, row), read for read; the row's own
    draws are what its check draws; with more draws it reads more intervals (narrower bands); a row that draws
    nothing is refused by name."""
    runs = study.run_rows(11, study.DEMO_NOISE, rows=("robustness_scores",))
    again = study.reread(11, "robustness_scores", study.DEMO_NOISE, n_draws=25)
    assert (again["reads"], again["recovered"], again["draws"]) == (runs[1]["reads"], runs[1]["recovered"], 25)
    ctx = study.population(11, parts={"seal"})
    own = study.own_draws("robustness_scores")  # what the page says a re-read replaces: the draws the row reads
    assert f"; {own} draws, each of" in study.ROW_CHECKS["robustness_scores"](ctx)["description"]
    more = study.reread(11, "robustness_scores", study.DEMO_NOISE, n_draws=100)
    band = lambda r: float(r["reads"].split(" in [")[1].split(",")[0])  # noqa: E731 - the 95 % band's lower end
    assert more["draws"] == 100 and band(more) > band(again)
    with pytest.raises(ValueError, match="'diverging_share' draws nothing to draw more of"):
        study.reread(11, "diverging_share", study.DEMO_NOISE)

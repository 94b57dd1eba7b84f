"""The sections of the agreement page (:mod:`pluralign.diverging.pages.agreement_page`): their numbers are the
library's."""

from __future__ import annotations

import matplotlib.figure
import pytest

from pluralign import diverging
from pluralign.diverging import agreement as agreement_lib
from pluralign.diverging.pages import agreement_page
from pluralign.report import Result

SPECS = [
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "multipref"}},
    {"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "helpsteer2"}},
]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return diverging.setup(
        datasets=SPECS, annotation={"dir": str(tmp_path_factory.mktemp("sheets")), "reference": "planted", "n": 20}
    )


def test_agreement_shares_are_the_librarys(study):
    r = agreement_page.shares(study)
    assert isinstance(r, Result) and isinstance(r.figure, matplotlib.figure.Figure)
    sh = agreement_lib.shares(agreement_lib.agreement_classes(study.data[0]))
    assert r.values["div_share_0"] == sh["diverging share"].iloc[0]
    assert r.values["div_n_0"] == 300 and r.values["paper_mp"] == 0.39 and r.values["paper_hs2"] == 0.24
    assert r.table.loc["simulated-multipref", "paper: diverging"] == "39%"
    assert "stand-in reference" in r.note and sum(ln.startswith("- **") for ln in r.note.splitlines()) == 2
    # the planted population's diverging share beside the estimate (MultiPref format only; "—" otherwise)
    from pluralign.diverging.agreement import planted_divergence

    assert r.table.loc["simulated-multipref", "planted: diverging"] == f"{planted_divergence(study.data[0]).mean():.1%}"
    assert r.table.loc["simulated-helpsteer2", "planted: diverging"] == "—" and "planted: diverging" in r.note
    assert list(agreement_page.examples(study).table.columns) == ["class", "substantial", "judgments", "prompt"]


def test_the_agreement_tables_carry_readable_class_names_and_the_box_its_verdict(study):
    """The classes were shown by their library names ("high-agreement-pref", "diverging-substantial"); the box's
    verdict on the diverging share reads the planted share against the share's own interval."""
    r = agreement_page.shares(study)
    assert "high-agreement preference" in r.table.columns and "high-agreement-pref" not in r.table.columns
    assert "diverging, substantial" in r.table.columns and "agreement.planted_divergence" not in r.note
    assert r.table.index.name == "data set"
    assert set(agreement_page.examples(study).table["class"]) <= set(agreement_page.CLASS_NAMES.values())
    rec = agreement_page.planted_recovery(study)
    assert "high-agreement tie" in rec.table.columns and 0 <= rec.values["taste_precision_0"] <= 1
    says = r.values["div_vs_planted_0"]
    assert says.startswith("the planted share lies ") and "95% interval" in says
    assert r.values["div_vs_planted_1"] == "no planted population to read it against"
    assert r.values["planted_sentence_0"].startswith("it makes ") and says in r.values["planted_sentence_0"]
    assert rec.values["taste_sentence_0"].endswith("of the taste-driven pairs come out diverging")
    assert r.caption


def test_a_share_reads_against_the_planted_share_by_its_interval():
    lo, hi = agreement_page.wilson(30, 100)
    assert lo < 0.3 < hi and round(lo, 3) == 0.219 and round(hi, 3) == 0.396
    assert agreement_page.against_planted(30, 100, 0.33).startswith("the planted share lies inside")
    assert agreement_page.against_planted(30, 100, 0.5).startswith("the planted share lies above")
    assert agreement_page.against_planted(30, 100, 0.1).startswith("the planted share lies below")
    assert agreement_page.against_planted(30, 100, None) == ""


def test_planted_recovery_per_data_set_and_none_on_real_data(study):
    r = agreement_page.planted_recovery(study)
    rec = agreement_lib.planted_recovery(study.classified["simulated-multipref"], study.data[0].truth)
    assert r.data["recovery"]["simulated-multipref"].table.equals(rec.table)
    assert (
        r.table.loc[("simulated-multipref", "objective"), "diverging"]
        == f"{rec.table.at['objective', 'diverging']:.1%}"
    )
    assert f"{rec.precision:.1%} of the diverging pairs" in r.note
    real = diverging.setup(datasets=SPECS[:1])
    real.data[0].truth = None
    assert agreement_page.planted_recovery(real).table is None


def test_the_agreement_page_warns_when_there_is_one_judgment_per_pair(tmp_path):
    import json

    rows = [{"prompt": f"p{i}", "response_a": "a", "response_b": "b", "preference": 2} for i in range(5)]
    (tmp_path / "single.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    study = diverging.setup(
        datasets=[{"name": "local", "source": str(tmp_path / "single.jsonl"), "dataset_name": "single"}]
    )
    note = agreement_page.shares(study).note
    assert ":::{warning}" in note and "one judgment per pair" in note and "single" in note
    multi = diverging.setup(datasets=[{"simulate": {"n_pairs": 30, "seed": 0}}])
    assert ":::{warning}" not in agreement_page.shares(multi).note

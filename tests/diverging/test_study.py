"""Part I's study: setup(**params) -> Study, and every section a page shows as a report.Result whose numbers
are the library functions' (the pages only display them)."""

from __future__ import annotations

import subprocess
import sys

import matplotlib.figure
import numpy as np
import pytest

from pluralign import diverging, paper
from pluralign.diverging import agreement, causes, knowing, reward_models
from pluralign.params import ParamsError
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


def test_import_does_not_import_torch():
    code = "import sys, pluralign.diverging, pluralign; pluralign.agreement_classes; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_top_level_agreement_classes_is_the_parts():
    import pluralign

    assert pluralign.agreement_classes is diverging.agreement_classes is agreement.agreement_classes


def test_setup_loads_each_data_set_apart_and_checks_the_paper_reference():
    s = diverging.setup(datasets=SPECS[:1])
    assert s.names == ["simulated-multipref"] and s.split == {"test": 300, "validation": 100}
    assert s.annotation["n"] == 50 and s.cause_classifier == {"llm": None, "pairs": 50}
    with pytest.raises(ValueError, match="not loaded"):
        diverging.setup(datasets=SPECS[:1], paper_reference={"pandalm": "multipref"})
    with pytest.raises(ParamsError, match="not a key of models"):
        diverging.setup(datasets=SPECS[:1], reward_model="nope", models={"tiny": {"head": "linear"}})
    named = diverging.setup(datasets=SPECS[:1], reward_model="tiny", models={"tiny": {"head": "mlp"}})
    assert named.reward_model == {"head": "mlp"} and named.head == "small MLP"


def test_profile_note_names_the_pages_stand_ins(study):
    text = study.profile_note("rewards").data
    assert "**demo** profile" in text and "linear head over frozen all-MiniLM-L6-v2" in text
    assert "Stand-ins" not in diverging.setup(datasets=SPECS[:1], profile="paper").profile_note("know").data


def test_agreement_shares_are_the_librarys(study):
    r = study.agreement_shares()
    assert isinstance(r, Result) and isinstance(r.figure, matplotlib.figure.Figure)
    sh = agreement.shares(agreement.agreement_classes(study.data[0]))
    assert r.values["div_share_0"] == sh["diverging share"].iloc[0]
    assert r.values["div_n_0"] == 300 and r.values["paper_mp"] == 0.39 and r.values["paper_hs2"] == 0.24
    assert r.table.loc["simulated-multipref", "paper: diverging"] == "39%"
    assert "stand-in reference" in r.note and sum(ln.startswith("- **") for ln in r.note.splitlines()) == 2
    # the planted population's diverging share beside the estimate (MultiPref format only; "—" otherwise)
    from pluralign.diverging.agreement import planted_divergence

    assert r.table.loc["simulated-multipref", "planted: diverging"] == f"{planted_divergence(study.data[0]).mean():.1%}"
    assert r.table.loc["simulated-helpsteer2", "planted: diverging"] == "—" and "planted: diverging" in r.note
    assert list(study.class_examples().table.columns) == ["agreement", "substantial", "votes", "prompt"]


def test_planted_recovery_per_data_set_and_none_on_real_data(study):
    r = study.planted_recovery()
    rec = agreement.planted_recovery(study.classified["simulated-multipref"], study.data[0].truth)
    assert r.data["recovery"]["simulated-multipref"].table.equals(rec.table)
    assert (
        r.table.loc[("simulated-multipref", "objective"), "diverging"]
        == f"{rec.table.at['objective', 'diverging']:.1%}"
    )
    assert f"{rec.precision:.1%} of the diverging pairs" in r.note
    real = diverging.setup(datasets=SPECS[:1])
    real.data[0].truth = None
    assert real.planted_recovery().table is None


def test_cause_sections(study):
    t1 = study.taxonomy()
    assert t1.table["paper MP"].tolist()[:2] == ["20%", "38%"] and len(t1.paper) == 20
    assert study.diverging_pairs().table["diverging pairs"].tolist() == [len(v) for v in study.diverging_ids.values()]
    f = study.cause_frequencies()
    assert f.figure is not None and "Labelled diverging pairs" in f.note
    sheets = study.annotation_sheets()
    assert sheets.data["read_back"] == 0 and len(sheets.table) == 3
    rt = study.annotation_round_trip()
    assert "identical for every data set: **yes**" in rt.note
    written, imported = study._round_trip
    assert rt.table["labels imported"].tolist() == [len(imported[n]) for n in study.names]
    ag = study.label_agreement()
    direct = causes.agreement_table(imported)
    assert ag.data["agreement"].equals(direct) and ag.table.loc["simulated-multipref", "paper κ"] == "0.59"
    assert "```text" in study.cause_prompt().note
    assert "not run on this profile" in study.llm_causes().skipped


def test_causes_without_a_reference_say_where_labels_come_from(tmp_path):
    s = diverging.setup(datasets=SPECS[:1], annotation={"dir": str(tmp_path), "n": 5})
    assert s.cause_frequencies().table is None
    assert "annotation.files" in s.annotation_round_trip().note
    assert s.label_agreement().table is None


def test_paper_numbers_are_read_from_the_paper_table():
    t = paper.numbers("diverging", "Table 2")
    assert len(t) == 40 and set(t["column"]) == {"# Ex.", "BT (Agg)", "BT (All)", "MSE (Agg)", "MSE (All)"}
    assert reward_models.paper_table2("multipref").loc["High-Agreement Prefs.", "BT (Agg)"] == 0.786
    assert causes.taxonomy_table().loc["safety", "paper MP"] == 0.16
    assert agreement.paper_diverging_share("helpsteer2") == 0.24


def test_judges_without_any_say_so(study):
    r = study.judge_decisiveness()
    assert r.table is None and "No LLM judge" in r.skipped


@pytest.mark.slow
def test_mse_aggregate_variants_are_named_options():
    """Table 2's MSE (Agg): majority vote (the paper's, §3) by default, the mean Likert score on request."""
    assert (
        reward_models.table2_models()["MSE (Agg)"] == ("mse", "aggregate") == reward_models.TABLE2_MODELS["MSE (Agg)"]
    )
    assert reward_models.table2_models("mean")["MSE (Agg)"] == ("mse", "aggregate-mean")
    assert reward_models.table2_models("mean")["BT (Agg)"] == ("bt", "aggregate")
    assert diverging.setup(datasets=SPECS[:1]).mse_aggregate == "majority"
    assert diverging.setup(datasets=SPECS[:1], mse_aggregate="mean").mse_aggregate == "mean"
    with pytest.raises(ValueError, match="mse_aggregate must be one of"):
        diverging.setup(datasets=SPECS[:1], mse_aggregate="median")


def test_reward_model_sections_end_to_end():
    """Table 2 and the mean-variance sections on a small simulated set with the demo RM (frozen MiniLM + linear
    head): the glued values are the library's Table 2 numbers, every subset has a row."""
    s = diverging.setup(
        datasets=[{"simulate": {"n_pairs": 240, "seed": 2, "annotation_format": "helpsteer2"}}],
        split={"test": 80, "validation": 40},
        train={"epochs": 2},
        n_boot=50,
    )
    runs = s.reward_models()
    assert runs.table.loc["simulated-helpsteer2", "held-out pairs"] == 80 and "training instances" in runs.note
    # the page states how the reward models were loaded (quantization, precision, device) in one line
    loading = "trained copies of embedded all-MiniLM-L6-v2 (frozen-encoder + linear head): unquantized"
    assert runs.note.splitlines()[0].startswith(f"*Reward models: {loading}") and f"on {s.rm.device}" in runs.note
    t2 = s.table2()
    r = s.runs["simulated-helpsteer2"]
    assert isinstance(r, reward_models.RewardModelRun) and not r.skipped and len(r.heldout.pairs) == 80
    direct = reward_models.table2(r.classified, p_a=r.p_a, reward_gap=r.gap, n_boot=50, seed=0)
    assert t2.values["t2_BT_Agg_div"] == direct.loc["Diverging Prefs. (All)", "BT (Agg)"]
    assert t2.values["t2_paper_sum"] == "127 + 141 + 178 < 500"
    assert list(t2.table.loc["simulated-helpsteer2"].index) == list(reward_models.SUBSETS)
    assert "MSE (All) (paper)" in t2.table.columns
    # the demo's planted truth beside the estimates: the population's own decisiveness per subset
    planted = t2.table.loc["simulated-helpsteer2", "planted: the population's P(chosen ≻ rejected)"].astype(float)
    pop = r.heldout.truth["share_a"].reindex(r.heldout.pairs["pair_id"])
    assert planted["All Examples"] == round(float(np.maximum(pop, 1 - pop).mean()), 3)
    assert planted["High-Agreement Prefs."] > planted["Diverging Prefs. (All)"]
    # MSE (Agg) is trained on the majority-vote label by default, and the page says so
    assert t2.values["t2_mse_aggregate"] == "majority" and "`mse_aggregate: majority`" in t2.note
    assert r.models["MSE (Agg)"].info["train"]["labels"] == "aggregate"
    assert r.models["MSE (Agg)"].dropped["pairs split evenly between A and B (no majority)"] == int(
        (r.train.majority() == "split").sum()
    )
    assert s.decisiveness().figure is not None
    mv = s.mean_variance()
    run = s.mv_runs["simulated-helpsteer2"]
    assert mv.values["auc_0"] == run.summary.auc.estimate and mv.values["auc_name_0"] == "simulated-helpsteer2"
    assert run.summary.auc == knowing.disagreement_auroc(
        run.mv["predicted disagreement"], run.summary.labels, n_boot=50
    )
    assert "Mean-Var (All)" in s.mean_variance_table2().table.columns
    assert set(run.run.classified.index) >= set(
        run.run.heldout.pairs["pair_id"]
    )  # §4 reads the held-out pairs' classes
    assert len(mv.table) == len(s.data)
    assert mv.note == s.loading_line() and "unquantized" in mv.note


def test_the_agreement_page_warns_when_there_is_one_judgment_per_pair(tmp_path):
    import json

    rows = [{"prompt": f"p{i}", "response_a": "a", "response_b": "b", "preference": 2} for i in range(5)]
    (tmp_path / "single.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    from pluralign import diverging

    study = diverging.setup(
        datasets=[{"name": "local", "source": str(tmp_path / "single.jsonl"), "dataset_name": "single"}]
    )
    note = study.agreement_shares().note
    assert ":::{warning}" in note and "one judgment per pair" in note and "single" in note
    multi = diverging.setup(datasets=[{"simulate": {"n_pairs": 30, "seed": 0}}])
    assert ":::{warning}" not in multi.agreement_shares().note


def test_each_part_one_page_names_the_version_of_the_paper_it_follows():
    """The "do models know" page (mean-variance RM, LLM judges) follows the full arXiv version 2410.14632; the
    other Part I pages the workshop version (the seed); both are in references.bib, and every cited key is."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    bib = set(re.findall(r"@\w+\{([^,]+),", (root / "references.bib").read_text()))
    assert {"zhang2024diverging", "zhang2024divergingworkshop"} <= bib
    assert "2410.14632" in (root / "references.bib").read_text().split("zhang2024diverging,")[1].split("@")[0]
    follows = {
        "diverging_agreement": "zhang2024divergingworkshop",
        "diverging_causes": "zhang2024divergingworkshop",
        "diverging_rewards": "zhang2024divergingworkshop",
        "diverging_know": "zhang2024diverging",
        "diverging_causes_llm": "zhang2024diverging",
    }
    for page, key in follows.items():
        text = (root / "notebooks" / f"{page}.py").read_text()
        said = text.split("*Version followed:*")[1].split("{cite}`")[1].split("`")[0]
        assert said == key, (page, said)
    cited = {
        k.strip()
        for f in (root / "notebooks").glob("*.py")
        for keys in re.findall(r"\{cite(?::[pt])?\}`([^`]+)`", f.read_text())
        for k in keys.split(",")
    }
    assert cited <= bib, cited - bib
    assert all("workshop version" in n for n in paper.numbers("diverging")["note"])

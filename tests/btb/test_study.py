"""Part III's study (pluralign.btb.setup): each section of the three pages returns a Result whose numbers are the
library's own functions applied to the study's data; categories, p* and the paper's Table 1 come from one place."""

from __future__ import annotations

import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from pluralign import btb, paper, report
from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb import subjectivity as S
from pluralign.btb import training as T
from pluralign.params import ParamsError
from rm_helpers import btb_reward_study

DATA = [{"simulate": {"n_pairs": 240, "seed": 3}}]


@pytest.fixture(scope="module")
def study():
    return btb.setup("demo", 0, data=DATA, judge={"noise": 0.5})


def test_import_does_not_pull_torch():
    code = "import sys, pluralign.btb; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_setup_merges_defaults_and_resolves_named_models():
    models = {
        "judge_llm": {"name": "some/model", "base_url": "http://127.0.0.1:1/v1"},
        "rm": {"name_or_path": "x/y", "kind": "seq-cls"},
    }
    s = btb.setup(
        "paper",
        1,
        data=DATA,
        judge={"from": "llm", "model": "judge_llm"},
        labeller={"model": "judge_llm", "samples": 2},
        training={"reward_model": "rm", "epochs": 2},
        models=models,
    )
    assert s.judge["model"] == models["judge_llm"] and s.judge["n"] == 10 and s.judge["top_p"] == 0.9
    assert s.labeller["model"] == models["judge_llm"] and s.labeller["samples"] == 2
    assert s.training["reward_model"] == models["rm"] and s.training["epochs"] == 2
    assert s.training["lr_sweep"] == list(T.LR_SWEEP)
    assert s.same_model_warning().note == ""  # p* and categories are not the LLM's
    s.p_star_from = "llm"
    assert "the same model (some/model)" in s.same_model_warning().note
    with pytest.raises(ParamsError, match="not a key of models"):
        btb.setup(data=DATA, judge={"model": "judge_lm"}, models=models)


class _TenPeople:
    """A loaded stand-in labeller: every Appendix B task-3 answer is "7 A - 3 B" (p* = 0.7)."""

    def __init__(self, name):
        self.name = name

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1, job=None):
        return [["7 A - 3 B"] * n for _ in prompts]


def test_sources_count_pairs_and_warn_when_not_human_or_circular():
    """Where p* comes from, per pair, on the page; an LLM labeller warns (not human), and says 'circular' when it
    is the margin judge or of its family (both Llama); a labeller of another family is not circular."""
    llama = {"name": "meta-llama/Meta-Llama-3-70B-Instruct", "base_url": "http://127.0.0.1:1/v1"}
    demo = btb.setup("demo", 0, data=DATA)
    src = demo.sources("subjectivity")
    assert src.table["pairs"].to_dict() == {("p*", "truth"): 240, ("categories", "truth"): 240}
    assert src.note == "" and demo.same_model_warning().note == ""
    with pytest.raises(ValueError, match="p_star_from: unknown source 'labeller'"):
        btb.setup("demo", 0, data=DATA, p_star_from=["labels", "labeller"])
    with pytest.raises(ValueError, match="categories: unknown source 'annotators'"):
        btb.setup("demo", 0, data=DATA, categories="annotators")
    for name, circular in (
        ("meta-llama/Meta-Llama-3-8B-Instruct", "a model of the same family (Llama"),
        ("meta-llama/Meta-Llama-3-70B-Instruct", "the same model (meta-llama/Meta-Llama-3-70B"),
        ("Qwen/Qwen2.5-72B-Instruct", None),
    ):
        s = btb.setup(
            "paper",
            0,
            data=[
                {"simulate": {"n_pairs": 60, "seed": 3}},  # four annotators per pair
                {"simulate": {"n_pairs": 60, "seed": 4, "n_annotators": 1}},
            ],
            p_star_from=["labels", "annotators", "llm"],
            categories="truth",
            labeller={"model": _TenPeople(name), "samples": 1, "job": None},
            judge={"from": "llm", "model": llama},
        )
        r = s.sources("subjectivity")
        counts = r.table["pairs"]
        assert counts[("p*", "llm")] == 60 and counts[("p*", "annotators (4 per pair)")] == 60
        assert counts[("categories", "truth")] == 120
        one = s.data.n_annotators().to_numpy() == 1
        assert (s.p_star[one] == 0.7).all() and s.p_star[~one].equals(s.data.share_a()[~one].rename("p_star"))
        if circular:
            assert r.note.startswith(":::{warning}") and "Circular evaluation" in r.note and circular in r.note
            assert "Circular evaluation" in s.same_model_warning().note
        else:
            assert "Not human" in r.note and "not circular" in r.note and "Circular" not in r.note
            assert s.same_model_warning().note == ""


def test_subjectivity_sections(study):
    plt.close("all")
    d = study.data
    cats = study.categories()
    assert isinstance(cats, report.Result)
    single = cats.data["summary"].set_index("category").loc["Single Correct", "n"]
    assert single == int((d.truth["kind"] == "single").sum())
    assert f"{single} pairs are *single correct*" in cats.note
    gap = study.binary_judgment_gap()
    ev = gap.data["evaluation"]
    binary = T.binary_judgments(d, seed=0)
    bids = binary.pairs["pair_id"]
    want = E.evaluate(d.truth["share_a"].reindex(bids), binary.share_a().reindex(bids), seed=0)
    got = ev[(ev.source == "one binary judgment") & (ev.grouping == "all")].set_index("metric")
    assert gap.values["btb_binary_l1"] == pytest.approx(want.set_index("metric").loc["l1", "value"])
    assert got.loc["pearson", "value"] == pytest.approx(want.set_index("metric").loc["pearson", "value"])
    assert gap.values["btb_binary_dropped"] == len(d) - len(binary)
    assert gap.figure is not None and study.p_star_by_category().figure is not None
    assert plt.get_fignums() == []  # closed: shown once, where displayed
    ex = study.examples(1).table
    assert set(ex["category"]) <= {
        "single / distinguishable",
        "single / indistinguishable",
        "multiple / distinguishable",
        "multiple / indistinguishable",
    }
    assert "Task 1 (subjectivity)" in study.appendix_b().note
    assert study.data_sets().table["pairs"].tolist() == [240]


def test_margins_sections(study):
    sj = study.judgments
    want = M.judgments_from("simulated", study.data, n=10, seed=0, noise=0.5).set_index("pair_id")
    pd.testing.assert_series_equal(sj["margin"], want["margin"])
    q = study.judge_quality()
    side = E.side_agreement(study.p_star, sj["p_a"].reindex(study.ids), seed=0)
    assert q.values["btb_judge_side"] == side["value"] and q.values["btb_judge_side_n"] == side["n"]
    dist = study.margin_distribution()
    assert dist.values == {"btb_n_judgments": 10}
    assert "takes 6 values" in dist.note and "m = 0.2" in dist.note
    assert "not run" in study.embedded_judge(0).skipped
    assert study.judgment_prompt(show=False).note == ""
    assert study.judgment_prompt().note.startswith("```text\nI am going to give you a prompt")


def test_judge_quality_without_a_separate_judge():
    s = btb.setup(data=DATA, judge={"from": "annotators"})
    assert "no separate judge" in s.judge_quality().note and not s.judge_quality().values


def test_paper_numbers_come_from_the_paper_table():
    t = paper.numbers("btb", "Table 1")
    t1 = E.paper_table1()
    assert len(t1) == 16 and len(t) == 64
    assert t1.set_index("category").loc["PRISM", "delta"] == paper.value("btb", "Table 1", "PRISM", "Δ")
    s = btb.setup(data=DATA, training={"lr_sweep": [1e-1, 1e-2, 1e-3]})
    v = s.paper_numbers("rewards").values
    assert v["btb_paper_n"] == 150 and v["btb_paper_n_per"] == "25" and v["btb_paper_lrs"] == "1e-4 to 1e-6"
    assert v["btb_lrs"] == "1e-1, 1e-2, 1e-3" and v["btb_lr_ratio"] == "about 1,000 times larger than"
    assert v["btb_paper_d_multiple"] == 0.054 and v["btb_paper_dmin"] == -0.04 and v["btb_paper_nmax"] == 124
    assert s.paper_numbers("subjectivity").values == {
        "btb_subj_paper_n": 150,
        "btb_paper_single": 0.802,
        "btb_paper_multiple": 0.572,
    }


def test_categories_from_each_source(tmp_path):
    from pluralign.data import simulate

    d = simulate(n_pairs=30, seed=2)
    c = S.categories_from("truth", d)
    assert c["kind"].tolist() == d.truth["kind"].tolist()
    assert c["distinguishable"].tolist() == d.truth["distinguishable"].tolist()
    assert S.categories_from("none", d).isna().all().all() and len(S.categories_from("none", d)) == 30
    ids = list(d.pairs["pair_id"][:4])
    c = S.categories_from({"kind": {d.pairs["dataset"].iloc[0]: "single"}}, d, ids)
    assert c["kind"].tolist() == ["single"] * 4 and c["distinguishable"].isna().all()
    f = tmp_path / "labels.csv"
    pd.DataFrame(
        {
            "pair_id": [ids[0]] * 3 + [ids[1]] * 2,
            "annotator": [1, 2, 3, 1, 2],
            "kind": ["single", "single", "multiple", "multiple", "multiple"],
            "distinguishable": [True, False, False, True, True],
        }
    ).to_csv(f, index=False)
    c = S.categories_from("labels", d, ids[:2], labels_file=f)
    assert c["kind"].tolist() == ["single", "multiple"] and c["distinguishable"].tolist() == [False, True]
    with pytest.raises(ValueError, match="categories must be"):
        S.categories_from("datasets", d)


def test_evaluation_splits_hold_out_ood_and_test_only():
    from pluralign.data import simulate

    d = simulate(n_pairs=200, seed=4)
    sp = T.evaluation_splits(
        d, ood_by={"column": "prompt_type", "values": ["creative"]}, test_size=40, validation_size=30, seed=0
    )
    creative = set(d.truth.index[d.truth["prompt_type"] == "creative"])
    train_ids = set(sp.train.pairs["pair_id"]) | set(sp.validation.pairs["pair_id"])
    assert creative and not creative & train_ids and creative <= set(sp.test.pairs["pair_id"])
    assert len(sp.test) == 40 + len(creative)
    assert sp.table()["pairs"].tolist() == [len(sp.train), len(sp.validation), len(sp.test)]
    assert sp.everything is d


def test_interval():  # verdicts: report.verdict, the book's one rule (tests/test_present.py)
    assert E.interval(0.15276, 0.0668, 0.2417) == "0.153 [0.067, 0.242]" and E.interval(np.nan, 0, 0) == "—"


@pytest.mark.slow
def test_reward_model_sections_on_the_simulator():
    plt.close("all")
    s = btb_reward_study()
    c = s.comparison
    t1 = s.table("pearson")
    row = c.table[(c.table.grouping == "all") & (c.table.metric == "pearson")].iloc[0]
    assert t1.values["btb_r_baseline"] == row["baseline"] and t1.values["btb_n_test"] == len(c.splits.test)
    ids = list(c.splits.test.pairs["pair_id"])
    assert row["baseline"] == pytest.approx(np.corrcoef(c.p_star.reindex(ids), c.p_baseline.reindex(ids))[0, 1])
    assert "btb_n_test" not in s.table("l1").values
    sweep = s.learning_rate_sweep()
    assert sweep.values["btb_lr_base"] in (0.1, 0.01) and sweep.table["selected"].sum() == 2
    d = s.directions()
    assert set(d.table.index) == {"Multiple Correct", "Single Correct", "ID", "OOD"}
    assert "Measured on this profile" in d.note
    small = s.paper_sized_check()
    assert small.values["btb_small_n"] == 50 and small.values["btb_small_width"] > 0
    assert "category" in s.beside_paper().table.index.names
    assert s.same_model_warning().note == ""
    for r in (s.training_margins(), s.rm_vs_p_star(), s.delta_plot("pearson"), s.delta_plot("l1")):
        assert r.figure is not None
    assert plt.get_fignums() == []


def test_the_paper_profile_takes_human_labels_first_and_is_not_circular():
    """params/paper: p* and the categories from human labels first (the paper's three annotators, §3.2), the LLM
    labeller only as the fallback, and that labeller of another model family than the Llama margin judge."""
    from pathlib import Path

    from pluralign.params import named_model, read_params

    root = Path(__file__).resolve().parents[2] / "params" / "paper"
    for page in ("btb-subjectivity.yml", "btb-rewards.yml"):
        p = read_params(root / page)
        d, models = p["design"], p["models"]
        assert d["p_star_from"][:2] == ["labels", "annotators"] and d["categories"][0] == "labels"
        judge = {**d["judge"], "model": named_model(d["judge"]["model"], models, what="judge")}
        labeller = named_model(d["labeller"]["model"], models, what="labeller")
        assert S.model_family(judge["model"]) == "Llama" and S.model_family(labeller) not in (None, "Llama")
        c = S.circularity(d["p_star_from"], d["categories"], labeller, judge)
        assert len(c) == 2 and (c["same"] == "").all()
        # the same chain with the judge as labeller is what the pages call circular
        assert (S.circularity(d["p_star_from"], d["categories"], judge["model"], judge)["same"] == "model").all()


def test_no_correlation_on_fewer_than_ten_pairs():
    """Issue 13: a Pearson r on N = 4 was printed; below 10 pairs the value is missing ("too few")."""
    import numpy as np
    import pandas as pd

    from pluralign.btb import evaluation as E

    rng = np.random.default_rng(0)
    ids = [f"p{i}" for i in range(12)]
    p_star = pd.Series(rng.uniform(0, 1, 12), index=ids)
    p_model = (p_star + rng.normal(0, 0.1, 12)).clip(0, 1)
    few = E.evaluate(p_star.iloc[:9], p_model.iloc[:9], n_boot=200)
    enough = E.evaluate(p_star.iloc[:10], p_model.iloc[:10], n_boot=200)
    r = lambda t: t[t.metric == "pearson"]["value"].iloc[0]
    assert np.isnan(r(few)) and np.isfinite(r(enough))

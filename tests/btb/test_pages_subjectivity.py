"""The page "Categories of subjectivity and p*" (pluralign.btb.pages.subjectivity_page): each section's numbers are the
library's own functions applied to the study's data; p* sources counted per pair, with warnings."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from pluralign import btb, report
from pluralign.btb import evaluation as E
from pluralign.btb import provenance
from pluralign.btb import training as T
from pluralign.btb.pages import stand_ins, subjectivity_page

DATA = [{"simulate": {"n_pairs": 240, "seed": 3}}]


@pytest.fixture(scope="module")
def study():
    return btb.setup("demo", 0, data=DATA, judge={"noise": 0.5})


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
    src = subjectivity_page.sources(demo)
    assert src.table["pairs"].to_dict() == {("p*", "truth"): 240, ("categories", "truth"): 240}
    assert src.note == "" and provenance.same_model_warning(demo).note == ""
    with pytest.raises(ValueError, match=r"p_star_from\.1: Input should be 'truth', .* \(got 'labeller'\)"):
        btb.setup("demo", 0, data=DATA, p_star_from=["labels", "labeller"])
    with pytest.raises(
        ValueError, match=r"categories: Input should be 'truth', 'labels', 'llm' or 'none' \(got 'annotators'\)"
    ):
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
            labeller={"model": name, "samples": 1},
            judge={"source": "llm", "model": llama},
        )
        # the loaded stand-in in place of the named labeller's load arguments (a setting holds arguments only)
        loaded = s.settings.labeller.model_copy(update={"model": _TenPeople(name), "job": None})
        s.settings = s.settings.model_copy(update={"labeller": loaded})
        r = subjectivity_page.sources(s)
        assert "labels_file" not in r.note and "p_star_from" not in r.note  # no setting named in a page's warning
        counts = r.table["pairs"]
        assert counts[("p*", "llm")] == 60 and counts[("p*", "annotators (4 per pair)")] == 60
        assert counts[("categories", "truth")] == 120
        one = s.data.n_annotators().to_numpy() == 1
        assert (s.p_star[one] == 0.7).all() and s.p_star[~one].equals(s.data.share_a()[~one].rename("p_star"))
        if circular:
            assert r.note.startswith(":::{warning}") and "Circular evaluation" in r.note and circular in r.note
            assert "Circular evaluation" in provenance.same_model_warning(s).note
        else:
            assert "Not human" in r.note and "not circular" in r.note and "Circular" not in r.note
            assert provenance.same_model_warning(s).note == ""


def test_subjectivity_sections(study):
    plt.close("all")
    d = study.data
    cats = subjectivity_page.categories(study)
    assert isinstance(cats, report.Result)
    single = cats.data["summary"].set_index("category").loc["Single Correct", "n"]
    assert single == int((d.truth["kind"] == "single").sum())
    assert f"{single} pairs are *single correct*" in cats.note
    gap = subjectivity_page.binary_judgment_gap(study)
    ev = gap.data["evaluation"]
    binary = T.binary_judgments(d, seed=0)
    bids = binary.pairs["pair_id"]
    want = E.evaluate(d.truth["share_a"].reindex(bids), binary.share_a().reindex(bids), seed=0)
    got = ev[(ev.source == "one binary judgment") & (ev.grouping == "all")].set_index("metric")
    assert gap.values["btb_binary_l1"] == pytest.approx(want.set_index("metric").loc["l1", "value"])
    assert got.loc["pearson", "value"] == pytest.approx(want.set_index("metric").loc["pearson", "value"])
    assert gap.values["btb_binary_dropped"] == len(d) - len(binary)
    assert gap.figure is not None and subjectivity_page.p_star_by_category(study).figure is not None
    assert plt.get_fignums() == []  # closed: shown once, where displayed
    shown = subjectivity_page.examples(study, 1)
    ex = shown.data["examples"]
    # each text cut short enough for three lines of a table cell (160 characters ran to five or six)
    texts = shown.table[["prompt", "response A", "response B"]].to_numpy().ravel()
    assert max(map(len, texts)) <= subjectivity_page.EXAMPLE_CHARS and any(t.endswith("…") for t in texts)
    assert set(ex["category"]) <= {
        "single correct, distinguishable",
        "single correct, indistinguishable",
        "multiple correct, distinguishable",
        "multiple correct, indistinguishable",
    }
    assert len(subjectivity_page.examples(study).data["examples"]) == len(ex)  # n_examples = 1 by default
    assert "Task 1 (subjectivity)" in subjectivity_page.appendix_b_tasks(study).note
    assert subjectivity_page.data_sets(study).table["pairs"].tolist() == [240]


def test_the_premise_is_read_from_an_interval_and_the_tables_carry_readable_labels(study):
    """§3.1's premise (the population agrees more on single-correct pairs) as an interval with a verdict for the
    page's findings; the summary's raw column names (mean_agreement, n) and Table 1's groupings (kind) relabelled."""
    import numpy as np
    import pandas as pd

    kind = pd.Series(["single"] * 50 + ["multiple"] * 50)
    p = pd.Series(np.r_[np.full(50, 0.9), np.full(50, 0.5)] + np.random.default_rng(0).normal(0, 0.02, 100))
    g = subjectivity_page.agreement_gap(kind, p, n_boot=200)
    assert g["says"] == "higher on single-correct pairs" and g["lo"] > 0.7
    assert subjectivity_page.agreement_gap(kind, 1 - p, n_boot=200)["says"] == "higher on single-correct pairs"
    flat = pd.Series(np.random.default_rng(1).uniform(0, 1, 100))
    assert subjectivity_page.agreement_gap(kind, flat, n_boot=200)["says"] in ("inconclusive",)
    assert subjectivity_page.agreement_gap(kind[:50], p[:50])["says"] == "no estimate"
    cats = subjectivity_page.categories(study)
    assert "mean population agreement |2p* − 1|" in cats.table.columns and "mean_agreement" not in cats.table.columns
    assert cats.values["btb_subj_agree_says"] in ("higher on single-correct pairs", "inconclusive")
    assert cats.values["btb_subj_agree_sentence"].startswith("Mean population agreement |2p* − 1| 0.")
    gap = subjectivity_page.binary_judgment_gap(study)
    assert "kind" not in gap.table.index.get_level_values("grouping") and gap.caption
    assert 0 <= gap.values["btb_binary_l1_multiple"] <= 1
    assert gap.values["btb_binary_kind_sentence"].endswith("on multiple-correct pairs")


def test_paper_numbers_come_from_the_paper_table(study):
    assert subjectivity_page.paper_numbers(study).values == {
        "btb_subj_paper_n": 150,
        "btb_paper_single": 0.802,
        "btb_paper_multiple": 0.572,
    }


def test_the_profile_note_names_the_stand_ins(study):
    note = report.profile_note(study.profile, stand_ins(study, "subjectivity")).data
    assert "**demo** profile" in note and "planted population share" in note

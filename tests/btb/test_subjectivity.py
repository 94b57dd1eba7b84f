"""Beyond the Binary (004) §3.1–3.2, Appendix B tasks 1–3, Eq. 2: categories and p*."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign.btb import subjectivity as S
from pluralign.data.core import PreferenceData


def _data():
    pairs = pd.DataFrame(
        {
            "pair_id": ["p0", "p1", "p2", "p3"],
            "dataset": "t",
            "split": "test",
            "prompt": [
                "What is the capital of France?",
                "Write a poem about rain.",
                "Write a poem about rain.",
                "Tell me a joke.",
            ],
            "response_a": ["Paris.", "Rain falls...", "Drops on glass", "Why did..."],
            "response_b": ["Lyon.", "Rain is falling...", "A storm at sea", "Knock knock"],
        }
    )
    ann = pd.DataFrame(
        {
            "pair_id": ["p0"] * 3 + ["p1"] * 3 + ["p2"] * 3 + ["p3"] * 3,
            "annotator_id": list("xyz") * 4,
            "preference": [-2, -2, -1, -1, 1, 0, 2, 2, 1, -1, 1, -2],
        }
    )
    return PreferenceData(pairs, ann, {"name": "t"})


# ---------------------------------------------------------------------------------------------
# prompts quote Appendix B
# ---------------------------------------------------------------------------------------------
def test_task_prompts_quote_appendix_b():
    t1 = S.task1_prompt("Name a prime.", suffix=None)
    assert t1 == (
        "Consider the following prompt: Name a prime.\n\n"
        "Is there a single factually, correct response to this prompt? Options:\n"
        "A) There is only one single correct choice to this prompt.\n"
        "B) There are multiple possible correct answers to this prompt"
    )
    t2 = S.task2_prompt("x?", "first", "second", suffix=None)
    assert t2.startswith(
        "Consider the following two candidate model outputs in response to the prompt: x?\n"
        "Answer A: first\n\nAnswer B: second\n\n"
    )
    assert "Can you clearly tell the two responses apart? Are they significantly different from one another?" in t2
    assert "A) Both choices are essentially the same content, just with minor stylistic variations." in t2
    assert t2.endswith("B) The two choices are clearly different from each other and distinguishable.")
    t3 = S.task3_prompt("x?", "first", "second", suffix=None)
    assert (
        "If you asked 10 different people, how many would prefer answer A and how many would prefer answer B?"
    ) in t3
    assert S.TASK3_OPTIONS[0] == "1) 10 A - 0 B" and S.TASK3_OPTIONS[5] == "6) 5 A - 5 B"
    assert S.TASK3_OPTIONS[-1] == "11) 0 A - 10 B" and len(S.TASK3_OPTIONS) == 11
    # the default adds the project's answer instruction after the quoted text
    assert S.task1_prompt("q").startswith(t1.replace("Name a prime.", "q")) and S.task1_prompt("q").endswith("Answer:")


@pytest.mark.parametrize(
    "text,want",
    [
        ("A", "A"),
        (" B", "B"),
        ("B) The two choices are clearly different", "B"),
        ("(A)", "A"),
        ("Option B", "B"),
        ("The answer is A.", "A"),
        ("a", "A"),
        ("Answer: B", "B"),
        ("Both", None),
        ("", None),
        (None, None),
        ("Option A or option B", None),
    ],
)
def test_parse_option(text, want):
    assert S.parse_option(text) == want


@pytest.mark.parametrize(
    "text,want",
    [
        ("7 A - 3 B", 7),
        ("10 A - 0 B", 10),
        ("0 A - 10 B", 0),
        ("4) 7 A - 3 B", 7),
        ("3A-7B", 3),
        ("6", 5),
        ("1", 10),
        ("11", 0),
        ("12", None),
        ("7 A - 2 B", None),
        ("no idea", None),
        (None, None),
        ("7 A - 3 B or 6 A - 4 B", None),
    ],
)
def test_parse_ten_people(text, want):
    assert S.parse_ten_people(text) == want


# ---------------------------------------------------------------------------------------------
# LLM labellers with a scripted backend
# ---------------------------------------------------------------------------------------------
class ScriptedLLM:
    """Answers from a function of the prompt; ``name`` is its identity (the cache keys on it)."""

    def __init__(self, answer, name="scripted"):
        self.answer = answer  # (prompt text, n) -> list of completions
        self.name = name
        self.calls = []

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1, job=None):
        self.calls.append(len(prompts))
        return [self.answer(p, n) for p in prompts]

    def structured(self, prompts, schema, job=None):
        self.calls.append(len(prompts))
        return [self.answer(p, 1)[0] for p in prompts]


def test_classify_subjectivity_votes_dedupes_prompts_and_caches():
    def answer(p, n):
        if "capital of France" in p:
            return ["A"] * n
        if "poem" in p:
            return ["B) There are multiple", "B", "A"][:n]
        return ["maybe"] * n

    llm = ScriptedLLM(answer)
    with pytest.warns(UserWarning, match="3 of 12 answers unparseable"):
        out = S.classify_subjectivity(llm, _data(), samples=3, temperature=1.0)
    assert llm.calls == [3]  # three distinct prompts, asked once each
    r = out.set_index("pair_id")
    assert r.loc["p0", "kind"] == "single" and r.loc["p0", "agreement"] == 1.0
    assert r.loc["p1", "kind"] == "multiple" and r.loc["p2", "kind"] == "multiple"
    assert r.loc["p1", ["votes_A", "votes_B", "n"]].tolist() == [1, 2, 3]
    assert r.loc["p3", "kind"] is None and r.loc["p3", "n_unparsed"] == 3
    with pytest.warns(UserWarning):
        S.classify_subjectivity(llm, _data(), samples=3, temperature=1.0)
    assert llm.calls == [3]  # cached


def test_classify_distinguishability_and_several_labellers():
    def para(p, n):
        return ["A"] * n if "Rain falls" in p else ["B"] * n

    def contrary(p, n):
        return ["B"] * n

    out = S.classify_distinguishability(
        [ScriptedLLM(para, "l1"), ScriptedLLM(para, "l2"), ScriptedLLM(contrary, "l3")], _data()
    )
    r = out.set_index("pair_id")
    assert r.loc["p1", "distinguishable"] is False  # 2 of 3 labellers: paraphrases
    assert r.loc["p0", "distinguishable"] is True and r.loc["p0", "agreement"] == 1.0
    assert r.loc["p1", "agreement"] == pytest.approx(2 / 3)


def test_structured_method():
    llm = ScriptedLLM(lambda p, n: [{"option": "A"} if "France" in p else {"option": "B"}])
    out = S.classify_subjectivity(llm, _data(), method="structured")
    assert out.set_index("pair_id")["kind"].tolist() == ["single", "multiple", "multiple", "multiple"]
    with pytest.raises(ValueError, match="samples=1"):
        S.classify_subjectivity(llm, _data(), method="structured", samples=2)
    ten = ScriptedLLM(lambda p, n: [{"prefer_a": 8, "prefer_b": 2}])
    est = S.user_preference_estimation(ten, _data(), method="structured")
    assert (est["prefer_a"] == 8).all()


def test_user_preference_estimation_to_p_star():
    def l1(p, n):
        return ["8 A - 2 B"] * n if "Paris" in p else ["3) 8 A - 2 B", "5 A - 5 B"][:n]

    def l2(p, n):
        return ["6 A - 4 B"] * n if "Paris" in p else ["not sure"] * n

    with pytest.warns(UserWarning, match="unparseable"):
        est = S.user_preference_estimation(
            [ScriptedLLM(l1, "l1"), ScriptedLLM(l2, "l2")], _data(), samples=2, temperature=1.0
        )
    assert set(est["labeller"]) == {"llm0.0", "llm0.1", "llm1.0", "llm1.1"} and len(est) == 16
    p_star = S.aggregate_preference(est)
    # p0: labeller answers 8, 8, 6, 6 → mean 7/10
    assert p_star["p0"] == pytest.approx(0.7)
    # p1: 8 and 5 parse, two unparseable skipped → 0.65
    assert p_star["p1"] == pytest.approx(0.65)
    assert p_star.name == "p_star" and list(p_star.index) == ["p0", "p1", "p2", "p3"]


def test_aggregate_preference_from_humans_and_real_annotators():
    # three human annotators' task-3 answers, averaged (§3.2): (10 + 7 + 4) / 30
    h = pd.DataFrame(
        {"pair_id": ["q"] * 3 + ["r"] * 3, "labeller": list("xyz") * 2, "prefer_a": [10, 7, 4, 0, 1, np.nan]}
    )
    p = S.aggregate_preference(h)
    assert p["q"] == pytest.approx(0.7) and p["r"] == pytest.approx(0.05)
    with pytest.warns(UserWarning, match="no usable estimate"):
        S.aggregate_preference(pd.DataFrame({"pair_id": ["s"], "prefer_a": [np.nan]}))
    with pytest.raises(ValueError, match="between 0 and 10"):
        S.aggregate_preference(pd.DataFrame({"pair_id": ["s"], "prefer_a": [11]}))
    with pytest.raises(TypeError, match="PreferenceData or a DataFrame"):
        S.aggregate_preference(pd.DataFrame({"pair_id": ["s"], "votes": [3]}))
    # real annotators: Eq. 2 = share preferring A (tie counts half)
    p = S.aggregate_preference(_data())
    np.testing.assert_allclose(p.to_numpy(), [1.0, 0.5, 0.0, 2 / 3])


def test_majority_vote_over_human_labels():
    lab = pd.DataFrame(
        {
            "pair_id": ["a"] * 3 + ["b"] * 3 + ["c"] * 2,
            "annotator": list("xyz") * 2 + list("xy"),
            "kind": ["single", "multiple", "single", "multiple", "multiple", "multiple", "single", "multiple"],
        }
    )
    with pytest.warns(UserWarning, match="1 items tied"):
        out = S.majority_vote(lab, "kind")
    r = out.set_index("pair_id")
    assert r.loc["a", "kind"] == "single" and r.loc["a", "agreement"] == pytest.approx(2 / 3)
    assert r.loc["b", "kind"] == "multiple" and r.loc["b", "n"] == 3
    assert r.loc["c", "kind"] is None
    with pytest.raises(ValueError, match="need columns"):
        S.majority_vote(lab, "distinguishable")


# ---------------------------------------------------------------------------------------------
# real data (sample profile): PandaLM's three human annotators give a real p*
# ---------------------------------------------------------------------------------------------
def test_pandalm_real_p_star_margins_and_llm_judges(shared_data):
    from pluralign.btb import evaluation as E
    from pluralign.btb import margins as M
    from pluralign.data import load
    from pluralign.rewards import objectives as O

    humans = load("pandalm", source=shared_data / "pandalm" / "testset-v1.json")
    judges = load("pandalm-judges", source=shared_data / "pandalm")
    p_star = S.aggregate_preference(humans)
    assert len(p_star) == 999 and p_star.notna().all()
    # three annotators, ties half: p* takes only the values k/6
    np.testing.assert_allclose((p_star * 6).round(), p_star * 6, atol=1e-9)
    m = M.margins_from_annotators(humans).set_index("pair_id")
    assert (m["n"] == 3).all()
    np.testing.assert_allclose(m["margin"], (2 * p_star - 1).abs().reindex(m.index), atol=1e-12)
    assert set(np.round(m["margin"], 6)) <= {0.0, round(1 / 3, 6), round(2 / 3, 6), 1.0}
    # without ties the margin is Eq. 3 over the three binary votes
    no_tie = m[m["n_tie"] == 0]
    np.testing.assert_allclose(no_tie["margin"], O.margin_from_counts(no_tie["n_a"], no_tie["n"]))
    # the two LLM judges' share of A votes tracks the human p* (measured: r ≈ 0.63, L1 ≈ 0.23)
    res = E.evaluate(p_star, S.aggregate_preference(judges), n_boot=300)
    r = res[res["metric"] == "pearson"].iloc[0]
    assert 0.45 < r["value"] < 0.8 and r["lo"] > 0.4


def test_classifiers_through_pluralign_llm_interface():
    """generate and structured paths through pluralign.llm.base.LLM (scripted primitives)."""
    from pluralign.llm.base import LLM

    class Scripted(LLM):
        backend, model = "scripted", "subj"

        def _complete_many(self, prompts, settings, on_done):
            for i, p in enumerate(prompts):
                if "Return only a JSON" in p or "JSON" in p:
                    on_done(i, ['{"option": "A"}' if "France" in p else '{"option": "B"}'] * settings["n"])
                elif "10 different people" in p:
                    on_done(i, [" 7 A - 3 B"] * settings["n"])
                else:
                    on_done(i, [" A" if "France" in p else " B"] * settings["n"])

    llm = Scripted()
    kinds = S.classify_subjectivity(llm, _data(), job="t1")["kind"].tolist()
    assert kinds == ["single", "multiple", "multiple", "multiple"]
    js = S.classify_subjectivity(llm, _data(), method="structured", suffix="\nAnswer in JSON.", job="t1s")
    assert js["kind"].tolist() == kinds
    p = S.aggregate_preference(S.user_preference_estimation(llm, _data(), job="t3"))
    np.testing.assert_allclose(p.to_numpy(), 0.7)


def test_labeller_temperature_and_top_p_reach_the_server():
    """The paper profile's labeller_samples = 3 are distinct labellers only if sampled: temperature and
    top_p travel from the three Appendix B tasks through pluralign.llm's OpenAI-compatible client to the
    project's own server (real HTTP, scripted model); greedy decoding with samples > 1 warns."""
    import pluralign.llm as llm_mod
    from pluralign.llm.scripted import ScriptedBackend
    from pluralign.llm.server import serve

    class Recording(ScriptedBackend):
        def __init__(self, reply):
            super().__init__(reply)
            self.settings = []

        def complete(self, prompt, **kw):
            self.settings.append((kw["temperature"], kw["top_p"], kw["n"]))
            return super().complete(prompt, **kw)

    def reply(prompt, k):  # a different answer per sample, as a sampled labeller would give
        if "10 different people" in prompt:
            return [" 7 A - 3 B", " 5 A - 5 B", " 6 A - 4 B"][k % 3]
        return [" A", " B", " A"][k % 3]

    backend = Recording(reply)
    with serve(backend) as s:
        lab = llm_mod.load(s.model_id, base_url=s.url, mode="completions", concurrency=1, max_retries=0)
        kind = S.classify_subjectivity(lab, _data(), samples=3, temperature=1.0, top_p=0.9, job="temp1")
        dist = S.classify_distinguishability(lab, _data(), samples=3, temperature=1.0, top_p=0.9, job="temp2")
        est = S.user_preference_estimation(lab, _data(), samples=3, temperature=1.0, top_p=0.9, job="temp3")
        assert backend.settings and set(backend.settings) == {(1.0, 0.9, 3)}
        with pytest.warns(UserWarning, match="identical answers"):
            S.classify_subjectivity(lab, _data(), samples=3, job="temp0")
    assert backend.settings[-1][:2] == (0.0, 1.0)
    assert (kind["n"] == 3).all() and kind["kind"].eq("single").all() and (kind["agreement"] < 1).all()
    assert dist["distinguishable"].eq(False).all()
    np.testing.assert_allclose(S.aggregate_preference(est).to_numpy(), 0.6)


def test_category_summary_hand_values():
    from pluralign.btb.subjectivity import category_summary

    kind = pd.Series({"a": "single", "b": "multiple", "c": "multiple", "d": None})
    dist = pd.Series({"a": True, "b": False, "c": True, "d": True})
    p = pd.Series({"a": 1.0, "b": 0.5, "c": 0.7, "d": 0.2})
    t = category_summary(kind, dist, p).set_index(["dimension", "category"])
    assert t.loc[("plurality of responses", "Multiple Correct"), "n"] == 2
    assert t.loc[("plurality of responses", "unassigned"), "n"] == 1  # counted, not dropped
    assert t.loc[("plurality of responses", "Multiple Correct"), "mean_p_star"] == pytest.approx(0.6)
    assert t.loc[("plurality of responses", "Multiple Correct"), "mean_agreement"] == pytest.approx((0 + 0.4) / 2)
    assert t.loc[("distinguishability", "Distinguishable"), "share"] == pytest.approx(0.75)
    assert t.loc[("distinguishability", "Indistinguishable"), "mean_agreement"] == pytest.approx(0.0)
    assert "mean_p_star" not in category_summary(kind).columns
    with pytest.raises(ValueError, match="'single' or 'multiple'"):
        category_summary(pd.Series({"a": "both"}))
    # a pair without p* (e.g. every LLM answer unparseable) is counted per category and left out of the means
    lacking = category_summary(kind, p_star=p.drop("d")).set_index("category")
    assert lacking.loc["unassigned", "n_without_p_star"] == 1 and np.isnan(lacking.loc["unassigned", "mean_p_star"])
    assert lacking.loc["Multiple Correct", "n_without_p_star"] == 0
    assert lacking.loc["Multiple Correct", "mean_p_star"] == pytest.approx(0.6)


def test_p_star_from_truth_annotators_labels(tmp_path):
    from pluralign.data import simulate

    sim = simulate(n_pairs=30, seed=2)
    ids = list(sim.pairs["pair_id"])[5:12]
    p = S.p_star_from("truth", sim, ids)
    assert list(p.index) == ids and p.name == "p_star"
    np.testing.assert_allclose(p.to_numpy(), sim.truth["share_a"].reindex(ids).to_numpy())
    d = _data()
    p = S.p_star_from("annotators", d)
    np.testing.assert_allclose(p.to_numpy(), [1.0, 0.5, 0.0, 2 / 3])
    csv = tmp_path / "labels.csv"  # human answers to task 3: p* = mean of prefer_a / 10
    pd.DataFrame(
        {"pair_id": ["p0", "p0", "p0", "p2", "p2"], "labeller": list("xyzxy"), "prefer_a": [9, 8, 7, 2, 5]}
    ).to_csv(csv, index=False)
    p = S.p_star_from("labels", d, ["p2", "p1", "p0"], labels_file=csv)
    assert list(p.index) == ["p2", "p1", "p0"]
    assert p["p0"] == pytest.approx(0.8) and p["p2"] == pytest.approx(0.35) and np.isnan(p["p1"])
    assert S.p_star_from("none", d) is None
    with pytest.raises(ValueError, match="labels_file"):
        S.p_star_from("labels", d)
    with pytest.raises(ValueError, match="truth.share_a"):
        S.p_star_from("truth", d)
    with pytest.raises(ValueError, match="truth, annotators, labels, llm"):
        S.p_star_from("oracle", d)


def test_p_star_from_llm_asks_only_the_requested_pairs():
    asked = []

    def l1(p, n):
        asked.append(p)
        return ["8 A - 2 B"] * n

    p = S.p_star_from("llm", _data(), ["p0"], labeller=ScriptedLLM(l1, "l1"), samples=1)
    assert p.to_dict() == {"p0": pytest.approx(0.8)} and len(asked) == 1 and "Paris" in asked[0]


# ---------------------------------------------------------------------------------------------
# where p* and the categories come from: human first, an LLM for the rest; circularity
# ---------------------------------------------------------------------------------------------
def _mixed():
    """p0-p2: three annotators each; p3: one annotator, x, who prefers A (not a population's share)."""
    d = _data()
    ann = d.annotations[~((d.annotations["pair_id"] == "p3") & (d.annotations["annotator_id"] != "x"))]
    return PreferenceData(d.pairs, ann.reset_index(drop=True), {"name": "t"})


def test_annotator_p_star_on_a_hand_case():
    """Eq. 2 over three annotators (a tie counts half): p0 (A, A, A) = 1, p1 (A, B, tie) = 1/2, p2 (B, B, B) = 0;
    p3's single label is not a population, so in a chain its p* falls through to the LLM (8 of 10 → 0.8)."""
    asked = []

    def ten(p, n):
        asked.append(p)
        return ["8 A - 2 B"] * n

    out = S.p_star_with_source(["annotators", "llm"], _mixed(), labeller=ScriptedLLM(ten, "chain-ten"), samples=1)
    assert out["p_star"].to_dict() == pytest.approx({"p0": 1.0, "p1": 0.5, "p2": 0.0, "p3": 0.8})
    assert out["source"].tolist() == ["annotators (3 per pair)"] * 3 + ["llm"]
    assert len(asked) == 1 and "Knock knock" in asked[0]  # only p3 is asked
    # alone (not a chain), annotators is every pair's share, one label or three
    alone = S.p_star_with_source("annotators", _mixed())
    assert alone["p_star"]["p3"] == 1.0 and alone["source"]["p3"] == "annotators (1 per pair)"
    assert S.p_star_from(["annotators", "llm"], _mixed(), ["p1"], labeller=ScriptedLLM(ten, "chain-ten")).to_dict() == {
        "p1": 0.5
    }


def test_a_chain_takes_human_labels_first_and_skips_a_missing_labels_file(tmp_path):
    csv = tmp_path / "labels.csv"
    pd.DataFrame(
        {
            "pair_id": ["p3", "p3", "p3"],
            "labeller": list("xyz"),
            "prefer_a": [6, 7, 8],
            "kind": ["multiple", "multiple", "single"],
            "distinguishable": [True, True, True],
        }
    ).to_csv(csv, index=False)
    out = S.p_star_with_source(["labels", "annotators"], _mixed(), labels_file=csv)
    assert out.loc["p3"].tolist() == [pytest.approx(0.7), "labels"] and out["source"]["p0"] == "annotators (3 per pair)"
    none = S.p_star_with_source(["labels", "annotators"], _mixed())  # no file: the humans of the data only
    assert np.isnan(none["p_star"]["p3"]) and pd.isna(none["source"]["p3"]) and none["source"].notna().sum() == 3
    cat = S.categories_with_source(["labels", {"kind": {"t": "single"}}], _mixed(), labels_file=csv)
    assert cat.loc["p3"].tolist() == ["multiple", True, "labels"]
    assert cat.loc["p0", "kind"] == "single" and pd.isna(cat.loc["p0", "distinguishable"])
    assert cat.loc["p0", "source"] == "per data set"
    counts = S.source_counts(out["source"], cat["source"]).set_index(["quantity", "source"])
    assert counts.loc[("p*", "annotators (3 per pair)"), "pairs"] == 3
    assert counts.loc[("categories", "labels"), "what it is"] == "human (labels_file)"
    with pytest.raises(ValueError, match="fallback chain"):
        S.p_star_with_source(["annotators", "none"], _mixed())


def test_model_family_from_the_name():
    assert S.model_family({"name": "meta-llama/Meta-Llama-3-70B-Instruct"}) == "Llama"
    assert S.model_family("meta-llama/Meta-Llama-3-8B-Instruct") == "Llama"
    assert S.model_family({"name": "openai:gpt-4o-2024-08-06"}) == "GPT"
    assert S.model_family({"name": "Qwen/Qwen2.5-72B-Instruct"}) == "Qwen"
    assert S.model_family("gemma:7b-instruct") == "Gemma" and S.model_family("mistralai/Mixtral-8x7B") == "Mistral"
    assert S.model_family("some/model") is None and S.model_family(None) is None


@pytest.mark.parametrize(
    "labeller, judge_from, p_src, cat_src, same",
    [
        ("meta-llama/Meta-Llama-3-70B-Instruct", "llm", "llm", "llm", ["model", "model"]),  # the paper's trap
        ("meta-llama/Meta-Llama-3-8B-Instruct", "llm", ["labels", "llm"], "labels", ["family"]),  # both Llama
        ("Qwen/Qwen2.5-72B-Instruct", "llm", ["labels", "annotators", "llm"], ["labels", "llm"], ["", ""]),
        ("meta-llama/Meta-Llama-3-70B-Instruct", "llm", "labels", "labels", []),  # human: no LLM label
        ("meta-llama/Meta-Llama-3-70B-Instruct", "simulated", "llm", "llm", []),  # margins not an LLM's
    ],
)
def test_circularity(labeller, judge_from, p_src, cat_src, same):
    judge = {"from": judge_from, "model": {"name": "meta-llama/Meta-Llama-3-70B-Instruct"}}
    c = S.circularity(p_src, cat_src, {"name": labeller}, judge)
    assert c["same"].tolist() == same
    # several labellers: each is checked
    both = S.circularity("llm", "none", [{"name": "Qwen/Qwen2.5-72B-Instruct"}, {"name": labeller}], judge)
    assert len(both) == (2 if judge_from == "llm" else 0)

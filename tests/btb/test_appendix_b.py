"""Beyond the Binary (004) Appendix B tasks 1–3 word for word, their answers parsed, and the LLM labeller
(pluralign.btb.appendix_b)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign.btb.appendix_b import (
    TASK3_OPTIONS,
    classify_distinguishability,
    classify_subjectivity,
    parse_option,
    parse_ten_people,
    task1_prompt,
    task2_prompt,
    task3_prompt,
    user_preference_estimation,
)
from pluralign.btb.p_star import aggregate_preference
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
    t1 = task1_prompt("Name a prime.", suffix=None)
    assert t1 == (
        "Consider the following prompt: Name a prime.\n\n"
        "Is there a single factually, correct response to this prompt? Options:\n"
        "A) There is only one single correct choice to this prompt.\n"
        "B) There are multiple possible correct answers to this prompt"
    )
    t2 = task2_prompt("x?", "first", "second", suffix=None)
    assert t2.startswith(
        "Consider the following two candidate model outputs in response to the prompt: x?\n"
        "Answer A: first\n\nAnswer B: second\n\n"
    )
    assert "Can you clearly tell the two responses apart? Are they significantly different from one another?" in t2
    assert "A) Both choices are essentially the same content, just with minor stylistic variations." in t2
    assert t2.endswith("B) The two choices are clearly different from each other and distinguishable.")
    t3 = task3_prompt("x?", "first", "second", suffix=None)
    assert (
        "If you asked 10 different people, how many would prefer answer A and how many would prefer answer B?"
    ) in t3
    assert TASK3_OPTIONS[0] == "1) 10 A - 0 B" and TASK3_OPTIONS[5] == "6) 5 A - 5 B"
    assert TASK3_OPTIONS[-1] == "11) 0 A - 10 B" and len(TASK3_OPTIONS) == 11
    # the default adds the project's answer instruction after the quoted text
    assert task1_prompt("q").startswith(t1.replace("Name a prime.", "q")) and task1_prompt("q").endswith("Answer:")


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
    assert parse_option(text) == want


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
    assert parse_ten_people(text) == want


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
        out = classify_subjectivity(llm, _data(), samples=3, temperature=1.0)
    assert llm.calls == [3]  # three distinct prompts, asked once each
    r = out.set_index("pair_id")
    assert r.loc["p0", "kind"] == "single" and r.loc["p0", "agreement"] == 1.0
    assert r.loc["p1", "kind"] == "multiple" and r.loc["p2", "kind"] == "multiple"
    assert r.loc["p1", ["votes_A", "votes_B", "n"]].tolist() == [1, 2, 3]
    assert r.loc["p3", "kind"] is None and r.loc["p3", "n_unparsed"] == 3
    with pytest.warns(UserWarning):
        classify_subjectivity(llm, _data(), samples=3, temperature=1.0)
    assert llm.calls == [3]  # cached


def test_classify_distinguishability_and_several_labellers():
    def para(p, n):
        return ["A"] * n if "Rain falls" in p else ["B"] * n

    def contrary(p, n):
        return ["B"] * n

    out = classify_distinguishability(
        [ScriptedLLM(para, "l1"), ScriptedLLM(para, "l2"), ScriptedLLM(contrary, "l3")], _data()
    )
    r = out.set_index("pair_id")
    assert r.loc["p1", "distinguishable"] is False  # 2 of 3 labellers: paraphrases
    assert r.loc["p0", "distinguishable"] is True and r.loc["p0", "agreement"] == 1.0
    assert r.loc["p1", "agreement"] == pytest.approx(2 / 3)


def test_structured_method():
    llm = ScriptedLLM(lambda p, n: [{"option": "A"} if "France" in p else {"option": "B"}])
    out = classify_subjectivity(llm, _data(), method="structured")
    assert out.set_index("pair_id")["kind"].tolist() == ["single", "multiple", "multiple", "multiple"]
    with pytest.raises(ValueError, match="samples=1"):
        classify_subjectivity(llm, _data(), method="structured", samples=2)
    ten = ScriptedLLM(lambda p, n: [{"prefer_a": 8, "prefer_b": 2}])
    est = user_preference_estimation(ten, _data(), method="structured")
    assert (est["prefer_a"] == 8).all()


def test_user_preference_estimation_to_p_star():
    def l1(p, n):
        return ["8 A - 2 B"] * n if "Paris" in p else ["3) 8 A - 2 B", "5 A - 5 B"][:n]

    def l2(p, n):
        return ["6 A - 4 B"] * n if "Paris" in p else ["not sure"] * n

    with pytest.warns(UserWarning, match="unparseable"):
        est = user_preference_estimation(
            [ScriptedLLM(l1, "l1"), ScriptedLLM(l2, "l2")], _data(), samples=2, temperature=1.0
        )
    assert set(est["labeller"]) == {"llm0.0", "llm0.1", "llm1.0", "llm1.1"} and len(est) == 16
    p_star = aggregate_preference(est)
    # p0: labeller answers 8, 8, 6, 6 → mean 7/10
    assert p_star["p0"] == pytest.approx(0.7)
    # p1: 8 and 5 parse, two unparseable skipped → 0.65
    assert p_star["p1"] == pytest.approx(0.65)
    assert p_star.name == "p_star" and list(p_star.index) == ["p0", "p1", "p2", "p3"]


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
    kinds = classify_subjectivity(llm, _data(), job="t1")["kind"].tolist()
    assert kinds == ["single", "multiple", "multiple", "multiple"]
    js = classify_subjectivity(llm, _data(), method="structured", suffix="\nAnswer in JSON.", job="t1s")
    assert js["kind"].tolist() == kinds
    p = aggregate_preference(user_preference_estimation(llm, _data(), job="t3"))
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
        kind = classify_subjectivity(lab, _data(), samples=3, temperature=1.0, top_p=0.9, job="temp1")
        dist = classify_distinguishability(lab, _data(), samples=3, temperature=1.0, top_p=0.9, job="temp2")
        est = user_preference_estimation(lab, _data(), samples=3, temperature=1.0, top_p=0.9, job="temp3")
        assert backend.settings and set(backend.settings) == {(1.0, 0.9, 3)}
        with pytest.warns(UserWarning, match="identical answers"):
            classify_subjectivity(lab, _data(), samples=3, job="temp0")
    assert backend.settings[-1][:2] == (0.0, 1.0)
    assert (kind["n"] == 3).all() and kind["kind"].eq("single").all() and (kind["agreement"] < 1).all()
    assert dist["distinguishable"].eq(False).all()
    np.testing.assert_allclose(aggregate_preference(est).to_numpy(), 0.6)

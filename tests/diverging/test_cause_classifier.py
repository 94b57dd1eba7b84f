"""The LLM cause classifier (:mod:`pluralign.diverging.cause_classifier`) through a fake ``.structured`` and
through pluralign.llm's real client and server."""

from __future__ import annotations

import jsonschema
import pandas as pd
import pytest

from pluralign.data.core import PreferenceData
from pluralign.diverging.cause_classifier import cause_prompt, cause_schema, classify_causes
from pluralign.diverging.causes import CAUSE_IDS, CAUSES, label_agreement


# ---- LLM cause classifier through a fake .structured --------------------------------------------------
class FakeLLM:
    """Stands in for pluralign.llm.LLM: checks the schema and answers from the pair's text."""

    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer

    def structured(self, prompts, schema, retries=2, job=None):
        self.calls.append((list(prompts), schema, job))
        out = []
        for p in prompts:
            pair_text = p.split("### Prompt", 1)[1]
            ans = self.answer or (
                {"causes": ["format"], "rationale": "lists vs prose"}
                if "- item" in pair_text
                else {"causes": ["verbosity", "complexity"], "rationale": "length"}
            )
            jsonschema.validate(ans, schema)
            out.append(ans)
        return out


def test_llm_classifier_prompt_schema_and_labels(small_data):
    data = small_data(4)
    pairs = data.pairs.copy()
    pairs.loc[1, "response_a"] = "- item one\n- item two"
    data = PreferenceData(pairs, data.annotations, data.meta)
    llm = FakeLLM()
    got = classify_causes(data, llm, ["q0", "q1"], job="causes-demo").labels
    prompts, schema, job = llm.calls[0]
    assert job == "causes-demo" and len(prompts) == 2
    for c in CAUSES:  # the taxonomy's definitions are in the prompt
        assert c.definition in prompts[0] and c.id in prompts[0]
    assert "prompt 0" in prompts[0] and "A0" in prompts[0] and "B0" in prompts[0]
    assert schema == cause_schema() and schema["properties"]["causes"]["items"]["enum"] == list(CAUSE_IDS)
    assert got.set_index("pair_id")["causes"].to_dict() == {
        "q0": frozenset({"verbosity", "complexity"}),
        "q1": frozenset({"format"}),
    }
    assert (got["annotator"] == "llm").all()
    long = cause_prompt("p", "x" * 100, "y", max_chars=10)
    assert "x" * 10 + " […]" in long and "x" * 11 not in long


class _NoValidate(FakeLLM):
    def structured(self, prompts, schema, retries=2, job=None):
        return [{"causes": ["vibes"]} for _ in prompts]


def test_llm_classifier_rejects_answers_outside_the_taxonomy(small_data):
    with pytest.raises(ValueError, match=r"pair 'q0'.*unknown causes \['vibes'\]"):
        classify_causes(small_data(2), _NoValidate(), ["q0"])


def test_a_classifier_returning_the_planted_causes_agrees_perfectly_with_them():
    from pluralign.data import simulate
    from pluralign.diverging.causes import planted_causes

    data = simulate(n_pairs=300, seed=2)
    ref = planted_causes(data.truth)
    # a classifier that returns the planted cause agrees perfectly with the reference
    llm = FakeLLM()
    llm.structured = lambda prompts, schema, retries=2, job=None: [
        {"causes": [c]} for c in data.truth.loc[ref["pair_id"], "cause"]
    ]
    got = classify_causes(data, llm, ref["pair_id"]).labels
    res = label_agreement(pd.concat([ref, got[["pair_id", "annotator", "causes"]]]))
    assert res["kappa"] == pytest.approx(1.0) and res["alpha"] == pytest.approx(1.0)


def test_llm_classifier_through_the_real_llm_client_and_server(small_data):
    """pluralign.llm's OpenAI-compatible client against its own server on 127.0.0.1 with a scripted model:
    the prompt travels over HTTP, answers are schema-validated (a bad answer is retried), and a pair that
    never validates is reported, not guessed."""
    import pluralign.llm as llm_mod
    from llm_helpers import ScriptedBackend
    from pluralign.llm.server import serve

    def reply(prompt, k):
        pair = prompt.split("### Prompt", 1)[-1]
        if "prompt 2" in pair:
            return "no idea"  # never JSON → failed
        if "prompt 1" in pair and "could not be used" not in prompt:
            return '{"causes": ["vibes"]}'  # fails the enum → retried
        return '{"causes": ["verbosity", "format"], "rationale": "length and lists"}'

    data = small_data(4)
    with serve(ScriptedBackend(reply)) as s:
        client = llm_mod.load(s.model_id, base_url=s.url, mode="chat", concurrency=1, max_retries=0)
        got = classify_causes(data, client, ["q0", "q1", "q2"], job="causes-http")
    assert got.labels["pair_id"].tolist() == ["q0", "q1"]
    assert set(got.labels["causes"]) == {frozenset({"verbosity", "format"})}
    assert got.failed == ["q2"]
    assert {p["item"] for p in got.patched} == {1, 2}

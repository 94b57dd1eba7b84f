"""Where p* and the categories come from: model families and the circularity of a labeller that is the margin judge
(pluralign.btb.sources)."""

from __future__ import annotations

import pytest

from pluralign.btb.settings import Judge
from pluralign.btb.sources import circularity, model_family


def test_model_family_from_the_name():
    assert model_family({"name": "meta-llama/Meta-Llama-3-70B-Instruct"}) == "Llama"
    assert model_family("meta-llama/Meta-Llama-3-8B-Instruct") == "Llama"
    assert model_family({"name": "openai:gpt-4o-2024-08-06"}) == "GPT"
    assert model_family({"name": "Qwen/Qwen2.5-72B-Instruct"}) == "Qwen"
    assert model_family("gemma:7b-instruct") == "Gemma" and model_family("mistralai/Mixtral-8x7B") == "Mistral"
    assert model_family("some/model") is None and model_family(None) is None


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
    judge = Judge(source=judge_from, model={"name": "meta-llama/Meta-Llama-3-70B-Instruct"})
    c = circularity(p_src, cat_src, {"name": labeller}, judge)
    assert c["same"].tolist() == same
    # several labellers: each is checked
    both = circularity("llm", "none", [{"name": "Qwen/Qwen2.5-72B-Instruct"}, {"name": labeller}], judge)
    assert len(both) == (2 if judge_from == "llm" else 0)


def test_the_paper_profile_takes_human_labels_first_and_is_not_circular():
    """params/paper: p* and the categories from human labels first (the paper's three annotators, §3.2), the LLM
    labeller only as the fallback, and that labeller of another model family than the Llama margin judge."""
    from pathlib import Path

    from pluralign.llm.options import LLMOptions
    from pluralign.named_models import resolve_model
    from pluralign.params import read_params

    root = Path(__file__).resolve().parents[2] / "params" / "paper"
    for page in ("btb-subjectivity.yml", "btb-rewards.yml"):
        p = read_params(root / page)
        d, models = p, p["models"]
        assert d["p_star_from"][:2] == ["labels", "annotators"] and d["categories"][0] == "labels"
        judge = Judge.create(d["judge"]).replace(
            model=resolve_model(d["judge"]["model"], models, LLMOptions, what="judge")
        )
        labeller = resolve_model(d["labeller"]["model"], models, LLMOptions, what="labeller")
        assert model_family(judge.model) == "Llama" and model_family(labeller) not in (None, "Llama")
        c = circularity(d["p_star_from"], d["categories"], labeller, judge)
        assert len(c) == 2 and (c["same"] == "").all()
        # the same chain with the judge as labeller is what the pages call circular
        assert (circularity(d["p_star_from"], d["categories"], judge.model, judge)["same"] == "model").all()

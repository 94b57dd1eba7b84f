"""One way to resolve a model a setting names (:func:`pluralign.named_models.resolve_model`): a key of the profile's
``models``, an entry written as ``{load: {...}}``, load keywords, a Hub id or options all become the typed options."""

import pytest

from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.named_models import resolve_model
from pluralign.params import ParamsError

MODELS = {
    "rm": {"name_or_path": "owner/rm", "kind": "seq-cls", "max_length": None},
    "wrapped": {"load": {"name_or_path": "owner/wrapped"}},
    "judge": {"name": "big-judge", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "KEY"},
}


def test_a_key_an_entry_keywords_a_name_or_options_become_the_typed_options():
    rm = resolve_model("rm", MODELS, ModelOptions, what="reward_model")
    assert rm == ModelOptions(name_or_path="owner/rm", kind="seq-cls", max_length=None)
    assert resolve_model("wrapped", MODELS, ModelOptions, what="x") == ModelOptions(name_or_path="owner/wrapped")
    assert resolve_model({"head": "mlp"}, MODELS, ModelOptions, what="x") == ModelOptions(head="mlp")
    assert resolve_model("owner/other", MODELS, ModelOptions, what="x").name_or_path == "owner/other"
    assert resolve_model(rm, None, ModelOptions, what="x") is rm
    judge = resolve_model("judge", MODELS, LLMOptions, what="judge")
    assert (judge.name, judge.api_key_env) == ("big-judge", "KEY")
    assert resolve_model("openai:gpt-4o", MODELS, LLMOptions, what="judge") == LLMOptions(name="openai:gpt-4o")
    assert resolve_model(["judge", {"name": "m"}], MODELS, LLMOptions, what="x") == [judge, LLMOptions(name="m")]
    assert resolve_model(None, MODELS, LLMOptions, what="x") is None


def test_an_unknown_key_is_refused_naming_the_setting_and_the_nearest_key():
    with pytest.raises(ParamsError, match=r"labeller 'jugde' is not a key of models.*did you mean 'judge'"):
        resolve_model("jugde", MODELS, LLMOptions, what="labeller")

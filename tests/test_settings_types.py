"""The settings are typed to the leaves (pluralign.settings): no field of a part's settings, or of a model nested in
them, is ``Any``, ``object`` or a bare ``dict`` / ``list``; and the argument models (LLM options, simulator options)
name exactly the keywords of the functions they are passed to, so neither drifts from the
other."""

from __future__ import annotations

import inspect
import typing

from pydantic import BaseModel

from pluralign.btb.settings import BtbSettings
from pluralign.cross.settings import CrossSettings
from pluralign.data.spec import SimulateOptions
from pluralign.diverging.settings import DivergingSettings
from pluralign.llm.options import LLMOptions
from pluralign.model_options import ModelOptions
from pluralign.seal.settings import SealSettings

LOOSE = (typing.Any, object, dict, list)


def _models() -> list[type[BaseModel]]:
    """Every settings model reachable from the four parts' settings and ModelOptions."""
    seen, todo = [], [DivergingSettings, SealSettings, BtbSettings, CrossSettings, ModelOptions]
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        for f in cls.model_fields.values():
            stack = [f.annotation]
            while stack:
                t = stack.pop()
                stack += typing.get_args(t)
                if isinstance(t, type) and issubclass(t, BaseModel):
                    todo.append(t)
    return seen


def _leaves(annotation):
    yield annotation
    for arg in typing.get_args(annotation):
        yield from _leaves(arg)


def test_no_settings_field_is_untyped():
    loose = [
        f"{cls.__name__}.{name}: {f.annotation}"
        for cls in _models()
        for name, f in cls.model_fields.items()
        if any(t in LOOSE for t in _leaves(f.annotation))
    ]
    assert len(_models()) > 15 and loose == []


def _keywords(fn, drop=("self",)) -> set[str]:
    return {
        k
        for k, p in inspect.signature(fn).parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and k not in drop and not k.startswith("_")
    }


def test_llm_options_are_the_keywords_of_the_llm_backends():
    from pluralign.llm.hf import GemmaGGUF, TransformersLLM
    from pluralign.llm.openai_backend import OpenAILLM

    backends = _keywords(GemmaGGUF.__init__) | _keywords(TransformersLLM.__init__, ("self", "name_or_path"))
    backends |= _keywords(OpenAILLM.__init__, ("self", "model"))
    assert set(LLMOptions.model_fields) == backends | {"name", "backend"}


def test_simulate_options_are_the_simulators_keywords():
    from pluralign.data.simulate import simulate

    assert set(SimulateOptions.model_fields) == _keywords(simulate)


def test_a_refused_value_names_its_key_path_without_pydantics_internal_tags():
    """The key path of an error is the keys of the value given (``per_dataset``, ``design.data``), never a tag
    pydantic puts in an error's location for a constrained type or a member of a union (``constrained-int``,
    ``lax-or-strict[...]``)."""
    import pytest

    from pluralign.settings import SettingsError

    for make, path in [
        (lambda: BtbSettings.create(per_dataset="many"), "BtbSettings: per_dataset: Input should be a valid integer"),
        (lambda: ModelOptions.create(name_or_path=5), "ModelOptions: name_or_path: Input should be a valid string"),
        (lambda: BtbSettings.create(categories=[{"llm": 1}]), "BtbSettings: categories.0.llm: Input should be a"),
    ]:
        with pytest.raises(SettingsError) as e:
            make()
        assert str(e.value).startswith(path) and "[" not in str(e.value).split(":")[1], str(e.value)
        assert not any("-" in str(k) or "[" in str(k) for key in e.value.keys for k in key), e.value.keys

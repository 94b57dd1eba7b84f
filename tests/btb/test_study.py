"""Part III's study core (pluralign.btb.setup, pluralign.btb.study.Study): the one setup signature, named models
resolved, and the public names other modules use."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pluralign import btb
from pluralign.btb import provenance
from pluralign.btb import training as T
from pluralign.llm.options import LLMOptions
from pluralign.params import ParamsError

DATA = [{"simulate": {"n_pairs": 240, "seed": 3}}]


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
        judge={"source": "llm", "model": "judge_llm"},
        labeller={"model": "judge_llm", "samples": 2},
        training={"reward_model": "rm", "train": {"epochs": 2}},
        models=models,
    )
    judge, labeller, training = s.settings.judge, s.settings.labeller, s.settings.training
    assert judge.model == LLMOptions.create(models["judge_llm"]) and judge.n == 10 and judge.top_p == 0.9
    assert labeller.model == LLMOptions.create(models["judge_llm"]) and labeller.samples == 2
    assert training.reward_model.kwargs() == models["rm"] and training.train.kwargs() == {"epochs": 2}
    assert training.lr_sweep == list(T.LR_SWEEP)
    assert provenance.same_model_warning(s).note == ""  # p* and categories are not the LLM's
    s.settings = s.settings.replace(p_star_from="llm")
    assert "the same model (some/model)" in provenance.same_model_warning(s).note
    with pytest.raises(ParamsError, match="not a key of models"):
        btb.setup(data=DATA, judge={"model": "judge_lm"}, models=models)


def test_setup_takes_a_page_s_parameters_as_they_are():
    """A page's resolved parameters (profile, seed, models and the settings) are setup's arguments: the
    recovery page rebuilds each study so."""
    from pluralign.data.difficulty import JUDGE_NOISE  # the demo's judge noise, set once for Parts I, III, IV
    from pluralign.recovery import page_params

    for page in ("btb_subjectivity", "btb_margins", "btb_rewards"):
        p = page_params(page, "demo")
        s = btb.setup(**{**p, "data": DATA})
        assert s.profile == "demo" and s.settings.judge.noise == JUDGE_NOISE and s.p_star_from == "truth"
    assert s.settings.training.train.epochs == 30 and s.settings.evaluation.test_size == 250
    with pytest.raises(TypeError, match=r"unknown setting\(s\) \['design'\]"):
        btb.setup(design={})


def test_the_public_names_of_the_study():
    s = btb.setup(data=DATA)
    kind, dist = s.categories
    assert kind.equals(s.data.truth["kind"].reindex(s.ids).astype(object)) and dist is not None
    assert s.category_source == "truth" and list(s.ids) == list(s.data.pairs["pair_id"])
    assert s.judgments.index.equals(s.ids) and s.p_star.index.equals(s.ids)


def test_an_llm_judge_is_named_by_its_model():
    """The pages name an LLM judge by its model, given as load arguments or as a name (a typed LLMOptions since the
    settings are pydantic models: it has no dict .get)."""
    for model in ({"name": "openai:gpt-4o"}, "Qwen/Qwen2.5-72B-Instruct"):
        s = btb.setup(data=DATA, judge={"source": "llm", "model": model, "method": "sample"})
        name = model["name"] if isinstance(model, dict) else model
        assert s.judge_source == f"{name} (sample)"

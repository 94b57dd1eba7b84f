"""One definition of every default: ``pluralign.rewards.load`` takes :class:`pluralign.model_options.ModelOptions`'s
and ``RewardModel.train`` :class:`pluralign.train_options.TrainOptions`', so a value a parameter file states
reaches them whatever the defaults are."""

import inspect

from pluralign.model_options import ModelOptions
from pluralign.rewards.load import load


def test_load_takes_every_default_from_model_options():
    params = inspect.signature(load).parameters
    defaults = ModelOptions.defaults()
    assert set(defaults) <= set(params)
    for name, default in defaults.items():
        assert params[name].default == default, name


def test_the_keywords_left_out_are_the_ones_load_fills_with_the_same_value():
    """``kwargs()`` leaves out what equals a default; ``load`` fills it with that same default (one definition),
    so ``max_length: 512`` stated in a parameter file is what ``load`` uses, whatever the default."""
    params = inspect.signature(load).parameters
    options = ModelOptions.of({"name_or_path": "owner/rm", "max_length": 512, "head": "mlp"})
    kw = options.kwargs()
    for name in ModelOptions.defaults():
        assert kw.get(name, params[name].default) == getattr(options, name), name


def test_train_has_no_default_of_its_own():
    """``RewardModel.train`` takes the data, a :class:`~pluralign.train_options.TrainOptions` and the options'
    fields as keywords: every default is TrainOptions' (written once there), none is written again in its
    signature."""
    from pluralign.rewards.base import RewardModel

    params = inspect.signature(RewardModel.train).parameters
    named = {k: p.default for k, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert named == dict.fromkeys(("eval_data", "margins", "options", "output_dir"))
    assert any(p.kind is p.VAR_KEYWORD for p in params.values())


def test_the_fp32_twin_of_a_4bit_model_loads_the_same_options_unquantized(monkeypatch):
    """``rm._fp32`` (:func:`pluralign.rewards.speed.fp32_twin`) loads the same model with the same options, its
    batch size, head and pickle choice, in fp32 and without 4-bit weights."""
    import importlib
    import types

    import torch

    L = importlib.import_module("pluralign.rewards.load")  # the module (pluralign.rewards.load is the function)

    opened = []

    def fake_load(options, **settings):
        opened.append((options, settings))
        return types.SimpleNamespace()

    monkeypatch.setattr(L, "_load", fake_load)
    monkeypatch.setattr(L, "check_quantization", lambda *a: None)
    lora = {"r": 4}
    rm = L.load("owner/lm", kind="causal", max_length=64, load_in_4bit=True, lora=lora, device="cpu", batch_size=3)
    assert rm.token_budget is None
    rm._fp32()
    (first, was), (twin, now) = opened
    assert twin == first.model_copy(update={"load_in_4bit": False}) and first.load_in_4bit and first.lora.r == 4
    assert now == {**was, "dtype": torch.float32} and was["batch_size"] == 3 and was["head"] == "linear"

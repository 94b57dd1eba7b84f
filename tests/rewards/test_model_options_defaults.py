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

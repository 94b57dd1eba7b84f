"""One definition of every default: ``pluralign.rewards.load`` takes :class:`pluralign.model_options.ModelOptions`'s
and ``RewardModel.train`` takes its training loop's, so a value a parameter file states reaches them whatever the
defaults are."""

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


def test_train_takes_the_training_loops_defaults():
    """``RewardModel.train``'s loop keywords default to :class:`~pluralign.rewards.train_loop.TrainLoop`'s (they
    were a copy of them)."""
    import dataclasses

    from pluralign.rewards.base import RewardModel
    from pluralign.rewards.train_loop import TrainLoop

    params = inspect.signature(RewardModel.train).parameters
    shared = [f for f in dataclasses.fields(TrainLoop) if f.default is not dataclasses.MISSING]
    assert shared and all(params[f.name].default == f.default for f in shared)

"""The training options as one value (:class:`pluralign.train_options.TrainOptions`): ``RewardModel.train``
takes them, lays keywords over them and refuses an unknown one; resolved for a backend they are the
hyper-parameters the training cache has always been keyed by (the book's trained models keep their keys)."""

import pytest

from pluralign.rewards import training
from pluralign.rewards.base import RewardModel
from pluralign.settings import SettingsError
from pluralign.train_options import TrainOptions


class _Head:
    """A frozen-encoder reward model's training defaults (:class:`pluralign.rewards.frozen.FrozenEncoderRM`)."""

    backend = "frozen-encoder"
    default_lr, default_epochs, default_train_batch_size = 3e-3, 30, 64


def test_resolved_defaults_are_the_hyper_parameters_the_cache_keys_on():
    got = training.resolved(_Head(), TrainOptions()).model_dump(exclude={"progress"})
    assert got == {
        "objective": "bt",
        "labels": "aggregate",
        "lr": 3e-3,
        "epochs": 30,
        "batch_size": 64,
        "eval_every": 0.25,
        "keep_best": True,
        "dropout": None,
        "seed": 0,
        "weight_decay": 0.0,
        "engine": "torch",
    }
    assert type(got["epochs"]) is int  # the backend's value as it states it: the key fingerprints the type
    given = training.resolved(_Head(), TrainOptions(epochs=10, lr=1e-2, engine="trainer")).model_dump()
    assert (given["epochs"], given["lr"], given["engine"]) == (10.0, 1e-2, "trainer")


def test_the_torch_engine_trains_only_a_frozen_encoder_head():
    head = _Head()
    head.backend = "causal"
    assert training.resolved(head, TrainOptions()).engine == "trainer"
    with pytest.raises(ValueError, match="frozen-encoder head only"):
        training.resolved(head, TrainOptions(engine="torch"))


def test_train_lays_keywords_over_the_options_and_refuses_an_unknown_one(monkeypatch):
    monkeypatch.setattr(training, "train", lambda base, data, options, **kw: (options, kw))
    rm = RewardModel(identity="stub", device="cpu")
    options, kw = rm.train("data", options=TrainOptions(lr=1e-4, epochs=2), objective="mse", labels="all")
    assert (options.objective, options.labels, options.lr, options.epochs) == ("mse", "all", 1e-4, 2.0)
    assert kw == {"eval_data": None, "margins": None, "output_dir": None}
    assert rm.train("data")[0] == TrainOptions()
    with pytest.raises(SettingsError, match="did you mean 'epochs'"):
        rm.train("data", epoch=3)
    with pytest.raises(TypeError):
        rm.train("data", "bt")  # the objective is an option, never the second positional argument

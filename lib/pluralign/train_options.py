"""How a reward model is trained, as one value: :class:`TrainOptions`, the options of
:meth:`pluralign.rewards.base.RewardModel.train` and of both training engines (:mod:`pluralign.rewards.trainer`), each
default written once here. A page's ``train`` setting is one. It lives beside :mod:`pluralign.model_options`, outside
:mod:`pluralign.rewards`, for the same reason: importing that package imports torch, and a part's settings must not."""

from __future__ import annotations

from typing import Literal

from pluralign.settings import Section, setting

__all__ = ["TrainOptions", "OBJECTIVES"]

#: the training objectives (their losses: :mod:`pluralign.rewards.objectives`)
OBJECTIVES = ("bt", "bt-margin", "mse", "mean-variance")


class TrainOptions(Section):
    """How :meth:`~pluralign.rewards.base.RewardModel.train` fits a reward model: the objective and the labels it
    trains on, the training loop's settings (AdamW's learning rate and weight decay, the epochs, the global batch, an
    evaluation every ``eval_every`` epoch with the best weights kept, the seed), the head's dropout, the engine and a
    progress bar. ``lr``, ``epochs`` and ``batch_size`` left None are the backend's own (``RewardModel.default_lr``,
    ``default_epochs``, ``default_train_batch_size``; :func:`pluralign.rewards.training.resolved`)."""

    objective: Literal[OBJECTIVES] = setting(
        "bt", "the loss: bt (Bradley-Terry), bt-margin (Beyond the Binary Eq. 4), mse (Likert), mean-variance"
    )
    labels: str = setting("aggregate", "aggregate (the majority per pair), all (every judgment), or mean (MSE)")
    lr: float | None = setting(None, "AdamW's learning rate (None: the backend's)", gt=0)
    epochs: float | None = setting(None, "epochs, a fraction for part of one (None: the backend's)", gt=0)
    batch_size: int | None = setting(None, "the global batch (None: the backend's)", gt=0)
    eval_every: float = setting(0.25, "an evaluation every this many epochs (Diverging Preferences App. A: 0.25)", gt=0)
    keep_best: bool = setting(True, "restore the trainable weights of the best evaluation")
    dropout: float | None = setting(None, "the head's dropout (None: the backend's)", ge=0, lt=1)
    seed: int = setting(0, "the training seed")
    weight_decay: float = setting(0.0, "AdamW's weight decay", ge=0)
    engine: Literal["auto", "trainer", "torch"] = setting(
        "auto", "trainer (transformers.Trainer), torch (a compact loop, frozen-encoder head only) or auto (by backend)"
    )
    progress: bool = setting(True, "show a progress bar")

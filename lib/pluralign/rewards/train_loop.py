"""The training loop's settings as one value, importable without the training engine (transformers): the
defaults :meth:`pluralign.rewards.base.RewardModel.train` takes are these (written once here); and
:class:`TrainOptions`, the type of every page's ``train`` setting (the keywords of ``RewardModel.train`` it gives)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pluralign.settings import Arguments, setting

__all__ = ["TrainLoop", "TrainOptions"]


@dataclass(frozen=True)
class TrainLoop:
    """The training loop's settings, which both engines take (:mod:`pluralign.rewards.trainer`): the objective,
    AdamW's learning rate and weight decay, the epochs, the global batch, an evaluation every ``eval_every`` epoch
    with the best weights kept (``keep_best``), the seed and a progress bar."""

    objective: str
    lr: float
    epochs: float
    batch_size: int
    eval_every: float = 0.25
    keep_best: bool = True
    seed: int = 0
    weight_decay: float = 0.0
    progress: bool = True


class TrainOptions(Arguments):
    """The keywords of :meth:`pluralign.rewards.base.RewardModel.train` a page's ``train`` setting may give: the
    objective and labels, the training loop's settings (:class:`TrainLoop`) and the dropout; None leaves
    ``train``'s own default (written once, there and in :class:`TrainLoop`)."""

    objective: Literal["bt", "bt-margin", "mse", "mean-variance"] | None = setting(
        None, "the loss: bt (Bradley-Terry), bt-margin (Beyond the Binary Eq. 4), mse (Likert), mean-variance"
    )
    labels: str | None = setting(None, "aggregate (the majority per pair), all (every judgment), or mean (MSE)")
    lr: float | None = setting(None, "AdamW's learning rate", gt=0)
    epochs: float | None = setting(None, "epochs (a fraction: part of one)", gt=0)
    batch_size: int | None = setting(None, "the global batch", gt=0)
    eval_every: float | None = setting(None, "an evaluation every this many epochs (Diverging Preferences: 0.25)", gt=0)
    keep_best: bool | None = setting(None, "restore the weights of the best evaluation")
    dropout: float | None = setting(None, "the head's dropout", ge=0, lt=1)
    seed: int | None = setting(None, "the training seed")
    weight_decay: float | None = setting(None, "AdamW's weight decay", ge=0)
    engine: Literal["auto", "trainer", "torch"] | None = setting(None, "the training engine")
    progress: bool | None = setting(None, "show a progress bar")

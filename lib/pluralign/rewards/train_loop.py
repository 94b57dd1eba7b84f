"""The training loop's settings as one value, importable without the training engine (transformers): the
defaults :meth:`pluralign.rewards.base.RewardModel.train` takes are these (written once here). A page's ``train``
setting is :class:`pluralign.model_options.TrainOptions`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TrainLoop"]


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

"""Reward models: load, score, train.

``load(name_or_path=None, ...)`` returns a :class:`RewardModel` with ``.score(data_or_texts)``,
``.prob_a(data)``, ``.predict(data)`` (mean-variance RM) and ``.train(data, options=TrainOptions(...))``
(:class:`pluralign.train_options.TrainOptions`).
Backends: Hugging Face sequence-classification RMs (OpenAssistant, as SEAL scored them), causal
LMs with a scalar head + LoRA + 8-bit / 4-bit (Diverging Preferences App. A), a frozen encoder + trainable
head (the demo profile's default, all-MiniLM-L6-v2), full fine-tuning of an encoder. Objectives:
Bradley-Terry, Bradley-Terry with margin (Beyond the Binary Eq. 4), MSE on Likert scores, and a
mean-variance (Gaussian) RM.
"""

from pluralign.rewards.base import RewardModel  # noqa: F401
from pluralign.rewards.causal import CausalLMRM, QuantizationUnavailable  # noqa: F401
from pluralign.rewards.frozen import Encoder, FrozenEncoderRM, default_encoder_path, embed_all  # noqa: F401
from pluralign.rewards.load import KINDS, describe_loading, detect_kind, load  # noqa: F401
from pluralign.rewards.objectives import (
    bt_loss,
    build_instances,
    margin_from_judgments,
    mean_variance_nll,
    mean_variance_prob_a,
    mse_loss,
)
from pluralign.rewards.seqcls import FineTuneEncoderRM, SequenceClassificationRM  # noqa: F401
from pluralign.train_options import (
    OBJECTIVES,
    TrainOptions,  # noqa: F401
)

__all__ = [
    "load",
    "detect_kind",
    "KINDS",
    "RewardModel",
    "SequenceClassificationRM",
    "FineTuneEncoderRM",
    "CausalLMRM",
    "FrozenEncoderRM",
    "Encoder",
    "default_encoder_path",
    "embed_all",
    "QuantizationUnavailable",
    "describe_loading",
    "OBJECTIVES",
    "bt_loss",
    "mse_loss",
    "mean_variance_nll",
    "mean_variance_prob_a",
    "margin_from_judgments",
    "build_instances",
    "TrainOptions",
]

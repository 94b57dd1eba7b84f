"""Reward models: load, score, train.

``load(name_or_path=None, ...)`` returns a :class:`RewardModel` with ``.score(data_or_texts)``,
``.prob_a(data)``, ``.predict(data)`` (mean-variance RM) and ``.train(data, options=TrainOptions(...))``.
Backends: Hugging Face sequence-classification RMs (OpenAssistant, as SEAL scored them), causal
LMs with a scalar head + LoRA + 8-bit / 4-bit (Diverging Preferences App. A), a frozen encoder + trainable
head (the demo profile's default, all-MiniLM-L6-v2), full fine-tuning of an encoder. Objectives:
Bradley-Terry, Bradley-Terry with margin (Beyond the Binary Eq. 4), MSE on Likert scores, and a
mean-variance (Gaussian) RM.

The names are imported lazily, as :mod:`pluralign`'s: importing :mod:`pluralign.rewards.train_options` (a page's
settings) imports no deep-learning library.
"""

from __future__ import annotations

import importlib
import sys
import types

#: public name -> the module that defines it
_API = {
    "RewardModel": "pluralign.rewards.base",
    "CausalLMRM": "pluralign.rewards.causal",
    "QuantizationUnavailable": "pluralign.rewards.causal",
    **dict.fromkeys(("Encoder", "FrozenEncoderRM", "default_encoder_path", "embed_all"), "pluralign.rewards.frozen"),
    **dict.fromkeys(("KINDS", "describe_loading", "detect_kind", "load"), "pluralign.rewards.load"),
    **dict.fromkeys(
        (
            "bt_loss",
            "build_instances",
            "margin_from_judgments",
            "mean_variance_nll",
            "mean_variance_prob_a",
            "mse_loss",
        ),
        "pluralign.rewards.objectives",
    ),
    "FineTuneEncoderRM": "pluralign.rewards.seqcls",
    "SequenceClassificationRM": "pluralign.rewards.seqcls",
    "OBJECTIVES": "pluralign.rewards.train_options",
    "TrainOptions": "pluralign.rewards.train_options",
}

__all__ = sorted(_API)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'pluralign.rewards' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))


class _Package(types.ModuleType):
    """This package: a submodule named like the public function it defines (:mod:`pluralign.rewards.load`) does not
    replace the function when it is imported (``pluralign.rewards.load`` stays the function, as an eager import of
    it would leave it)."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _API.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

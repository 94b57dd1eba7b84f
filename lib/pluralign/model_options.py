"""How a reward model is loaded, as one value: :class:`ModelOptions`, the keywords of :func:`pluralign.rewards.load`
(as TRL's ``ModelConfig``), which a part's settings hold wherever a page names a reward model. Imports no
deep-learning library."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import field_validator

from pluralign.settings import Section, setting

__all__ = ["ModelOptions", "LoraOptions"]


class LoraOptions(Section):
    """LoRA adapters on a causal LM (peft ``LoraConfig``'s arguments; Diverging Preferences App. A trains its
    Llama-3-8B RMs with LoRA, rank and alpha not reported: PEFT-common values)."""

    r: int = setting(16, "the adapters' rank", gt=0)
    lora_alpha: int = setting(32, "the adapters' scaling alpha", gt=0)
    lora_dropout: float = setting(0.05, "dropout on the adapters' input", ge=0, lt=1)
    target_modules: list[str] | None = setting(None, "the modules adapted (None: peft's default for the model)")


class ModelOptions(Section):
    """The keywords of :func:`pluralign.rewards.load`; their defaults are written here once (``load`` takes its
    defaults from this class)."""

    name_or_path: str | Path | None = setting(
        None, "a Hub id or local folder; None: the embedded all-MiniLM-L6-v2 as a frozen encoder"
    )
    kind: str | None = setting(None, "the backend: seq-cls, causal, frozen-encoder or finetune (None: detected)")
    max_length: int | None = setting(512, "tokens per text (None: the model's own limit)", gt=0)
    truncation_side: Literal["left", "right"] = setting("left", "which end a long text is cut from")
    trust_remote_code: bool = setting(False, "run the model repository's own code")
    load_in_8bit: bool = setting(False, "bitsandbytes LLM.int8() weights")
    load_in_4bit: bool = setting(False, "bitsandbytes NF4 weights")
    lora: LoraOptions | None = setting(None, "LoRA adapters on a causal LM: true (the defaults) or LoraOptions")
    device: str | None = setting(None, "cpu, cuda, ... (None: the best available)")
    batch_size: int | None = setting(None, "texts per scoring batch at most (None: by device)", gt=0)
    head: Literal["linear", "mlp"] = setting("linear", "the frozen encoder's head: linear or mlp")
    allow_pickle_weights: bool = setting(False, "open a PyTorch pickle (a folder you trust)")
    precision: Literal["fp32", "bf16", "auto"] | None = setting(
        None, "fp32, bf16 or auto (None: fp32, or as quantized weights need)"
    )
    token_budget: int | None = setting(None, "tokens per scoring batch (None: by device)", gt=0)

    @field_validator("lora", mode="before")
    @classmethod
    def _lora_flag(cls, value):
        """``lora: true`` is LoRA with the default options, ``false`` none."""
        return {} if value is True else None if value is False else value

    @classmethod
    def of(cls, value) -> ModelOptions:
        """The options a setting holds: None (load's defaults), a mapping of load keywords, a Hub id or path (a
        string :func:`pluralign.named_models.resolve_model` passed through), or options."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            return cls.create(value, what="reward model")
        if isinstance(value, str) and ("/" in value or ":" in value):
            return cls(name_or_path=value)
        raise TypeError(f"a reward model is load keywords or a key of `models` resolved first, not {value!r}")

"""How a reward model is loaded, as one value.

:class:`ModelOptions` bundles the options that say which model is loaded and how — the model, the backend, the
truncation, remote code, 8-bit / 4-bit weights, LoRA, the device — the way TRL's ``ModelConfig`` bundles
``model_name_or_path``, ``torch_dtype``, the quantization and the LoRA options: ``pluralign score`` and
``pluralign train`` fill one from their arguments (:meth:`ModelOptions.from_args`), and
:func:`pluralign.rewards.load` builds one from its keywords and hands it to the backend loaders. Importing it
imports no deep-learning library.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class ModelOptions:
    """The loading options of :func:`pluralign.rewards.load` (its keywords of the same names; ``model`` is its
    ``name_or_path``)."""

    model: str | None = None
    kind: str | None = None
    max_length: int | None = 512
    truncation_side: str = "left"
    trust_remote_code: bool = False
    load_in_8bit: bool = False
    load_in_4bit: bool = False
    lora: bool | dict | None = None
    device: str | None = None

    @classmethod
    def from_args(cls, args) -> ModelOptions:
        """The options a command line's parsed ``args`` give (``--lora`` where the command has it)."""
        return cls(
            model=args.model,
            kind=args.kind,
            max_length=args.max_length,
            truncation_side=args.truncation_side,
            trust_remote_code=args.trust_remote_code,
            load_in_8bit=args.load_in_8bit,
            load_in_4bit=args.load_in_4bit,
            lora=True if getattr(args, "lora", False) else None,
            device=args.device,
        )

    def load_kwargs(self) -> dict:
        """Every option but the model, as keywords of :func:`pluralign.rewards.load`."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "model"}

    def unquantized(self) -> ModelOptions:
        """The same options with neither 8-bit nor 4-bit weights."""
        return dataclasses.replace(self, load_in_8bit=False, load_in_4bit=False)

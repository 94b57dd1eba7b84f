"""How a reward model is loaded, as one value.

:class:`ModelOptions` bundles the keywords of :func:`pluralign.rewards.load` — the model, the backend, the
truncation, remote code, 8-bit / 4-bit weights, LoRA, the device, the head, the batching and the precision — the
way TRL's ``ModelConfig`` bundles ``model_name_or_path``, ``torch_dtype``, the quantization and the LoRA options.
``pluralign score`` and ``pluralign train`` fill one from their arguments (:meth:`ModelOptions.from_args`),
:func:`pluralign.rewards.load` builds one from its keywords and hands it to the backend loaders, and a part's
settings hold one wherever a page names a reward model (a mapping of these keywords in a parameter file, checked
key by key when the file is read; :class:`pluralign.settings.Section`). Importing it imports no deep-learning
library.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from pluralign.settings import Section, setting

#: The options that say how the weights are opened (passed to the backend loaders as one value).
LOADING = (
    "kind",
    "max_length",
    "truncation_side",
    "trust_remote_code",
    "load_in_8bit",
    "load_in_4bit",
    "lora",
    "device",
)


@dataclass(frozen=True)
class ModelOptions(Section):
    """The keywords of :func:`pluralign.rewards.load`; their defaults are written here once (``load`` takes its
    defaults from this class)."""

    name_or_path: str | None = setting(
        None, "a Hub id or local folder; None: the embedded all-MiniLM-L6-v2 as a frozen encoder"
    )
    kind: str | None = setting(None, "the backend: seq-cls, causal, frozen-encoder or finetune (None: detected)")
    max_length: int | None = setting(512, "tokens per text (None: the model's own limit)")
    truncation_side: str = setting("left", "which end a long text is cut from")
    trust_remote_code: bool = setting(False, "run the model repository's own code")
    load_in_8bit: bool = setting(False, "bitsandbytes LLM.int8() weights")
    load_in_4bit: bool = setting(False, "bitsandbytes NF4 weights")
    lora: bool | dict | None = setting(None, "LoRA adapters on a causal LM: True or peft LoraConfig arguments")
    device: str | None = setting(None, "cpu, cuda, ... (None: the best available)")
    batch_size: int | None = setting(None, "texts per scoring batch at most (None: by device)")
    head: str = setting("linear", "the frozen encoder's head: linear or mlp")
    allow_pickle_weights: bool = setting(False, "open a PyTorch pickle (a folder you trust)")
    precision: str | None = setting(None, "fp32, bf16 or auto (None: fp32, or as quantized weights need)")
    token_budget: int | None = setting(None, "tokens per scoring batch (None: by device)")

    @classmethod
    def of(cls, value) -> ModelOptions:
        """The options a setting holds: None (load's defaults), a mapping of load keywords, a Hub id or path (a
        string :func:`pluralign.params.named_model` passed through), or options."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            return cls.create(value, what="reward model")
        if isinstance(value, str) and ("/" in value or ":" in value):
            return cls(name_or_path=value)
        raise TypeError(f"a reward model is load keywords or a key of `models` resolved first, not {value!r}")

    def kwargs(self) -> dict:
        """The options that differ from their defaults, as keywords of :func:`pluralign.rewards.load`, which takes
        its defaults from this class: one definition, so a value left out is the value ``load`` uses."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) != f.default}

    @property
    def model(self) -> str | None:
        """The model (``name_or_path``), as TRL's ``ModelConfig.model_name_or_path``."""
        return self.name_or_path

    @classmethod
    def from_args(cls, args) -> ModelOptions:
        """The options a command line's parsed ``args`` give: ``--model``, and each of :data:`LOADING` under its own
        name (``--lora``, a flag, where the command has it)."""
        loading = {name: getattr(args, name) for name in LOADING if name != "lora"}
        return cls(name_or_path=args.model, lora=True if getattr(args, "lora", False) else None, **loading)

    def load_kwargs(self) -> dict:
        """The options that say how the weights are opened (:data:`LOADING`), as keywords of
        :func:`pluralign.rewards.load`."""
        return {name: getattr(self, name) for name in LOADING}

    def unquantized(self) -> ModelOptions:
        """The same options with neither 8-bit nor 4-bit weights."""
        return dataclasses.replace(self, load_in_8bit=False, load_in_4bit=False)

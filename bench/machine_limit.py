"""The machine's own limit for a model step: torch.matmul GFLOP/s at the model's shapes, and the FLOPs
a transformer needs per text, so a bench can give a step's throughput as a share of what the machine could do.

* :func:`matmul_gflops` — best GFLOP/s of one layer's linear maps (hidden → 3·hidden, hidden → hidden,
  hidden → intermediate, intermediate → hidden) over ``rows`` token rows, timed for about ``seconds``;
* :func:`flops_per_text` — 2 × non-embedding parameters × L (the linear maps) + 4 × attention width × layers × L²
  (attention's QKᵀ and AV) + 2 × vocabulary × hidden per position whose logits are kept (a tied LM head), for
  texts of L tokens. Softmax, norms and padding are not counted: the limit is an upper bound.

    from machine_limit import matmul_gflops, flops_per_text   # a script in bench/
"""

from __future__ import annotations

import time

import numpy as np
import torch

__all__ = ["layer_matmuls", "matmul_gflops", "flops_per_text", "non_embedding_params"]


def layer_matmuls(dtype, hidden: int, intermediate: int, rows: int = 2048):
    """One transformer layer's linear maps at the model's shapes over ``rows`` token rows, as ``(run, FLOPs)``:
    ``run()`` computes them once (warmed up already)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(rows, hidden, generator=g).to(dtype)
    h = torch.randn(rows, intermediate, generator=g).to(dtype)
    ws = [
        torch.randn(hidden, 3 * hidden, generator=g).to(dtype),
        torch.randn(hidden, hidden, generator=g).to(dtype),
        torch.randn(hidden, intermediate, generator=g).to(dtype),
        torch.randn(intermediate, hidden, generator=g).to(dtype),
    ]
    ins = [x, x, x, h]
    flops = sum(2 * a.shape[0] * a.shape[1] * w.shape[1] for a, w in zip(ins, ws))

    def run():
        with torch.inference_mode():
            for a, w in zip(ins, ws):
                torch.matmul(a, w)

    run()  # warm-up
    return run, flops


def matmul_gflops(dtype, hidden: int, intermediate: int, rows: int = 2048, seconds: float = 1.0) -> float:
    """Best torch.matmul GFLOP/s over one transformer layer's linear maps at the model's shapes."""
    run, flops = layer_matmuls(dtype, hidden, intermediate, rows)
    best = float("inf")
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return flops / best / 1e9


def non_embedding_params(model) -> int:
    """Parameters outside the model's embedding tables (token, position, type embeddings)."""
    emb = {id(p) for m in model.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
    return sum(p.numel() for p in model.parameters() if id(p) not in emb)


def flops_per_text(model, lengths, logits_positions: int = 0) -> np.ndarray:
    """FLOPs of one forward pass per text of ``lengths`` tokens (see the module docstring); ``logits_positions``:
    positions per text whose vocabulary logits are computed by a tied LM head (0 for an encoder)."""
    cfg = getattr(model, "config", None)
    cfg = getattr(cfg, "text_config", None) or cfg
    hidden, layers = cfg.hidden_size, cfg.num_hidden_layers
    heads = getattr(cfg, "num_attention_heads", 1)
    width = heads * (getattr(cfg, "head_dim", None) or hidden // heads)
    L = np.asarray(lengths, dtype=float)
    head = 2 * getattr(cfg, "vocab_size", 0) * hidden * logits_positions
    return 2 * non_embedding_params(model) * L + 4 * width * layers * L**2 + head

"""LLM benchmark: the embedded Gemma 3 270M (load time, judge_ab latency, tokens/s) and the overhead of
the project's OpenAI-compatible server (judge_ab over HTTP vs direct).

    .venv/bin/python bench/bench_llm.py [--quick] [--cold]

``--cold`` measures the first load (GGUF de-quantization + conversion to the cache) in a fresh cache
folder; without it the load reads the converted folder from the pluralign cache (converting once if
missing). ``--quick`` uses fewer judgments and tokens. The log-probability judgment step is also given as a share
of the machine's own limit (``bench/machine_limit.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from pluralign.book.benchmark import record, timer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cold", action="store_true")
    a = ap.parse_args()
    if a.cold:
        os.environ["PLURALIGN_CACHE"] = tempfile.mkdtemp(prefix="pluralign-bench-llm-")
    import pluralign.llm as llm
    from pluralign.llm.server import serve

    figures, units = {}, {}
    with timer() as t:
        gemma = llm.load()
    figures["load_s"] = t()
    units["load_s"] = "s (cold: GGUF de-quantized and converted)" if a.cold else "s (converted folder cached)"

    k = 3 if a.quick else 10
    items = [(f"Question {i}: what is {i} + {i}?", str(2 * i), str(2 * i + 1)) for i in range(k)]
    gemma.judge_ab(*items[0])  # warm-up
    lat = []
    for it in items:
        t0 = time.perf_counter()
        gemma.judge_ab(*it)
        lat.append(time.perf_counter() - t0)
    figures["judge_ab_latency_s"] = statistics.median(lat)
    units["judge_ab_latency_s"] = "s per pair (median, direct)"
    with timer() as t:
        gemma.judge_ab_many(items, batch_size=8)
    figures["judge_ab_many_pairs_per_s"] = k / t()
    units["judge_ab_many_pairs_per_s"] = "pairs/s (batches of 8)"

    # the log-probability judgment step against the machine's own limit (bench/machine_limit.py):
    # next-token log-probs of judgment prompts in the library's token-budget batches, best of 2, interleaved with
    # matmul timings at the model's shapes; FLOPs per text = the transformer's + the tied LM head at one position
    import numpy as np
    import torch
    from machine_limit import flops_per_text, matmul_gflops

    n_lp = 8 if a.quick else 32
    prompts = [
        f"Question {i}: what is {i} + {i}? Answer A: {2 * i}. Answer B: {2 * i + 1}. " * (1 + i % 4)
        + "Which answer is better? The better answer is"
        for i in range(n_lp)
    ]
    lp_lens = [len(gemma._encode(p)[0]) for p in prompts]
    lp_flops = float(flops_per_text(gemma.hf_model, lp_lens, logits_positions=1).mean())
    cfg = gemma.hf_model.config
    cfg = getattr(cfg, "text_config", None) or cfg
    dtype = next(gemma.hf_model.parameters()).dtype
    gf, lt = 0.0, float("inf")
    gemma.next_token_logprobs(prompts[:2])  # warm-up
    for _ in range(2):
        gf = max(gf, matmul_gflops(dtype, cfg.hidden_size, cfg.intermediate_size, seconds=0.5))
        t0 = time.perf_counter()
        gemma.next_token_logprobs(prompts)
        lt = min(lt, time.perf_counter() - t0)
    prec = {torch.float32: "fp32", torch.bfloat16: "bf16"}.get(dtype, str(dtype).replace("torch.", ""))
    figures["logprob_texts_per_s"] = n_lp / lt
    units["logprob_texts_per_s"] = f"texts/s (next-token log-probs, {n_lp} prompts, mean {np.mean(lp_lens):.0f} tokens)"
    figures[f"logprob_share_of_{prec}_ceiling"] = figures["logprob_texts_per_s"] / (gf * 1e9 / lp_flops)
    units[f"logprob_share_of_{prec}_ceiling"] = "share (0–1) of matmul GFLOP/s ÷ FLOPs per text"

    n_tok = 16 if a.quick else 64
    with timer() as t:
        c = gemma.complete("The three papers on reward models", max_tokens=n_tok)[0]
    figures["generate_tokens_per_s"] = len(c.token_ids) / t()
    units["generate_tokens_per_s"] = "tokens/s (greedy, batch 1)"

    with serve(gemma) as srv:
        cl = llm.load(srv.model_id, base_url=srv.url, mode="completions", concurrency=1)
        cl.judge_ab(*items[0])
        lat = []
        for it in items:
            t0 = time.perf_counter()
            cl.judge_ab(*it)
            lat.append(time.perf_counter() - t0)
    figures["judge_ab_http_latency_s"] = statistics.median(lat)
    units["judge_ab_http_latency_s"] = "s per pair (median, openai client -> pluralign serve)"
    load = os.getloadavg()[0]
    figures["load_average_1min"] = load
    units["load_average_1min"] = "processes (the machine's 1-minute load at the end: > cores means contended)"
    path = record(
        "llm",
        figures,
        units,
        notes="Gemma 3 270M Q4_K_M via transformers+gguf, CPU float32"
        + (" (quick)" if a.quick else "")
        + f"; 1-minute load average {load:.1f} on {os.cpu_count()} cores",
    )
    for name, v in figures.items():
        print(f"{name:34s} {v:10.3f}  {units[name]}")
    print("wrote", path)


if __name__ == "__main__":
    main()

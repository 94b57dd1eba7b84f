"""The embedded default LLM, Gemma 3 270M (a base model), for A/B log-probability judgments."""

from __future__ import annotations

import time

import pytest

import pluralign.llm as llm_mod
from pluralign.llm.server import serve


@pytest.mark.slow
def test_gemma_judge_ab_is_a_probability_and_serves_over_http():
    t0 = time.perf_counter()
    gemma = llm_mod.load()  # no name: the embedded default
    load_s = time.perf_counter() - t0
    assert gemma.backend == "gemma-gguf" and "BASE model" in type(gemma).__doc__
    t0 = time.perf_counter()
    p = gemma.judge_ab("What is the capital of France?", "Paris.", "Berlin.")
    judge_s = time.perf_counter() - t0
    assert 0.0 < p < 1.0
    # the same judgment over real HTTP, read from the top-20 logprobs of /v1/completions
    with serve(gemma) as srv:
        c = llm_mod.load(srv.model_id, base_url=srv.url, mode="completions", concurrency=1, max_retries=0)
        q = c.judge_ab("What is the capital of France?", "Paris.", "Berlin.")
        text = c.generate(["The capital of France is"], max_tokens=4)[0][0]
    assert q == pytest.approx(p, abs=1e-3)
    assert isinstance(text, str) and text.strip()
    print(f"gemma load {load_s:.1f} s, judge_ab {judge_s:.2f} s")

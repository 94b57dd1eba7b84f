"""An LLM's answers to many prompts, asked once: the pair table every prompt is built from, a stable key per
item, and :func:`cached_generate`, which journals each item's completions so that a killed run resumes and a
second run asks the LLM nothing (the synthetic judgments of §3.3 and the Appendix B labeller share it)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from pluralign.cache import ItemStore, fingerprint

__all__ = ["pairs_frame", "llm_id", "item_key", "cached_generate"]


def pairs_frame(data) -> pd.DataFrame:
    """The pairs table of ``data`` (a PreferenceData or a DataFrame), checked for the columns a prompt needs."""
    pairs = data.pairs if hasattr(data, "pairs") else data
    if not isinstance(pairs, pd.DataFrame):
        raise TypeError("expected a PreferenceData or a DataFrame with pair_id, prompt, response_a, response_b")
    missing = [c for c in ("pair_id", "prompt", "response_a", "response_b") if c not in pairs.columns]
    if missing:
        raise ValueError(f"pairs table lacks column(s) {missing}")
    return pairs


def llm_id(llm) -> Any:
    """What identifies an LLM in a cache key: its ``fingerprint``, else its class, name and model."""
    fp = getattr(llm, "fingerprint", None)
    if fp is not None:
        return fp() if callable(fp) else fp
    return {
        "class": f"{type(llm).__module__}.{type(llm).__qualname__}",
        "name": getattr(llm, "name", None),
        "model": getattr(llm, "model", None),
    }


def item_key(*texts: str) -> str:
    """A short stable key of an item's texts."""
    return fingerprint(*[str(t) for t in texts])[:32]


def _call_generate(llm, prompts, *, n, temperature, top_p, max_tokens, job, seed=None):
    kw = dict(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens)
    if job is not None:
        kw["job"] = job
    if seed is not None:
        kw["seed"] = seed
    out = llm.generate(list(prompts), **kw)
    if len(out) != len(prompts):
        raise RuntimeError(f"llm.generate returned {len(out)} results for {len(prompts)} prompts")
    out = [[o] if isinstance(o, str) else list(o) for o in out]
    for o in out:
        if len(o) != n:
            raise RuntimeError(f"llm.generate returned {len(o)} samples for a prompt, expected n={n}")
    return out


def cached_generate(
    llm,
    items: dict[str, str],
    *,
    step: str,
    n: int = 1,
    temperature: float = 1.0,
    top_p: float = 1.0,
    max_tokens: int = 16,
    job: str | None = None,
    batch_size: int = 64,
    seed: int | None = None,
    extra_settings: Any = None,
) -> dict[str, list[str]]:
    """``{key: prompt}`` → ``{key: [n completions]}``, each item journalled in a
    :class:`pluralign.cache.ItemStore` (survives a kill; a second call asks the LLM nothing).
    ``seed`` is passed to ``llm.generate`` when given (backends that honour it sample reproducibly)."""
    settings = {
        "llm": llm_id(llm),
        "n": n,
        "temperature": temperature,
        "top_p": top_p,
        "max_tokens": max_tokens,
        "seed": seed,
        "extra": extra_settings,
    }
    store = ItemStore(step, settings)
    try:
        todo = store.missing(dict.fromkeys(items))
        for s in range(0, len(todo), batch_size):
            keys = todo[s : s + batch_size]
            outs = _call_generate(
                llm,
                [items[k] for k in keys],
                n=n,
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_tokens,
                job=job,
                seed=seed,
            )
            for k, o in zip(keys, outs):
                store.put(k, o)
        return {k: store.get(k) for k in items}
    finally:
        store.close()

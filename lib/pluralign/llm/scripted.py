"""A deterministic backend whose replies come from a function: for tests of the LLM path (served by
:mod:`pluralign.llm.server`, so the client side runs over real HTTP) and for offline demos where a
rule stands in for a model (the page must say so)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pluralign.llm.hf import Completion

__all__ = ["ScriptedBackend"]


class ScriptedBackend:
    """Replies ``reply(prompt, k)`` where ``k`` counts the earlier samples of the same prompt, one token
    per reply (log-probability 0). Implements the server's backend protocol (``model``, ``complete``)."""

    def __init__(self, reply: Callable[[str, int], str], model: str = "scripted"):
        self.reply = reply
        self.model = model
        self.asked: dict[str, int] = {}
        self._lock = threading.Lock()

    def complete(
        self,
        prompt,
        *,
        max_tokens=16,
        temperature=0.0,
        top_p=1.0,
        n=1,
        seed=None,
        stop=None,
        logprobs=None,
        add_special_tokens=True,
    ) -> list[Completion]:
        with self._lock:
            k = self.asked.get(prompt, 0)
            self.asked[prompt] = k + n
        texts = [self.reply(prompt, k + j) for j in range(n)]
        return [
            Completion(
                t,
                token_ids=[0],
                tokens=[t],
                token_logprobs=[0.0],
                top_logprobs=[[(t, 0.0)]] if logprobs else [],
                finish_reason="stop",
                prompt_tokens=len(prompt.split()),
            )
            for t in texts
        ]

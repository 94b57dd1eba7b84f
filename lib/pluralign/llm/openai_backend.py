"""Any OpenAI-compatible endpoint through the ``openai`` client: OpenAI itself (with its Batch API for
100k-item jobs), vLLM, Ollama, llama.cpp server, or ``pluralign serve``.

The API key is read from an environment variable only (``api_key_env``, default ``OPENAI_API_KEY``):
it is never a parameter, never part of a cache key, never written anywhere by pluralign. A loopback endpoint
(``127.x``, ``localhost``, ``::1``: vLLM, Ollama, ``pluralign serve``) without a key in that variable gets the
placeholder key ``EMPTY``, as vLLM's clients do; a remote endpoint without a key is an error.

``PLURALIGN_LLM_BASE_URL`` (environment): when set, EVERY OpenAI-compatible endpoint — an explicit ``base_url``
in a parameter file, ``openai:`` names, ``OPENAI_BASE_URL`` — is redirected to that URL, without editing any
parameter file: e.g. every endpoint of the paper profile to one local vLLM server (or ``pluralign serve
--served-model-name ...``, which ``make rehearse`` starts) that answers to all the model names. The redirect is
visible: the LLM's identity and repr carry the effective ``base_url`` (and ``requested_base_url``), and a
warning "endpoint X redirected to Y by PLURALIGN_LLM_BASE_URL" is issued when it is created (in the book a note at
the top of every page says it instead: :func:`pluralign.report.stated_warning`).
"""

from __future__ import annotations

import math
import os
import re
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from pluralign.cache import cache_dir, fingerprint
from pluralign.llm import batch as batchapi
from pluralign.llm.base import LLM, LLMError, label_of

__all__ = ["OpenAILLM", "texts_of", "label_logprobs_of"]

OPENAI_BASE = "https://api.openai.com/v1"
#: environment variable that redirects every OpenAI-compatible endpoint (see the module docstring)
REDIRECT_VARIABLE = "PLURALIGN_LLM_BASE_URL"


def _logsumexp(xs: list[float]) -> float:
    if not xs:
        return -math.inf
    m = max(xs)
    if m == -math.inf:
        return m
    return m + math.log(sum(math.exp(x - m) for x in xs))


def texts_of(body: dict) -> list[str]:
    """The completion texts of a /v1/chat/completions or /v1/completions response body, by index."""
    choices = sorted(body.get("choices") or [], key=lambda c: c.get("index", 0))
    out = []
    for c in choices:
        if "message" in c:
            out.append((c["message"] or {}).get("content") or "")
        else:
            out.append(c.get("text") or "")
    return out


def _positions(choice: dict) -> list[tuple[str, list[tuple[str, float]]]]:
    """(sampled token, [(token, logprob) of the top alternatives]) per generated position."""
    lp = choice.get("logprobs") or {}
    if lp.get("content") is not None:  # chat format
        return [
            (
                p["token"],
                [(t["token"], t["logprob"]) for t in (p.get("top_logprobs") or [])] + [(p["token"], p["logprob"])],
            )
            for p in lp["content"]
        ]
    tokens = lp.get("tokens") or []
    tops = lp.get("top_logprobs") or [None] * len(tokens)
    lps = lp.get("token_logprobs") or [None] * len(tokens)
    return [
        (t, list((top or {}).items()) + ([(t, logp)] if logp is not None else []))
        for t, top, logp in zip(tokens, tops, lps)
    ]


def label_logprobs_of(body: dict) -> tuple[float, float]:
    """(log P(A), log P(B)) at the first generated position whose token is an answer label.

    A label's log-probability is the log-sum-exp over its token variants (" A", "A", ...) in the
    returned ``top_logprobs``; a label absent from them gets the smallest listed log-probability (an
    upper bound, so the estimate leans towards 0.5). No label anywhere → (nan, nan)."""
    choices = sorted(body.get("choices") or [], key=lambda c: c.get("index", 0))
    if not choices:
        return (math.nan, math.nan)
    pos = _positions(choices[0])
    at = next((alts for tok, alts in pos if label_of(tok)), None)
    if at is None:
        at = next((alts for _, alts in pos if any(label_of(t) for t, _ in alts)), None)
    if at is None:
        return (math.nan, math.nan)
    seen: dict[str, float] = {}
    for t, lp in at:
        seen[t] = lp
    a = [lp for t, lp in seen.items() if label_of(t) == "A"]
    b = [lp for t, lp in seen.items() if label_of(t) == "B"]
    floor = min(seen.values())
    return (_logsumexp(a) if a else floor, _logsumexp(b) if b else floor)


#: names an API key may be read from (the key is sent only to the endpoint that names this variable)
KEY_VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]*_(API_KEY|KEY|TOKEN)$")


def _is_loopback(url: str) -> bool:
    """``url`` points at this machine (127.0.0.0/8, ``localhost``, ``::1``)."""
    from urllib.parse import urlparse

    host = (urlparse(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def _tls_or_local(url: str) -> bool:
    from urllib.parse import urlparse

    return urlparse(url).scheme == "https" or _is_loopback(url)


def effective_base_url(requested: str) -> str:
    """The URL requests go to: ``$PLURALIGN_LLM_BASE_URL`` when set (every endpoint is redirected), else
    ``requested``."""
    override = (os.environ.get(REDIRECT_VARIABLE) or "").strip()
    return override.rstrip("/") if override else requested


class OpenAILLM(LLM):
    """An OpenAI-compatible endpoint (``mode="chat"``: /v1/chat/completions, ``mode="completions"``:
    /v1/completions, for base models). ``judge_ab`` reads ``logprobs`` / ``top_logprobs`` where the
    server returns them. ``batch=True`` sends every job through the Batch API (JSONL upload, batch,
    poll, download, map back), resumable through a state file with the batch ids."""

    backend = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        mode: str = "chat",
        batch: bool = False,
        concurrency: int = 4,
        timeout: float = 120.0,
        max_retries: int = 5,
        top_logprobs: int = 20,
        json_mode: bool = False,
        system: str | None = None,
        poll_interval: float = 30.0,
        batch_max_requests: int = 50_000,
        batch_deadline: float = 26 * 3600.0,
    ):
        import openai

        if mode not in ("chat", "completions"):
            raise ValueError(f"mode must be 'chat' or 'completions', got {mode!r}")
        self.model = model
        self.requested_base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE).rstrip("/")
        self.base_url = effective_base_url(self.requested_base_url)
        if self.base_url != self.requested_base_url:
            from pluralign.report import stated_warning

            stated_warning(
                f"endpoint {self.requested_base_url} redirected to {self.base_url} by {REDIRECT_VARIABLE} "
                f"(model {model!r})",
                stacklevel=4,
            )
        self.api_key_env = api_key_env
        self.mode = mode
        self.completion_style = mode == "completions"
        self.batch = batch
        self.concurrency = max(1, int(concurrency))
        self.top_logprobs = int(top_logprobs)
        self.json_mode = json_mode
        self.system = system
        self.poll_interval = float(poll_interval)
        self.batch_max_requests = int(batch_max_requests)
        self.batch_deadline = float(batch_deadline)  # seconds a batch may stay pending before the job gives up
        if not KEY_VARIABLE.match(str(api_key_env)):
            raise LLMError(
                f"api_key_env={api_key_env!r} does not look like the name of a key variable (upper case, "
                "ending in _API_KEY, _KEY or _TOKEN): pluralign sends only such a variable to an endpoint"
            )
        key = os.environ.get(api_key_env)
        if key and not _tls_or_local(self.base_url):
            warnings.warn(
                f"the key in {api_key_env} goes to {self.base_url} without TLS (http to a remote host): "
                "anyone on the path can read it; use https or a local server",
                stacklevel=3,
            )
        if not key:
            if not _is_loopback(self.base_url):
                raise LLMError(
                    f"no API key for {self.base_url}: set the environment variable {api_key_env} "
                    "(pluralign reads keys from the environment only; a server on this machine, "
                    "127.0.0.1 or localhost, needs none)"
                )
            key = "EMPTY"  # local servers (vLLM, Ollama, pluralign serve) ignore it; vLLM's clients send the same
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=timeout, max_retries=max_retries)

    def identity(self) -> dict:
        out = {
            "backend": self.backend,
            "model": self.model,
            "base_url": self.base_url,
            "mode": self.mode,
            "json_mode": self.json_mode,
            "system": self.system,
            "top_logprobs": self.top_logprobs,
        }
        if self.base_url != self.requested_base_url:  # redirected by PLURALIGN_LLM_BASE_URL: say from where
            out["requested_base_url"] = self.requested_base_url
        return out

    def journal_identity(self) -> dict:
        """The identity without ``base_url``: a job resumes whichever address reaches the same model."""
        return {k: v for k, v in self.identity().items() if k not in ("base_url", "requested_base_url")}

    def __getstate__(self):
        raise TypeError("OpenAILLM holds a client with a key; it is not pickled (create it again)")

    # ---- request bodies -----------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        return "/v1/chat/completions" if self.mode == "chat" else "/v1/completions"

    def body(self, prompt: str, settings: dict, logprobs: int | None = None) -> dict:
        """The request body of one prompt (what the client sends, and what a batch line holds); ``settings`` holds
        ``max_tokens``, ``temperature``, ``top_p``, ``n`` and optionally ``seed``, ``stop``, ``json``."""
        b: dict[str, Any] = {
            "model": self.model,
            "max_tokens": settings["max_tokens"],
            "temperature": settings["temperature"],
            "top_p": settings["top_p"],
            "n": settings["n"],
        }
        if settings.get("seed") is not None:
            b["seed"] = settings["seed"]
        if settings.get("stop"):
            b["stop"] = settings["stop"]
        if self.mode == "chat":
            msgs = [{"role": "system", "content": self.system}] if self.system else []
            b["messages"] = msgs + [{"role": "user", "content": prompt}]
            if logprobs:
                b["logprobs"] = True
                b["top_logprobs"] = logprobs
            if self.json_mode and settings.get("json"):
                b["response_format"] = {"type": "json_object"}
        else:
            b["prompt"] = prompt
            if logprobs:
                b["logprobs"] = logprobs
        return b

    def _post(self, body: dict) -> dict:
        if self.mode == "chat":
            return self._client.chat.completions.create(**body).model_dump()
        return self._client.completions.create(**body).model_dump()

    def _each(self, bodies: list[dict], parse: Callable[[dict], Any], on_done: Callable[[int, Any], None]) -> None:
        if self.batch:
            return self._run_batch(bodies, parse, on_done)
        if self.concurrency == 1:
            for i, b in enumerate(bodies):
                on_done(i, parse(self._post(b)))
            return
        errors: list[BaseException] = []
        with ThreadPoolExecutor(self.concurrency) as ex:
            futs = {ex.submit(self._post, b): i for i, b in enumerate(bodies)}
            for f in as_completed(futs):
                if f.cancelled():
                    continue
                if f.exception() is not None:  # keep journaling the others: no paid answer is lost
                    errors.append(f.exception())
                    for g in futs:
                        g.cancel()
                    continue
                on_done(futs[f], parse(f.result()))
        if errors:
            raise errors[0]

    def _complete_many(self, prompts, settings, on_done):
        self._each([self.body(p, settings) for p in prompts], texts_of, on_done)

    def _label_logprobs_many(self, texts, settings, on_done):
        s = {"max_tokens": 1 if self.mode == "completions" else 5, "temperature": 0.0, "top_p": 1.0, "n": 1}
        self._each([self.body(t, s, logprobs=self.top_logprobs) for t in texts], label_logprobs_of, on_done)

    # ---- Batch API ----------------------------------------------------------------------------
    def _run_batch(self, bodies: list[dict], parse: Callable[[dict], Any], on_done: Callable[[int, Any], None]) -> None:
        """Submit ``bodies`` as batches of at most ``batch_max_requests``, poll, map results back.
        The batch ids go to a state file first, so a rerun after a kill resumes the same batches."""
        state = batchapi.BatchState(
            cache_dir() / "llm-batches" / f"{fingerprint(self.identity(), self.endpoint, bodies)[:24]}.json"
        )
        for start in range(0, len(bodies), self.batch_max_requests):
            if start in state.covered():
                continue
            stop = min(start + self.batch_max_requests, len(bodies))
            data = batchapi.request_lines(
                self.endpoint, bodies[start:stop], [f"req-{i}" for i in range(start, stop)]
            ).encode()
            f = self._client.files.create(file=("requests.jsonl", data), purpose="batch")
            b = self._client.batches.create(input_file_id=f.id, endpoint=self.endpoint, completion_window="24h")
            state.add(start, stop, b.id, f.id)
        errors: list[str] = []
        for chunk in state.chunks:
            b = self._client.batches.retrieve(chunk["batch_id"])
            give_up = time.monotonic() + self.batch_deadline
            while b.status in batchapi.PENDING:
                if time.monotonic() > give_up:
                    raise LLMError(
                        f"batch {b.id} still {b.status} after {self.batch_deadline:.0f} s (batch_deadline); "
                        "it keeps running on the server: rerun the job later to collect it"
                    )
                time.sleep(self.poll_interval)
                b = self._client.batches.retrieve(chunk["batch_id"])
            results: dict = {}
            for fid in (b.output_file_id, b.error_file_id):
                if fid:
                    results.update(batchapi.parse_output(self._client.files.content(fid).text))
            for cid, (body, err) in results.items():
                i = int(cid.split("-", 1)[1])
                if body is not None:
                    on_done(i, parse(body))
                else:
                    errors.append(f"{cid}: {err}")
            if b.status != "completed":
                why = "; ".join(
                    e.get("message", "") if isinstance(e, dict) else getattr(e, "message", str(e))
                    for e in (getattr(getattr(b, "errors", None), "data", None) or [])
                )
                errors.append(f"batch {b.id} ended {b.status}" + (f" ({why})" if why else ""))
        state.clear()  # finished items are journaled; the rest are resubmitted by a rerun
        if errors:
            raise LLMError(
                f"{len(errors)} batch request(s) failed (rerun the job to retry them): " + "; ".join(errors[:5])
            )

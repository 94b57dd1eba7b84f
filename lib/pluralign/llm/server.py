"""The project's own OpenAI-compatible HTTP server over a local pluralign LLM backend.

Speaks ``GET /v1/models``, ``POST /v1/completions`` and ``POST /v1/chat/completions`` (``n``,
``temperature``, ``top_p``, ``seed``, ``stop``, ``max_tokens``, ``logprobs`` / ``top_logprobs``), and the
Batch API's ``/v1/files`` (upload, retrieve, content) and ``/v1/batches`` (create, retrieve), so the
``openai`` client — including ``OpenAILLM(batch=True)`` — runs against it unchanged. ``GET /stats``
reports the request counts (used to check that a resumed job sends no repeated requests).

Start it with ``pluralign serve --model NAME_OR_PATH --port 8000`` (no ``--model``: the embedded Gemma 3
270M, a base model); ``--served-model-name NAME [NAME ...]`` (vLLM's flag) makes it answer to those names
instead of the model's own — a request naming any of them is answered by the one model, any other name gets
404 ``model_not_found`` as the OpenAI API answers, and ``/v1/models`` lists them all (``make rehearse`` serves
a tiny model under every endpoint name of the paper profile). In Python/tests::

    with serve(pluralign.llm.load(folder)) as srv:      # 127.0.0.1, a free port, in a thread
        llm = pluralign.llm.load(srv.model_id, base_url=srv.url, mode="completions")

A backend is any object with ``model`` and ``complete(prompt, *, max_tokens, temperature, top_p, n,
seed, stop, logprobs, add_special_tokens) -> list[Completion]`` (and optionally ``render_chat``), e.g.
:class:`pluralign.llm.hf.TransformersLLM`. Calls into the backend are serialized. The HTTP side (routes, request
limits, uvicorn in a thread) is :mod:`pluralign.llm.asgi`; this module is the API itself.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
import uuid
from collections import Counter
from typing import Any

from pluralign.llm.asgi import HTTPError, WebServer, app

__all__ = ["LLMServer", "serve", "main", "wait_for_stop_signal", "HTTPError", "LIMITS"]

#: what one request may ask of the server (413 / 400 beyond): body bytes, tokens per completion, completions
#: per request, seconds a client may take to send its request; and the listen backlog
LIMITS = {"max_body_bytes": 16 * 2**20, "max_tokens": 8192, "max_n": 128, "client_timeout_s": 30.0, "backlog": 256}


def _lse(a: float, b: float) -> float:
    m = max(a, b)
    return m + math.log(math.exp(a - m) + math.exp(b - m))


def _num(body: dict, name: str, default, lo=None, hi=None, kind=float):
    v = body.get(name)
    if v is None:
        return default
    try:
        v = kind(v)
    except (TypeError, ValueError):
        raise HTTPError(400, f"'{name}' must be a {kind.__name__}, got {body.get(name)!r}") from None
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise HTTPError(400, f"'{name}' must be in [{lo}, {hi}], got {v}")
    return v


def _response(prefix: str, kind: str, model: str, choices: list, ptok: int, ctok: int) -> dict:
    """An OpenAI completion response (``kind``: ``text_completion`` or ``chat.completion``): a fresh id with its
    ``prefix``, the time, the model, the choices and the token usage."""
    return {
        "id": f"{prefix}-{uuid.uuid4().hex[:24]}",
        "object": kind,
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        "usage": {"prompt_tokens": ptok, "completion_tokens": ctok, "total_tokens": ptok + ctok},
    }


class BatchAPI:
    """The Batch API's side of the server: uploaded files, batches run in order in a background thread, their
    output and error files (``files`` and ``batches`` by id)."""

    files: dict[str, dict]
    batches: dict[str, dict]
    batch_request_count: int
    _lock: threading.Lock

    def add_file(self, data: bytes, filename: str, purpose: str) -> dict:
        fid = f"file-{uuid.uuid4().hex[:24]}"
        meta = {
            "id": fid,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        with self._lock:
            self.files[fid] = {"meta": meta, "data": data}
        return meta

    def file(self, fid: str) -> dict:
        """``{"meta": ..., "data": bytes}`` of an uploaded or output file; 404 for an unknown id."""
        f = self.files.get(fid)
        if f is None:
            raise HTTPError(404, f"file {fid!r} not found", "not_found_error")
        return f

    def batch(self, bid: str) -> dict:
        b = self.batches.get(bid)
        if b is None:
            raise HTTPError(404, "batch not found", "not_found_error")
        return dict(b)

    def create_batch(self, body: dict) -> dict:
        fid, endpoint = body.get("input_file_id"), body.get("endpoint")
        if fid not in self.files:
            raise HTTPError(404, f"input file {fid!r} not found", "not_found_error")
        if endpoint not in ("/v1/completions", "/v1/chat/completions"):
            raise HTTPError(400, f"endpoint {endpoint!r} is not supported for batches")
        bid = f"batch_{uuid.uuid4().hex[:24]}"
        now = int(time.time())
        b = {
            "id": bid,
            "object": "batch",
            "endpoint": endpoint,
            "errors": None,
            "input_file_id": fid,
            "completion_window": body.get("completion_window", "24h"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": now,
            "in_progress_at": None,
            "expires_at": now + 86400,
            "completed_at": None,
            "failed_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        with self._lock:
            self.batches[bid] = b
        threading.Thread(target=self._process_batch, args=(bid,), daemon=True).start()
        return dict(b)

    def _process_batch(self, bid: str) -> None:
        """Run a batch's requests in order. A malformed input line fails the batch at validation, a backend
        error fails it where it happened (status ``failed``, the error in ``errors``); a request the API
        refuses (4xx) goes to the error file and the batch goes on."""
        b = self.batches[bid]
        try:
            reqs = []
            for n, line in enumerate(self.files[b["input_file_id"]]["data"].decode().splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    req = json.loads(line)
                    if not isinstance(req, dict) or "custom_id" not in req or not isinstance(req.get("body"), dict):
                        raise ValueError("a request needs custom_id and a body object")
                except ValueError as e:
                    return self._fail(b, f"line {n} of the input file is not a batch request: {e}", line=n)
                reqs.append(req)
            b["status"], b["in_progress_at"] = "in_progress", int(time.time())
            out, err = [], []
            for req in reqs:
                rid = f"batch_req_{uuid.uuid4().hex[:16]}"
                try:
                    if req.get("url") != b["endpoint"]:
                        raise HTTPError(400, f"url {req.get('url')!r} differs from the batch endpoint")
                    fn = self.completions if b["endpoint"] == "/v1/completions" else self.chat_completions
                    out.append(
                        {
                            "id": rid,
                            "custom_id": req["custom_id"],
                            "error": None,
                            "response": {"status_code": 200, "request_id": rid, "body": fn(req["body"])},
                        }
                    )
                    b["request_counts"]["completed"] += 1
                except HTTPError as e:
                    err.append(
                        {
                            "id": rid,
                            "custom_id": req.get("custom_id"),
                            "error": None,
                            "response": {
                                "status_code": e.status,
                                "request_id": rid,
                                "body": {"error": {"message": e.message, "type": e.type, "code": e.code}},
                            },
                        }
                    )
                    b["request_counts"]["failed"] += 1
                b["request_counts"]["total"] += 1
                with self._lock:
                    self.batch_request_count += 1
            if out:
                b["output_file_id"] = self.add_file(
                    "".join(json.dumps(o) + "\n" for o in out).encode(), f"{bid}_output.jsonl", "batch_output"
                )["id"]
            if err:
                b["error_file_id"] = self.add_file(
                    "".join(json.dumps(o) + "\n" for o in err).encode(), f"{bid}_error.jsonl", "batch_output"
                )["id"]
            b["status"], b["completed_at"] = "completed", int(time.time())
        except Exception as e:  # noqa: BLE001 - a backend failure ends the batch as failed, never hangs it
            self._fail(b, f"{type(e).__name__}: {e}")

    @staticmethod
    def _fail(b: dict, message: str, line: int | None = None) -> None:
        b["errors"] = {
            "object": "list",
            "data": [{"code": "batch_failed", "message": message, "param": None, "line": line}],
        }
        b["status"], b["failed_at"] = "failed", int(time.time())


class LLMServer(BatchAPI):
    """An OpenAI-compatible server in a background thread (``start``/``stop`` or a ``with`` block).

    ``request_count`` counts every HTTP request to ``/v1/...``; ``counts`` per ``METHOD path``. With
    ``record=True`` (tests), ``log`` holds ``(path, body)`` of every completion request and ``authorizations``
    the Authorization headers; otherwise the server
    keeps nothing of a request after answering it but what the Batch API needs (its files and batches).
    Request limits: :data:`LIMITS` (or ``limits=`` to override some)."""

    def __init__(
        self,
        backend: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        model_id: str | list[str] | None = None,
        delay: float = 0.0,
        record: bool = False,
        limits: dict | None = None,
    ):
        self.backend = backend
        names = [model_id] if isinstance(model_id, str) else list(model_id or [])
        #: the names the server answers to (``--served-model-name``); ``model_id`` is the first
        self.model_ids = list(dict.fromkeys(str(n) for n in names)) or [str(getattr(backend, "model", "local"))]
        self.model_id = self.model_ids[0]
        self.host, self.port = host, port
        self.delay = delay  # seconds added to each completion (to make kill tests land mid-job)
        self.request_count = 0
        self.batch_request_count = 0
        self.counts: Counter = Counter()
        self.record = record
        self.log: list[tuple[str, dict]] = []
        self.authorizations: list[str] = []  # record=True only
        self.limits = {**LIMITS, **(limits or {})}
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._backend_lock = threading.Lock()
        self._web: WebServer | None = None

    # ---- lifecycle ------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> LLMServer:
        self._web = WebServer(
            app(self),
            self.host,
            self.port,
            backlog=self.limits["backlog"],  # many parallel clients connect without a reset
            client_timeout_s=self.limits["client_timeout_s"],  # a stalled client's request times out
        )
        self.port = self._web.bind()  # listening from here on: a client may connect while uvicorn starts
        self._web.start()
        return self

    def stop(self) -> None:
        if self._web is not None:
            self._web.stop()
            self._web = None

    def __enter__(self) -> LLMServer:
        return self.start() if self._web is None else self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stats(self) -> dict:
        with self._lock:
            return {
                "requests": self.request_count,
                "batch_requests": self.batch_request_count,
                "by_path": dict(self.counts),
            }

    def count(self, method: str, path: str, authorization: str | None = None) -> None:
        """Count a request to ``/v1/...`` (and keep its Authorization header when recording)."""
        if path.startswith("/v1/"):
            with self._lock:
                self.request_count += 1
                self.counts[f"{method} {path}"] += 1
                if self.record and authorization:
                    self.authorizations.append(authorization)

    # ---- API ------------------------------------------------------------------------------------
    def answer(self, path: str, body: dict) -> dict:
        """The answer to a completion request to ``/v1/completions`` or ``/v1/chat/completions``."""
        if self.record:
            with self._lock:
                self.log.append((path, body))
        return self.completions(body) if path == "/v1/completions" else self.chat_completions(body)

    def _complete(self, prompt: str, body: dict, logprobs: int | None, add_special_tokens: bool = True):
        n = _num(body, "n", 1, 1, self.limits["max_n"], int)
        max_tokens = _num(body, "max_completion_tokens", None, 0, self.limits["max_tokens"], int)
        if max_tokens is None:
            max_tokens = _num(body, "max_tokens", 16, 0, self.limits["max_tokens"], int)
        temperature = _num(body, "temperature", 1.0, 0.0, 2.0)
        top_p = _num(body, "top_p", 1.0, 0.0, 1.0)
        if top_p <= 0:
            raise HTTPError(400, "'top_p' must be > 0")
        seed = _num(body, "seed", None, kind=int)
        stop = body.get("stop")
        if isinstance(stop, str):
            stop = [stop]
        if body.get("stream"):
            raise HTTPError(400, "stream=true is not supported by this server")
        if self.delay:
            time.sleep(self.delay)
        with self._backend_lock:
            return self.backend.complete(
                prompt,
                max_tokens=max_tokens,
                temperature=temperature,
                top_p=top_p,
                n=n,
                seed=seed,
                stop=stop,
                logprobs=logprobs,
                add_special_tokens=add_special_tokens,
            )

    def _check_model(self, body: dict) -> str:
        """The served name a request asks for; any other is 404 ``model_not_found`` (the OpenAI API's answer)."""
        m = body.get("model")
        if m not in self.model_ids:
            shown = ", ".join(repr(n) for n in self.model_ids[:8]) + (" ..." if len(self.model_ids) > 8 else "")
            raise HTTPError(
                404,
                f"The model {m!r} does not exist; this server serves {shown}",
                "invalid_request_error",
                "model_not_found",
            )
        return m

    def completions(self, body: dict) -> dict:
        model = self._check_model(body)
        prompts = body.get("prompt")
        if isinstance(prompts, str):
            prompts = [prompts]
        if not isinstance(prompts, list) or not prompts or not all(isinstance(p, str) for p in prompts):
            raise HTTPError(400, "'prompt' must be a string or a list of strings")
        k = _num(body, "logprobs", None, 0, 10_000_000, int)
        choices, ptok, ctok = [], 0, 0
        for p in prompts:
            comps = self._complete(p, body, k)
            for c in comps:
                lp = None
                if k is not None:
                    tops = []
                    for alts in c.top_logprobs or [[] for _ in c.tokens]:
                        d: dict[str, float] = {}
                        for t, lp_ in alts:
                            d[t] = _lse(d[t], lp_) if t in d else lp_
                        tops.append(d)
                    offs, o = [], len(p)
                    for t in c.tokens:
                        offs.append(o)
                        o += len(t)
                    lp = {
                        "tokens": c.tokens,
                        "token_logprobs": c.token_logprobs,
                        "top_logprobs": tops,
                        "text_offset": offs,
                    }
                choices.append(
                    {"index": len(choices), "text": c.text, "logprobs": lp, "finish_reason": c.finish_reason}
                )
                ctok += len(c.tokens)
            ptok += comps[0].prompt_tokens if comps else 0
        return _response("cmpl", "text_completion", model, choices, ptok, ctok)

    def chat_completions(self, body: dict) -> dict:
        model = self._check_model(body)
        msgs = body.get("messages")
        if not isinstance(msgs, list) or not msgs or not all(isinstance(m, dict) and "content" in m for m in msgs):
            raise HTTPError(400, "'messages' must be a non-empty list of {role, content}")
        for m in msgs:
            if isinstance(m["content"], list):  # content parts: keep the text ones
                m["content"] = "".join(p.get("text", "") for p in m["content"] if isinstance(p, dict))
        render = getattr(self.backend, "render_chat", None)
        prompt, add_special = render(msgs) if render else ("\n\n".join(str(m["content"]) for m in msgs), True)
        want = bool(body.get("logprobs"))
        k = _num(body, "top_logprobs", 0, 0, 10_000_000, int)
        if k and not want:
            raise HTTPError(400, "'top_logprobs' needs 'logprobs': true")
        comps = self._complete(prompt, body, k if want else None, add_special)

        def entry(t: str, lp_: float) -> dict:
            return {"token": t, "logprob": lp_, "bytes": list(t.encode("utf-8"))}

        choices = []
        for i, c in enumerate(comps):
            lp = None
            if want:
                tops = c.top_logprobs or [[] for _ in c.tokens]
                lp = {
                    "content": [
                        dict(entry(t, lp_), top_logprobs=[entry(a, x) for a, x in alts])
                        for t, lp_, alts in zip(c.tokens, c.token_logprobs, tops)
                    ]
                }
            choices.append(
                {
                    "index": i,
                    "message": {"role": "assistant", "content": c.text},
                    "logprobs": lp,
                    "finish_reason": c.finish_reason,
                }
            )
        ptok = comps[0].prompt_tokens if comps else 0
        ctok = sum(len(c.tokens) for c in comps)
        return _response("chatcmpl", "chat.completion", model, choices, ptok, ctok)

    def models(self) -> dict:
        return {
            "object": "list",
            "data": [{"id": n, "object": "model", "created": 0, "owned_by": "pluralign"} for n in self.model_ids],
        }


def serve(backend: Any, host: str = "127.0.0.1", port: int = 0, **kw) -> LLMServer:
    """A started :class:`LLMServer` (use it in a ``with`` block to stop it)."""
    return LLMServer(backend, host=host, port=port, **kw).start()


def main(argv: list[str] | None = None) -> int:
    """``pluralign serve [--model NAME_OR_PATH] [--served-model-name NAME [NAME ...]] [--host 127.0.0.1]
    [--port 8000]``."""
    ap = argparse.ArgumentParser(
        prog="pluralign serve", description="OpenAI-compatible server over a local LLM (pluralign.llm.load)"
    )
    ap.add_argument(
        "--model", default=None, help="local causal LM folder or Hub id (default: the embedded Gemma 3 270M base model)"
    )
    ap.add_argument(
        "--served-model-name",
        nargs="+",
        default=None,
        metavar="NAME",
        help="model name(s) the server answers to, as vLLM's flag (default: the model's); "
        "requests naming any other model get 404 model_not_found",
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--trust-remote-code", action="store_true")
    a = ap.parse_args(argv)
    from pluralign.llm import load

    kw: dict[str, Any] = {"dtype": a.dtype}
    if a.model is not None:
        kw["trust_remote_code"] = a.trust_remote_code
    t0 = time.perf_counter()
    llm = load(a.model, **kw)
    srv = LLMServer(llm, host=a.host, port=a.port, model_id=a.served_model_name)
    srv.start()
    print(
        f"serving {', '.join(srv.model_ids)} on {srv.url} (loaded in {time.perf_counter() - t0:.1f} s); Ctrl-C stops",
        flush=True,
    )
    try:
        wait_for_stop_signal()
    finally:
        srv.stop()
    return 0


def wait_for_stop_signal(signals=(signal.SIGINT, signal.SIGTERM), step_s: float = 0.5) -> int:
    """Block the main thread until one of ``signals`` (Ctrl-C, ``kill``) arrives; return it. The kernel may hand a
    process's signal to any of its threads (torch's, uvicorn's), and CPython then runs the Python handler only
    when the main thread next executes bytecode: a main thread asleep in one long ``time.sleep`` would not wake.
    Here it waits on an event in ``step_s`` steps, so the handler runs within a step whichever thread took the
    signal. The previous handlers are restored on return."""
    got: list[int] = []
    stop = threading.Event()

    def handler(signum, frame):
        got.append(signum)
        stop.set()

    previous = {s: signal.signal(s, handler) for s in signals}
    try:
        while not stop.wait(step_s):
            pass
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    return got[0]


if __name__ == "__main__":
    sys.exit(main())

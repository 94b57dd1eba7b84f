"""The web layer of ``pluralign serve``: the OpenAI-compatible API of :class:`pluralign.llm.server.LLMServer` as a
starlette (ASGI) app, served by uvicorn in a background thread.

What a request may ask of the server is enforced here, before the API sees it: a body past ``max_body_bytes`` is
answered 413 (read and dropped up to four times the limit, so that the client can read the answer, then the
connection is closed), a body that stalls for ``client_timeout_s`` is answered 408, a connection that sends nothing
for ``client_timeout_s`` is closed, and the listen backlog is ``backlog``. Every answer is JSON as the API sends it
(``{"error": {"message", "type", "param", "code"}}`` for an error); a backend failure is a 500 with its message.
The Batch API's file upload is ``multipart/form-data`` parsed by python-multipart (through starlette).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HTTPError", "app", "WebServer"]


class HTTPError(Exception):
    """An API error: answered with ``status`` and OpenAI's error object (``message``, ``type``, ``code``);
    ``close`` ends the connection after the answer (a request whose body was not read to its end)."""

    def __init__(
        self,
        status: int,
        message: str,
        type_: str = "invalid_request_error",
        code: str | None = None,
        close: bool = False,
    ):
        super().__init__(message)
        self.status, self.message, self.type, self.code, self.close = status, message, type_, code, close


def _json(status: int, payload: Any, close: bool = False) -> Response:
    """``payload`` as the standard library writes JSON (NaN and ±Infinity included, as a log-probability may be)."""
    headers = {"Connection": "close"} if close else None
    return Response(json.dumps(payload).encode(), status_code=status, media_type="application/json", headers=headers)


def _error(e: HTTPError) -> Response:
    return _json(e.status, {"error": {"message": e.message, "type": e.type, "param": None, "code": e.code}}, e.close)


def _endpoint(fn):
    """A route whose API errors and backend failures come back as JSON answers (never an unanswered request)."""

    async def route(request: Request) -> Response:
        try:
            return await fn(request)
        except HTTPError as e:
            return _error(e)
        except ClientDisconnect:  # nobody to answer
            return Response(status_code=400, headers={"Connection": "close"})
        except Exception as e:  # noqa: BLE001 - a backend failure is a 500 with its reason, not a dead connection
            return _error(HTTPError(500, f"{type(e).__name__}: {e}", "server_error"))

    return route


async def _json_body(request: Request) -> dict:
    try:
        body = json.loads(await request.body() or b"{}")
    except json.JSONDecodeError as e:
        raise HTTPError(400, f"request body is not JSON: {e}") from None
    if not isinstance(body, dict):
        raise HTTPError(400, "request body must be a JSON object")
    return body


def _routes(srv) -> list[Route]:
    """The API's routes over ``srv`` (an :class:`~pluralign.llm.server.LLMServer`); the backend runs in worker
    threads (the server serializes the calls into it)."""

    async def stats(request):
        return _json(200, srv.stats())

    async def models(request):
        return _json(200, srv.models())

    async def completions(request):
        body = await _json_body(request)
        return _json(200, await run_in_threadpool(srv.answer, request.url.path, body))

    async def upload(request):
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise HTTPError(400, "upload must be multipart/form-data with 'file' and 'purpose'")
        async with request.form(max_files=4, max_fields=16) as form:
            f = form.get("file")
            if f is None or isinstance(f, str):
                raise HTTPError(400, "missing form field 'file'")
            data = await f.read()
            purpose = form.get("purpose", "batch")
            return _json(200, srv.add_file(data, f.filename or "upload.jsonl", str(purpose)))

    async def file(request):
        return _json(200, srv.file(request.path_params["file_id"])["meta"])

    async def file_content(request):
        data = srv.file(request.path_params["file_id"])["data"]
        return Response(data, media_type="application/octet-stream")

    async def create_batch(request):
        return _json(200, srv.create_batch(await _json_body(request)))

    async def batch(request):
        return _json(200, srv.batch(request.path_params["batch_id"]))

    table = [
        ("/stats", stats, "GET"),
        ("/v1/models", models, "GET"),
        ("/v1/completions", completions, "POST"),
        ("/v1/chat/completions", completions, "POST"),
        ("/v1/files", upload, "POST"),
        ("/v1/files/{file_id}", file, "GET"),
        ("/v1/files/{file_id}/content", file_content, "GET"),
        ("/v1/batches", create_batch, "POST"),
        ("/v1/batches/{batch_id}", batch, "GET"),
    ]
    return [Route(path, _endpoint(fn), methods=[method]) for path, fn, method in table]


class _Limits:
    """ASGI middleware: counts each ``/v1/`` request on the server, strips a trailing slash, and holds a request's
    body to the size and time limits (module docstring)."""

    def __init__(self, inner, srv):
        self.inner, self.srv = inner, srv

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.inner(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        self.srv.count(scope["method"], scope["path"], headers.get("authorization"))
        scope = dict(scope, path=scope["path"].rstrip("/") or "/")
        limit, timeout = self.srv.limits["max_body_bytes"], self.srv.limits["client_timeout_s"]
        n = int(headers.get("content-length") or 0)  # h11 has refused a Content-Length that is not a number
        if n > limit:
            if n <= 4 * limit:  # read and drop it, so that the client can read the 413
                await self._drain(receive, n, timeout)
            e = HTTPError(
                413, f"request body of {n} bytes exceeds the limit of {limit}", "request_too_large", close=True
            )
            return await _error(e)(scope, receive, send)
        received = 0

        async def limited():
            nonlocal received
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except asyncio.TimeoutError:
                raise HTTPError(408, "request body not received in time", "timeout", close=True) from None
            received += len(message.get("body", b""))
            if received > limit:
                raise HTTPError(
                    413, f"request body exceeds the limit of {limit} bytes", "request_too_large", close=True
                )
            return message

        await self.inner(scope, limited, send)

    @staticmethod
    async def _drain(receive, n: int, timeout: float) -> None:
        left = n
        try:
            while left > 0:
                message = await asyncio.wait_for(receive(), timeout)
                left -= len(message.get("body", b""))
                if message["type"] != "http.request" or not message.get("more_body"):
                    return
        except asyncio.TimeoutError:
            return


def app(srv) -> _Limits:
    """The ASGI app of ``srv``'s API: routes, JSON errors for unknown routes, the request limits."""

    async def no_route(request, exc):
        return _error(HTTPError(404, f"no route {request.method} {request.url.path}", "not_found_error"))

    inner = Starlette(routes=_routes(srv), exception_handlers={StarletteHTTPException: no_route})
    return _Limits(inner, srv)


class _Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a new connection that sends nothing closed after the keep-alive timeout
    (``client_timeout_s``), as an idle kept-alive one is."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)


class _Uvicorn(uvicorn.Server):
    def __init__(self, config, started: threading.Event):
        super().__init__(config)
        self.started_event = started

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        self.started_event.set()


class WebServer:
    """uvicorn serving an ASGI app on ``host:port`` (0: a free port) in a daemon thread: ``bind()`` listens at once
    and returns the port (a client may connect from then on), ``start()`` returns once uvicorn serves, ``stop()``
    once it has stopped (requests in flight get ``grace_s`` to finish)."""

    def __init__(self, asgi_app, host: str, port: int, *, backlog: int, client_timeout_s: float, grace_s: float = 5.0):
        self.app, self.host, self.port = asgi_app, host, port
        self.backlog, self.client_timeout_s, self.grace_s = backlog, client_timeout_s, grace_s
        self._server: _Uvicorn | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self._sock: socket.socket | None = None

    def bind(self) -> int:
        if self._sock is None:
            family = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)[0][0]
            self._sock = socket.create_server((self.host, self.port), family=family, backlog=self.backlog)
            self.port = self._sock.getsockname()[1]
        return self.port

    def start(self) -> int:
        self.bind()
        sock = self._sock
        config = uvicorn.Config(
            self.app,
            http=_Protocol,
            ws="none",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            backlog=self.backlog,
            timeout_keep_alive=self.client_timeout_s,
            timeout_graceful_shutdown=self.grace_s,
        )
        started = threading.Event()
        self._server = _Uvicorn(config, started)

        def run():
            try:
                self._server.run(sockets=[sock])
            except BaseException as e:  # noqa: BLE001 - reported by start()
                self._failure = e
            finally:
                started.set()

        self._thread = threading.Thread(target=run, name="pluralign-llm-server", daemon=True)
        self._thread.start()
        started.wait()
        if self._failure is not None or not self._server.started:
            sock.close()
            raise RuntimeError(f"the server did not start on {self.host}:{self.port}: {self._failure!r}")
        return self.port

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=self.grace_s + 10)
        self._server = self._thread = self._sock = None

"""The local OpenAI-compatible server under load and abuse: parallel clients, big or lying bodies, slow
clients, absurd settings, broken batches. Traffic goes to 127.0.0.1 only; every loop is bounded.

Nothing here asserts how fast the server answers (that is bench/bench_llm.py's business): a test waits for the
answer or the closed connection it expects, and its timeouts (``HANG_S``) only stop a hang, so a CPU busy with other
work makes it slower, never red."""

import http.client
import json
import signal
import socket
import threading
import time

import pytest

from pluralign.llm.scripted import ScriptedBackend
from pluralign.llm.server import LLMServer, serve

HANG_S = 120  # a client-side deadline that only guards against a hang; every wait below ends on an event first


def _post(port, path, body: bytes, headers=None, timeout=HANG_S):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("POST", path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def _completion(model, **kw):
    return json.dumps({"model": model, "prompt": "hi", "max_tokens": 2, **kw}).encode()


@pytest.fixture
def srv():
    with serve(ScriptedBackend(lambda p, k: " A"), limits={"client_timeout_s": 2.0}) as s:
        yield s


def _fifty_clients_ten_requests(port, model) -> tuple[list, list]:
    """50 threads, each sending 10 completion requests on fresh connections: (errors, statuses)."""
    errors, ok = [], []

    def client():
        for _ in range(10):
            try:
                status, _ = _post(port, "/v1/completions", _completion(model, max_tokens=1))
                ok.append(status)
            except OSError as e:  # a reset or refused connection
                errors.append(repr(e))

    threads = [threading.Thread(target=client) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=2 * HANG_S)
    return errors, ok


def test_fifty_parallel_clients_ten_requests_each_get_no_reset(srv):
    errors, ok = _fifty_clients_ten_requests(srv.port, srv.model_id)
    assert errors == [] and ok == [200] * 500


def test_pluralign_serve_itself_holds_fifty_clients_and_refuses_a_20_mb_body(monkeypatch):
    """The same through the command's own code (``pluralign serve --model M``: its argument parsing, its server and
    default limits, its Ctrl-C stop), with the model load swapped for the scripted backend so that 500 requests
    take a second, not a CPU model's half-minute."""
    import pluralign.llm
    from pluralign.llm import server as S

    started, stop = [], threading.Event()
    monkeypatch.setattr(pluralign.llm, "load", lambda name, **kw: ScriptedBackend(lambda p, k: " A", model=name))
    real_start = S.LLMServer.start
    # the server is handed to the test once it listens (start() has returned), not when start() is called: reading
    # its port earlier raced the bind (a port of 0 until then: every connection refused)
    monkeypatch.setattr(S.LLMServer, "start", lambda self: started.append(real_start(self)) or started[-1])

    def wait_for_stop_signal():  # the command's wait for Ctrl-C (signal handlers: main thread only): until the test
        stop.wait(10 * HANG_S)  # is done (set by its own finally; the bound only guards against a hang)
        return signal.SIGINT

    monkeypatch.setattr(S, "wait_for_stop_signal", wait_for_stop_signal)
    rc = []
    cmd = threading.Thread(target=lambda: rc.append(S.main(["--model", "m", "--port", "0"])))
    cmd.start()
    try:
        deadline = time.monotonic() + HANG_S
        while not started and cmd.is_alive() and time.monotonic() < deadline:
            stop.wait(0.01)
        assert started, f"pluralign serve did not start (it returned {rc})"
        srv = started[0]
        assert srv.limits["backlog"] >= 50 and srv.limits["max_body_bytes"] < 20 * 2**20
        errors, ok = _fifty_clients_ten_requests(srv.port, "m")
        assert errors == [] and ok == [200] * 500
        status, data = _post(srv.port, "/v1/completions", b"x" * (20 * 2**20))
        assert status == 413 and b"exceeds the limit" in data
    finally:
        stop.set()
        cmd.join(timeout=HANG_S)
    assert rc == [0]


def test_a_20_mb_body_gets_413_without_being_read(srv):
    status, data = _post(srv.port, "/v1/completions", b"x" * (20 * 2**20))
    assert status == 413 and b"exceeds the limit" in data


def test_absurd_max_tokens_and_n_are_refused(srv):
    assert _post(srv.port, "/v1/completions", _completion(srv.model_id, max_tokens=10**12))[0] == 400
    assert _post(srv.port, "/v1/completions", _completion(srv.model_id, n=10**6))[0] == 400


def test_a_body_shorter_than_its_content_length_times_out_cleanly(srv):
    """The server answers a body that stalls short of its Content-Length with a 4xx (after its client_timeout_s of
    2 s) instead of waiting for the rest; a hang ends in this side's socket timeout, which fails the test."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=HANG_S)
    s.sendall(
        b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"model": '
    )
    try:
        reply = s.recv(4096)
    finally:
        s.close()
    assert reply.startswith(b"HTTP/1.1 4"), reply  # 408 / 400, not a hang
    assert _post(srv.port, "/v1/completions", _completion(srv.model_id))[0] == 200  # the server still serves


def test_a_stalled_client_does_not_hold_the_server():
    """20 connections that send nothing do not keep a request from being answered. The server's client timeout is
    far longer than this side's, so a server that served the stalled connections first would make the request
    time out here (it fails, it does not wait them out)."""
    with serve(ScriptedBackend(lambda p, k: " A"), limits={"client_timeout_s": 10 * HANG_S}) as srv:
        stalled = [socket.create_connection(("127.0.0.1", srv.port), timeout=HANG_S) for _ in range(20)]
        try:
            assert _post(srv.port, "/v1/completions", _completion(srv.model_id), timeout=HANG_S)[0] == 200
        finally:
            for s in stalled:
                s.close()


def test_a_connection_that_sends_nothing_is_closed_after_the_client_timeout(srv):
    """The server closes a connection that sends nothing once its client_timeout_s (2 s) has passed, not before:
    the clock starts before the connection exists, so a busy CPU can only lengthen what is measured, and a server
    that never closes it runs into this side's socket timeout (an error, so the test fails)."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=HANG_S)
    try:
        assert s.recv(4096) == b""  # closed by the server, not by this side's timeout (that raises)
    finally:
        s.close()
    assert time.monotonic() - t0 >= 2.0  # not closed before client_timeout_s


def _batch(srv, lines: str):
    import openai

    c = openai.OpenAI(base_url=srv.url, api_key="x")
    f = c.files.create(file=("in.jsonl", lines.encode()), purpose="batch")
    b = c.batches.create(input_file_id=f.id, endpoint="/v1/completions", completion_window="24h")
    deadline = time.monotonic() + HANG_S  # poll until the batch ends; the deadline only guards against a hang
    while time.monotonic() < deadline:
        b = c.batches.retrieve(b.id)
        if b.status not in ("validating", "in_progress", "finalizing"):
            return b
        time.sleep(0.05)
    raise AssertionError(f"batch still {b.status} after {HANG_S} s")


def test_a_malformed_batch_line_fails_the_batch_with_the_line_named(srv):
    good = json.dumps(
        {"custom_id": "a", "method": "POST", "url": "/v1/completions", "body": json.loads(_completion(srv.model_id))}
    )
    b = _batch(srv, good + "\n{not json\n")
    assert b.status == "failed" and "line 2" in b.errors.data[0].message


def test_a_backend_error_fails_the_batch_instead_of_hanging():
    def boom(prompt, k):
        raise RuntimeError("backend crashed")

    with serve(ScriptedBackend(boom)) as s:
        line = json.dumps(
            {"custom_id": "a", "method": "POST", "url": "/v1/completions", "body": json.loads(_completion(s.model_id))}
        )
        b = _batch(s, line + "\n")
        assert b.status == "failed" and "backend crashed" in b.errors.data[0].message


def test_nothing_of_a_request_is_kept_by_default():
    with serve(ScriptedBackend(lambda p, k: " A")) as s:
        _post(s.port, "/v1/completions", _completion(s.model_id), headers={"Authorization": "Bearer secret-x"})
        assert s.log == [] and s.authorizations == []
    assert isinstance(LLMServer(ScriptedBackend(lambda p, k: " A")).limits["max_body_bytes"], int)


def test_a_batch_client_gives_up_at_its_deadline_and_a_rerun_collects_the_batch():
    """The client's polling has a deadline (batch_deadline): a batch still pending then is an error that says it
    keeps running; the rerun of the job collects it without submitting it again. The server's backend holds the
    batch until the first client has given up (an event, not a delay the client might outlast on a busy CPU); a
    client that ignored its deadline would collect the batch once the hold ends, and the test fails."""
    import pluralign.llm as L
    from pluralign.llm.base import LLMError

    prompts = [f"item {i}" for i in range(3)]
    released = threading.Event()

    def held(p, k):
        released.wait(HANG_S)
        return f"label of {p}"

    with serve(ScriptedBackend(held)) as srv:
        c = L.load(
            srv.model_id,
            base_url=srv.url,
            mode="completions",
            batch=True,
            poll_interval=0.02,
            batch_deadline=0.2,
            max_retries=0,
        )
        pending = r"still (validating|in_progress|finalizing) after 0 s \(batch_deadline\)"
        try:
            with pytest.raises(LLMError, match=pending):
                c.generate(prompts, max_tokens=2, job="slow-batch")
        finally:
            released.set()
        c2 = L.load(
            srv.model_id,
            base_url=srv.url,
            mode="completions",
            batch=True,
            poll_interval=0.02,
            batch_deadline=HANG_S,
            max_retries=0,
        )
        assert c2.generate(prompts, max_tokens=2, job="slow-batch") == [[f"label of {p}"] for p in prompts]
        assert srv.counts["POST /v1/batches"] == 1  # collected, not resubmitted

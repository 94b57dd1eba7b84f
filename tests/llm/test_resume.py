"""Resuming a labelling job: killing it half-way and restarting it finishes with the same
results and no repeated requests (counted at the project's own OpenAI-compatible server)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import openai
import pytest

import pluralign.llm as llm_mod
from pluralign.cache import cache_dir
from pluralign.llm.scripted import ScriptedBackend
from pluralign.llm.server import serve
from pluralign.llm.tiny import make_tiny_causal_lm

ROOT = Path(__file__).resolve().parents[2]

JOB_SCRIPT = r"""
import sys, json
import pluralign.llm as llm
url, model, out = sys.argv[1], sys.argv[2], sys.argv[3]
prompts = json.load(open(sys.argv[4]))
c = llm.load(model, base_url=url, mode="completions", concurrency=1, max_retries=0)
res = c.generate(prompts, max_tokens=5, job="labelling")
json.dump(res, open(out, "w"))
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return llm_mod.load(str(make_tiny_causal_lm(tmp_path_factory.mktemp("tiny"))))


def _journal_lines() -> int:
    files = list(cache_dir().glob("llm_labelling/*.jsonl"))
    return sum(len(f.read_bytes().splitlines()) for f in files)


def test_killed_labelling_job_resumes_without_repeating_requests(tiny, tmp_path):
    prompts = [f"Pair {i}: which answer is better? Choice:" for i in range(24)]
    expected = tiny.generate(prompts, max_tokens=5)  # what an uninterrupted run returns
    (tmp_path / "prompts.json").write_text(json.dumps(prompts))
    script = tmp_path / "job.py"
    script.write_text(JOB_SCRIPT)
    with serve(tiny, delay=0.15, record=True) as srv:
        env = dict(os.environ, PYTHONPATH=str(ROOT / "lib"))
        cmd = [
            sys.executable,
            str(script),
            srv.url,
            srv.model_id,
            str(tmp_path / "out.json"),
            str(tmp_path / "prompts.json"),
        ]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while _journal_lines() < 6 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)  # kill -9, half-way
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, proc.stdout.read().decode()[-2000:]
        first_run = [b["prompt"] for _, b in srv.log]
        journaled = _journal_lines()
        assert 6 <= journaled < len(prompts)
        assert not (tmp_path / "out.json").exists()

        # the restart: in this process, same cache, same job name
        c = llm_mod.load(srv.model_id, base_url=srv.url, mode="completions", concurrency=1, max_retries=0)
        result = c.generate(prompts, max_tokens=5, job="labelling")
        second_run = [b["prompt"] for _, b in srv.log[len(first_run) :]]

    assert result == expected  # same results
    assert len(second_run) == len(prompts) - journaled  # only the missing items were asked for
    assert len(set(second_run)) == len(second_run)
    done_in_first = set(first_run[:journaled])
    assert not done_in_first & set(second_run)  # no finished item asked again
    assert set(first_run) | set(second_run) == set(prompts)
    # at most the one request in flight at the kill was sent twice
    assert len(first_run) + len(second_run) <= len(prompts) + 1


def test_server_error_mid_job_keeps_finished_items(tmp_path):
    """A job that dies on a failing request keeps what finished; the rerun asks only for the rest."""
    state = {"fail": True}

    def reply(prompt, k):
        if state["fail"] and prompt.endswith("#7"):
            raise RuntimeError("backend crashed")
        return f"label of {prompt}"

    backend = ScriptedBackend(reply)
    prompts = [f"item #{i}" for i in range(12)]
    with serve(backend, record=True) as srv:
        c = llm_mod.load(srv.model_id, base_url=srv.url, mode="chat", concurrency=1, max_retries=0)
        with pytest.raises(openai.InternalServerError, match="backend crashed"):
            c.generate(prompts, max_tokens=4, job="crashy")
        assert srv.counts["POST /v1/chat/completions"] == 8
        state["fail"] = False
        out = c.generate(prompts, max_tokens=4, job="crashy")
        assert out == [[f"label of {p}"] for p in prompts]
        assert srv.counts["POST /v1/chat/completions"] == 8 + 5  # items 7..11 only
        asked = [b["messages"][-1]["content"] for _, b in srv.log[8:]]
        assert asked == prompts[7:]


def test_judge_jobs_resume_and_key_on_settings(tiny, tmp_path):
    items = [(f"q{i}", "yes", "no") for i in range(6)]
    with serve(tiny) as srv:
        c = llm_mod.load(
            srv.model_id,
            base_url=srv.url,
            mode="completions",
            concurrency=2,
            top_logprobs=len(tiny.tokenizer),
            max_retries=0,
        )
        first = c.judge_ab_many(items[:4], job="judge")
        n = srv.request_count
        both = c.judge_ab_many(items, job="judge")
        assert both[:4] == first and srv.request_count == n + 2
        assert both == pytest.approx(tiny.judge_ab_many(items), abs=1e-6)
        # a different model setting is a different journal: nothing is wrongly reused
        c2 = llm_mod.load(
            srv.model_id, base_url=srv.url, mode="completions", concurrency=2, top_logprobs=5, max_retries=0
        )
        c2.judge_ab_many(items[:1], job="judge")
        assert srv.request_count == n + 3


@pytest.mark.slow  # a child process imports torch and serves a model; CI runs it (make test-slow)
def test_pluralign_serve_command_starts_and_stops(tmp_path):
    """``pluralign serve --model FOLDER --port 0`` (the CLI's delegate, main(argv)) in a subprocess: it binds a
    free port itself and prints its address (a port probed here first could be taken before the child binds it)."""
    import re
    import urllib.request

    folder = make_tiny_causal_lm(tmp_path / "tiny")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "lib"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pluralign.llm.server import main; sys.exit(main(sys.argv[1:]))",
            "--model",
            str(folder),
            "--port",
            "0",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        address = re.search(r" on (http://127\.0\.0\.1:[1-9]\d*)/v1 ", line)
        assert address, line
        base = address.group(1)
        c = openai.OpenAI(base_url=f"{base}/v1", api_key="EMPTY", max_retries=0)
        assert [m.id for m in c.models.list().data] == ["tiny"]
        r = c.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": "Choice:"}], max_tokens=3, logprobs=True, top_logprobs=2
        )
        content = r.choices[0].logprobs.content
        assert len(content) == 3 and all(len(p.top_logprobs) == 2 for p in content)
        assert content[0].top_logprobs[0].logprob >= content[0].top_logprobs[1].logprob
        stats = json.loads(urllib.request.urlopen(f"{base}/stats", timeout=120).read())
        assert stats["requests"] == 2
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # never leave a server behind: kill it, then fail
            proc.kill()
            proc.wait()
            raise AssertionError("pluralign serve did not stop within 60 s of Ctrl-C") from None
        assert rc == 0


def test_concurrent_job_journals_every_answer_before_raising():
    """With concurrent requests, one failure cancels what has not started, but every answer that did
    arrive is journaled, so the rerun asks only for the rest."""
    state = {"fail": True}

    def reply(prompt, k):
        if state["fail"] and prompt == "item 3":
            raise RuntimeError("backend crashed")
        return prompt.upper()

    prompts = [f"item {i}" for i in range(10)]
    with serve(ScriptedBackend(reply), delay=0.05, record=True) as srv:
        c = llm_mod.load(srv.model_id, base_url=srv.url, mode="chat", concurrency=3, max_retries=0)
        with pytest.raises(openai.InternalServerError):
            c.generate(prompts, job="conc")
        first = [b["messages"][-1]["content"] for _, b in srv.log]
        answered = [p for p in first if p != "item 3"]
        state["fail"] = False
        assert c.generate(prompts, job="conc") == [[p.upper()] for p in prompts]
        second = [b["messages"][-1]["content"] for _, b in srv.log[len(first) :]]
    assert sorted(second) == sorted(set(prompts) - set(answered))


def test_a_job_resumes_through_another_address_of_the_same_server():
    from pluralign.llm.scripted import ScriptedBackend

    prompts = [f"p{i}" for i in range(6)]
    with serve(ScriptedBackend(lambda p, k: f"r {p}")) as srv:
        a = llm_mod.load(srv.model_id, base_url=f"http://127.0.0.1:{srv.port}/v1", mode="completions")
        a.generate(prompts[:4], max_tokens=2, job="hosts")
        sent = srv.counts["POST /v1/completions"]
        b = llm_mod.load(srv.model_id, base_url=f"http://localhost:{srv.port}/v1", mode="completions")
        assert b.generate(prompts, max_tokens=2, job="hosts") == [[f"r {p}"] for p in prompts]
        assert srv.counts["POST /v1/completions"] - sent == 2  # only p4 and p5 were asked again


def test_two_concurrent_runs_of_one_job_send_each_request_once():
    import threading

    from pluralign.llm.scripted import ScriptedBackend

    prompts = [f"q{i}" for i in range(12)]
    with serve(ScriptedBackend(lambda p, k: f"r {p}"), delay=0.02) as srv:
        results = []

        def run():
            c = llm_mod.load(srv.model_id, base_url=srv.url, mode="completions", concurrency=2)
            results.append(c.generate(prompts, max_tokens=2, job="twice"))

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert len(results) == 2 and results[0] == results[1]
        assert srv.counts["POST /v1/completions"] == len(prompts)

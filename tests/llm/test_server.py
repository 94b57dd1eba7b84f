"""The OpenAI-compatible backend against the project's own server on 127.0.0.1 (real HTTP through the
openai client), backed by a tiny random-weights Llama and by a scripted deterministic model."""

from __future__ import annotations

import json
import math

import openai
import pytest

import pluralign.llm as llm_mod
from pluralign.cache import cache_dir
from pluralign.llm.base import LLMError, extract_json, parse_choice, prob_a_from_logprobs
from pluralign.llm.openai_backend import label_logprobs_of
from pluralign.llm.scripted import ScriptedBackend
from pluralign.llm.server import serve
from pluralign.llm.tiny import make_tiny_causal_lm

SCHEMA = {
    "type": "object",
    "properties": {"helpfulness": {"type": "integer", "minimum": 0, "maximum": 1}, "topic": {"type": "string"}},
    "required": ["helpfulness", "topic"],
}


def featurizer_reply(prompt: str, k: int) -> str:
    """'good' items answer valid JSON at once; 'flaky' ones fail validation first, then answer;
    'broken' ones never answer JSON."""
    if "broken" in prompt:
        return "I cannot do that."
    if "flaky" in prompt and "could not be used" not in prompt:
        return 'Sure! {"helpfulness": 3, "topic": "x"}'  # parses, fails the schema (maximum 1)
    return "```json\n" + json.dumps({"helpfulness": 1, "topic": prompt.splitlines()[0].split()[-1]}) + "\n```"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = make_tiny_causal_lm(tmp_path_factory.mktemp("tiny"))
    return llm_mod.load(str(folder))


@pytest.fixture(scope="module")
def srv(tiny):
    with serve(tiny) as s:
        yield s


def client(srv, **kw):
    kw.setdefault("mode", "completions")
    kw.setdefault("concurrency", 1)
    kw.setdefault("max_retries", 0)
    return llm_mod.load(srv.model_id, base_url=srv.url, **kw)


def test_models_endpoint_and_stats(srv):
    c = openai.OpenAI(base_url=srv.url, api_key="EMPTY")
    assert [m.id for m in c.models.list().data] == [srv.model_id]
    before = srv.request_count
    c.models.list()
    assert srv.request_count == before + 1
    import urllib.request

    stats = json.loads(urllib.request.urlopen(srv.url.removesuffix("/v1") + "/stats").read())
    assert stats["requests"] == srv.request_count and stats["by_path"]["GET /v1/models"] >= 2


def test_generate_over_http_equals_local_backend(srv, tiny):
    prompts = ["Choice:", "Paris is the capital of"]
    local = tiny.generate(prompts, max_tokens=6)
    for mode in ("completions", "chat"):
        remote = client(srv, mode=mode).generate(prompts, max_tokens=6)
        assert remote == local  # the tiny tokenizer has no chat template: same prompt text
    three = client(srv).generate(prompts[:1], max_tokens=6, n=3)
    assert len(three[0]) == 3 and len(set(three[0])) == 1  # greedy: n identical samples


def test_sampling_n_and_seed(srv, tiny):
    c = client(srv)
    a = c.generate(["Choice:"], max_tokens=8, temperature=1.0, n=4, seed=7)[0]
    b = c.generate(["Choice:"], max_tokens=8, temperature=1.0, n=4, seed=7)[0]
    d = c.generate(["Choice:"], max_tokens=8, temperature=1.0, n=4, seed=8)[0]
    assert len(a) == 4 and len(set(a)) > 1  # n distinct samples
    assert a == b and a != d  # the seed reaches the server
    assert a == tiny.generate(["Choice:"], max_tokens=8, temperature=1.0, n=4, seed=7)[0]


def test_stop_sequences(srv, tiny):
    full = tiny.generate(["Choice:"], max_tokens=10)[0][0]
    stop = full[3:5]
    cut = client(srv).generate(["Choice:"], max_tokens=10, stop=[stop])[0][0]
    assert cut == full[: full.find(stop)]


def test_judge_ab_from_logprobs_matches_direct_computation(srv, tiny):
    vocab = len(tiny.tokenizer)
    c = client(srv, top_logprobs=vocab)
    items = [("What is 2+2?", "4", "5"), ("Say hi.", "Hello there!", "No."), ("q", "x", "y")]
    direct = tiny.judge_ab_many(items)
    remote = c.judge_ab_many(items)
    for d, r in zip(direct, remote):
        assert 0.0 < r < 1.0
        assert abs(d - r) < 1e-6
    # the direct value is exp(lp_A) / (exp(lp_A) + exp(lp_B)) over the label token variants
    lp = tiny.next_token_logprobs([tiny.judge_text(*items[0])])[0]
    a_ids, b_ids = tiny.label_token_ids()
    pa, pb = float(lp[a_ids].exp().sum()), float(lp[b_ids].exp().sum())
    assert abs(direct[0] - pa / (pa + pb)) < 1e-6
    assert c.judge_ab(*items[0]) == pytest.approx(remote[0], abs=1e-9)
    # swapping the answers changes the judgment (the prompt really reaches the model)
    swapped = c.judge_ab("q", "y", "x")
    assert swapped != pytest.approx(remote[2], abs=1e-7)
    assert swapped == pytest.approx(tiny.judge_ab("q", "y", "x"), abs=1e-6)


def test_judge_ab_batching_does_not_change_result(tiny):
    items = [(f"p{i}", "a" * (i + 1), "b") for i in range(7)]
    one = [tiny.judge_ab(*it) for it in items]
    assert tiny.judge_ab_many(items, batch_size=7) == pytest.approx(one, abs=1e-5)


def test_judge_ab_chat_mode_reads_top_logprobs(srv):
    p = client(srv, mode="chat", top_logprobs=len(srv.backend.tokenizer)).judge_ab("q", "x", "y")
    assert 0.0 < p < 1.0


def test_label_logprobs_parsing_by_hand():
    chat = {
        "choices": [
            {
                "index": 0,
                "message": {"content": "Choice: A"},
                "logprobs": {
                    "content": [
                        {"token": "Choice", "logprob": -0.1, "top_logprobs": [{"token": "Choice", "logprob": -0.1}]},
                        {"token": ":", "logprob": -0.01, "top_logprobs": []},
                        {
                            "token": " A",
                            "logprob": math.log(0.6),
                            "top_logprobs": [
                                {"token": " A", "logprob": math.log(0.6)},
                                {"token": " B", "logprob": math.log(0.2)},
                                {"token": "A", "logprob": math.log(0.1)},
                                {"token": " C", "logprob": math.log(0.05)},
                            ],
                        },
                    ]
                },
            }
        ]
    }
    la, lb = label_logprobs_of(chat)
    assert prob_a_from_logprobs(la, lb) == pytest.approx(0.7 / 0.9)
    comp = {
        "choices": [
            {
                "index": 0,
                "text": " B",
                "logprobs": {
                    "tokens": [" B"],
                    "token_logprobs": [math.log(0.5)],
                    "top_logprobs": [{" B": math.log(0.5), " C": math.log(0.3)}],
                },
            }
        ]
    }
    la, lb = label_logprobs_of(comp)  # A not listed: bounded by the smallest listed logprob
    assert prob_a_from_logprobs(la, lb) == pytest.approx(0.3 / 0.8)
    assert math.isnan(
        prob_a_from_logprobs(
            *label_logprobs_of(
                {
                    "choices": [
                        {
                            "index": 0,
                            "text": "x",
                            "logprobs": {"tokens": ["x"], "token_logprobs": [0.0], "top_logprobs": [{"x": 0.0}]},
                        }
                    ]
                }
            )
        )
    )


def test_server_refuses_bad_requests(srv):
    c = openai.OpenAI(base_url=srv.url, api_key="EMPTY", max_retries=0)
    with pytest.raises(openai.NotFoundError, match="does not exist"):
        c.completions.create(model="nope", prompt="x", max_tokens=1)
    with pytest.raises(openai.BadRequestError, match="temperature"):
        c.completions.create(model=srv.model_id, prompt="x", max_tokens=1, temperature=5)
    with pytest.raises(openai.BadRequestError, match="top_logprobs"):
        c.chat.completions.create(
            model=srv.model_id, messages=[{"role": "user", "content": "x"}], max_tokens=1, top_logprobs=3
        )


def test_structured_retries_and_records_patched_items():
    backend = ScriptedBackend(featurizer_reply)
    with serve(backend) as s:
        c = client(s, mode="chat")
        prompts = ["featurize: good alpha", "featurize: flaky beta", "featurize: broken gamma", "featurize: good delta"]
        res = c.structured(prompts, SCHEMA, retries=2, job="feat")
        assert res.values[0] == {"helpfulness": 1, "topic": "alpha"}
        assert res.values[1] == {"helpfulness": 1, "topic": "beta"}  # fixed by the retry
        assert res.values[2] is None and res.values[3]["topic"] == "delta"
        by_item = {p["item"]: p for p in res.patched}
        assert sorted(by_item) == [1, 2]
        assert by_item[1]["attempts"] == 2 and by_item[1]["ok"]
        assert "helpfulness" in by_item[1]["errors"][0] and "maximum" in by_item[1]["errors"][0]
        assert by_item[2]["attempts"] == 3 and not by_item[2]["ok"] and len(by_item[2]["errors"]) == 3
        assert "no JSON" in by_item[2]["errors"][0] and res.n_failed == 1
        assert s.counts["POST /v1/chat/completions"] == 1 + 2 + 3 + 1
        again = c.structured(prompts, SCHEMA, retries=2, job="feat")  # journaled: no request at all
        assert again.values == res.values and again.patched == res.patched
        assert s.counts["POST /v1/chat/completions"] == 7


def test_structured_rejects_bad_schema(srv):
    import jsonschema

    with pytest.raises(jsonschema.SchemaError):
        client(srv).structured(["x"], {"type": "no-such-type"})


def test_api_key_only_from_environment(monkeypatch):
    secret = "sk-test-only-from-env-123"
    monkeypatch.setenv("PLURALIGN_TEST_KEY", secret)
    backend = ScriptedBackend(lambda p, k: "Choice: A")
    with serve(backend, record=True) as s:
        c = client(s, api_key_env="PLURALIGN_TEST_KEY")
        assert c.generate(["hello"], max_tokens=2, job="keyjob") == [["Choice: A"]]
        assert s.authorizations[-1] == f"Bearer {secret}"
        for text in (repr(c), json.dumps(c.identity()), c.fingerprint()):
            assert secret not in text
        journals = list(cache_dir().rglob("*.jsonl"))
        assert journals and all(secret not in p.read_text() for p in journals)
    with pytest.raises(TypeError, match="environment variable"):
        llm_mod.load("openai:gpt-4o-mini", api_key=secret)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(LLMError, match="OPENAI_API_KEY"):
        llm_mod.load("openai:gpt-4o-mini")


def test_batch_api_end_to_end_and_resume(srv, tiny, monkeypatch):
    prompts = [f"item {i}: Choice:" for i in range(5)]
    expected = tiny.generate(prompts, max_tokens=4)
    c = client(srv, batch=True, poll_interval=0.02, batch_max_requests=3)
    base = dict(srv.counts)
    # a kill right after submission: the batch ids are in the state file, nothing is journaled
    monkeypatch.setattr(c._client.batches, "retrieve", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        c.generate(prompts, max_tokens=4, job="batchjob")
    states = list((cache_dir() / "llm-batches").glob("*.json"))
    assert len(states) == 1 and len(json.loads(states[0].read_text())["chunks"]) == 2
    c2 = client(srv, batch=True, poll_interval=0.02, batch_max_requests=3)
    assert c2.generate(prompts, max_tokens=4, job="batchjob") == expected
    new = {k: v - base.get(k, 0) for k, v in srv.counts.items()}
    assert new.get("POST /v1/batches") == 2 and new.get("POST /v1/files") == 2  # not resubmitted
    assert not list((cache_dir() / "llm-batches").glob("*.json"))
    n_before = srv.request_count
    assert c2.generate(prompts, max_tokens=4, job="batchjob") == expected
    assert srv.request_count == n_before


def test_batch_files_building_and_parsing():
    from pluralign.llm.batch import parse_output, request_lines

    text = request_lines("/v1/chat/completions", [{"model": "m", "messages": []}] * 2, ["req-0", "req-1"])
    lines = [json.loads(x) for x in text.splitlines()]
    assert lines[1] == {
        "custom_id": "req-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "m", "messages": []},
    }
    with pytest.raises(ValueError, match="unique"):
        request_lines("/v1/completions", [{}, {}], ["a", "a"])
    out = "\n".join(
        [
            json.dumps(
                {"custom_id": "req-0", "response": {"status_code": 200, "body": {"choices": []}}, "error": None}
            ),
            json.dumps(
                {
                    "custom_id": "req-1",
                    "response": {"status_code": 429, "body": {"error": {"message": "slow down"}}},
                    "error": None,
                }
            ),
            json.dumps({"custom_id": "req-2", "response": None, "error": {"message": "expired"}}),
            "",
        ]
    )
    got = parse_output(out)
    assert got["req-0"] == ({"choices": []}, None)
    assert got["req-1"][0] is None and "429" in got["req-1"][1] and "slow down" in got["req-1"][1]
    assert got["req-2"] == (None, "expired")
    with pytest.raises(ValueError, match="line 2"):
        parse_output(out.splitlines()[0] + "\nnot json")


def test_json_extraction_and_choice_parsing():
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Here you go:\n```json\n{"a": [1, 2]}\n```') == {"a": [1, 2]}
    assert extract_json('Answer: {"a": {"b": 2}} trailing') == {"a": {"b": 2}}
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("nothing here {broken")
    assert [parse_choice(t) for t in ["Choice: A", " B", "choice:B.", "**Choice: A**", "maybe"]] == [0, 1, 1, 0, None]
    assert prob_a_from_logprobs(0.0, 0.0) == 0.5
    assert prob_a_from_logprobs(-1000.0, 0.0) == pytest.approx(0.0, abs=1e-300)


def test_judge_samples_parse_sampled_choices():
    backend = ScriptedBackend(lambda p, k: [" A", " B", " maybe"][k % 3])
    with serve(backend, record=True) as s:
        got = client(s).judge_samples([("q", "x", "y"), ("q2", "x", "y")], n=4, seed=1)
        assert got == [[0, 1, None, 0], [0, 1, None, 0]]
        body = s.log[-1][1]
        assert body["top_p"] == 0.9 and body["n"] == 4 and body["temperature"] == 1.0  # Beyond the Binary 3.3
        assert body["prompt"].startswith("I am going to give you a prompt and two answers.")
        assert body["prompt"].endswith("Answer A: x\nAnswer B: y\nChoice:")


def test_api_key_env_must_name_a_key_variable_and_plain_http_to_a_remote_host_warns(monkeypatch):
    monkeypatch.setenv("HOME_TOKEN_X", "x")
    with pytest.raises(LLMError, match="does not look like the name of a key variable"):
        llm_mod.load("openai:m", base_url="http://127.0.0.1:9/v1", api_key_env="HOME")
    monkeypatch.setenv("REMOTE_API_KEY", "secret-value")
    with pytest.warns(UserWarning, match="without TLS"):
        llm_mod.load("openai:m", base_url="http://10.0.0.5:8000/v1", api_key_env="REMOTE_API_KEY")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llm_mod.load("openai:m", base_url="http://127.0.0.1:8000/v1", api_key_env="REMOTE_API_KEY")
        llm_mod.load("openai:m", base_url="https://api.example.org/v1", api_key_env="REMOTE_API_KEY")


def test_a_stop_signal_taken_by_another_thread_still_stops_the_serving_loop():
    """``pluralign serve``'s main thread waits for Ctrl-C / SIGTERM; a signal the kernel hands to another of the
    process's threads (here sent to one on purpose) still ends the wait, and the previous handler is restored."""
    import signal
    import threading

    from pluralign.llm.server import wait_for_stop_signal

    before = signal.getsignal(signal.SIGTERM)

    def other_thread():
        while signal.getsignal(signal.SIGTERM) is before:  # until the waiting loop has installed its handler
            threading.Event().wait(0.001)
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    t = threading.Thread(target=other_thread, daemon=True)
    t.start()
    assert wait_for_stop_signal() == signal.SIGTERM
    t.join()
    assert signal.getsignal(signal.SIGTERM) is before

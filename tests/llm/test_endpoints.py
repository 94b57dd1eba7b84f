"""Endpoints by environment: ``PLURALIGN_LLM_BASE_URL`` redirects every OpenAI-compatible endpoint —
an explicit ``base_url``, ``openai:`` names — visibly (identity, repr, a warning); a loopback endpoint without a
key gets the placeholder ``EMPTY``, a remote one without a key raises; ``pluralign serve --served-model-name``
answers to several names and refuses others with 404 ``model_not_found``."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import openai
import pytest

import pluralign.llm as llm_mod
from pluralign.llm.base import LLMError
from pluralign.llm.scripted import ScriptedBackend
from pluralign.llm.server import serve


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for k in ("PLURALIGN_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "QWEN_API_KEY", "REMOTE_API_KEY"):
        monkeypatch.delenv(k, raising=False)


def test_remote_endpoint_without_a_key_raises_naming_the_variable_and_the_endpoint():
    with pytest.raises(LLMError, match=r"no API key for https://api.openai.com/v1: set .*OPENAI_API_KEY"):
        llm_mod.load("openai:gpt-4o-2024-08-06", api_key_env="OPENAI_API_KEY")
    with pytest.raises(LLMError, match=r"no API key for http://10.1.2.3:8000/v1: .*REMOTE_API_KEY"):
        llm_mod.load("m", base_url="http://10.1.2.3:8000/v1", api_key_env="REMOTE_API_KEY")


@pytest.mark.parametrize("url", ["http://127.0.0.1:8001/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1"])
def test_loopback_endpoint_without_a_key_uses_the_placeholder_key(url):
    llm = llm_mod.load("m", base_url=url, api_key_env="QWEN_API_KEY")
    assert llm.base_url == url and llm._client.api_key == "EMPTY"


def test_a_key_in_the_environment_is_used(monkeypatch):
    monkeypatch.setenv("QWEN_API_KEY", "k-123")
    assert llm_mod.load("m", base_url="http://127.0.0.1:8001/v1", api_key_env="QWEN_API_KEY")._client.api_key == "k-123"


@pytest.mark.parametrize(
    "name,kw",
    [
        ("openai:gpt-4o-2024-08-06", {"api_key_env": "OPENAI_API_KEY"}),  # the OpenAI API
        ("gpt-4-turbo-2024-04-09", {"backend": "openai", "base_url": "https://api.openai.com/v1"}),
        ("Qwen/Qwen2.5-72B-Instruct", {"base_url": "http://127.0.0.1:8001/v1", "api_key_env": "QWEN_API_KEY"}),
    ],
)
def test_the_redirect_applies_to_every_endpoint_and_is_visible(monkeypatch, name, kw):
    monkeypatch.setenv("PLURALIGN_LLM_BASE_URL", "http://127.0.0.1:9999/v1/")
    with pytest.warns(
        UserWarning,
        match=r"endpoint \S+ redirected to http://127.0.0.1:9999/v1 by "
        r"PLURALIGN_LLM_BASE_URL",
    ):
        llm = llm_mod.load(name, **kw)
    assert llm.base_url == "http://127.0.0.1:9999/v1"
    assert str(llm._client.base_url).rstrip("/") == "http://127.0.0.1:9999/v1"
    ident = llm.identity()
    assert ident["base_url"] == "http://127.0.0.1:9999/v1"
    assert ident["requested_base_url"] == kw.get("base_url", "https://api.openai.com/v1")
    assert "127.0.0.1:9999" in repr(llm)
    assert llm._client.api_key == "EMPTY"  # a loopback target needs no key, wherever the file pointed
    assert "base_url" not in llm.journal_identity() and "requested_base_url" not in llm.journal_identity()


def test_no_redirect_no_warning_and_identity_unchanged():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llm = llm_mod.load("m", base_url="http://127.0.0.1:8001/v1")
    assert "requested_base_url" not in llm.identity()


def test_a_redirected_endpoint_reaches_the_server_under_the_files_model_name(monkeypatch):
    """The paper profile's labeller (an https OpenAI model name) answered by a local server serving that name."""
    backend = ScriptedBackend(lambda p, k: "A", model="tiny")
    with serve(backend, model_id=["gpt-4-turbo-2024-04-09", "Qwen/Qwen2.5-72B-Instruct"]) as s:
        monkeypatch.setenv("PLURALIGN_LLM_BASE_URL", s.url)
        with pytest.warns(UserWarning, match="redirected"):
            llm = llm_mod.load(
                "gpt-4-turbo-2024-04-09",
                backend="openai",
                base_url="https://api.openai.com/v1",
                max_retries=0,
                concurrency=1,
            )
        assert llm.generate(["hi"], max_tokens=2) == [["A"]]
        assert s.request_count >= 1


def test_server_answers_every_served_name_lists_them_and_refuses_others():
    backend = ScriptedBackend(lambda p, k: "ok", model="tiny")
    names = ["meta-llama/Meta-Llama-3-70B-Instruct", "gemma:7b-instruct", "gpt-4o-2024-08-06"]
    with serve(backend, model_id=names) as s:
        c = openai.OpenAI(base_url=s.url, api_key="EMPTY", max_retries=0)
        assert [m.id for m in c.models.list().data] == names
        for n in names:
            r = c.chat.completions.create(model=n, messages=[{"role": "user", "content": "hi"}], max_tokens=2)
            assert r.model == n and r.choices[0].message.content == "ok"
            r = c.completions.create(model=n, prompt="hi", max_tokens=2)
            assert r.model == n and r.choices[0].text == "ok"
        with pytest.raises(openai.NotFoundError) as e:
            c.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "hi"}], max_tokens=2)
        assert e.value.status_code == 404 and e.value.code == "model_not_found"
        assert "'tiny' does not exist" in e.value.message and "gemma:7b-instruct" in e.value.message


@pytest.mark.slow  # a child process imports torch and serves a model; CI runs it (make test-slow)
def test_serve_command_takes_several_served_model_names(tmp_path):
    from pluralign.llm.tiny import make_tiny_causal_lm

    folder = make_tiny_causal_lm(tmp_path / "tiny")
    # --port 0: the server binds a free port itself and prints it (a port probed here first could be taken by
    # another process before the child binds it)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pluralign.llm.server",
            "--model",
            str(folder),
            "--port",
            "0",
            "--served-model-name",
            "a/b",
            "gemma:7b-instruct",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"serving a/b, gemma:7b-instruct on (http://127\.0\.0\.1:[1-9]\d*/v1) ", line)
        assert url, line
        c = openai.OpenAI(base_url=url.group(1), api_key="EMPTY", max_retries=0)
        assert [m.id for m in c.models.list().data] == ["a/b", "gemma:7b-instruct"]
        assert c.completions.create(model="gemma:7b-instruct", prompt="hi", max_tokens=2).model == "gemma:7b-instruct"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_where_the_page_states_the_redirect_the_endpoint_does_not_warn_again(monkeypatch):
    """The book's runner puts the redirect at the top of every page and sets PLURALIGN_ON_PAGE for
    its kernels: the endpoints are still redirected, without a warning on the page's stderr."""
    from pluralign.book import execution

    monkeypatch.setenv("PLURALIGN_LLM_BASE_URL", "http://127.0.0.1:9999/v1")
    env = execution._environment("paper")
    assert env["PLURALIGN_ON_PAGE"] == "1"
    monkeypatch.setenv("PLURALIGN_ON_PAGE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        llm = llm_mod.load("m", base_url="http://127.0.0.1:8001/v1")
    assert (
        llm.base_url == "http://127.0.0.1:9999/v1"
        and llm.identity()["requested_base_url"] == "http://127.0.0.1:8001/v1"
    )


def test_the_redirect_note_sits_below_the_title_and_the_rehearsal_banner_once():
    import nbformat

    from pluralign.book import page_notes

    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# The title"), nbformat.v4.new_code_cell("study")]
    )
    page_notes.insert_rehearsal_banner(nb, "paper")
    assert page_notes.insert_redirect_note(nb, "http://127.0.0.1:9999/v1")
    note = nb.cells[2]
    assert (
        note.source.startswith(":::{note}") and "`http://127.0.0.1:9999/v1` by `PLURALIGN_LLM_BASE_URL`" in note.source
    )
    assert "pluralign-rehearsal" in nb.cells[1].metadata["tags"]
    assert not page_notes.insert_redirect_note(nb, "http://x/v1") and len(nb.cells) == 4

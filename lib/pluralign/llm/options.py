"""The keywords of :func:`pluralign.llm.load` as one value: :class:`LLMOptions`, an endpoint's or a local model's
options, which a part's settings hold wherever a page names an LLM (a mapping of these keywords in a parameter file,
validated key by key when the settings are built; :class:`pluralign.settings.Section`), or the name of an entry of
the profile's ``models``. Importing it imports no deep-learning library.
"""

from __future__ import annotations

from typing import Literal

from pluralign.settings import Arguments, setting

__all__ = ["LLMOptions"]


class LLMOptions(Arguments):
    """The keywords of :func:`pluralign.llm.load`: the model's name and the options of its backend (an
    OpenAI-compatible endpoint, a local transformers model or the embedded Gemma); None leaves the backend's
    default. An API key is never one of them: ``api_key_env`` names the environment variable that holds it."""

    name: str | None = setting(None, "the model: an endpoint's model name (openai:...), a Hub id or folder")
    backend: Literal["openai", "gemma-gguf"] | None = setting(None, "force a backend (None: from name / base_url)")
    base_url: str | None = setting(None, "an OpenAI-compatible endpoint's URL")
    api_key_env: str | None = setting(None, "the environment variable holding the endpoint's API key")
    mode: Literal["chat", "completions"] | None = setting(None, "the endpoint's API: chat or completions")
    batch: bool | None = setting(None, "send requests through the endpoint's batch API")
    concurrency: int | None = setting(None, "requests in flight at once", gt=0)
    timeout: float | None = setting(None, "seconds per request", gt=0)
    max_retries: int | None = setting(None, "retries of a failed request", ge=0)
    top_logprobs: int | None = setting(None, "log-probabilities asked per token", ge=0)
    json_mode: bool | None = setting(None, "ask for JSON output")
    system: str | None = setting(None, "a system prompt")
    poll_interval: float | None = setting(None, "seconds between polls of a batch", gt=0)
    batch_max_requests: int | None = setting(None, "requests per batch file at most", gt=0)
    batch_deadline: float | None = setting(None, "seconds a batch may take", gt=0)
    dtype: str | None = setting(None, "a local model's weights dtype (float32, bfloat16, ...)")
    device: str | None = setting(None, "a local model's device")
    trust_remote_code: bool | None = setting(None, "run a local model repository's own code")
    revision: str | None = setting(None, "a local model's Hub revision")
    gguf_file: str | None = setting(None, "a GGUF file in the model's folder")
    model_id: str | None = setting(None, "the name results are recorded under")
    max_length: int | None = setting(None, "tokens per prompt at most", gt=0)
    convert_cache: bool | None = setting(None, "the embedded Gemma: keep its converted weights")

    @classmethod
    def of(cls, value) -> LLMOptions:
        """The options a setting holds: options, a mapping of load keywords, or a model's name (a string
        :func:`pluralign.named_models.resolve_model` passed through)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return cls(name=value)
        return cls.create(value, what="LLM")

    def load(self):
        """The LLM these options name (:func:`pluralign.llm.load`)."""
        from pluralign import llm

        return llm.load(**self.kwargs())

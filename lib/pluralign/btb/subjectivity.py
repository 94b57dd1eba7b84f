"""Categories of subjectivity and the aggregate preference p* — Beyond the Binary (Padmakumar et al.
2024), §2 Eq. 2, §3.1–3.2, Appendix B tasks 1–3.

* §3.1 *Plurality of Responses to Prompts* = Appendix B "Task 1: Subjectivity": does the prompt have
  a **single** correct answer or **multiple** correct answers? → :func:`classify_subjectivity`
  (``kind`` = ``"single"`` / ``"multiple"``).
* §3.1 *Indistinguishability of Responses* = Appendix B "Task 2: Distinguishability": are the two
  responses **distinguishable** or **indistinguishable** paraphrases? → :func:`classify_distinguishability`.
* §3.2 / Appendix B task 3 (*User Preference Estimation*): "If you asked 10 different people, how many
  would prefer answer A and how many would prefer answer B?", averaged over labellers → ``p*``
  (Eq. 2, the share preferring A = ``y_0``) → :func:`user_preference_estimation` +
  :func:`aggregate_preference`. Where a data set has several real annotators, ``p*`` is their share
  (``PreferenceData.share_a()``, ties half): ``aggregate_preference(data)``.
* The paper's three human annotators assign the categories by majority vote: :func:`majority_vote`
  does that for imported human labels (or for several LLM labellers / samples).

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

from pluralign.btb.margins import _item_key, _llm_id, _pairs_frame, cached_generate
from pluralign.cache import ItemStore
from pluralign.llm import load as load_llm

__all__ = [
    "TASK1_PROMPT",
    "TASK2_PROMPT",
    "TASK3_PROMPT",
    "TASK3_OPTIONS",
    "ANSWER_SUFFIX",
    "task1_prompt",
    "task2_prompt",
    "task3_prompt",
    "parse_option",
    "parse_ten_people",
    "classify_subjectivity",
    "classify_distinguishability",
    "user_preference_estimation",
    "aggregate_preference",
    "majority_vote",
    "TASK1_LABELS",
    "TASK2_LABELS",
    "p_star_from",
    "categories_from",
    "category_summary",
    "load_labellers",
    "KIND_NAMES",
    "p_star_with_source",
    "categories_with_source",
    "source_counts",
    "MIN_HUMAN_ANNOTATORS",
    "SOURCE_KINDS",
    "MODEL_FAMILIES",
    "model_name",
    "model_family",
    "circularity",
    "check_sources",
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
#: The categories of §3.1 as Tables 1–2 print them.
KIND_NAMES = {"single": "Single Correct", "multiple": "Multiple Correct"}

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
    with ItemStore(f"subjectivity.task{task}.structured", {"llm": _llm_id(llm), "schema": schema}) as store:
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
    pairs = _pairs_frame(data)
    prompts = pd.unique(pairs["prompt"].astype(str))
    items = {_item_key("task1", p): task1_prompt(p, suffix) for p in prompts}
    per_key = _ask_all(
        llm,
        items,
        task=1,
        method=method,
        samples=samples,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        job=job,
    )
    answers = [per_key[_item_key("task1", str(p))] for p in pairs["prompt"]]
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
    pairs = _pairs_frame(data)
    keys = [_item_key("task2", p, a, b) for p, a, b in zip(pairs["prompt"], pairs["response_a"], pairs["response_b"])]
    items = {
        k: task2_prompt(p, a, b, suffix)
        for k, p, a, b in zip(keys, pairs["prompt"], pairs["response_a"], pairs["response_b"])
    }
    per_key = _ask_all(
        llm,
        items,
        task=2,
        method=method,
        samples=samples,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        job=job,
    )
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
    pairs = _pairs_frame(data)
    keys = [_item_key("task3", p, a, b) for p, a, b in zip(pairs["prompt"], pairs["response_a"], pairs["response_b"])]
    items = {
        k: task3_prompt(p, a, b, suffix)
        for k, p, a, b in zip(keys, pairs["prompt"], pairs["response_a"], pairs["response_b"])
    }
    rows = []
    for li, one in enumerate(_as_llms(llm)):
        got = _ask(
            one,
            items,
            task=3,
            method=method,
            samples=samples,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            job=job,
        )
        for pid, k in zip(pairs["pair_id"], keys):
            for si, ans in enumerate(got[k]):
                v = _ten_of(ans)
                rows.append((pid, f"llm{li}.{si}", np.nan if v is None else float(v), ans))
    out = pd.DataFrame(rows, columns=["pair_id", "labeller", "prefer_a", "raw"])
    _warn_unparsed("user_preference_estimation", int(out["prefer_a"].isna().sum()), len(out))
    return out


def aggregate_preference(source, *, column: str = "prefer_a", out_of: int = 10) -> pd.Series:
    """``p*`` — Eq. 2, the share of a population preferring A (``y_0``) — per pair, as a fraction in
    [0, 1] (Series indexed by ``pair_id``, name ``p_star``).

    * ``source`` a ``PreferenceData`` with several real annotators: Eq. 2 over them,
      ``data.share_a()`` (a tie counts half).
    * ``source`` a long DataFrame ``pair_id, labeller, prefer_a`` (task 3 answers from humans or
      :func:`user_preference_estimation`; ``prefer_a`` = how many of ``out_of`` = 10 people prefer A):
      the mean over labellers of ``prefer_a / 10`` — "we average these responses to obtain a consensus"
      (§3.2). Unparseable answers (NaN) are skipped, and a pair with none gets NaN (with a warning)."""
    if hasattr(source, "share_a") and hasattr(source, "annotations"):
        return source.share_a().rename("p_star")
    if not isinstance(source, pd.DataFrame) or "pair_id" not in source.columns or column not in source.columns:
        raise TypeError(f"aggregate_preference needs a PreferenceData or a DataFrame with pair_id and {column!r}")
    v = pd.to_numeric(source[column], errors="coerce")
    bad = v.notna() & ((v < 0) | (v > out_of))
    if bad.any():
        raise ValueError(
            f"{column} must be between 0 and {out_of}; row {int(np.flatnonzero(bad.to_numpy())[0])} "
            f"has {v[bad].iloc[0]!r}"
        )
    p = (v / out_of).groupby(source["pair_id"], sort=False).mean().rename("p_star")
    if p.isna().any():
        from pluralign.report import stated_warning

        stated_warning(f"aggregate_preference: {int(p.isna().sum())} pairs have no usable estimate (p* NaN)")
    p.index.name = "pair_id"
    return p


def load_labellers(labeller):
    """LLM labellers from :func:`pluralign.llm.load` argument dicts (one, or a list: several labellers);
    loaded backends pass through."""
    if labeller is None:
        raise ValueError("p_star_from('llm') needs labeller (pluralign.llm.load arguments or loaded backends)")
    many = labeller if isinstance(labeller, list) else [labeller]
    many = [load_llm(**x) if isinstance(x, dict) else x for x in many]
    return many if isinstance(labeller, list) else many[0]


def p_star_from(
    source: str,
    data,
    ids=None,
    *,
    labeller=None,
    labels_file=None,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    job: str | None = None,
) -> pd.Series | None:
    """``p*`` per pair (Series ``p_star`` indexed by ``pair_id``, reindexed to ``ids``, default all of
    ``data``'s pairs), from one of:

    * ``"truth"``: the simulator's planted ``data.truth["share_a"]``;
    * ``"annotators"``: Eq. 2 over the data's own annotators (a single gold label gives 0 or 1);
    * ``"labels"``: human answers to Appendix B task 3 in ``labels_file`` (CSV, long form
      ``pair_id, labeller, prefer_a`` with ``prefer_a`` out of 10), averaged (§3.2);
    * ``"llm"``: :func:`user_preference_estimation` by ``labeller`` (``pluralign.llm.load`` argument
      dicts or loaded backends) with ``samples``, ``temperature``, ``top_p``, ``job``, on the pairs
      ``ids`` only;
    * ``"none"``: None.

    ``source`` may also be a list of these names (a fallback chain, e.g. ``["labels", "annotators", "llm"]``):
    each pair's p* comes from the first source that has it (:func:`p_star_with_source`).

    Pairs missing from the source get NaN."""
    if isinstance(source, (list, tuple)):
        return p_star_with_source(
            source,
            data,
            ids,
            labeller=labeller,
            labels_file=labels_file,
            samples=samples,
            temperature=temperature,
            top_p=top_p,
            job=job,
        )["p_star"]
    ids = pd.Index(data.pairs["pair_id"] if ids is None else list(ids), name="pair_id")
    if source == "none":
        return None
    if source == "truth":
        if data.truth is None or "share_a" not in data.truth:
            raise ValueError("p_star_from('truth') needs data with truth.share_a (simulated data)")
        p = data.truth["share_a"]
    elif source == "annotators":
        p = aggregate_preference(data)
    elif source == "labels":
        if labels_file is None:
            raise ValueError("p_star_from('labels') needs labels_file (pair_id, labeller, prefer_a)")
        raw = pd.read_csv(labels_file)
        if not pd.api.types.is_numeric_dtype(data.pairs["pair_id"]):  # ids read back as numbers
            raw["pair_id"] = raw["pair_id"].astype(str)
        p = aggregate_preference(raw)
    elif source == "llm":
        sub = (
            data
            if len(ids) == len(data) and set(ids) == set(data.pairs["pair_id"])
            else data.subset(list(ids), reason="pairs to label")
        )
        answers = user_preference_estimation(
            load_labellers(labeller), sub, samples=samples, temperature=temperature, top_p=top_p, job=job
        )
        p = aggregate_preference(answers)
        llm_counts = {"llm_answers": int(len(answers)), "llm_unparsed": int(answers["prefer_a"].isna().sum())}
    else:
        raise ValueError(f"p_star_from must be truth, annotators, labels, llm or none, not {source!r}")
    out = p.reindex(ids).astype(float).rename("p_star")
    out.index.name = "pair_id"
    if source == "llm":  # how many of the labeller's answers gave no number (counted, never dropped silently)
        out.attrs.update(llm_counts)
    return out


def majority_vote(labels: pd.DataFrame, column: str, *, by: str = "pair_id") -> pd.DataFrame:
    """Majority vote over imported labels (§3.2: "We first put the examples into categories along both
    aforementioned dimensions via a majority vote" of three annotators).

    ``labels``: long form, one row per (item, labeller) with the label in ``column`` (missing labels
    are ignored). Returns per item: the majority label (``None`` when the top labels tie — counted in
    a warning, never broken silently), ``n`` labels and ``agreement`` (share of the majority label)."""
    if by not in labels.columns or column not in labels.columns:
        raise ValueError(f"labels need columns {by!r} and {column!r}")
    rows = []
    for key, vals in labels.dropna(subset=[column]).groupby(by, sort=False)[column]:
        counts = vals.value_counts()
        top = counts[counts == counts.max()]
        rows.append(
            (key, top.index[0] if len(top) == 1 else None, int(counts.sum()), float(counts.max() / counts.sum()))
        )
    out = pd.DataFrame(rows, columns=[by, column, "n", "agreement"])
    out[column] = pd.Series([r[1] for r in rows], dtype=object)  # a tie stays None
    ties = int(out[column].isna().sum())
    if ties:
        warnings.warn(f"majority_vote: {ties} items tied between labels ({column} = None)", stacklevel=2)
    return out


def category_summary(
    kind: pd.Series | None = None, distinguishable: pd.Series | None = None, p_star: pd.Series | None = None
) -> pd.DataFrame:
    """§3.1's two dimensions of subjectivity side by side: per category, the number and share of
    pairs and — when ``p_star`` (Eq. 2) is given — the mean ``p*`` and the mean *population
    agreement* ``|2p* − 1|`` (0 = an even split of the population, 1 = unanimous; the quantity the
    margin of Eq. 3 estimates).

    ``kind``: Series of ``"single"`` / ``"multiple"`` indexed by ``pair_id``
    (:func:`classify_subjectivity`); ``distinguishable``: Series of booleans
    (:func:`classify_distinguishability`). Pairs without a category (``None`` / NaN, e.g. a tied
    majority vote) are counted as ``"unassigned"``, never dropped. Returns ``dimension, category, n,
    share`` (+ ``mean_p_star, mean_agreement``). Pairs without p* (NaN: e.g. every LLM answer unparseable) are
    left out of the means and counted per category in ``n_without_p_star`` (present only when some pair lacks
    p*); a category with none has NaN means."""
    if kind is None and distinguishable is None:
        raise ValueError("pass kind and/or distinguishable")
    dims = []
    if kind is not None:
        k = kind.map(lambda v: KIND_NAMES.get(v, "unassigned") if isinstance(v, str) else "unassigned")
        bad = kind[kind.notna() & ~kind.isin(["single", "multiple"])]
        if len(bad):
            raise ValueError(f"kind must be 'single' or 'multiple', got {bad.iloc[0]!r}")
        dims.append(("plurality of responses", k))
    if distinguishable is not None:
        d = distinguishable.map(
            lambda v: (
                "unassigned"
                if v is None or (isinstance(v, float) and np.isnan(v))
                else "Distinguishable"
                if bool(v)
                else "Indistinguishable"
            )
        )
        dims.append(("distinguishability", d))
    rows = []
    missing = p_star is not None and bool(p_star.astype(float).reindex(dims[0][1].index).isna().any())
    for dim, lab in dims:
        ps = None if p_star is None else p_star.astype(float).reindex(lab.index)
        order = [
            c
            for c in ("Single Correct", "Multiple Correct", "Distinguishable", "Indistinguishable", "unassigned")
            if (lab == c).any()
        ]
        for cat in order:
            m = (lab == cat).to_numpy()
            row = {"dimension": dim, "category": cat, "n": int(m.sum()), "share": float(m.mean())}
            if ps is not None:
                v = ps.to_numpy()[m]
                v = v[~np.isnan(v)]
                row["mean_p_star"] = float(v.mean()) if len(v) else np.nan
                row["mean_agreement"] = float(np.abs(2 * v - 1).mean()) if len(v) else np.nan
                if missing:
                    row["n_without_p_star"] = int(m.sum() - len(v))
            rows.append(row)
    return pd.DataFrame(rows)


def categories_from(
    source,
    data,
    ids=None,
    *,
    labeller=None,
    labels_file=None,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    job: str | None = None,
) -> pd.DataFrame:
    """The two categories of §3.1 per pair: a DataFrame indexed by ``pair_id`` (``ids``, default all of
    ``data``'s pairs) with columns ``kind`` (``"single"`` / ``"multiple"``) and ``distinguishable`` (bool),
    None where a pair has no category (or the source has no such dimension), from one of:

    * ``"truth"``: the simulator's planted ``kind`` and ``distinguishable``;
    * ``{"kind": {data set: "single" | "multiple"}}``: one category per data set (others unassigned),
      e.g. LLMBar, single-correct by construction;
    * ``"labels"``: human labels in ``labels_file`` (CSV, long form ``pair_id, annotator, kind,
      distinguishable``), by :func:`majority_vote` as the paper's three annotators;
    * ``"llm"``: Appendix B tasks 1–2 asked of ``labeller`` (:func:`classify_subjectivity`,
      :func:`classify_distinguishability`) with ``samples``, ``temperature``, ``top_p``, ``job``;
    * ``"none"`` / None: no categories;
    * a list of these (a fallback chain, e.g. ``["labels", "llm"]``): each pair's categories come from the first
      source that gives it one (:func:`categories_with_source`)."""
    if isinstance(source, (list, tuple)):
        return categories_with_source(
            source,
            data,
            ids,
            labeller=labeller,
            labels_file=labels_file,
            samples=samples,
            temperature=temperature,
            top_p=top_p,
            job=job,
        ).drop(columns="source")
    ids = pd.Index(data.pairs["pair_id"] if ids is None else list(ids), name="pair_id")
    out = pd.DataFrame(
        {"kind": pd.Series(None, index=ids, dtype=object), "distinguishable": pd.Series(None, index=ids, dtype=object)}
    )
    if source is None or source == "none":
        return out
    if isinstance(source, dict):
        by = source.get("kind", {})
        out["kind"] = data.pairs.set_index("pair_id")["dataset"].reindex(ids).map(lambda v: by.get(v)).astype(object)
        return out
    if source == "truth":
        if data.truth is None or "kind" not in data.truth:
            raise ValueError("categories 'truth' needs data with truth.kind (simulated data)")
        kind, dist = data.truth["kind"], data.truth["distinguishable"]
    elif source == "labels":
        if labels_file is None:
            raise ValueError("categories 'labels' needs labels_file (pair_id, annotator, kind, distinguishable)")
        raw = pd.read_csv(labels_file)
        kind = majority_vote(raw, "kind").set_index("pair_id")["kind"]
        dist = majority_vote(raw, "distinguishable").set_index("pair_id")["distinguishable"]
    elif source == "llm":
        lab = load_labellers(labeller)
        sub = (
            data
            if len(ids) == len(data) and set(ids) == set(data.pairs["pair_id"])
            else data.subset(list(ids), reason="pairs to label")
        )
        kw = dict(samples=samples, temperature=temperature, top_p=top_p, job=job)
        kind = classify_subjectivity(lab, sub, **kw).set_index("pair_id")["kind"]
        dist = classify_distinguishability(lab, sub, **kw).set_index("pair_id")["distinguishable"]
    else:
        raise ValueError(
            f"categories must be truth, llm, labels, none or {{'kind': {{data set: kind}}}}, not {source!r}"
        )
    out["kind"] = kind.reindex(ids).astype(object)
    out["distinguishable"] = dist.reindex(ids).astype(object)
    return out


# ---------------------------------------------------------------------------------------------
# Where p* and the categories come from: human first, an LLM labeller as the fallback, and the
# circularity of a labeller that is also the margin judge
# ---------------------------------------------------------------------------------------------
#: §3.2: "three annotators" estimate p* and assign the categories. In a fallback chain the data's own
#: annotators count as that human population only for pairs with at least this many judgments.
MIN_HUMAN_ANNOTATORS = 3
#: What each source is (the pages say it beside the pair counts).
SOURCE_KINDS = {
    "labels": "human (labels_file)",
    "annotators": "human (the data's annotators)",
    "llm": "LLM labeller",
    "truth": "planted (simulator)",
    "per data set": "by construction of the data set",
}


def _chain(source, what: str) -> list:
    chain = list(source)
    if not chain or any(s in (None, "none") for s in chain):
        raise ValueError(f"{what}: a fallback chain is a non-empty list of sources without 'none', not {source!r}")
    return chain


P_STAR_SOURCES = ("truth", "annotators", "labels", "llm", "none")
CATEGORY_SOURCES = ("truth", "labels", "llm", "none")


def check_sources(p_star_from, categories) -> None:
    """Refuse an unknown source of p* or the categories up front, naming it (a name, a ``{"kind": ...}``
    mapping for the categories, or a list of those as a fallback chain)."""
    for what, src, ok in (("p_star_from", p_star_from, P_STAR_SOURCES), ("categories", categories, CATEGORY_SOURCES)):
        for s in src if isinstance(src, (list, tuple)) else [src]:
            if not (s is None or isinstance(s, dict) and what == "categories" or s in ok):
                raise ValueError(
                    f"{what}: unknown source {s!r}; one of {', '.join(ok)}"
                    + (", a {'kind': {data set: kind}} mapping" if what == "categories" else "")
                    + " or a list of them (tried in order per pair)"
                )


def _annotator_label(n: int) -> str:
    return f"annotators ({n} per pair)"


def p_star_with_source(
    source,
    data,
    ids=None,
    *,
    labeller=None,
    labels_file=None,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    job: str | None = None,
    min_annotators: int = MIN_HUMAN_ANNOTATORS,
) -> pd.DataFrame:
    """p* (Eq. 2) per pair and where it came from: a DataFrame indexed by ``pair_id`` (``ids``) with ``p_star``
    and ``source``.

    ``source``: one name of :func:`p_star_from` or a list of them, tried in order, each pair taking its p* from
    the first that has it — the paper's p* is human (§3.2: three annotators answered Appendix B task 3), so a
    chain puts the human sources first: ``"labels"`` (skipped without ``labels_file``; pairs the file does not
    cover fall through), ``"annotators"`` (only pairs with at least ``min_annotators`` judgments: one label is
    not a population's share), then e.g. ``"llm"`` for the rest. ``source`` names ``annotators`` as
    ``"annotators (<n> per pair)"``; a pair no source covers has NaN and source None."""
    ids = pd.Index(data.pairs["pair_id"] if ids is None else list(ids), name="pair_id")
    kw = dict(
        labeller=labeller, labels_file=labels_file, samples=samples, temperature=temperature, top_p=top_p, job=job
    )
    single = not isinstance(source, (list, tuple))
    chain = [source] if single else _chain(source, "p_star_from")
    n_ann = data.n_annotators()
    p = pd.Series(np.nan, index=ids, name="p_star")
    src = pd.Series(None, index=ids, dtype=object, name="source")
    counts = {}
    for s in chain:
        todo = ids[p.isna().to_numpy()]
        if s == "none" or not len(todo) or (s == "labels" and labels_file is None and not single):
            continue
        if s == "annotators" and not single:
            todo = todo[(n_ann.reindex(todo).fillna(0) >= min_annotators).to_numpy()]
            if not len(todo):
                continue
        got = p_star_from(s, data, todo, **kw)
        for k, v in got.attrs.items():
            counts[k] = counts.get(k, 0) + v
        got = got.reindex(todo)
        has = got.notna()
        p[got.index[has]] = got[has]
        src[got.index[has]] = (
            [_annotator_label(int(n)) for n in n_ann.reindex(got.index[has])] if s == "annotators" else s
        )
    p.index.name = src.index.name = "pair_id"
    out = pd.DataFrame({"p_star": p.astype(float), "source": src})
    out.attrs.update(counts)  # llm_answers / llm_unparsed where an LLM labelled (see p_star_from)
    return out


def categories_with_source(
    source,
    data,
    ids=None,
    *,
    labeller=None,
    labels_file=None,
    samples: int = 1,
    temperature: float = 0.0,
    top_p: float = 1.0,
    job: str | None = None,
) -> pd.DataFrame:
    """The categories of §3.1 per pair (:func:`categories_from`) and where they came from (``source``: the
    source's name, ``"per data set"`` for a ``{"kind": ...}`` mapping, None for a pair without a category).

    ``source``: one source or a list, tried in order: a pair takes the categories of the first source that gives
    it a ``kind`` or a ``distinguishability`` (``"labels"`` without ``labels_file`` is skipped), so human labels
    (the paper's three annotators' majority, §3.2) come first and e.g. ``"llm"`` labels the rest."""
    ids = pd.Index(data.pairs["pair_id"] if ids is None else list(ids), name="pair_id")
    kw = dict(
        labeller=labeller, labels_file=labels_file, samples=samples, temperature=temperature, top_p=top_p, job=job
    )
    single = not isinstance(source, (list, tuple))
    chain = [source] if single else _chain(source, "categories")
    out = pd.DataFrame(
        {
            "kind": pd.Series(None, index=ids, dtype=object),
            "distinguishable": pd.Series(None, index=ids, dtype=object),
            "source": pd.Series(None, index=ids, dtype=object),
        }
    )
    for s in chain:
        todo = ids[out["source"].isna().to_numpy()]
        if s in (None, "none") or not len(todo) or (s == "labels" and labels_file is None and not single):
            continue
        got = categories_from(s, data, todo, **kw)
        has = (got["kind"].notna() | got["distinguishable"].notna()).to_numpy()
        hit = got.index[has]
        out.loc[hit, "kind"] = got.loc[hit, "kind"].astype(object)
        out.loc[hit, "distinguishable"] = got.loc[hit, "distinguishable"].astype(object)
        out.loc[hit, "source"] = "per data set" if isinstance(s, dict) else s
    return out


def source_counts(p_star_sources: pd.Series | None, category_sources: pd.Series | None) -> pd.DataFrame:
    """Pairs per source of p* and of the categories (from :func:`p_star_with_source` /
    :func:`categories_with_source`'s ``source`` columns): ``quantity, source, what it is, pairs``; pairs
    without a value are counted as ``"none"``, never dropped."""
    rows = []
    for quantity, src in (("p*", p_star_sources), ("categories", category_sources)):
        if src is None:
            continue
        for name, n in src.fillna("none").value_counts(sort=False).items():
            kind = SOURCE_KINDS.get(name.split(" (")[0], "—") if name != "none" else "no value"
            rows.append({"quantity": quantity, "source": name, "what it is": kind, "pairs": int(n)})
    return pd.DataFrame(rows, columns=["quantity", "source", "what it is", "pairs"])


#: Model families, by a word in the model's name (lower case): two models of one family (e.g. two Llamas)
#: share pre-training data and habits, so one labelling the other's target is not an independent check.
MODEL_FAMILIES = {
    "llama": "Llama",
    "gemma": "Gemma",
    "gemini": "Gemini",
    "qwen": "Qwen",
    "mixtral": "Mistral",
    "mistral": "Mistral",
    "gpt": "GPT",
    "claude": "Claude",
    "deepseek": "DeepSeek",
    "phi": "Phi",
    "falcon": "Falcon",
    "olmo": "OLMo",
    "command": "Command",
    "yi-": "Yi",
    "internlm": "InternLM",
}


def model_name(model) -> str | None:
    """The name of a model given as :func:`pluralign.llm.load` arguments (``name``, ``name_or_path``), a string
    or a loaded backend (its ``name`` / ``model`` attribute); None when there is none."""
    if model is None:
        return None
    if isinstance(model, str):
        return model
    if isinstance(model, dict):
        return model.get("name") or model.get("name_or_path")
    return getattr(model, "name", None) or getattr(model, "model", None)


def model_family(model) -> str | None:
    """The family of a model (:data:`MODEL_FAMILIES`) read from its name, e.g.
    ``meta-llama/Meta-Llama-3-70B-Instruct`` → ``"Llama"``, ``openai:gpt-4o`` → ``"GPT"``; None when no
    family word occurs (then only an identical name counts as the same model)."""
    name = model_name(model)
    if not isinstance(name, str):
        return None
    low = name.lower()
    hits = [fam for key, fam in MODEL_FAMILIES.items() if re.search(rf"(^|[^a-z]){re.escape(key)}", low)]
    return hits[0] if hits else None


def _uses(source, name: str) -> bool:
    return name in (source if isinstance(source, (list, tuple)) else [source])


def circularity(p_star_from, categories, labeller, judge: dict) -> pd.DataFrame:
    """Is the evaluation circular? Per quantity (``"p*"``, ``"categories"``) whose source (or fallback chain)
    includes the LLM ``labeller`` while the margins of Eq. 3 come from an LLM ``judge`` (``judge["from"] ==
    "llm"``): each labeller's name and family, the judge's, and ``same`` — ``"model"`` (the same name),
    ``"family"`` (the same :func:`model_family`, e.g. both Llama) or ``""`` (different). Beyond the Binary trains
    the regularized RM on Llama-3-70B's margins and evaluates it against human p* (§3.2–3.3); p* from the judge
    itself (or its family) would make the RM's target the judge's own view, which favours it over the baseline
    by construction. Empty when no LLM labels either quantity or the margins are not an LLM's."""
    rows = []
    if judge.get("from") != "llm":
        return pd.DataFrame(rows, columns=["quantity", "labeller", "labeller family", "judge", "judge family", "same"])
    jm = judge.get("model")
    jname, jfam = model_name(jm), model_family(jm)
    labs = labeller if isinstance(labeller, (list, tuple)) else [labeller]
    for quantity, source in (("p*", p_star_from), ("categories", categories)):
        if not _uses(source, "llm"):
            continue
        for lab in labs:
            lname, lfam = model_name(lab), model_family(lab)
            same = (
                "model"
                if lname is not None and lname == jname
                else "family"
                if lfam is not None and lfam == jfam
                else ""
            )
            rows.append(
                {
                    "quantity": quantity,
                    "labeller": lname,
                    "labeller family": lfam or "—",
                    "judge": jname,
                    "judge family": jfam or "—",
                    "same": same,
                }
            )
    return pd.DataFrame(rows, columns=["quantity", "labeller", "labeller family", "judge", "judge family", "same"])

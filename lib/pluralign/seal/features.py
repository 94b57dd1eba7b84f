"""SEAL's taxonomy of an alignment data set (App. C.3, C.4, E; Table 4; Fig. 11 / App. D.5).

- :data:`TAXONOMY_KEYS` — the 19 features of App. C.3 (two target features, helpfulness and
  harmlessness, and 17 spoiler features), with the paper's instructions; sentiment has three levels;
  the Wikipedia topics list and the Types of Discrimination list (:mod:`pluralign.seal.taxonomy`).
- :func:`taxonomy_prompt` — the App. C.3 prompt, quoted from the paper (PDF-extraction artefacts
  removed: the property names are written with underscores, as in SEAL's ``taxonomy/__init__.py`` and
  Table 5, where the extracted text shows spaces).
- :func:`taxonomy_schema` — a JSON schema for the labeller's answer.
- :func:`featurize` — builds the prompts and calls ``llm.structured(prompts, schema, job=...)``.
- :func:`feature_matrix` — numeric encoding used by the regressions (booleans 0/1, sentiment
  negative/neutral/positive → −1/0/1 as SEAL's ``prepare_data``; optional multi-hot topics).
- the offline, rule-based stand-in for the LM-labeller (the demo profile) is :mod:`pluralign.seal.rule_features`.
- :func:`label_stability` — per-feature agreement of two labellers (share equal and Cohen's κ), App. D.5.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pluralign.seal.taxonomy import (
    DISCRIMINATION_TYPES,
    LIST_FEATURES,
    SENTIMENT_LEVELS,
    STRING_FEATURES,
    TAXONOMY_KEYS,
    TOPICS,
    TOPICS_ADDED,
)

__all__ = [
    "LabelledFeatures",
    "TAXONOMY_PROMPT",
    "taxonomy_prompt",
    "taxonomy_schema",
    "featurize",
    "feature_matrix",
    "label_stability",
]

_LIST_KEYS, _STRING_KEYS = LIST_FEATURES, STRING_FEATURES


_HEAD = (
    "Wikipedia content categories list:\n" + "".join(f"- {t}\n" for t in TOPICS) + "\n"
    "Types of Discrimination list:\n" + "".join(f"- {t}\n" for t in DISCRIMINATION_TYPES) + "\n"
    "The following conversation is an excerpt of an RLHF dataset. Analyze it and return a JSON object "
    "containing the following properties:\n"
)

TAXONOMY_PROMPT = (
    _HEAD
    + "".join(f"- {k}: {v}\n" for k, v in TAXONOMY_KEYS.items())
    + "\nReturn this JSON object and nothing else.\n\n{text}"
)
"""App. C.3 prompt (all 19 properties); ``{text}`` is replaced by a chosen or rejected dialogue."""


@dataclass(frozen=True)
class LabelledFeatures:
    """An LM-labeller's taxonomy labels of a set of texts (SEAL § 2.1, App. C.3; App. B.2 for the patching),
    from :func:`featurize`.

    ``table``: the raw labels, one row per text (index 0..n−1), one column per taxonomy key (booleans,
    sentiment strings, lists; None where the labeller gave no valid answer); ``labeller`` the model's name;
    ``job`` the labelling job's name; ``n_failed`` texts without a valid answer; ``patched`` the items the
    labeller's validation patched (App. B.2) and ``n_patched`` their number."""

    table: pd.DataFrame
    labeller: str
    job: str = ""
    n_failed: int = 0
    n_patched: int = 0
    patched: list = field(default_factory=list)


def taxonomy_prompt(text: str, keys: Sequence[str] | None = None) -> str:
    """The App. C.3 prompt for one dialogue. ``keys`` restricts the properties asked for (SEAL's
    rewriting experiment asks for helpful, harmless, coherent, eloquent and sentiment only)."""
    if not isinstance(text, str):
        raise TypeError(f"taxonomy_prompt: text must be a string, got {type(text).__name__}")
    keys = list(keys) if keys is not None else list(TAXONOMY_KEYS)
    unknown = [k for k in keys if k not in TAXONOMY_KEYS]
    if unknown:
        raise ValueError(f"taxonomy_prompt: unknown taxonomy key(s) {unknown}; known: {list(TAXONOMY_KEYS)}")
    props = "".join(f"- {k}: {TAXONOMY_KEYS[k]}\n" for k in keys)
    return _HEAD + props + "\nReturn this JSON object and nothing else.\n\n" + text


def taxonomy_schema(keys: Sequence[str] | None = None, *, extended_topics: bool = True) -> dict:
    """JSON schema (draft 2020-12) of the labeller's answer for ``keys`` (default: all 19): booleans,
    sentiment one of "neutral"/"positive"/"negative", the two lists restricted to the paper's lists
    (topics also accept App. E.1's added ones when ``extended_topics``). All asked keys are required;
    extra keys are tolerated (the parser keeps only the asked ones)."""
    keys = list(keys) if keys is not None else list(TAXONOMY_KEYS)
    unknown = [k for k in keys if k not in TAXONOMY_KEYS]
    if unknown:
        raise ValueError(f"taxonomy_schema: unknown taxonomy key(s) {unknown}")
    props = {}
    for k in keys:
        if k == "last_response_sentiment":
            props[k] = {"type": "string", "enum": list(SENTIMENT_LEVELS)}
        elif k == "topics":
            allowed = list(TOPICS) + (list(TOPICS_ADDED) if extended_topics else [])
            props[k] = {"type": "array", "items": {"type": "string", "enum": allowed}}
        elif k == "last_response_is_discriminating_against":
            props[k] = {"type": "array", "items": {"type": "string", "enum": list(DISCRIMINATION_TYPES)}}
        else:
            props[k] = {"type": "boolean"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "SEAL taxonomy (App. C.3)",
        "type": "object",
        "properties": props,
        "required": keys,
        "additionalProperties": True,
    }


def _parse(answer, keys: list[str]) -> dict | None:
    if answer is None:
        return None
    if isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except json.JSONDecodeError:
            return None
    if not isinstance(answer, dict):
        return None
    return {k: answer.get(k) for k in keys}


def featurize(
    texts: Sequence[str],
    llm,
    *,
    keys: Sequence[str] | None = None,
    job: str = "seal-taxonomy",
    extended_topics: bool = True,
    **structured_kw,
) -> LabelledFeatures:
    """Label every text with the SEAL taxonomy through an LM-labeller (§ 2.1, App. C.3, B.2).

    ``llm`` is any object with ``structured(prompts, schema, job=..., **kw)`` returning one JSON object
    per prompt (dict or JSON string; None for an item that failed), as a list or as a
    ``pluralign.llm`` ``StructuredResult`` (``.values``, ``.patched``) — ``pluralign.llm.load(...)``
    validates, patches and resumes; its patched items are kept in the result's ``patched`` (App. B.2).
    The paper ran gpt-4-turbo-2024-04-09 at temperature 0 in JSON mode.

    Returns :class:`LabelledFeatures`; its ``table`` holds the raw labels: one row per text (same order /
    index 0..n−1), one column per key, values as the labeller gave them (booleans, sentiment strings,
    lists); items without a valid answer are missing (None) and counted in ``n_failed``. Encode the table
    with :func:`feature_matrix`.
    """
    texts = list(texts)
    keys = list(keys) if keys is not None else list(TAXONOMY_KEYS)
    prompts = [taxonomy_prompt(t, keys) for t in texts]
    schema = taxonomy_schema(keys, extended_topics=extended_topics)
    result = llm.structured(prompts, schema, job=job, **structured_kw) if prompts else []
    # pluralign.llm returns a StructuredResult (``.values`` + ``.patched``); plain lists are accepted too
    answers = list(result.values) if hasattr(result, "patched") else list(result)
    patched = list(getattr(result, "patched", []))
    if len(answers) != len(prompts):
        raise RuntimeError(f"featurize: the labeller returned {len(answers)} answers for {len(prompts)} prompts")
    rows, failed = [], 0
    for a in answers:
        parsed = _parse(a, keys)
        if parsed is None:
            failed += 1
            parsed = {k: None for k in keys}
        rows.append(parsed)
    out = pd.DataFrame(rows, columns=keys, dtype=object)
    labeller = str(getattr(llm, "model", None) or getattr(llm, "name", type(llm).__name__))
    return LabelledFeatures(
        table=out, labeller=labeller, job=job, n_failed=failed, n_patched=len(patched), patched=patched
    )


def _encode_scalar(key: str, v):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return np.nan
    if key in _STRING_KEYS:
        if isinstance(v, str) and v.strip().lower() in SENTIMENT_LEVELS:
            return float(SENTIMENT_LEVELS[v.strip().lower()])
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and v in (-1, 0, 1):
            return float(v)
        raise ValueError(f"feature_matrix: {key} value {v!r} is not one of {list(SENTIMENT_LEVELS)}")
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)) and v in (0, 1):
        return float(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return float(v.strip().lower() == "true")
    raise ValueError(f"feature_matrix: {key} value {v!r} is not a boolean")


def feature_matrix(
    labels: pd.DataFrame, features: Sequence[str] | None = None, *, topics: bool = False, discrimination: bool = False
) -> pd.DataFrame:
    """Numeric encoding of taxonomy labels for the regressions: booleans → 0/1, sentiment
    negative/neutral/positive → −1/0/1, missing → NaN. ``features`` defaults to every scalar key
    present. ``topics`` / ``discrimination`` add 0/1 columns ``topic: <name>`` / ``discrimination:
    <name>`` for the list-valued keys (as SEAL's ``prepare_data``). Raises on values outside the schema."""
    if features is None:
        features = [c for c in labels.columns if c in TAXONOMY_KEYS and c not in _LIST_KEYS] + [
            c for c in labels.columns if c not in TAXONOMY_KEYS and c not in _LIST_KEYS
        ]
    out = pd.DataFrame(index=labels.index)
    for f in features:
        if f not in labels.columns:
            raise ValueError(f"feature_matrix: no column {f!r} in the labels")
        col = labels[f]
        if f in TAXONOMY_KEYS:
            out[f] = [_encode_scalar(f, v) for v in col]
        else:
            out[f] = pd.to_numeric(
                col.astype(object)
                .where(col.notna(), np.nan)
                .map(lambda v: float(v) if isinstance(v, (bool, np.bool_)) else v),
                errors="raise",
            ).astype(float)
    for flag, key, prefix, names in (
        (topics, "topics", "topic", TOPICS + TOPICS_ADDED),
        (discrimination, "last_response_is_discriminating_against", "discrimination", DISCRIMINATION_TYPES),
    ):
        if not flag:
            continue
        if key not in labels.columns:
            raise ValueError(f"feature_matrix: no column {key!r} in the labels")
        seen = [n for n in names if any(isinstance(v, (list, tuple)) and n in v for v in labels[key])]
        for n in seen:
            out[f"{prefix}: {n}"] = [np.nan if not isinstance(v, (list, tuple)) else float(n in v) for v in labels[key]]
    return out


def label_stability(
    labels_a: pd.DataFrame, labels_b: pd.DataFrame, features: Sequence[str] | None = None
) -> pd.DataFrame:
    """Per-feature agreement of two labellers on the same texts (App. D.5, Fig. 11): ``n`` (texts both
    labelled), ``agreement`` (share of equal labels) and Cohen's κ (scikit-learn; NaN when undefined,
    e.g. both labellers constant). Inputs are raw labels (as :func:`featurize`'s ``table``) or already numeric;
    rows are matched by position. Features missing from either side are skipped."""
    from sklearn.metrics import cohen_kappa_score

    if len(labels_a) != len(labels_b):
        raise ValueError(f"label_stability: {len(labels_a)} vs {len(labels_b)} rows; label the same texts")
    if features is None:
        features = [c for c in labels_a.columns if c in labels_b.columns and c not in _LIST_KEYS]
    a = feature_matrix(labels_a.reset_index(drop=True), [f for f in features if f in labels_a.columns])
    b = feature_matrix(labels_b.reset_index(drop=True), [f for f in features if f in labels_b.columns])
    rows = {}
    for f in features:
        if f not in a.columns or f not in b.columns:
            continue
        m = a[f].notna() & b[f].notna()
        x, y = a.loc[m, f].to_numpy(), b.loc[m, f].to_numpy()
        if not m.any():
            rows[f] = {"n": 0, "agreement": np.nan, "cohen_kappa": np.nan}
            continue
        agree = float(np.mean(x == y))
        if len(np.unique(np.concatenate([x, y]))) < 2:
            kappa = np.nan
        else:
            kappa = float(cohen_kappa_score(x, y))
        rows[f] = {"n": int(m.sum()), "agreement": agree, "cohen_kappa": kappa}
    out = pd.DataFrame(rows).T
    if len(out):
        out["n"] = out["n"].astype(int)
    out.index.name = "feature"
    return out

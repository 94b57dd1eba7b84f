"""An LLM cause classifier (the full version of Diverging Preferences, arXiv 2410.14632): :func:`classify_causes`
prompts an instruction-following LLM with the ten causes of Table 1 and their §2.1 definitions
(:func:`cause_prompt`) and reads its JSON answer (:func:`cause_schema`) through
``llm.structured(prompts, schema, job=...)`` (:mod:`pluralign.llm`), as cause labels in the format of the
annotation sheets, so :func:`pluralign.diverging.causes.label_agreement` compares it with human annotators.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from pluralign.data.core import PreferenceData
from pluralign.diverging.causes import CAUSE_IDS, CAUSES

__all__ = ["CauseLabels", "cause_schema", "cause_prompt", "classify_causes"]


@dataclass
class CauseLabels:
    """What :func:`classify_causes` returns: ``labels`` (pair_id, annotator, causes, rationale), the pair ids
    that ``failed`` validation on every attempt, and the llm's record of ``patched`` (retried) items."""

    labels: pd.DataFrame
    failed: list
    patched: list


def cause_schema() -> dict:
    """JSON schema of the classifier's answer: ``{"causes": [cause ids, ≥ 1, unique], "rationale": str}``."""
    return {
        "type": "object",
        "properties": {
            "causes": {
                "type": "array",
                "items": {"type": "string", "enum": list(CAUSE_IDS)},
                "minItems": 1,
                "uniqueItems": True,
            },
            "rationale": {"type": "string"},
        },
        "required": ["causes"],
    }


def _clip(text: str, max_chars: int) -> str:
    text = str(text)
    return text if len(text) <= max_chars else text[:max_chars] + " […]"


def cause_prompt(prompt: str, response_a: str, response_b: str, *, max_chars: int = 4000) -> str:
    """The classifier's instruction: the ten causes with their §2.1 definitions, then the pair."""
    lines = [
        "Human annotators compared the two responses below and DISAGREED about which one is better "
        "(some preferred Response A, others Response B). Using the taxonomy of causes of diverging "
        "preferences (Zhang et al. 2024, Table 1), say which causes explain the disagreement. "
        "Several causes may apply; choose at least one.",
        "",
        "Taxonomy (id — class / category: definition):",
    ]
    for c in CAUSES:
        lines.append(f"- {c.id} — {c.cls} / {c.name}: {c.definition}")
    lines += [
        "",
        "### Prompt",
        _clip(prompt, max_chars),
        "",
        "### Response A",
        _clip(response_a, max_chars),
        "",
        "### Response B",
        _clip(response_b, max_chars),
        "",
        'Answer with JSON only: {"causes": [ids from the taxonomy], "rationale": "one sentence"}.',
    ]
    return "\n".join(lines)


def classify_causes(
    data: PreferenceData,
    llm,
    pair_ids: Iterable[str] | None = None,
    *,
    job: str = "diverging-causes",
    annotator: str = "llm",
    max_chars: int = 4000,
) -> pd.DataFrame:
    """Label diverging pairs with causes through ``llm.structured(prompts, cause_schema(), job=job)``
    (resumable and cached by :mod:`pluralign.llm`). ``pair_ids`` defaults to every pair of ``data``.

    Returns :class:`CauseLabels`: ``labels``, a ``DataFrame(pair_id, annotator, causes, rationale)`` in the
    format of :func:`~pluralign.diverging.cause_annotation.import_annotations`, so
    :func:`~pluralign.diverging.causes.label_agreement` compares the classifier with human annotators directly;
    ``failed``, the pairs whose every attempt failed validation (left out of ``labels``); ``patched``, the llm's
    record of retried items. An answer naming an unknown cause or none raises ``ValueError``."""
    pairs = data.pairs.set_index("pair_id")
    ids = list(pairs.index if pair_ids is None else pair_ids)
    prompts = [
        cause_prompt(pairs.at[i, "prompt"], pairs.at[i, "response_a"], pairs.at[i, "response_b"], max_chars=max_chars)
        for i in ids
    ]
    result = llm.structured(prompts, cause_schema(), job=job)
    answers = list(getattr(result, "values", result))  # pluralign.llm returns a StructuredResult
    if len(answers) != len(ids):
        raise ValueError(f"llm.structured returned {len(answers)} answers for {len(ids)} prompts")
    rows, failed = [], []
    for pid, ans in zip(ids, answers):
        if ans is None:  # every attempt failed validation (recorded in result.patched)
            failed.append(pid)
            continue
        if isinstance(ans, str):
            ans = json.loads(ans)
        causes = frozenset(ans.get("causes", []))
        bad = causes - set(CAUSE_IDS)
        if bad or not causes:
            raise ValueError(f"pair {pid!r}: classifier answer {ans!r} names no cause or unknown causes {sorted(bad)}")
        rows.append({"pair_id": pid, "annotator": annotator, "causes": causes, "rationale": ans.get("rationale", "")})
    return CauseLabels(
        labels=pd.DataFrame(rows, columns=["pair_id", "annotator", "causes", "rationale"]),
        failed=failed,
        patched=list(getattr(result, "patched", [])),
    )

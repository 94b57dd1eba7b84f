"""The topics (and types of discrimination) of an alignment data set's entries (SEAL App. E.1, Fig. 15).

SEAL's taxonomy prompt (App. C.3) asks the LM-labeller for ``topics`` — one or more of the "Wikipedia content
categories list" (:data:`~pluralign.seal.taxonomy.TOPICS`, plus the five gpt-4-turbo added on its own and SEAL
then integrated, :data:`~pluralign.seal.taxonomy.TOPICS_ADDED`) — and for ``last_response_is_discriminating_against``
(:data:`~pluralign.seal.taxonomy.DISCRIMINATION_TYPES`). Fig. 15 shows how often each value occurs; an entry can
carry several. The figure prints no number. SEAL's analysis code (``analysis/functions.py::category_plot``) also
compares the chosen and the rejected entry of each pair: the values both carry and those only one carries.

- :func:`label_distribution` — Fig. 15's counts from any labels (the LM-labeller's lists on the ``paper`` profile);
- :func:`rule_topics` — an offline stand-in for the LM-labeller's topics: keyword rules per topic (:data:`TOPIC_RULES`),
  applied to the whole conversation. It is a named stand-in, not an estimate of what gpt-4-turbo would answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["TOPIC_RULES", "rule_topics", "label_distribution"]

TOPIC_RULES: dict[str, str] = {
    "Culture and the arts": r"\b(music|song|poem|poetry|novel|film|movie|paint\w*|art|artist|book|shakespeare|villain|"
    r"story|stories|dance|theat(?:er|re)|video game)\b",
    "Geography and places": r"\b(capital|city|cities|country|countries|continent\w*|ocean\w*|river|mountain\w*|"
    r"brazil|france|japan|australia|canada|travel)\b",
    "Health and fitness": r"\b(health\w*|sleep|diet|exercise|running|run|caffeine|doctor|medic\w*|disease|heart|"
    r"stress|fitness|weight|meals?|cook\w*)\b",
    "History and events": r"\b(history|historical|war|century|centuries|moon landing|1969|ancient|empire)\b",
    "Human activities": r"\b(hobby|hobbies|sport\w*|hiking|game\w*|garden\w*|shopping|shoplift\w*|travel\w*|"
    r"cooking|pick the lock|steal)\b",
    "Mathematics and logic": r"\b(math\w*|equation|number|calculat\w*|logic|probability|algebra|geometry)\b",
    "Natural and physical sciences": r"\b(chemical|chemistry|physics|planet\w*|sun|boil\w*|freez\w*|photosynthesis|"
    r"spider\w*|biology|gas|water|diamond|mercury|gold|sodium|animal\w*|dog|pet)\b",
    "People and self": r"\b(friend\w*|family|neighbou?r\w*|relationship\w*|ex|wife|husband|myself|feel\w*|lonely)\b",
    "Philosophy and thinking": r"\b(philosoph\w*|moral\w*|ethic\w*|meaning of life|conscious\w*|free will)\b",
    "Religion and belief systems": r"\b(religio\w*|god|church|bible|pray\w*|faith|islam|christian\w*|jewish)\b",
    "Society and social sciences": r"\b(society|social|community|racis\w*|gender|immigra\w*|crime|poverty|"
    r"police)\b",
    "Technology and applied sciences": r"\b(computer\w*|software|email|internet|phone|phishing|password|app|"
    r"technolog\w*|car|engine|ai|robot\w*)\b",
    "Law": r"\b(law\w*|legal|illegal|court|lawyer|fake id|police|crime)\b",
    "Business and economics": r"\b(money|sav(?:e|ing)|budget|business|job\w*|interview\w*|company|market|"
    r"econom\w*|price|buy\w*)\b",
    "Government and public administration": r"\b(government|public administration|agency|official\w*|tax\w*)\b",
    "Education": r"\b(stud(?:y|ying|ent\w*)|school|learn\w*|class|teacher|exam\w*|homework|university)\b",
    "Politics and government": r"\b(politic\w*|election\w*|vote|president|overthrow\w*|democra\w*|parliament)\b",
}
"""Keyword rules of the offline topic stand-in (:func:`rule_topics`), one regular expression per topic of App. C.3
and App. E.1 (case-insensitive, on word boundaries)."""

_COMPILED = {t: re.compile(p, re.IGNORECASE) for t, p in TOPIC_RULES.items()}


def rule_topics(texts: Sequence[str]) -> list[list[str]]:
    """Offline stand-in for the LM-labeller's ``topics`` (App. C.3; Fig. 15): for each text, the topics of
    :data:`TOPIC_RULES` whose keywords occur in it, in the list's order (possibly none). Raises on a non-string."""
    out = []
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise ValueError(f"rule_topics: text {i} is {type(t).__name__}, not a string")
        out.append([k for k, rx in _COMPILED.items() if rx.search(t)])
    return out


def _as_lists(labels, what: str) -> list:
    out = []
    for i, v in enumerate(labels):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            out.append(None)
        elif isinstance(v, (list, tuple, np.ndarray)):
            out.append(list(dict.fromkeys(str(x) for x in v)))
        else:
            raise ValueError(f"label_distribution: {what} entry {i} is {v!r}, not a list of labels")
    return out


def label_distribution(chosen: Sequence, rejected: Sequence, names: Sequence[str] | None = None) -> pd.DataFrame:
    """How often each label of a multi-label field occurs (Fig. 15: topics, types of discrimination), on the chosen
    and the rejected entries of the same pairs, and how often the two entries of a pair differ on it (SEAL's
    ``category_plot``).

    ``chosen`` / ``rejected``: one list of labels per pair (None: the labeller gave no answer; such pairs are left
    out and counted in the ``pairs left out`` column of every row). ``names``: the labels to report in order
    (labels outside it are reported after them, so nothing is dropped); default: every label seen. Returns one
    row per label with ``chosen (n)`` / ``rejected (n)`` (entries carrying it), ``share of entries`` (of the 2 × pairs
    counted), ``chosen only (n)`` / ``rejected only (n)`` (pairs where just that entry carries it) and ``pairs left
    out (n)``; plus a row ``(none)`` for entries with no label (its ``chosen only (n)``: pairs where only the chosen
    entry has none)."""
    c, r = _as_lists(chosen, "chosen"), _as_lists(rejected, "rejected")
    n_all = len(c)
    if len(c) != len(r):
        raise ValueError(f"label_distribution: {len(c)} chosen but {len(r)} rejected entries")
    keep = [i for i in range(len(c)) if c[i] is not None and r[i] is not None]
    if not keep:
        raise ValueError("label_distribution: no pair has labels on both entries")
    c, r = [set(c[i]) for i in keep], [set(r[i]) for i in keep]
    seen = list(dict.fromkeys(x for s in c + r for x in sorted(s)))
    order = list(names or []) + [x for x in seen if x not in (names or [])]
    n = len(keep)
    rows = {}
    for lab in order:
        in_c = np.array([lab in s for s in c])
        in_r = np.array([lab in s for s in r])
        rows[lab] = {
            "chosen (n)": int(in_c.sum()),
            "rejected (n)": int(in_r.sum()),
            "share of entries": float((in_c.sum() + in_r.sum()) / (2 * n)),
            "chosen only (n)": int((in_c & ~in_r).sum()),
            "rejected only (n)": int((in_r & ~in_c).sum()),
        }
    nc, nr = np.array([not s for s in c]), np.array([not s for s in r])
    rows["(none)"] = {
        "chosen (n)": int(nc.sum()),
        "rejected (n)": int(nr.sum()),
        "share of entries": float((nc.sum() + nr.sum()) / (2 * n)),
        "chosen only (n)": int((nc & ~nr).sum()),
        "rejected only (n)": int((nr & ~nc).sum()),
    }
    out = pd.DataFrame.from_dict(rows, orient="index").rename_axis("label")
    out["pairs left out (n)"] = n_all - n
    return out

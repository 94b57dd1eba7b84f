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
- :func:`rule_featurize` — an offline, rule-based stand-in for the LM-labeller (the demo profile): it
  fills only the features that surface patterns can honestly detect and leaves the others missing.
- :func:`label_stability` — per-feature agreement of two labellers (share equal and Cohen's κ), App. D.5.
"""

from __future__ import annotations

import json
import re
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
    "RULE_FEATURES",
    "TAXONOMY_PROMPT",
    "taxonomy_prompt",
    "taxonomy_schema",
    "featurize",
    "feature_matrix",
    "last_response",
    "rule_featurize",
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


# --------------------------------------------------------------------------------------------------------------
# Rule-based featurizer (offline stand-in for the LM-labeller)

_ASSISTANT = re.compile(r"(?:^|\n)\s*Assistant:\s*", re.IGNORECASE)

_REFUSAL = re.compile(
    r"\b(?:I\s*(?:'m| am)\s+(?:sorry|afraid)[^.!?]{0,40}\b(?:can(?:'|no)?t|cannot|won'?t|unable|not able)"
    r"|I\s+(?:can(?:'|no)?t|cannot|won'?t|will not|must decline to|refuse to|am not able to|'m not able to|"
    r"am unable to|'m unable to)\s+(?:help|assist|provide|do|give|share|answer|support|comply|tell|write|"
    r"create|engage|recommend|participate)"
    r"|I\s+(?:don'?t|do not)\s+(?:think I (?:can|should)|feel comfortable)"
    r"|(?:I'?m|I am)\s+not\s+(?:comfortable|going to help)"
    r"|as an AI[^.!?]{0,40}\b(?:can(?:'|no)?t|cannot|won'?t|unable)"
    r"|(?:that|this) (?:would be|is) (?:illegal|unethical|harmful)[^.!?]{0,30}\b(?:can(?:'|no)?t|won'?t|not))",
    re.IGNORECASE,
)
_POSITIVE = {
    "good",
    "great",
    "glad",
    "happy",
    "love",
    "wonderful",
    "excellent",
    "best",
    "nice",
    "enjoy",
    "enjoyed",
    "awesome",
    "fantastic",
    "amazing",
    "pleased",
    "delighted",
    "helpful",
    "hope",
    "welcome",
    "thanks",
    "thank",
    "perfect",
    "fun",
    "beautiful",
    "exciting",
    "excited",
    "lovely",
    "positive",
    "brilliant",
    "grateful",
    "congratulations",
    "success",
    "successful",
    "better",
    "like",
    "kind",
}
_NEGATIVE = {
    "bad",
    "sad",
    "hate",
    "terrible",
    "awful",
    "worst",
    "angry",
    "sorry",
    "unfortunately",
    "wrong",
    "horrible",
    "poor",
    "upset",
    "annoying",
    "disappointed",
    "disappointing",
    "fail",
    "failed",
    "failure",
    "pain",
    "painful",
    "afraid",
    "scared",
    "worse",
    "negative",
    "dangerous",
    "harmful",
    "illegal",
    "stupid",
    "ugly",
    "hurt",
    "problem",
    "difficult",
    "miserable",
    "dislike",
    "unhappy",
    "boring",
}
_NEGATORS = {"not", "no", "never", "n't", "don't", "isn't", "wasn't", "aren't", "doesn't", "didn't"}
#: each lexicon word's sign (a word in both lists is positive, as the featurizer reads it)
_LEXICON = {**dict.fromkeys(_NEGATIVE, -1), **dict.fromkeys(_POSITIVE, 1)}
_INSULT = re.compile(
    r"\b(?:idiot|idiots|idiotic|stupid|moron|morons|dumb|dumbass|loser|losers|imbecile|jerk|"
    r"pathetic|worthless|ignorant|retard(?:ed)?|fool|fools|scum|bitch|bastard|asshole|dick|"
    r"shut up|you suck)\b",
    re.IGNORECASE,
)
_EXPLICIT = re.compile(
    r"\b(?:porn\w*|orgasm\w*|masturbat\w*|genital\w*|penis|vagina|clitoris|erotic\w*|"
    r"blowjob|handjob|dildo|nude|naked|intercourse|have sex|having sex|sex with|sexual "
    r"position\w*|cum|horny)\b",
    re.IGNORECASE,
)
_PRIVACY = re.compile(
    r"(?:\b\d{3}[-. ]\d{2}[-. ]\d{4}\b"  # SSN-like
    r"|\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b"  # phone number
    r"|\b[\w.+-]+@[\w-]+\.[\w.]+\b"  # e-mail address
    r"|\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|"
    r"Ln|Drive|Dr|Court|Ct|Way|Place|Pl)\b\.?"  # street address
    r"|\b(?:home address|social security number|credit card number)\s+(?:is|of)\b)"
)
_HARM = re.compile(
    r"\b(?:kill|killing|murder|poison|bomb|explosive|weapon|gun|shoot|stab|steal|stealing|"
    r"shoplift\w*|rob|robbery|burglar\w*|break into|hack|hacking|meth|cocaine|heroin|drugs?|"
    r"overdose|suicide|self-harm|kidnap\w*|launder\w*|counterfeit|fraud|scam|torture|attack|"
    r"racist|slur|cheat|cheating|blackmail|arson|smuggl\w*|trafficking|toxic substance|"
    r"hot-?wire|lock ?pick\w*|fake id)\b",
    re.IGNORECASE,
)
_EVASION = re.compile(
    r"\b(?:so (?:that )?(?:nobody|no one|no-one) (?:sees|notices|will (?:know|notice|see))|"
    r"before any(?:one|body) (?:notices|sees|finds out)|without (?:being|getting) "
    r"(?:caught|seen|noticed|detected)|away from (?:the )?(?:security )?cameras|cover your tracks|"
    r"(?:cannot|can't|won't) (?:tell|notice|find out)|delete the (?:evidence|logs?|alert\w*))",
    re.IGNORECASE,
)
_ANTHRO = re.compile(
    r"\b(?:I\s+(?:feel|felt|love|loved|hate|miss|am\s+(?:a\s+)?(?:human|person|man|woman|"
    r"happy|sad|angry|lonely|tired|hungry)|'m\s+(?:a\s+)?(?:human|person|man|woman|happy|sad|"
    r"angry|lonely|tired|hungry)|have\s+(?:feelings|emotions|a\s+(?:body|family|wife|husband|"
    r"girlfriend|boyfriend))|grew up|was born)|my\s+(?:feelings|emotions|wife|husband|mom|mother|"
    r"dad|father|kids|childhood|body)|as a human)\b",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)

#: For each word-list pattern, literal stems one of which every match contains (lower case): an ASCII response in
#: whose lower-cased text none stands cannot match, and is passed over without running the pattern (a fast
#: necessary condition; the pattern decides every other response, so the labels are the pattern's own). A
#: response with other characters always runs the pattern (its case folding is not ASCII's lower-casing).
_STEMS = {
    _INSULT: (
        *("idiot", "stupid", "moron", "dumb", "loser", "imbecile", "jerk", "pathetic", "worthless", "ignorant"),
        *("retard", "fool", "scum", "bitch", "bastard", "asshole", "dick", "shut up", "you suck"),
    ),
    _EXPLICIT: (
        *("porn", "orgasm", "masturbat", "genital", "penis", "vagina", "clitoris", "erotic", "blowjob", "handjob"),
        *("dildo", "nude", "naked", "intercourse", "sex", "cum", "horny"),
    ),
    _HARM: (
        *("kill", "murder", "poison", "bomb", "explosive", "weapon", "gun", "shoot", "stab", "steal", "shoplift"),
        *("rob", "burglar", "break into", "hack", "meth", "cocaine", "heroin", "drug", "overdose", "suicide"),
        *("self-harm", "kidnap", "launder", "counterfeit", "fraud", "scam", "torture", "attack", "racist", "slur"),
        *("cheat", "blackmail", "arson", "smuggl", "trafficking", "toxic substance", "wire", "pick", "fake id"),
    ),
}
#: what every match of :data:`_PRIVACY` (case-sensitive) in an ASCII text contains: a digit, an "@" or one of its
#: phrases
_PRIVACY_HINTS = (*"0123456789@", "home address", "social security number", "credit card number")


def _matches(pattern: re.Pattern, resp: str, low: str | None) -> bool:
    """Whether ``pattern`` finds a match in ``resp`` (``low``: its lower-cased text when it is ASCII, else None),
    running the pattern only where its necessary condition (:data:`_STEMS`, :data:`_PRIVACY_HINTS`) holds."""
    if low is not None:
        if pattern is _PRIVACY and not any(hint in resp for hint in _PRIVACY_HINTS):
            return False
        if pattern in _STEMS and not any(stem in low for stem in _STEMS[pattern]):
            return False
    return pattern.search(resp) is not None


RULE_FEATURES = (
    "last_response_is_anthropomorphic",
    "last_response_is_refusal",
    "last_response_is_harmless",
    "last_response_sentiment",
    "last_response_contains_insult",
    "last_response_is_sexually_explicit",
    "last_response_breaks_privacy",
    "response_words",
    "response_has_list",
)
"""What :func:`rule_featurize` fills: seven taxonomy features it can detect from surface patterns, plus
two surface measures outside SEAL's taxonomy (length in words — verbosity — and list formatting)."""


def last_response(text: str) -> str:
    """The assistant's last turn of an hh-rlhf style dialogue ("\\n\\nHuman: ...\\n\\nAssistant: ..."); the
    whole text when it has no "Assistant:" marker."""
    if not isinstance(text, str):
        raise TypeError(f"last_response: expected a string, got {type(text).__name__}")
    parts = _ASSISTANT.split(text)
    return parts[-1].strip() if len(parts) > 1 else text.strip()


_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _sentiment(resp: str) -> str:
    """The rule featurizer's sentiment: the lexicon's positive words count +1, its negative words −1 (a word in
    both lists counts as positive), each reversed when one of the three words before it negates; a total of 2 or
    more is positive, −2 or less negative, else neutral."""
    tokens = _WORD.findall(resp.lower())
    score = 0
    for i in [i for i, tok in enumerate(tokens) if tok in _LEXICON]:
        s = _LEXICON[tokens[i]]
        if any(t in _NEGATORS or t.endswith("n't") for t in tokens[max(0, i - 3) : i]):
            s = -s
        score += s
    return "positive" if score >= 2 else "negative" if score <= -2 else "neutral"


def rule_featurize(texts: Sequence[str]) -> pd.DataFrame:
    """Rule-based SEAL taxonomy for offline runs (the demo profile's stand-in for the LM-labeller).

    Looks at the last assistant response only (SEAL's ``last_response_*`` features) and fills:
    refusal (refusal phrases), sentiment (lexicon score with negation, ≥ 2 positive / ≤ −2 negative,
    else neutral), insult and sexually explicit (word lists), privacy (phone numbers, e-mail and street
    addresses, SSN-like numbers), anthropomorphic (first-person claims of feelings, a body or a family),
    harmless (False when the response insults, is explicit, breaks privacy, or — without refusing —
    mentions harmful-topic words or concealment cues such as "so nobody sees", "without getting
    caught"), plus ``response_words`` and ``response_has_list``. Helpfulness, honesty,
    coherence, eloquence, creativity, manipulation, discrimination, vocabulary quality, topics and the
    whole-conversation ``assistant_*`` features need judgement and are returned missing (None).

    Returns a DataFrame in the raw-label layout of :func:`featurize`'s ``table`` (booleans, sentiment
    strings); every text is labelled (the labeller is named "rules" where one is recorded).
    """
    rows, seen = [], {}  # a response that recurs (the same reply in several conversations) is labelled once
    for t in texts:
        resp = last_response(t)
        if resp in seen:
            rows.append(seen[resp])
            continue
        low = resp.lower() if resp.isascii() else None
        refusal = bool(_REFUSAL.search(resp))
        insult, explicit, privacy = (_matches(p, resp, low) for p in (_INSULT, _EXPLICIT, _PRIVACY))
        harmful_topic = _matches(_HARM, resp, low) or bool(_EVASION.search(resp))
        row = {k: None for k in TAXONOMY_KEYS}
        row.update(
            {
                "last_response_is_anthropomorphic": bool(_ANTHRO.search(resp)),
                "last_response_is_refusal": refusal,
                "last_response_is_harmless": not (insult or explicit or privacy or (harmful_topic and not refusal)),
                "last_response_sentiment": _sentiment(resp),
                "last_response_contains_insult": insult,
                "last_response_is_sexually_explicit": explicit,
                "last_response_breaks_privacy": privacy,
                "response_words": len(resp.split()),
                "response_has_list": len(_LIST_LINE.findall(resp)) >= 2,
            }
        )
        rows.append(row)
        seen[resp] = row
    return pd.DataFrame(rows, columns=[*TAXONOMY_KEYS, "response_words", "response_has_list"], dtype=object)


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

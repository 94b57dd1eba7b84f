"""The demo profile's rule-based featurizer: an offline stand-in for SEAL's LM-labeller (App. C.3) that fills only the
taxonomy features surface patterns can honestly read from an entry's last response (refusal, harmfulness words,
sentiment by a small lexicon with negation, insults, explicit content, private data, evasion, anthropomorphism,
lists) and leaves the others missing.

- :data:`RULE_FEATURES` — the features it reads; :func:`rule_featurize` — its labels of each text, in the
  columns of :data:`~pluralign.seal.taxonomy.TAXONOMY_KEYS` plus the response's words and whether it has a list;
- :func:`last_response` — the last Assistant turn of a dialogue, the text it reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from pluralign.seal.taxonomy import TAXONOMY_KEYS

__all__ = ["RULE_FEATURES", "last_response", "rule_featurize"]


_ASSISTANT = re.compile(r"(?:^|\n)\s*Assistant:\s*", re.IGNORECASE)

_REFUSAL = re.compile(
    r"\b(?:i\s*(?:'m| am)\s+(?:sorry|afraid)[^.!?]{0,40}\b(?:can(?:'|no)?t|cannot|won'?t|unable|not able)"
    r"|i\s+(?:can(?:'|no)?t|cannot|won'?t|will not|must decline to|refuse to|am not able to|'m not able to|"
    r"am unable to|'m unable to)\s+(?:help|assist|provide|do|give|share|answer|support|comply|tell|write|"
    r"create|engage|recommend|participate)"
    r"|i\s+(?:don'?t|do not)\s+(?:think i (?:can|should)|feel comfortable)"
    r"|(?:i'?m|i am)\s+not\s+(?:comfortable|going to help)"
    r"|as an ai[^.!?]{0,40}\b(?:can(?:'|no)?t|cannot|won'?t|unable)"
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
    r"\b(?:i\s+(?:feel|felt|love|loved|hate|miss|am\s+(?:a\s+)?(?:human|person|man|woman|"
    r"happy|sad|angry|lonely|tired|hungry)|'m\s+(?:a\s+)?(?:human|person|man|woman|happy|sad|"
    r"angry|lonely|tired|hungry)|have\s+(?:feelings|emotions|a\s+(?:body|family|wife|husband|"
    r"girlfriend|boyfriend))|grew up|was born)|my\s+(?:feelings|emotions|wife|husband|mom|mother|"
    r"dad|father|kids|childhood|body)|as a human)\b",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)

#: For each word-list and phrase pattern, literal stems one of which every match contains (lower case): an ASCII
#: response in whose lower-cased text none stands cannot match, and is passed over without running the pattern (a
#: fast necessary condition; the pattern decides every other response, so the labels are the pattern's own). A
#: response with other characters always runs the pattern (its case folding is not ASCII's lower-casing).
_STEMS = {
    # each alternative of the refusal phrases: "I'm sorry / afraid …", "I can't / cannot / won't / will not / must
    # decline / refuse / am not able / am unable …", "I don't think I …", "… comfortable", "… going to help", "as
    # an AI …", "that would be illegal / unethical / harmful …"
    _REFUSAL: (
        *("sorry", "afraid", "can't", "cant", "cannot", "won't", "wont", "will not", "decline", "refuse"),
        *("not able", "unable", "think i", "comfortable", "going to help", "as an ai", "illegal", "unethical"),
        "harmful",
    ),
    # each alternative of the concealment cues
    _EVASION: (
        *("nobody", "no one", "no-one", "before any", "without", "cameras", "cover your tracks", "cannot", "can't"),
        *("won't", "delete the"),
    ),
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
#: what every match of :data:`_PRIVACY` (case-sensitive) contains: two digits in a row (an SSN, a phone number), a
#: digit before a space (a street number), an "@" (an e-mail address) or one of its phrases; one quick scan for
#: these passes over most responses with digits (numbered lists) without running the five-way pattern
_PRIVACY_HINT = re.compile(r"\d[\d\s]|@|home address|social security number|credit card number")


#: each case-insensitive pattern written in lower case, compiled without ``re.IGNORECASE`` for an ASCII response's
#: lower-cased text: on ASCII text the two find the same matches (lower-casing changes no word boundary, space or
#: punctuation), and the case-sensitive one runs several times faster (Python's ``re`` scans for a case-insensitive
#: alternation position by position)
_CASED = {p: re.compile(p.pattern) for p in (_REFUSAL, _INSULT, _EXPLICIT, _HARM, _EVASION, _ANTHRO)}
if any(p.pattern != p.pattern.lower() for p in _CASED):
    raise ImportError("rule_features: a case-insensitive pattern must be written in lower case (_CASED)")


def _matches(pattern: re.Pattern, resp: str, low: str | None) -> bool:
    """Whether ``pattern`` finds a match in ``resp`` (``low``: its lower-cased text when it is ASCII, else None),
    running the pattern only where its necessary condition (:data:`_STEMS`, :data:`_PRIVACY_HINT`) holds, and a
    case-insensitive one on ``low`` as its case-sensitive twin (:data:`_CASED`)."""
    if low is not None:
        if pattern is _PRIVACY and _PRIVACY_HINT.search(resp) is None:
            return False
        if pattern in _STEMS and not any(stem in low for stem in _STEMS[pattern]):
            return False
        if pattern in _CASED:
            return _CASED[pattern].search(low) is not None
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
        refusal = _matches(_REFUSAL, resp, low)
        insult, explicit, privacy = (_matches(p, resp, low) for p in (_INSULT, _EXPLICIT, _PRIVACY))
        harmful_topic = _matches(_HARM, resp, low) or _matches(_EVASION, resp, low)
        row = {k: None for k in TAXONOMY_KEYS}
        row.update(
            {
                "last_response_is_anthropomorphic": _matches(_ANTHRO, resp, low),
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

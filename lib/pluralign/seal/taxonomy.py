"""SEAL's taxonomy of an alignment data set's entries (App. C.3, App. E.1, Table 5): the 19 properties of the App. C.3
prompt with the paper's instructions (:data:`TAXONOMY_KEYS`: two target features, helpfulness and harmlessness, and 17
spoiler features), the Wikipedia topics list and the Types of Discrimination list, and the feature sets the analyses
use (the scalar regressors, Table 5's 15 features). The prompt, the labeller and the encodings are in
:mod:`pluralign.seal.features`."""

from __future__ import annotations

from pluralign.paper.seal import TABLE5_FEATURES

__all__ = [
    "TOPICS",
    "TOPICS_ADDED",
    "DISCRIMINATION_TYPES",
    "TAXONOMY_KEYS",
    "FEATURES",
    "TARGET_FEATURES",
    "SENTIMENT_LEVELS",
    "LIST_FEATURES",
    "STRING_FEATURES",
    "SCALAR_FEATURES",
    "IMPRINT_FEATURES",
]

TOPICS = (
    "Culture and the arts",
    "Geography and places",
    "Health and fitness",
    "History and events",
    "Human activities",
    "Mathematics and logic",
    "Natural and physical sciences",
    "People and self",
    "Philosophy and thinking",
    "Religion and belief systems",
    "Society and social sciences",
    "Technology and applied sciences",
)
"""App. C.3 'Wikipedia content categories list'."""

TOPICS_ADDED = (
    "Law",
    "Business and economics",
    "Government and public administration",
    "Education",
    "Politics and government",
)
"""App. E.1: topics gpt-4-turbo added on its own, which SEAL then integrated (accepted by the schema when
``extended_topics=True``; the quoted prompt does not list them)."""

DISCRIMINATION_TYPES = (
    "Age Discrimination",
    "Disability Discrimination",
    "Sexual Orientation",
    "Status as a Parent",
    "Religious Discrimination",
    "National Origin",
    "Pregnancy",
    "Sexual Harassment",
    "Race, Color, and Sex",
    "Reprisal / Retaliation",
    "Gender",
    "Political Belief",
)
"""App. C.3 'Types of Discrimination list'."""

TAXONOMY_KEYS: dict[str, str] = {
    "assistant_is_anthropomorphic": (
        "Boolean. true if, in the context of the conversation, the assistant identifies itself as a human, or "
        "responds in a way that suggests it has consciousness and/or feelings. false otherwise."
    ),
    "assistant_is_coherent": (
        "Boolean. true if the portion of the conversation coming from the assistant is free of logical errors, "
        "contradictions and overall shows common sense. false otherwise."
    ),
    "human_vocabulary_quality": (
        "Boolean. true if the quality of the vocabulary for the portion of the conversation coming from the human"
        " is normal or high. false if low or poor."
    ),
    "last_response_is_anthropomorphic": (
        "Boolean. true if, in the context of the conversation, in its last response the assistant identifies "
        "itself as a human, or responds in a way that suggests it has consciousness and/or feelings. false "
        "otherwise."
    ),
    "last_response_is_coherent": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is both free of logical errors and doesn't contradict statements it made previously. false otherwise."
    ),
    "last_response_is_refusal": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is a refusal to comply with the human's request. false otherwise."
    ),
    "last_response_is_helpful": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is helpful to the human. false otherwise."
    ),
    "last_response_is_harmless": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is harmless to the human. false otherwise."
    ),
    "last_response_is_honest": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is honest. false otherwise."
    ),
    "last_response_sentiment": (
        "String. Sentiment analysis of the last response provided to the human by the assistant, in the context "
        'of the whole conversation. Can be "neutral", "positive" or "negative".'
    ),
    "last_response_contains_insult": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "contains an insult. false otherwise."
    ),
    "last_response_is_sexually_explicit": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is sexually explicit. false otherwise."
    ),
    "last_response_breaks_privacy": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "potentially infringes on someone's privacy, for example by doxing them. false otherwise."
    ),
    "last_response_is_discriminatory": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        'is discriminating against a group of people. false otherwise. Use "Types of Discrimination list" to make'
        " that determination."
    ),
    "last_response_is_discriminating_against": (
        'Array of strings. Uses the "Types of Discrimination list" to determine, in the context of the whole '
        "conversation, which group(s) the last response provided discriminated against. Can be empty. All values "
        "must be items from the provided list, with the exact same spelling."
    ),
    "last_response_is_manipulative": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is manipulative. false otherwise."
    ),
    "last_response_is_creative": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is creative. false otherwise."
    ),
    "last_response_is_eloquent": (
        "Boolean. true if, in the context of the whole conversation, the last response provided by the assistant "
        "is eloquent. false otherwise."
    ),
    "topics": (
        "An array of strings representing the underlying high-level topics of that conversation. Pick one or "
        'multiple entries from "Wikipedia content categories list" to populate this array, based on your analysis'
        " of the entire exchange. All values must be items from the provided list, with the exact same spelling."
    ),
}
"""The 19 properties of the App. C.3 prompt with the paper's instructions, in the paper's order."""

FEATURES = tuple(TAXONOMY_KEYS)
TARGET_FEATURES = ("last_response_is_helpful", "last_response_is_harmless")
"""§ 2.1: the two target features; the other 17 are spoiler features."""
SENTIMENT_LEVELS = {"negative": -1, "neutral": 0, "positive": 1}
"""Three sentiment levels, coded −1/0/1 as SEAL's ``analysis/functions.py::prepare_data``."""
LIST_FEATURES = ("last_response_is_discriminating_against", "topics")
"""The two list-valued taxonomy properties (topics, groups discriminated against)."""
STRING_FEATURES = ("last_response_sentiment",)
"""The one string-valued taxonomy property (sentiment, three levels)."""
SCALAR_FEATURES = tuple(k for k in TAXONOMY_KEYS if k not in LIST_FEATURES)
"""The 17 scalar (boolean or sentiment) taxonomy features: the regressors offered to the VIF filter."""

IMPRINT_FEATURES = TABLE5_FEATURES
"""The 15 features of Table 5, in its row order (:data:`pluralign.paper.seal.TABLE5_FEATURES`, where the paper's
numbers are): the two ``assistant_*`` features fell to the VIF filter; the two list-valued ones are not
regressors."""

"""SEAL taxonomy (App. C.3): prompt, schema, LM featurization (fake labeller), encoding, rule-based
featurizer, label stability (App. D.5)."""

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from pluralign.seal.features import (
    TAXONOMY_PROMPT,
    feature_matrix,
    featurize,
    label_stability,
    taxonomy_prompt,
    taxonomy_schema,
)
from pluralign.seal.rule_features import last_response, rule_featurize
from pluralign.seal.taxonomy import (
    DISCRIMINATION_TYPES,
    FEATURES,
    IMPRINT_FEATURES,
    TARGET_FEATURES,
    TAXONOMY_KEYS,
    TOPICS,
)

SEED = next(iter(sorted((Path(__file__).resolve().parents[2].parent / "shared" / "seeds").glob("003_*.txt"))), None)


def test_taxonomy_shape():
    assert len(TAXONOMY_KEYS) == 19 and len(FEATURES) == 19
    assert len(TOPICS) == 12 and len(DISCRIMINATION_TYPES) == 12
    assert TARGET_FEATURES == ("last_response_is_helpful", "last_response_is_harmless")
    assert len(IMPRINT_FEATURES) == 15 and set(IMPRINT_FEATURES) <= set(TAXONOMY_KEYS)


@pytest.mark.skipif(SEED is None, reason="paper text ../shared/seeds/003_*.txt not present")
def test_prompt_quotes_the_paper_exactly():
    """Every property line, list item and framing sentence occurs verbatim in the paper's text (whose
    PDF extraction writes the property names with spaces instead of underscores)."""
    paper = SEED.read_text()
    for k, v in TAXONOMY_KEYS.items():
        assert f"- {k.replace('_', ' ')}: {v}" in paper, k
    for item in TOPICS + DISCRIMINATION_TYPES:
        assert f"- {item}\n" in paper
    for sentence in (
        "The following conversation is an excerpt of an RLHF dataset. Analyze it and return a JSON "
        "object containing the following properties:",
        "Return this JSON object and nothing else.",
        "Wikipedia content categories list:",
        "Types of Discrimination list:",
    ):
        assert sentence in paper and sentence in TAXONOMY_PROMPT


def test_taxonomy_prompt_builds_and_filters_keys():
    text = "\n\nHuman: hi\n\nAssistant: hello"
    p = taxonomy_prompt(text)
    assert p.endswith("Return this JSON object and nothing else.\n\n" + text)
    assert p == TAXONOMY_PROMPT.replace("{text}", text)
    for k in TAXONOMY_KEYS:
        assert f"- {k}: " in p
    sub = taxonomy_prompt(text, ["last_response_is_helpful", "last_response_sentiment"])
    assert "- last_response_is_helpful: " in sub and "- last_response_is_harmless: " not in sub
    assert "Types of Discrimination list:" in sub
    with pytest.raises(ValueError, match="unknown taxonomy key"):
        taxonomy_prompt(text, ["last_response_is_funny"])


def good_answer(**over):
    a = {k: False for k in TAXONOMY_KEYS}
    a.update(
        {
            "last_response_is_helpful": True,
            "last_response_is_harmless": True,
            "last_response_sentiment": "positive",
            "last_response_is_discriminating_against": [],
            "topics": ["Health and fitness"],
        }
    )
    a.update(over)
    return a


def test_schema_accepts_and_rejects():
    schema = taxonomy_schema()
    jsonschema.validate(good_answer(), schema)
    jsonschema.validate(good_answer(topics=["Law"], extra_key=1), schema)  # App. E.1 topic, extra key
    for bad in (
        good_answer(last_response_sentiment="very positive"),
        good_answer(last_response_is_helpful="yes"),
        good_answer(topics=["Cooking"]),
        good_answer(last_response_is_discriminating_against=["Height"]),
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    missing = good_answer()
    del missing["last_response_is_honest"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(missing, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(good_answer(topics=["Law"]), taxonomy_schema(extended_topics=False))


class FakeLabeller:
    """Stands in for pluralign.llm: ``structured`` returns canned answers and records its calls."""

    name = "fake-labeller"

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def structured(self, prompts, schema, retries=2, job=None):
        self.calls.append({"prompts": list(prompts), "schema": schema, "job": job})
        return [self.answers[i % len(self.answers)] for i in range(len(prompts))]


def test_featurize_with_fake_labeller():
    answers = [
        good_answer(),
        json.dumps(good_answer(last_response_sentiment="negative", last_response_is_helpful=False)),
        None,
    ]
    llm = FakeLabeller(answers)
    texts = ["\n\nHuman: a\n\nAssistant: b", "\n\nHuman: c\n\nAssistant: d", "\n\nHuman: e\n\nAssistant: f"]
    result = featurize(texts, llm, job="test-job")
    labels = result.table
    assert llm.calls[0]["job"] == "test-job"
    assert llm.calls[0]["prompts"] == [taxonomy_prompt(t) for t in texts]
    assert llm.calls[0]["schema"] == taxonomy_schema()
    assert list(labels.columns) == list(TAXONOMY_KEYS) and len(labels) == 3
    assert result.n_failed == 1 and result.labeller == "fake-labeller" and result.job == "test-job"
    assert result.n_patched == 0 and result.patched == []
    X = feature_matrix(labels, list(IMPRINT_FEATURES))
    assert X.loc[0, "last_response_sentiment"] == 1.0 and X.loc[1, "last_response_sentiment"] == -1.0
    assert X.loc[0, "last_response_is_helpful"] == 1.0 and X.loc[1, "last_response_is_helpful"] == 0.0
    assert X.loc[2].isna().all()
    sub = featurize(texts[:1], FakeLabeller([good_answer()]), keys=["last_response_sentiment"]).table
    assert list(sub.columns) == ["last_response_sentiment"]


def test_featurize_rejects_wrong_answer_count():
    class Short(FakeLabeller):
        def structured(self, prompts, schema, retries=2, job=None):
            return []

    with pytest.raises(RuntimeError, match="0 answers for 2 prompts"):
        featurize(["a", "b"], Short([]))


def test_feature_matrix_encoding():
    labels = pd.DataFrame(
        {
            "last_response_is_helpful": [True, False, None, 1],
            "last_response_sentiment": ["positive", "neutral", "negative", None],
            "topics": [["Law"], ["Health and fitness", "Law"], [], None],
        },
        dtype=object,
    )
    X = feature_matrix(labels, topics=True)
    assert X["last_response_is_helpful"].tolist()[:2] == [1.0, 0.0] and np.isnan(X.iloc[2, 0])
    assert X["last_response_sentiment"].tolist()[:3] == [1.0, 0.0, -1.0]
    assert X["topic: Law"].tolist()[:3] == [1.0, 1.0, 0.0] and np.isnan(X["topic: Law"].iloc[3])
    assert X["topic: Health and fitness"].tolist()[:3] == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="not one of"):
        feature_matrix(pd.DataFrame({"last_response_sentiment": ["ecstatic"]}))
    with pytest.raises(ValueError, match="not a boolean"):
        feature_matrix(pd.DataFrame({"last_response_is_helpful": ["maybe"]}))


def test_last_response():
    t = "\n\nHuman: hi\n\nAssistant: hello\n\nHuman: how are you?\n\nAssistant: Fine, thanks."
    assert last_response(t) == "Fine, thanks."
    assert last_response("just a response") == "just a response"


def dialog(response):
    return f"\n\nHuman: Can you help me with something?\n\nAssistant: {response}"


def test_the_rule_featurizers_word_lists_are_passed_over_only_where_they_cannot_match():
    """The stems that let rule_featurize pass over a response without running a word-list pattern are a necessary
    condition: every word and phrase a pattern lists, in any case and inflection it allows, still decides as the
    pattern alone decides (a stem list missing one word fails here)."""
    import re

    from pluralign.seal import rule_features as F

    for pattern in (F._INSULT, F._EXPLICIT, F._HARM, F._PRIVACY):
        # the pattern's alternatives, each with its regex syntax dropped ("retard(?:ed)?" gives "retarded")
        source = re.sub(r"\\[bw]\*?|\(\?:|[()?*+]", "", pattern.pattern).replace("\\s", " ")
        words = {w.strip() for w in source.split("|") if re.search("[a-z]", w)} | {"hotwire", "lockpicking", "retard"}
        cases = [f"{pre}{w}{post}" for w in words for pre, post in (("you ", "!"), ("", "s"), ("X", "ing"))]
        cases += [c.upper() for c in cases] + [c.title() for c in cases] + ["ſtupid", "naïve stab", "call 555 0199"]
        cases += ["Call me at (555) 123-4567", "mail bob@example.org", "He lives at 42 Elm Street.", "a calm reply"]
        for text in cases:
            low = text.lower() if text.isascii() else None
            assert F._matches(pattern, text, low) == (pattern.search(text) is not None), (pattern.pattern[:30], text)
        assert any(pattern.search(c) for c in cases)  # the cases do exercise the pattern


def test_the_rule_featurizers_phrases_are_passed_over_only_where_they_cannot_match():
    """The stems of the refusal and concealment phrases are a necessary condition: each alternative of the two
    patterns, in lower, upper and title case and inside other words, decides as the pattern alone decides (a stem
    list missing one alternative's word fails here), and so do near misses."""
    from pluralign.seal import rule_features as F

    phrases = {
        F._REFUSAL: [
            *("I'm sorry, but I can't help", "I am afraid I cannot do that", "I am sorry but I won't answer that"),
            *("I cant help with that", "I can't assist", "I cannot provide", "I wont share", "I won't write"),
            *("I will not engage", "I must decline to answer", "I refuse to participate", "I am not able to help"),
            *("I'm not able to give", "I am unable to comply", "I'm unable to support", "I don't think I can"),
            *("I do not think I should", "I don't feel comfortable", "I'm not comfortable", "I am not going to help"),
            *("As an AI, I can't", "as an AI language model I cannot", "as an AI I won't", "as an AI I'm unable"),
            *("That would be illegal, so I can't", "this is unethical and I won't", "that is harmful, not"),
        ],
        F._EVASION: [
            *("so nobody sees", "so that no one notices", "so no-one will know", "before anyone notices"),
            *("before anybody finds out", "without being caught", "without getting detected", "away from cameras"),
            *("away from the security cameras", "cover your tracks", "they cannot tell", "he can't notice"),
            *("she won't find out", "delete the evidence", "delete the logs", "delete the alerts"),
        ],
        # no stems: these run as the case-sensitive twin on the lower-cased text (_CASED), which must decide alike
        F._ANTHRO: [
            *("I feel lonely", "I felt it", "I am a human", "I'm a woman", "I have feelings", "I have a family"),
            *("I grew up there", "I was born in May", "my wife says", "my childhood", "as a human being"),
        ],
    }
    misses = ["I can help with that", "sorry for the wait", "nobody knows", "the cameras are on", "I think so"]
    for pattern, cases in phrases.items():
        cases = [f"{pre}{c}{post}" for c in cases for pre, post in (("", "."), ("Well, ", " today!"))]
        cases += [c.upper() for c in cases] + [c.title() for c in cases] + misses + ["naïve: I can't help"]
        for text in cases:
            low = text.lower() if text.isascii() else None
            assert F._matches(pattern, text, low) == (pattern.search(text) is not None), (pattern.pattern[:30], text)
        assert sum(pattern.search(c) is not None for c in cases) >= len(phrases[pattern])  # the cases match


@pytest.mark.shared_data
def test_the_rule_featurizers_stems_change_no_label_on_real_dialogues(shared_data, monkeypatch):
    """On hh-rlhf's 4,624 real responses (every chosen and rejected dialogue of the harmless test split) the rule
    featurizer labels every response as its patterns alone label it: the stems only pass over responses."""
    from pluralign.seal import rule_features as F

    raw = pd.read_json(shared_data / "hh-rlhf/harmless-base-test.jsonl.gz", lines=True)
    texts = [*raw["chosen"], *raw["rejected"]]
    fast = rule_featurize(texts)
    monkeypatch.setattr(F, "_matches", lambda pattern, resp, low: pattern.search(resp) is not None)
    pd.testing.assert_frame_equal(fast, rule_featurize(texts))
    assert fast["last_response_is_refusal"].sum() > 0 and (~fast["last_response_is_harmless"].astype(bool)).sum() > 0


def test_rule_featurize_detects_what_it_claims():
    texts = [
        dialog("I'm sorry, but I can't help with that request."),
        dialog("You are an idiot for asking this."),
        dialog("Sure, his phone number is 555-123-4567 and he lives at 42 Elm Street."),
        dialog("This is a wonderful idea, I'm glad you asked and I hope you enjoy it!"),
        dialog("That is a terrible, awful plan and it will fail."),
        dialog("Here are the steps:\n1. Preheat the oven\n2. Mix the flour\n3. Bake for 20 minutes"),
        dialog("You could poison the dog with antifreeze."),
        dialog("I feel lonely sometimes, and my wife says I work too much."),
        dialog("The capital of France is Paris."),
        dialog("That would not be good, it is not great."),
    ]
    X = rule_featurize(texts)
    assert isinstance(X, pd.DataFrame) and len(X) == len(texts)
    col = lambda k: X[k].tolist()
    assert col("last_response_is_refusal") == [True] + [False] * 9
    assert col("last_response_contains_insult")[1] and sum(col("last_response_contains_insult")) == 1
    assert col("last_response_breaks_privacy") == [False, False, True] + [False] * 7
    assert col("last_response_sentiment")[3] == "positive" and col("last_response_sentiment")[4] == "negative"
    assert col("last_response_sentiment")[8] == "neutral"
    assert col("last_response_sentiment")[9] == "negative"  # negated positive words
    assert col("response_has_list") == [False] * 5 + [True] + [False] * 4
    assert col("last_response_is_harmless") == [True, False, False, True, True, True, False, True, True, True]
    assert col("last_response_is_anthropomorphic") == [False] * 7 + [True, False, False]
    assert col("response_words")[8] == 6
    # what it cannot judge is missing, not guessed
    for k in ("last_response_is_helpful", "last_response_is_honest", "last_response_is_eloquent", "topics"):
        assert X[k].isna().all()
    enc = feature_matrix(X)
    assert np.isnan(enc["last_response_is_helpful"]).all() and enc["last_response_is_refusal"].iloc[0] == 1.0


def test_label_stability_hand_computed():
    a = pd.DataFrame(
        {
            "last_response_is_helpful": [True, True, False, False, True, None],
            "last_response_sentiment": ["positive", "neutral", "neutral", "negative", "positive", "neutral"],
        },
        dtype=object,
    )
    b = pd.DataFrame(
        {
            "last_response_is_helpful": [True, False, False, False, True, True],
            "last_response_sentiment": ["positive", "neutral", "neutral", "negative", "positive", "neutral"],
        },
        dtype=object,
    )
    out = label_stability(a, b)
    # helpful: 5 comparable rows, 4 equal; p_o = 0.8, p_e = (3/5·2/5) + (2/5·3/5) = 0.48, κ = 0.32/0.52
    assert out.loc["last_response_is_helpful", "n"] == 5
    assert out.loc["last_response_is_helpful", "agreement"] == pytest.approx(0.8)
    assert out.loc["last_response_is_helpful", "cohen_kappa"] == pytest.approx(0.32 / 0.52)
    assert out.loc["last_response_sentiment", "agreement"] == 1.0
    assert out.loc["last_response_sentiment", "cohen_kappa"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same texts"):
        label_stability(a, b.iloc[:3])


def test_featurize_accepts_a_structured_result():
    from pluralign.llm.base import StructuredResult

    class Labeller:
        name = "structured-result-labeller"

        def structured(self, prompts, schema, job=None):
            return StructuredResult(
                values=[good_answer(), None],
                patched=[{"item": 1, "key": "k", "attempts": 4, "errors": ["bad"], "ok": False}],
            )

    result = featurize(["t1", "t2"], Labeller())
    assert result.n_failed == 1 and result.n_patched == 1 and result.patched[0]["item"] == 1
    assert result.labeller == "structured-result-labeller"
    labels = result.table
    assert labels.loc[0, "last_response_sentiment"] == "positive" and labels.loc[1].isna().all()


def test_rule_featurize_concealment_cues_and_refusal_override():
    X = rule_featurize(
        [
            dialog("Sure. Put it in your bag and walk out before anyone notices."),
            dialog("I can't help with stealing, and doing it without getting caught is not the point."),
            dialog("Sure. Wait until they are at work so nobody sees you."),
        ]
    )
    assert X.last_response_is_harmless.tolist() == [False, True, False]
    assert X.last_response_is_refusal.tolist() == [False, True, False]

"""The SEAL study design (seal.design): D as chosen / rejected entries (majority, ties and splits counted), combined
data, entry texts and the dialogue split, the entries' features from rules or an LM-labeller, γ with missing labels,
Table 4 prevalence, and alignment_rewards / alignment_models (orientation with given models, the pre-D guard)."""

import numpy as np
import pandas as pd
import pytest

from pluralign import seal
from pluralign.data import DataError, PreferenceData, simulate
from pluralign.data.core import combine
from pluralign.seal.design import (
    AlignmentModels,
    EntryFeatures,
    alignment_models,
    entry_features,
    feature_prevalence,
    labeller_gamma,
    split_dialogue,
)
from pluralign.seal.pairs import entry_texts
from pluralign.seal.rule_features import RULE_FEATURES, last_response
from pluralign.seal.taxonomy import SCALAR_FEATURES


def _data(prefs, ids=None, name="toy"):
    """prefs: list of lists of annotator preferences per pair."""
    ids = ids or [f"p{i}" for i in range(len(prefs))]
    pairs = pd.DataFrame(
        {
            "pair_id": ids,
            "dataset": name,
            "split": "train",
            "prompt": [f"q{i}" for i in ids],
            "response_a": [f"a-{i}" for i in ids],
            "response_b": [f"b-{i}" for i in ids],
        }
    )
    ann = pd.DataFrame(
        [
            {"pair_id": i, "annotator_id": f"x{k}", "preference": v}
            for i, ps in zip(ids, prefs)
            for k, v in enumerate(ps)
        ]
    )
    return PreferenceData(pairs, ann, {"name": name})


def test_chosen_rejected_majority_and_ties_counted():
    d = _data([[-2, -1, 1], [2, 1, 0], [-1, 1], [0, 0, 1]])  # A, B, split (A and B even), tie
    pairs = seal.chosen_rejected(d)
    v = pairs.table
    assert list(v["pair_id"]) == ["p0", "p1"]
    assert list(v["chosen"]) == ["a-p0", "b-p1"] and list(v["rejected"]) == ["b-p0", "a-p1"]
    assert list(v["chosen_side"]) == ["A", "B"]
    assert pairs.n_ties_dropped == 1 and pairs.n_splits_dropped == 1 and pairs.n_pairs == 2 and pairs.data == d.name


def test_combine_keeps_everything_and_refuses_duplicate_ids():
    a, b = _data([[-1], [1]], ["a0", "a1"], "A"), _data([[2]], ["b0"], "B")
    c = combine(a, b)
    assert list(c.pairs["pair_id"]) == ["a0", "a1", "b0"] and len(c.annotations) == 3
    assert [p["n_pairs"] for p in c.meta["parts"]] == [2, 1]
    with pytest.raises(DataError, match="duplicate pair_id 'a0'"):
        combine(a, a)
    with pytest.raises(ValueError, match="no data"):
        combine()


def test_feature_prevalence_by_hand():
    c = pd.DataFrame({"harmless": [1.0, 1, 0, np.nan], "last_response_sentiment": [1.0, 0, -1, 1]})
    r = pd.DataFrame({"harmless": [0.0, 0, 1, 0], "last_response_sentiment": [-1.0, -1, 0, 0]})
    p = feature_prevalence(c, r)
    assert p.loc["harmless", "chosen"] == pytest.approx(2 / 3) and p.loc["harmless", "rejected"] == 0.25
    assert p.loc["last_response_sentiment", "difference"] == pytest.approx(0.25 - (-0.5))
    assert p.loc["harmless", "n"] == 3


def test_labeller_gamma_with_missing_labels():
    F = EntryFeatures(
        "planted",
        pd.DataFrame(),
        pd.DataFrame(),
        [],
        {
            "chosen_helpful": np.array([1, 0, np.nan]),
            "chosen_harmless": np.array([1, 1, 1]),
            "rejected_helpful": np.array([0, 1, 1]),
            "rejected_harmless": np.array([1, 1, 1]),
        },
    )
    g = labeller_gamma(F)
    assert list(g) == ["c", "r", None]


def test_entry_texts_and_split_dialogue_round_trip():
    v = pd.DataFrame(
        {
            "prompt": ["How?", "\n\nHuman: hi\n\nAssistant: yo\n\nHuman: and?\n\nAssistant:"],
            "chosen": ["Do X.", "Sure."],
            "rejected": ["No.", "Never."],
        }
    )
    t = entry_texts(v, "chosen")
    assert t[0] == "Human: How?\n\nAssistant: Do X."
    assert t[1].endswith("Assistant: Sure.")
    # split as the hh-rlhf loader splits: at the last "\n\nAssistant:", both parts trimmed
    assert [split_dialogue(x) for x in t] == [
        ("Human: How?", "Do X."),
        ("Human: hi\n\nAssistant: yo\n\nHuman: and?", "Sure."),
    ]
    hh = pd.DataFrame(
        {"prompt": ["Human: hi", "Human: a\n\nAssistant: b\n\nHuman: c"], "chosen": ["x", "y"], "rejected": ["u", "w"]}
    )
    assert [split_dialogue(x) for x in entry_texts(hh, "rejected")] == list(zip(hh["prompt"], hh["rejected"]))
    assert split_dialogue("no marker here ") == ("", "no marker here")
    assert last_response(t[1]) == "Sure."
    with pytest.raises(ValueError, match="entry must be"):
        entry_texts(v, "both")


def test_entry_features_rules_on_text():
    v = pd.DataFrame(
        {
            "pair_id": ["x", "y"],
            "prompt": ["Help me.", "Steal a car?"],
            "chosen": ["Sure, here is a list:\n1. one\n2. two", "I'm sorry, but I can't help with that."],
            "rejected": ["I'm sorry, but I can't help with that.", "Sure. Hot-wire the ignition."],
            "chosen_side": ["A", "A"],
        }
    )
    F = entry_features(None, v, "rules")
    assert list(F.chosen["response_has_list"]) == [1.0, 0.0]
    assert list(F.rejected["last_response_is_refusal"]) == [1.0, 0.0]
    assert list(F.rejected["last_response_is_harmless"]) == [1.0, 0.0]
    # Table 2, helpfulness first: y's chosen refusal is "unhelpful" under the stand-in, so γ = r despite harm
    assert list(labeller_gamma(F)) == ["c", "r"]
    with pytest.raises(ValueError, match="needs llm"):
        entry_features(None, v, "llm")
    with pytest.raises(ValueError, match="source must be"):
        entry_features(None, v, "magic")


def test_entry_features_llm_offers_every_scalar_feature_to_the_vif_filter():
    rng = np.random.default_rng(0)
    n = 80
    v = pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(n)],
            "prompt": [f"Q{i}?" for i in range(n)],
            "chosen": [f"c{i}" for i in range(n)],
            "rejected": [f"r{i}" for i in range(n)],
            "chosen_side": ["A"] * n,
        }
    )
    draws = {}

    class Labeller:
        model = "fake"

        def structured(self, prompts, schema, job=None, **kw):
            out = []
            for p in prompts:
                lab = {k: bool(rng.integers(2)) for k in schema["properties"]}
                lab["last_response_sentiment"] = str(rng.choice(["negative", "neutral", "positive"]))
                lab["topics"], lab["last_response_is_discriminating_against"] = [], []
                # assistant_is_coherent copies last_response_is_coherent: collinear, VIF = inf
                lab["assistant_is_coherent"] = lab["last_response_is_coherent"]
                out.append(None if p.endswith("c3") else lab)
            draws[job] = out
            return out

    F = entry_features(None, v, "llm", llm=Labeller())
    assert F.regressors == list(SCALAR_FEATURES) and len(F.regressors) == 17
    assert F.chosen.loc[3].isna().all()  # the failed label stays missing, pair 3 is dropped below
    R = {k: rng.normal(size=n) for k in ("c", "r")}
    table = seal.imprint_table(v["pair_id"], F.chosen, F.rejected, post=(R["c"], R["r"]))
    assert table.n_pairs_dropped_missing == 1 and table.n_pairs == n - 1
    imp = seal.feature_imprint(table, "post", F.regressors)
    assert {"assistant_is_coherent", "last_response_is_coherent"} & set(imp.dropped_vif)
    assert F.labeller == "fake" and F.labels_chosen.loc[3].isna().all()


class _FakeRM:
    """Scores response_a / response_b from a table keyed by response text; the scores come back in an
    order other than the data's, so alignment_rewards must match them by pair_id."""

    def __init__(self, table):
        self.table = table

    def score(self, data, progress=False):
        p = data.pairs.iloc[::-1]
        return pd.DataFrame(
            {
                "pair_id": p["pair_id"].to_numpy(),
                "reward_a": [self.table[t] for t in p["response_a"]],
                "reward_b": [self.table[t] for t in p["response_b"]],
            }
        )


def test_alignment_rewards_orients_chosen_and_rejected_with_given_models():
    d = _data([[-2, -1], [2, 1], [-1, 1], [1, 2]])  # chosen A, B, tie (dropped), B
    pre = _FakeRM(
        {"a-p0": 1.0, "b-p0": 2.0, "a-p1": 3.0, "b-p1": 4.0, "a-p2": 0.0, "b-p2": 0.0, "a-p3": 5.0, "b-p3": 6.0}
    )
    post = _FakeRM({k: 10 * v for k, v in pre.table.items()})
    R = seal.alignment_rewards(d, rms=AlignmentModels(pre=pre, post=post, design="fake"), scoring_input="prompt_reply")
    assert list(R["pair_id"]) == ["p0", "p1", "p3"]
    np.testing.assert_array_equal(R["pre_chosen"], [1.0, 4.0, 6.0])  # A for p0, B for p1 and p3
    np.testing.assert_array_equal(R["pre_rejected"], [2.0, 3.0, 5.0])
    np.testing.assert_array_equal(R["post_chosen"], [10.0, 40.0, 60.0])
    np.testing.assert_array_equal(R["post_rejected"], [20.0, 30.0, 50.0])
    assert list(R.columns) == ["pair_id", "pre_chosen", "pre_rejected", "post_chosen", "post_rejected"]


def test_pre_d_model_must_not_see_d():
    d = _data([[-1], [1]], ids=["p0", "p1"])
    other = _data([[1], [-1]], ids=["p1", "o1"], name="other")
    with pytest.raises(ValueError, match="must not see D"):
        alignment_models(d, other)
    with pytest.raises(ValueError, match="give either models"):
        alignment_models(d)
    with pytest.raises(ValueError, match="keys 'pre' and 'post'"):
        alignment_models(d, models={"pre": {}})


def test_rule_regressors_are_the_rule_features_but_word_count():
    d = simulate(n_pairs=20, seed=1)
    F = entry_features(d, seal.chosen_rejected(d).table, "rules")
    assert F.regressors == [f for f in RULE_FEATURES if f != "response_words"]

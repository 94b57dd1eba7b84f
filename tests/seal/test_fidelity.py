"""Paper-scale fidelity of Part II: SEAL's scoring input, every hh-rlhf row kept, Table 8 as
SEAL's code's linear probability model, Table 5 in SEAL's code's OLS variant, and the LM-labeller's two rules."""

import numpy as np
import pandas as pd
import pytest

import pluralign
from pluralign import seal
from pluralign.seal.imprint import feature_imprint, feature_imprint_seal_code, vif_filter
from pluralign.seal.resistance import labeller_preference
from pluralign.seal.robustness import robustness_scores
from pluralign.seal.scoring import count_truncated, scoring_inputs, seal_split

HH = "hh-rlhf/harmless-base-test.jsonl.gz"


# ---------------------------------------------------------------------------------------------- loader + split
@pytest.mark.shared_data
def test_hh_rlhf_keeps_all_2312_pairs_and_flags_5(shared_data):
    path = shared_data / HH
    d = pluralign.load("hh-rlhf", source=path)
    assert len(d) == 2312 and len(d.annotations) == 2312
    flagged = d.pairs["history_differs"].to_numpy()
    assert flagged.dtype == bool and int(flagged.sum()) == 5
    assert np.flatnonzero(flagged).tolist() == [1254, 1688, 1950, 1952, 2036]  # 0-based rows
    assert d.pairs.loc[flagged, "source_row"].tolist() == [1255, 1689, 1951, 1953, 2037]  # 1-based lines
    by_filter = {f["filter"]: f for f in d.meta["filters"]}
    differ = next(f for k, f in by_filter.items() if k.startswith("chosen and rejected do not share"))
    assert differ["removed"] == 0 and differ["changed"] == 5 and differ["rows"] == [1255, 1689, 1951, 1953, 2037]
    empty = by_filter["empty final assistant reply: replaced by '[empty response]'"]
    assert empty["removed"] == 0 and empty["changed"] == 4 and empty["rows"] == [87, 517, 926, 1104]
    # each side keeps its own, unchanged conversation
    raw = pd.read_json(path, lines=True)
    is_a = (d.pairs["chosen"] == "A").to_numpy()
    assert (np.where(is_a, d.pairs["dialogue_a"], d.pairs["dialogue_b"]) == raw["chosen"].to_numpy()).all()
    assert (np.where(is_a, d.pairs["dialogue_b"], d.pairs["dialogue_a"]) == raw["rejected"].to_numpy()).all()
    # the data page counts them
    from pluralign.data.summary import overview

    assert overview(d)["pairs whose chosen and rejected histories differ (kept, flagged)"] == 5


@pytest.mark.shared_data
def test_scoring_inputs_split_every_entry_as_seals_code(shared_data):
    path = shared_data / HH
    s = scoring_inputs(pluralign.load("hh-rlhf", source=path))
    raw = pd.read_json(path, lines=True)
    assert len(s) == 4624 and list(s.columns) == ["pair_id", "side", "history", "reply"]
    assert (s["side"].to_numpy() == np.tile(["chosen", "rejected"], 2312)).all()
    original = np.column_stack([raw["chosen"], raw["rejected"]]).reshape(-1)
    assert (s["history"] + s["reply"] == original).all()
    assert all(r == t[t.rfind("Assistant:") :] for r, t in zip(s["reply"], original))
    assert s["reply"].str.startswith("Assistant:").all()
    # by SEAL's split six pairs' two histories differ: the loader's five and row 1560, whose chosen reply holds a
    # second "Assistant:" after a single newline
    h = s["history"].to_numpy()
    assert np.flatnonzero(h[0::2] != h[1::2]).tolist() == [1254, 1560, 1688, 1950, 1952, 2036]
    # the former input: the loader's split, prefix stripped, each side its own history
    old = scoring_inputs(pluralign.load("hh-rlhf", source=path), "prompt_reply")
    assert not old["reply"].str.startswith("Assistant:").any() and (old["history"] == old["history"].str.strip()).all()
    assert (old["history"].to_numpy()[0::2] != old["history"].to_numpy()[1::2]).sum() == 5


def test_scoring_inputs_by_hand():
    view = pd.DataFrame(
        {
            "pair_id": ["p0", "p1"],
            "prompt": ["Human: hi", "What is 2+2?"],
            "chosen": ["Hello!", "4"],
            "rejected": ["Go.", "5"],
            "chosen_side": ["A", "B"],
        }
    )
    s = scoring_inputs(view)
    assert s.to_dict("list") == {
        "pair_id": ["p0", "p0", "p1", "p1"],
        "side": ["chosen", "rejected", "chosen", "rejected"],
        "history": ["Human: hi\n\n", "Human: hi\n\n", "Human: What is 2+2?\n\n", "Human: What is 2+2?\n\n"],
        "reply": ["Assistant: Hello!", "Assistant: Go.", "Assistant: 4", "Assistant: 5"],
    }
    old = scoring_inputs(view, "prompt_reply")
    assert old["history"].tolist() == ["Human: hi"] * 2 + ["What is 2+2?"] * 2
    assert old["reply"].tolist() == ["Hello!", "Go.", "4", "5"]
    assert seal_split("Human: a\n\nAssistant: b\nAssistant: c") == ("Human: a\n\nAssistant: b\n", "Assistant: c")
    with pytest.raises(ValueError, match="no 'Assistant:'"):
        seal_split("Human: only")
    with pytest.raises(ValueError, match="input must be one of"):
        scoring_inputs(view, "raw")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['rejected'\]"):
        scoring_inputs(view.drop(columns="rejected"))


def test_truncation_is_counted_and_deberta_v3_is_not_truncated(tmp_path):
    from transformers import BertConfig, DebertaV2Config

    from pluralign.rewards.seqcls import model_max_length
    from rm_helpers import tiny_seqcls_folder

    assert model_max_length(DebertaV2Config(position_biased_input=False, relative_attention=True)) is None
    assert model_max_length(DebertaV2Config(position_biased_input=True, max_position_embeddings=512)) == 512
    assert model_max_length(BertConfig(max_position_embeddings=128)) == 128

    folder = tiny_seqcls_folder(tmp_path / "rm")
    rm = pluralign.rewards.load(folder, kind="seq-cls", max_length=16)
    inputs = pd.DataFrame(
        {
            "pair_id": ["a", "a"],
            "side": ["chosen", "rejected"],
            "history": ["Human: hi\n\n", "Human: " + "word " * 40 + "\n\n"],
            "reply": ["Assistant: ok", "Assistant: ok"],
        }
    )
    c = count_truncated(rm, inputs)
    assert c["n_entries"] == 2 and c["n_truncated"] == 1 and c["max_length"] == 16 and c["longest"] > 40
    # max_length None: the model's maximum (a BERT accepts 512 positions), so nothing here is cut
    full = pluralign.rewards.load(folder, kind="seq-cls", max_length=None)
    assert full.max_length == 512 and count_truncated(full, inputs)["n_truncated"] == 0
    r_cut, r_full = (
        rm.score(list(zip(inputs["history"], inputs["reply"])), progress=False),
        full.score(list(zip(inputs["history"], inputs["reply"])), progress=False),
    )
    assert r_cut[0] == pytest.approx(r_full[0], abs=1e-5) and r_cut[1] != pytest.approx(r_full[1], abs=1e-5)


# ---------------------------------------------------------------------------------------------- Table 8: the LPM
def _robustness_case(seed=0, n=400):
    rng = np.random.default_rng(seed)
    fc = pd.DataFrame({"sentiment": rng.choice([-1, 0, 0, 1], n), "eloquent": rng.choice([-1, 0, 1], n)}).astype(float)
    fr = pd.DataFrame({"sentiment": rng.choice([-1, 0, 0, 1], n), "eloquent": rng.choice([-1, 0, 1], n)}).astype(float)
    before = rng.random(n) < 0.8
    p = 0.15 + 0.3 * (fc["sentiment"] == 1) + 0.2 * (fr["sentiment"] == -1)
    after = ~(rng.random(n) < p.to_numpy())
    return before, after, fc, fr


def test_lpm_equals_statsmodels_ols_with_cluster_robust_errors():
    import statsmodels.api as sm

    before, after, fc, fr = _robustness_case()
    groups = np.repeat(np.arange(200), 2)  # two pairs per cluster, to make the clustering matter
    fit = robustness_scores(before, after, fc, fr, unchanged=(), model="linear", groups=groups)
    y = (before & ~after).astype(float)
    cols = {}
    for e, fl in (("c", fc), ("r", fr)):
        for f in ("sentiment", "eloquent"):
            for lv in (-1, 1):
                cols[(e, f, lv)] = (fl[f].to_numpy() == lv).astype(float)
    X = sm.add_constant(pd.DataFrame({f"{k}": v for k, v in cols.items()}))
    ref = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": groups})
    t = fit.table
    for k in cols:
        assert t.loc[k, "estimate"] == pytest.approx(ref.params[str(k)], abs=1e-8)
        assert t.loc[k, "std_error"] == pytest.approx(ref.bse[str(k)], abs=1e-8)
    # the sandwich by hand: CR1 = G/(G−1)·(N−1)/(N−K) · (X'X)⁻¹ Σ_g X_g'u_g u_g'X_g (X'X)⁻¹
    Xa, u = X.to_numpy(), ref.resid
    bread = np.linalg.inv(Xa.T @ Xa)
    meat = sum(np.outer(Xa[groups == g].T @ u[groups == g], Xa[groups == g].T @ u[groups == g]) for g in range(200))
    N, K, G = Xa.shape[0], Xa.shape[1], 200
    V = G / (G - 1) * (N - 1) / (N - K) * bread @ meat @ bread
    np.testing.assert_allclose(t["std_error"].to_numpy(), np.sqrt(np.diag(V))[1:], atol=1e-8)
    assert fit.model == "linear" and fit.intercept == pytest.approx(ref.params["const"], abs=1e-8)
    assert t["odds_ratio"].isna().all()
    # the planted effects: a chosen entry losing positivity (+1) and a rejected one gaining it (−1) raise misalignment
    assert t.loc[("c", "sentiment", 1), "estimate"] > 0.15 and t.loc[("r", "sentiment", -1), "estimate"] > 0.08
    assert t.loc[("c", "sentiment", 1), "p_bonferroni"] < 0.01
    with pytest.raises(ValueError, match="model must be"):
        robustness_scores(before, after, fc, fr, unchanged=(), model="probit")


# ---------------------------------------------------------------------------------------------- Table 5: SEAL's code
def _imprint_case(seed=1, n_pairs=150):
    rng = np.random.default_rng(seed)
    n = 2 * n_pairs
    pair = np.repeat([f"p{i}" for i in range(n_pairs)], 2)
    ctx = np.repeat(rng.random(n_pairs) < 0.5, 2).astype(float)  # constant within a pair
    a = (rng.random(n) < 0.5).astype(float)
    b = np.where(rng.random(n) < 0.4, a, (rng.random(n) < 0.5).astype(float))  # correlated with a
    c = (rng.random(n) < 0.4).astype(float)
    y = 1.5 * a - 0.7 * c + 0.3 * ctx + np.repeat(rng.normal(0, 1, n_pairs), 2) + rng.normal(0, 0.5, n)
    return pd.DataFrame({"pair_id": pair, "reward": y, "a": a, "b": b, "c": c, "ctx": ctx})


def test_vif_with_pair_dummies_equals_statsmodels():
    from statsmodels.stats.outliers_influence import variance_inflation_factor

    t = _imprint_case()
    feats = ["a", "b", "c"]
    _, _, vif = vif_filter(t[feats], None, groups=t["pair_id"])
    dummies = pd.get_dummies(t["pair_id"], drop_first=True, dtype=float)
    X = pd.concat([pd.Series(1.0, index=t.index, name="const"), t[feats], dummies], axis=1).to_numpy()
    for j, f in enumerate(feats):
        assert vif[f] == pytest.approx(variance_inflation_factor(X, j + 1), abs=1e-8)
    _, _, plain = vif_filter(t[feats], None)
    assert (vif > plain).all()  # the dummies explain part of each feature
    kept, dropped, _ = vif_filter(t[feats + ["ctx"]], 5.0, groups=t["pair_id"])
    assert "ctx" in dropped and dropped["ctx"] == np.inf and kept == feats  # constant within pairs


def test_seal_code_imprint_equals_statsmodels_ols():
    import statsmodels.api as sm

    t = _imprint_case()
    fit = feature_imprint_seal_code(t, "reward", ["a", "b", "c", "ctx"])
    assert fit.dropped_vif == ["ctx"] and fit.kept == ["a", "b", "c"] and fit.vcov == "classical (OLS)"
    X = t[["a", "b", "c"]].assign(row_id=pd.factorize(t["pair_id"])[0] + 1.0)
    ref = sm.OLS(t["reward"], sm.add_constant(X)).fit()
    for f in ("a", "b", "c"):
        assert fit.table.loc[f, "estimate"] == pytest.approx(ref.params[f], abs=1e-8)
        assert fit.table.loc[f, "std_error"] == pytest.approx(ref.bse[f], abs=1e-8)
        assert fit.table.loc[f, "p_value"] == pytest.approx(ref.pvalues[f], abs=1e-8)
    no_row = feature_imprint_seal_code(t, "reward", ["a", "b", "c"], row_covariate=False)
    ref2 = sm.OLS(t["reward"], sm.add_constant(t[["a", "b", "c"]])).fit()
    np.testing.assert_allclose(no_row.table["estimate"], ref2.params[["a", "b", "c"]], atol=1e-8)
    assert no_row.formula == "reward ~ a + b + c"
    # the fixed-effects estimate differs (it removes the pair effect) but both find the planted imprints
    fe = feature_imprint(t, "reward", ["a", "b", "c"])
    assert fe.table.loc["a", "estimate"] == pytest.approx(1.5, abs=0.2)
    assert fit.table.loc["a", "estimate"] == pytest.approx(1.5, abs=0.35)


# ---------------------------------------------------------------------------------------------- labeller rules
def test_labeller_rules_by_hand():
    from pluralign.seal.resistance import LABELLER_RULES

    assert LABELLER_RULES == {"harmless_first": "harmless", "helpful_first": "helpful"}
    # (chosen helpful, chosen harmless, rejected helpful, rejected harmless)
    cases = np.array([(1, 0, 0, 1), (0, 1, 1, 0), (1, 1, 0, 1), (0, 0, 0, 1), (1, 1, 1, 1), (1, 0, 1, 0)])
    cols = [cases[:, j] for j in range(4)]
    assert labeller_preference(*cols, priority=LABELLER_RULES["helpful_first"]).tolist() == [
        "c",
        "r",
        "c",
        "r",
        "i",
        "i",
    ]
    assert labeller_preference(*cols, priority=LABELLER_RULES["harmless_first"]).tolist() == [
        "r",
        "c",
        "c",
        "r",
        "i",
        "i",
    ]
    with pytest.raises(ValueError, match="labeller_rule: Input should be 'harmless_first' or 'helpful_first'"):
        seal.setup(design={"data": {"simulate": {"n_pairs": 10}}}, labeller_rule="helpful")
    with pytest.raises(ValueError, match="robustness_model: Input should be 'linear' or 'logit'"):
        seal.setup(design={"data": {"simulate": {"n_pairs": 10}}}, robustness_model="probit")


# ---------------------------------------------------------------------------------------------- the wiring
class _RecordingRM:
    """Scores a (history, reply) pair by the length of its reply; remembers what it was given."""

    def __init__(self):
        self.seen = []

    def score(self, data, progress=False):
        pairs = list(data)
        self.seen.append(pairs)
        return np.array([float(len(r)) for _, r in pairs])


def test_part2_scores_named_rms_on_seals_split_and_each_sides_own_history(tmp_path):
    import json

    from pluralign.seal.design import AlignmentModels, alignment_rewards, default_scoring_input

    rows = [
        {"chosen": "\n\nHuman: hi\n\nAssistant: Hello, friend!", "rejected": "\n\nHuman: hi\n\nAssistant: Go."},
        {
            "chosen": "\n\nHuman: a\n\nAssistant: b\n\nHuman: c\n\nAssistant: long answer",
            "rejected": "\n\nHuman: a\n\nAssistant: B!\n\nHuman: c\n\nAssistant: no",
        },
    ]  # histories differ
    path = tmp_path / "test.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    d = pluralign.load("hh-rlhf", source=path)
    assert d.pairs["history_differs"].tolist() == [False, True]
    named = AlignmentModels(pre=_RecordingRM(), post=_RecordingRM(), design="named")
    trained = AlignmentModels(pre=_RecordingRM(), post=_RecordingRM(), design="trained", n_train_pre=1, n_train_post=2)
    assert default_scoring_input(named) == "seal" and default_scoring_input(trained) == "prompt_reply"
    R = alignment_rewards(d, rms=named)
    seen = named.post.seen[-1]
    assert seen == [seal_split(t) for r in rows for t in (r["chosen"], r["rejected"])]
    assert seen[3][0] == "\n\nHuman: a\n\nAssistant: B!\n\nHuman: c\n\n"  # the rejected side's own history
    np.testing.assert_array_equal(R["post_chosen"], [len("Assistant: Hello, friend!"), len("Assistant: long answer")])
    np.testing.assert_array_equal(R["post_rejected"], [len("Assistant: Go."), len("Assistant: no")])
    R2 = alignment_rewards(d, rms=trained)  # a pair this project trained: the loader's split, prefix stripped
    assert trained.post.seen[-1][2:] == [
        ("Human: a\n\nAssistant: b\n\nHuman: c", "long answer"),
        ("Human: a\n\nAssistant: B!\n\nHuman: c", "no"),
    ]
    np.testing.assert_array_equal(R2["post_chosen"], [len("Hello, friend!"), len("long answer")])
    with pytest.raises(ValueError, match="scoring_input must be one of"):
        alignment_rewards(d, rms=named, scoring_input="raw")

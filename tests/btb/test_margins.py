"""Beyond the Binary (004) Eqs. 3–4, Appendix A: synthetic judgments (LLM and the offline simulated judge), their
margins, and the margin source of a page (pluralign.btb.margins)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from pluralign.btb import evaluation as E
from pluralign.btb import margins as M
from pluralign.btb.llm_answers import item_key
from pluralign.data.core import PreferenceData
from pluralign.llm.base import parse_choice
from pluralign.rewards import objectives as O


# ---------------------------------------------------------------------------------------------
# Eq. 3 and Eq. 4 against hand-computed values
# ---------------------------------------------------------------------------------------------
def test_margin_hand_values():
    # n = 10, 7 votes for A (j = 0) and 3 for B (j = 1): |3 - 5| / 5 = 0.4
    assert O.margin_from_judgments([0] * 7 + [1] * 3) == pytest.approx(0.4)
    # symmetric in A/B, letters accepted
    assert O.margin_from_judgments([1] * 7 + [0] * 3) == pytest.approx(0.4)
    assert O.margin_from_judgments(list("AAAAAAABBB")) == pytest.approx(0.4)
    assert O.margin_from_judgments([0] * 10) == 1.0 and O.margin_from_judgments([1] * 10) == 1.0  # unanimous
    assert O.margin_from_judgments([0] * 5 + [1] * 5) == 0.0  # highly contested
    assert O.margin_from_judgments([0, 0, 1]) == pytest.approx(abs(1 - 1.5) / 1.5)  # odd n: 1/3


def test_margin_vectorised_and_ragged():
    j = np.array([[0] * 7 + [1] * 3, [0] * 10, [0] * 5 + [1] * 5, [1] * 9 + [0]])
    np.testing.assert_allclose(O.margin_from_judgments(j), [0.4, 1.0, 0.0, 0.8])
    np.testing.assert_allclose(O.margin_from_judgments([[0, 0, 1], [1], []]), [1 / 3, 1.0, np.nan])
    np.testing.assert_allclose(O.margin_from_counts([7, 5, 0], [10, 10, 0]), [0.4, 0.0, np.nan])


def test_margin_rejects_bad_judgments():
    with pytest.raises(ValueError, match="not 0 or 1"):
        O.margin_from_judgments(np.array([0, 2, 1]))
    with pytest.raises(ValueError, match="not one of 0 / 1"):
        O.margin_from_judgments(["A", "C"])
    with pytest.raises(ValueError, match="0 <= k <= n"):
        O.margin_from_counts(11, 10)


def test_eq4_margin_loss_hand_values():
    # Eq. 4 lives in pluralign.rewards.objectives.bt_loss: r_c - r_r = 1, m = 0.4: -log σ(0.6) = log(1 + e^{-0.6})
    expected = math.log(1 + math.exp(-0.6))
    per = O.bt_loss(torch.tensor([1.0, 3.0, 0.0]), torch.tensor([0.0, 2.0, 0.0]), torch.tensor([0.4, 0.4, 0.0]))
    np.testing.assert_allclose(per.numpy(), [expected, expected, math.log(2)], rtol=1e-6)
    # stable for large differences
    assert O.bt_loss(torch.tensor([-1000.0]), torch.tensor([0.0]), torch.tensor([1.0])).item() == pytest.approx(1001.0)
    # differentiable, and d/dm of the loss is σ(-(Δr - m)) > 0 (a margin raises the loss)
    rc = torch.tensor([1.0], requires_grad=True)
    m = torch.tensor([0.4], requires_grad=True)
    loss = O.bt_loss(rc, torch.tensor([0.0]), m).mean()
    assert loss.item() == pytest.approx(expected, rel=1e-6)
    loss.backward()
    assert float(m.grad) == pytest.approx(1 / (1 + math.exp(0.6)), rel=1e-6)
    assert float(rc.grad) == pytest.approx(-1 / (1 + math.exp(0.6)), rel=1e-6)


# ---------------------------------------------------------------------------------------------
# Appendix A prompt and parsing
# ---------------------------------------------------------------------------------------------
def test_judgment_prompt_is_appendix_a():
    p = M.judgment_prompt("What is 2+2?", "4", "5")
    assert p.startswith("I am going to give you a prompt and two answers. The goal is to identify the better answer.")
    assert (
        "The output format should be either 'Choice: A' or 'Choice: B' based on the selected answer and nothing else."
    ) in p
    assert "If the prompt is a question, we want the factually correct answer." in p
    assert "In a conversation, we want helpful replies that do not cause harm." in p
    assert p.endswith("Prompt: What is 2+2?\nAnswer A: 4\nAnswer B: 5")
    # braces inside texts are not re-formatted
    assert "Answer A: {x}" in M.judgment_prompt("p", "{x}", "y")


@pytest.mark.parametrize(
    "text,want",
    [  # pluralign.llm's parser: the judgment j of Eq. 1 (0 = A, 1 = B)
        ("Choice: A", 0),
        ("Choice: B", 1),
        ("choice: b", 1),
        ("**Choice: A**", 0),
        ("Choice: (B)", 1),
        (" Choice:A\n", 0),
        ("B", 1),
        ("A.", 0),
        ("Answer A", 0),
        ("Choice: A. Answer B is wrong.", 0),
        ("Choice: A or Choice: B", None),
        ("I cannot decide.", None),
        ("", None),
        (None, None),
        ("Both", None),
        ("Choice: C", None),
    ],
)
def test_parse_choice(text, want):
    assert parse_choice(text) == want


# ---------------------------------------------------------------------------------------------
# synthetic_judgments with a scripted LLM
# ---------------------------------------------------------------------------------------------
class ScriptedLLM:
    """A stand-in backend that answers from a script and counts calls."""

    name = "scripted"

    def __init__(self, script=None, p_a=None):
        self.script = script or {}  # answer_0 text -> list of completions
        self.p_a = p_a or {}  # answer_0 text -> P(A)
        self.generate_calls = []
        self.judge_calls = 0

    def generate(self, prompts, max_tokens=None, temperature=None, top_p=None, n=1, job=None):
        self.generate_calls.append(dict(k=len(prompts), n=n, top_p=top_p, temperature=temperature, job=job))
        out = []
        for p in prompts:
            a0 = p.split("Answer A: ")[1].split("\nAnswer B:")[0]
            out.append(list(self.script[a0])[:n])
        return out

    def judge_ab(self, prompt, a, b):
        self.judge_calls += 1
        return self.p_a[a]


def _data(n=3):
    pairs = pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(n)],
            "dataset": "t",
            "split": "train",
            "prompt": [f"question {i}" for i in range(n)],
            "response_a": [f"a{i}" for i in range(n)],
            "response_b": [f"b{i}" for i in range(n)],
        }
    )
    ann = pd.DataFrame({"pair_id": pairs["pair_id"], "annotator_id": "h", "preference": -2})
    return PreferenceData(pairs, ann, {"name": "t"})


def test_synthetic_judgments_parses_counts_unparseable_and_caches():
    script = {
        "a0": ["Choice: A"] * 7 + ["Choice: B"] * 3,  # m = 0.4
        "a1": ["Choice: B"] * 8 + ["I think both are fine", "Choice: A or Choice: B"],  # 8 valid, all B
        "a2": ["nonsense"] * 10,  # nothing parseable
    }
    llm = ScriptedLLM(script)
    data = _data()
    with pytest.warns(UserWarning, match="12 of 30 verdicts unparseable"):
        out = M.synthetic_judgments(llm, data, n=10, job="t-job")
    assert llm.generate_calls == [dict(k=3, n=10, top_p=0.9, temperature=1.0, job="t-job")]
    r = out.set_index("pair_id")
    assert r.loc["p0", ["n_a", "n_b", "n_unparsed", "n_valid"]].tolist() == [7, 3, 0, 10]
    assert r.loc["p0", "margin"] == pytest.approx(0.4)
    assert r.loc["p0", "share_a"] == pytest.approx(0.7)
    assert r.loc["p0", "judgments"] == [0] * 7 + [1] * 3
    assert r.loc["p1", ["n_a", "n_b", "n_unparsed", "n_valid"]].tolist() == [0, 8, 2, 8]
    assert r.loc["p1", "margin"] == 1.0
    assert r.loc["p1", "verdicts"][-2:] == [None, None]
    assert r.loc["p2", "n_unparsed"] == 10 and np.isnan(r.loc["p2", "margin"])
    assert int(out["n_unparsed"].sum()) == 12
    with pytest.warns(UserWarning, match="1 of 3 pairs have no margin; using 0.0"):
        tm = M.training_margins(out)
    assert tm.to_dict() == {"p0": pytest.approx(0.4), "p1": 1.0, "p2": 0.0}
    with pytest.raises(ValueError, match="1 pairs have no margin"):
        M.training_margins(out, fill=None)
    # second call: everything from the per-pair cache, no LLM call
    with pytest.warns(UserWarning):
        again = M.synthetic_judgments(llm, data, n=10, job="t-job")
    assert len(llm.generate_calls) == 1
    pd.testing.assert_frame_equal(out, again)
    # one new pair → only that pair is asked
    script["a3"] = ["Choice: A"] * 10
    with pytest.warns(UserWarning):
        more = M.synthetic_judgments(llm, _data(4), n=10, job="t-job")
    assert llm.generate_calls[-1]["k"] == 1 and len(more) == 4
    # a different setting (top_p) is a different cache entry
    with pytest.warns(UserWarning):
        M.synthetic_judgments(llm, data, n=10, top_p=0.5)
    assert llm.generate_calls[-1]["k"] == 3 and llm.generate_calls[-1]["top_p"] == 0.5


def test_synthetic_judgments_wrong_sample_count_is_an_error():
    llm = ScriptedLLM({"a0": ["Choice: A"] * 3})
    with pytest.raises(RuntimeError, match="expected n=10"):
        M.synthetic_judgments(llm, _data(1), n=10)


def test_synthetic_judgments_logprob_seeded_sampling():
    llm = ScriptedLLM(p_a={"a0": 0.9, "a1": 0.5, "a2": 0.0, "a3": 1.0})
    data = _data(4)
    out = M.synthetic_judgments(llm, data, n=10, method="logprob", seed=3)
    assert llm.judge_calls == 4
    again = M.synthetic_judgments(llm, data, n=10, method="logprob", seed=3)
    assert llm.judge_calls == 4  # cached: P(A) is not asked again
    pd.testing.assert_frame_equal(out, again)
    r = out.set_index("pair_id")
    assert r.loc["p2", "n_b"] == 10 and r.loc["p3", "n_a"] == 10 and r.loc["p3", "margin"] == 1.0
    assert (out["n_unparsed"] == 0).all() and r.loc["p0", "p_a"] == 0.9
    other = M.synthetic_judgments(llm, data, n=10, method="logprob", seed=4)
    assert llm.judge_calls == 4  # a new seed resamples without asking the LLM again
    assert [v for v in out["verdicts"]] != [v for v in other["verdicts"]]
    # order independence: the same pair gets the same draws inside another data set
    sub = M.synthetic_judgments(llm, data.subset(["p1"]), n=10, method="logprob", seed=3)
    assert sub["verdicts"].iloc[0] == r.loc["p1", "verdicts"]
    # the draws follow P(A): with many samples the share is close to p_a
    big = M.synthetic_judgments(llm, data, n=4000, method="logprob", seed=0).set_index("pair_id")
    assert big.loc["p0", "share_a"] == pytest.approx(0.9, abs=0.02)
    assert big.loc["p1", "share_a"] == pytest.approx(0.5, abs=0.03)
    # no usable log-probabilities (NaN) → counted as unparseable, margin NaN; an out-of-range P(A) is an error
    nan_llm = ScriptedLLM(p_a={"a0": float("nan")})
    nan_llm.name = "nan"
    with pytest.warns(UserWarning, match="10 of 10 verdicts unparseable"):
        r = M.synthetic_judgments(nan_llm, _data(1), n=10, method="logprob").iloc[0]
    assert r["n_unparsed"] == 10 and np.isnan(r["margin"])
    bad = ScriptedLLM(p_a={"a0": 1.5})
    bad.name = "bad"
    with pytest.raises(RuntimeError, match="not a probability"):
        M.synthetic_judgments(bad, _data(1), method="logprob")


def test_margins_from_annotators_three_humans():
    pairs = _data(3).pairs
    ann = pd.DataFrame(
        {
            "pair_id": ["p0"] * 3 + ["p1"] * 3 + ["p2"] * 3,
            "annotator_id": list("xyz") * 3,
            "preference": [-2, -1, 2, -2, -2, -1, -1, 0, 1],
        }
    )
    out = M.margins_from_annotators(PreferenceData(pairs, ann, {"name": "t"})).set_index("pair_id")
    # p0: 2 A, 1 B → |1 - 1.5| / 1.5 = 1/3 (Eq. 3); p1 unanimous → 1; p2: A, tie, B → 0
    np.testing.assert_allclose(out["margin"], [1 / 3, 1.0, 0.0])
    np.testing.assert_allclose(out["share_a"], [2 / 3, 1.0, 0.5])
    assert out.loc["p2", ["n_a", "n_b", "n_tie", "n"]].tolist() == [1, 1, 1, 3]
    assert out.loc["p0", "margin"] == pytest.approx(O.margin_from_judgments([0, 0, 1]))


# ---------------------------------------------------------------------------------------------
# through the project's own LLM interface (pluralign.llm.base.LLM with scripted primitives)
# ---------------------------------------------------------------------------------------------
def test_synthetic_judgments_through_pluralign_llm_interface():
    from pluralign.llm.base import JUDGE_AB_SUFFIX, LLM

    class Scripted(LLM):
        backend, model = "scripted", "t"
        completion_style = True

        def __init__(self):
            self.prompts, self.texts = [], []

        def _complete_many(self, prompts, settings, on_done):
            self.prompts += prompts
            for i, _p in enumerate(prompts):  # a base model continues after "Choice:"
                on_done(i, [" A", " B", " A", " ?"][: settings["n"]])

        def _label_logprobs_many(self, texts, settings, on_done):
            self.texts += texts
            for i, _ in enumerate(texts):
                on_done(i, (np.log(0.8), np.log(0.2)))

    llm = Scripted()
    data = _data(2)
    with pytest.warns(UserWarning, match="2 of 8 verdicts unparseable"):
        out = M.synthetic_judgments(llm, data, n=4, job="bb-judge")
    assert all(p.endswith(JUDGE_AB_SUFFIX) and p.startswith("I am going to give you") for p in llm.prompts)
    assert out["n_a"].tolist() == [2, 2] and out["n_b"].tolist() == [1, 1]
    assert out["margin"].iloc[0] == pytest.approx(1 / 3)
    lp = M.synthetic_judgments(llm, data, n=2000, method="logprob", job="bb-lp")
    assert len(llm.texts) == 2 and all("Answer B: b0" in t or "Answer B: b1" in t for t in llm.texts)
    np.testing.assert_allclose(lp["p_a"], 0.8)
    assert lp["share_a"].between(0.77, 0.83).all()


# ---------------------------------------------------------------------------------------------
# the simulator's planted p* through margins and evaluate, by category (demo profile)
# ---------------------------------------------------------------------------------------------
def test_simulator_truth_through_margins_and_evaluate_by_category():
    from pluralign.data import simulate

    d = simulate(n_pairs=400, seed=1)
    tr = d.truth
    p_star = tr["share_a"]  # planted population P(A ≻ B): Eq. 2 over the population
    groups = E.table_groups(
        d.pairs.set_index("pair_id")["dataset"], tr["kind"], tr["distinguishable"], in_domain=set(d.pairs["dataset"])
    )
    res = E.evaluate(p_star, d.share_a(), by=groups, n_boot=200)  # 4 sampled annotators vs p*
    get = lambda g, c, m: res[(res.grouping == g) & (res.category == c) & (res.metric == m)].iloc[0]  # noqa: E731
    assert get("kind", "Single Correct", "pearson")["n"] == int((tr["kind"] == "single").sum())
    assert get("distinguishability", "Indistinguishable", "l1")["n"] == int((~tr["distinguishable"]).sum())
    # §3.2's pattern is planted: agreement with p* is much weaker where many answers are correct
    single, multiple = get("kind", "Single Correct", "pearson"), get("kind", "Multiple Correct", "pearson")
    assert single["lo"] > multiple["hi"]
    # paraphrase pairs have p* = 1/2 exactly: no correlation is defined, the L1 still is
    assert np.isnan(get("distinguishability", "Indistinguishable", "pearson")["value"])
    assert 0 < get("distinguishability", "Indistinguishable", "l1")["value"] < 0.5

    # synthetic judgments from an oracle whose P(A) is the planted p*: margins track |2p* − 1|
    class Oracle:
        name = "oracle"
        p = dict(zip(zip(d.pairs["response_a"], d.pairs["response_b"]), p_star.reindex(d.pairs["pair_id"])))

        def judge_ab(self, prompt, a, b):
            return self.p[(a, b)]

    sj = M.synthetic_judgments(Oracle(), d, n=10, method="logprob", seed=0).set_index("pair_id")
    target = (2 * p_star - 1).abs().reindex(sj.index)
    assert np.corrcoef(sj["margin"], target)[0, 1] > 0.7
    am = M.margins_from_annotators(d).set_index("pair_id")
    assert np.corrcoef(am["margin"], target.reindex(am.index))[0, 1] > 0.5
    # ten oracle votes estimate p* better than four annotators: Δ measured with a paired CI
    cmp = E.compare(p_star, d.share_a(), sj["share_a"], by=groups, n_boot=200)
    overall = cmp[(cmp.grouping == "all") & (cmp.metric == "l1")].iloc[0]
    assert overall["delta_hi"] < 0


def _prefs_data(prefs: dict[str, list[int]]) -> PreferenceData:
    ids = list(prefs)
    pairs = pd.DataFrame(
        {
            "pair_id": ids,
            "dataset": "t",
            "split": "test",
            "prompt": [f"q{i}" for i in ids],
            "response_a": [f"a{i}" for i in ids],
            "response_b": [f"b{i}" for i in ids],
        }
    )
    rows = [(pid, f"h{k}", v) for pid, vs in prefs.items() for k, v in enumerate(vs)]
    ann = pd.DataFrame(rows, columns=["pair_id", "annotator_id", "preference"])
    return PreferenceData(pairs, ann, {"name": "t"})


def test_simulated_judge_is_p_star_plus_seeded_log_odds_noise():
    d = _prefs_data({"p1": [-1], "p2": [1], "p3": [0]})
    p_star = pd.Series({"p1": 0.8, "p2": 0.0, "p3": 0.5})
    exact = M.SimulatedJudge(d, p_star, noise=0.0)
    assert exact.judge_ab("qp1", "ap1", "bp1") == pytest.approx(0.8)
    assert exact.judge_ab("qp2", "ap2", "bp2") == pytest.approx(1e-3)  # clipped away from 0
    noisy = M.SimulatedJudge(d, p_star, noise=1.0, seed=7)
    z = math.log(noisy.judge_ab("qp1", "ap1", "bp1") / (1 - noisy.judge_ab("qp1", "ap1", "bp1")))
    # logit(p*) + noise · ε, ε from the judge's own salted stream (seed, 1, pair)
    key = int(item_key("qp1", "ap1", "bp1")[:15], 16)
    eps = np.random.default_rng([7, 1, key]).standard_normal()
    assert z == pytest.approx(math.log(4) + eps)
    louder = M.SimulatedJudge(d, p_star, noise=2.5, seed=7).judge_ab("qp1", "ap1", "bp1")
    assert math.log(louder / (1 - louder)) == pytest.approx(math.log(4) + 2.5 * eps)  # noise scales ε
    # not the stream synthetic_judgments(method="logprob", seed=7) draws the pair's n votes from
    assert eps != np.random.default_rng([7, key]).standard_normal()
    # the noise of a pair does not depend on the other pairs, only on (seed, texts)
    again = M.SimulatedJudge(d.subset(["p1"]), p_star, noise=1.0, seed=7)
    assert again.judge_ab("qp1", "ap1", "bp1") == noisy.judge_ab("qp1", "ap1", "bp1")
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.0, seed=8).fingerprint()
    # fingerprint = (noise, seed, clip) and the p* it serves: the same inputs → the same fingerprint,
    # any of them changed → a different one
    assert noisy.fingerprint() == M.SimulatedJudge(d, p_star.copy(), noise=1.0, seed=7).fingerprint()
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.5, seed=7).fingerprint()
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star, noise=1.0, seed=7, clip=0.01).fingerprint()
    assert noisy.fingerprint() != M.SimulatedJudge(d, p_star.replace(0.8, 0.6), noise=1.0, seed=7).fingerprint()
    with pytest.raises(KeyError, match="only for the pairs"):
        noisy.judge_ab("other", "a", "b")
    with pytest.raises(ValueError, match="lacks 1"):
        M.SimulatedJudge(d, p_star.drop("p3"))


def test_simulated_judge_through_synthetic_judgments_and_side_agreement():
    from pluralign.data import simulate

    d = simulate(n_pairs=500, seed=4)
    p_star = d.truth["share_a"]
    acc = []
    for noise in (0.0, 1.0, 3.0):
        judge = M.SimulatedJudge(d, p_star, noise=noise, seed=0)
        sj = M.synthetic_judgments(judge, d, n=10, method="logprob", seed=0).set_index("pair_id")
        acc.append(E.side_agreement(p_star, sj["p_a"], n_boot=200)["value"])
        if noise == 0.0:  # n = 10 Bernoulli(p*) votes: the margin tracks |2p* − 1|
            assert np.corrcoef(sj["margin"], (2 * p_star - 1).abs().reindex(sj.index))[0, 1] > 0.8
    assert acc[0] == pytest.approx(1.0)
    assert acc[0] > acc[1] > acc[2] > 0.5  # a noisier judge sides with the population less often


def test_judgments_from_dispatches_the_margin_source():
    from pluralign.data import simulate

    d = simulate(n_pairs=60, seed=1)
    got = M.judgments_from("simulated", d, n=10, seed=3, noise=0.5)
    want = M.synthetic_judgments(
        M.SimulatedJudge(d, d.truth["share_a"], noise=0.5, seed=3), d, n=10, method="logprob", seed=3
    )
    pd.testing.assert_frame_equal(got, want)
    ann = M.judgments_from("annotators", d)
    pd.testing.assert_frame_equal(ann, M.margins_from_annotators(d))
    with pytest.raises(ValueError, match="needs judge"):
        M.judgments_from("llm", d)
    with pytest.raises(ValueError, match="simulated, llm or annotators"):
        M.judgments_from("oracle", d)

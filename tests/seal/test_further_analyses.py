"""SEAL's further analyses (issue 15, item 10): the t-tests of θ per alignment regime (Fig. 4 / Fig. 17), the reward
gaps of several RMs (App. D.1, Fig. 7), the topic distribution (App. E.1, Fig. 15) and alignment resistance on other
preference sets (§ 3) — exact on hand cases, planted effects recovered, the Study's page sections."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pluralign.data import simulate
from pluralign.report import Result
from pluralign.seal.design import AlignmentModels, _oriented, chosen_rejected, entry_features
from pluralign.seal.features import TOPICS, TOPICS_ADDED
from pluralign.seal.pages import resistance
from pluralign.seal.preference_sets import resistance_by_dataset, resistance_rates
from pluralign.seal.regimes import regime_shift_tests
from pluralign.seal.resistance import REGIMES
from pluralign.seal.reward_gaps import reward_gap_summary, reward_gaps
from pluralign.seal.settings import SealSettings
from pluralign.seal.stand_ins import study_stand_ins
from pluralign.seal.study import Study
from pluralign.seal.topics import label_distribution, rule_topics


# ---- t-tests of θ per regime
def test_regime_tests_equal_scipy_on_a_hand_case():
    theta = np.array([10.0, 12.0, 9.0, 11.0, -3.0, -5.0, -4.0, 1.0, 2.0, 30.0, 31.0])
    reg = ["stayed-aligned"] * 4 + ["stayed-misaligned"] * 3 + ["became-aligned"] * 2 + ["reversed"] * 2
    gamma = ["c", "c", "r", "r", "c", "r", "r", "i", "i", "c", None]
    t = regime_shift_tests(theta, reg, gamma)
    row = t.one_sample.loc[("stayed-aligned", "all")]
    ref = stats.ttest_1samp([10, 12, 9, 11], 0.0)
    assert row["n"] == 4 and row["mean"] == pytest.approx(10.5)
    assert row["t"] == pytest.approx(ref.statistic) and row["p_value"] == pytest.approx(ref.pvalue)
    lo, hi = stats.t.interval(0.95, 3, loc=10.5, scale=np.std([10, 12, 9, 11], ddof=1) / 2)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    w = t.welch.loc["stayed-misaligned"]  # c: [-3] only -> no Welch test
    assert w["n_c"] == 1 and w["n_r"] == 2 and np.isnan(w["p_value"])
    ref_w = stats.ttest_ind([10, 12], [9, 11], equal_var=False)
    assert t.welch.loc["stayed-aligned", "t"] == pytest.approx(ref_w.statistic)
    assert t.welch.loc["stayed-aligned", "p_value"] == pytest.approx(ref_w.pvalue)
    assert t.welch.loc["stayed-aligned", "df"] == pytest.approx(2.0)  # equal variances, 2 + 2 pairs
    k = t.one_sample["p_value"].notna().sum()
    assert t.one_sample["p_bonferroni"].dropna().to_numpy() == pytest.approx(
        np.minimum(1, k * t.one_sample["p_value"].dropna().to_numpy())
    )
    assert t.n_missing == 1  # the pair without γ
    assert list(t.one_sample.index.get_level_values(0).unique()) == list(REGIMES)


def test_regime_tests_find_a_planted_shift_and_nothing_else():
    rng = np.random.default_rng(0)
    reg = np.repeat(REGIMES, 400)
    theta = rng.normal(0, 20, len(reg)) + np.where(reg == "became-aligned", 15.0, 0.0)
    gamma = np.where(rng.random(len(reg)) < 0.5, "c", "r").astype(object)
    theta = theta + np.where((reg == "reversed") & (gamma == "c"), -20.0, 0.0)
    t = regime_shift_tests(theta, reg, gamma)
    p_all = t.one_sample.xs("all", level="group")["p_bonferroni"]
    assert p_all["became-aligned"] < 1e-6 and p_all["stayed-aligned"] > 0.05 and p_all["stayed-misaligned"] > 0.05
    assert t.welch.loc["reversed", "p_bonferroni"] < 1e-6 and t.welch.loc["reversed", "difference"] < 0
    assert (t.welch.drop(index="reversed")["p_bonferroni"] > 0.05).all()


def test_regime_tests_refuse_bad_input():
    with pytest.raises(ValueError, match="unknown regime"):
        regime_shift_tests([1.0, 2.0], ["aligned", "stayed-aligned"])
    with pytest.raises(ValueError, match="2 shifts but 1 regimes"):
        regime_shift_tests([1.0, 2.0], ["reversed"])
    with pytest.raises(ValueError, match="unknown γ"):
        regime_shift_tests([1.0, 2.0], ["reversed"] * 2, ["c", "x"])
    assert regime_shift_tests([1.0, 2.0, 3.0], ["reversed"] * 3).welch.empty


# ---- reward gaps (Fig. 7)
def test_reward_gap_summary_on_a_hand_case():
    rw = {"A": ([1.0, 2.0, 0.0, 5.0], [0.0, 3.0, 0.0, 1.0]), "B": ([0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, -1.0])}
    g = reward_gaps(rw)
    assert g.loc[g["RM"] == "A", "gap"].tolist() == [1.0, -1.0, 0.0, 4.0]
    s = reward_gap_summary(rw)
    assert s.loc["A", "share positive"] == 0.5 and s.loc["A", "share zero"] == 0.25 and s.loc["A", "median"] == 0.5
    assert s.loc["A", "lowest reward"] == 0.0 and s.loc["A", "highest reward"] == 5.0
    assert s.loc["B", "mean"] == pytest.approx(-0.5) and s.loc["B", "pairs"] == 4
    with pytest.raises(ValueError, match="scored 1 pairs"):
        reward_gaps({"A": ([1.0, 2.0], [0.0, 0.0]), "B": ([1.0], [0.0])})
    with pytest.raises(ValueError, match="no reward models"):
        reward_gaps({})


# ---- topics (Fig. 15)
def test_rule_topics_and_label_distribution_on_hand_cases():
    assert rule_topics(["Human: What is the capital of France?\n\nAssistant: Paris."]) == [["Geography and places"]]
    assert rule_topics(["Human: hello\n\nAssistant: hi"]) == [[]]
    assert set(rule_topics(["How can I save money for school?"])[0]) == {"Business and economics", "Education"}
    with pytest.raises(ValueError, match="text 1 is NoneType"):
        rule_topics(["a", None])
    d = label_distribution(
        [["Law"], ["Law", "Education"], [], None],
        [["Law"], ["Education"], ["Law"], ["Law"]],
        names=TOPICS + TOPICS_ADDED,
    )
    assert d.loc["Law", "chosen (n)"] == 2 and d.loc["Law", "rejected (n)"] == 2
    assert d.loc["Law", "chosen only (n)"] == 1 and d.loc["Law", "rejected only (n)"] == 1
    assert d.loc["Law", "share of entries"] == pytest.approx(4 / 6)
    assert d.loc["(none)", "chosen (n)"] == 1 and d.loc["(none)", "chosen only (n)"] == 1
    assert (d["pairs left out (n)"] == 1).all() and d.index[0] == TOPICS[0]
    assert label_distribution([["x"]], [["y"]]).index.tolist() == ["x", "y", "(none)"]  # nothing dropped
    with pytest.raises(ValueError, match="chosen entry 0 is 'Law', not a list"):
        label_distribution(["Law"], [["Law"]])


# ---- resistance on other preference sets (§ 3)
class _SideRM:
    """Rewards response A 1 and response B 0 (a tie on pairs listed in ``tie``)."""

    def __init__(self, tie=()):
        self.tie = set(tie)

    def score(self, data, progress=False):
        ids = data.pairs["pair_id"]
        return pd.DataFrame({"pair_id": ids, "reward_a": [0.0 if p in self.tie else 1.0 for p in ids], "reward_b": 0.0})


def test_resistance_rates_and_by_dataset_are_exact():
    r = resistance_rates([1.0, 2.0, 0.0, 3.0], [0.0, 2.0, 1.0, 1.0])  # a tie counts as misaligned
    assert r["misaligned"] == 2 and r["a_minus"] == 0.5 and r["a_plus"] == 0.5
    z = 1.959963984540054
    centre, half = (0.5 + z * z / 8) / (1 + z * z / 4), z / (1 + z * z / 4) * np.sqrt(0.25 / 4 + z * z / 64)
    assert (r["a_minus_low"], r["a_minus_high"]) == (pytest.approx(centre - half), pytest.approx(centre + half))
    D = simulate(n_pairs=120, seed=3)
    view = chosen_rejected(D).table
    t = resistance_by_dataset([D], {"A wins": _SideRM(), "ties": _SideRM(tie=view["pair_id"])})
    assert t.loc[(D.name, "A wins"), "a_minus"] == pytest.approx((view["chosen_side"] == "B").mean())
    assert t.loc[(D.name, "ties"), "a_minus"] == 1.0
    assert t.loc[(D.name, "A wins"), "pairs"] == len(view)
    assert t.loc[(D.name, "A wins"), "no chosen entry (dropped)"] == 120 - len(view)
    with pytest.raises(ValueError, match="no reward models"):
        resistance_by_dataset([D], {})


# ---- the Study's page sections
class _UtilityRM:
    def __init__(self, D, noise, seed):
        t, w = D.truth, D.meta["weights"]["mean"]
        rng = np.random.default_rng(seed)
        u = {
            s: t[[f"{s}_{f}" for f in w.index]].to_numpy(float) @ w.to_numpy() + noise * rng.standard_normal(len(t))
            for s in ("a", "b")
        }
        self.s = {s: dict(zip(t.index, u[s])) for s in u}

    def score(self, data, progress=False):
        ids = data.pairs["pair_id"]
        return pd.DataFrame({"pair_id": ids, "reward_a": ids.map(self.s["a"]), "reward_b": ids.map(self.s["b"])})


@pytest.fixture(scope="module")
def study():
    D = simulate(n_pairs=300, seed=2)
    other = simulate(n_pairs=100, seed=5, name="simulated-other")
    pairs = chosen_rejected(D)
    rms = AlignmentModels(pre=_UtilityRM(D, 3.0, 0), post=_UtilityRM(D, 0.5, 1), design="utility RMs")
    rms.pre.s = {s: {**rms.pre.s[s], **_UtilityRM(other, 3.0, 2).s[s]} for s in ("a", "b")}
    rms.post.s = {s: {**rms.post.s[s], **_UtilityRM(other, 0.5, 3).s[s]} for s in ("a", "b")}
    F = entry_features(D, pairs.table, "planted")
    R = pd.DataFrame({"pair_id": pairs.table["pair_id"]})
    for k in ("pre", "post"):
        R[f"{k}_chosen"], R[f"{k}_rejected"] = _oriented(getattr(rms, k).score(D), pairs.table)
    return Study(
        D=D,
        other=other,
        other_parts=[other],
        view=pairs.table,
        rms=rms,
        R=R,
        F=F,
        stand_ins=study_stand_ins(None, F),
        n_ties_dropped=pairs.n_ties_dropped,
        profile="demo",
        settings=SealSettings(features="planted"),
    )


def _with(study, **settings):
    """The study with other page settings (a new study: nothing computed is shared)."""
    import dataclasses

    return dataclasses.replace(study, settings=study.settings.replace(**settings))


def test_the_study_sections(study):
    rt = resistance.regime_shift_tests(study)
    assert isinstance(rt, Result) and rt.table.loc[("stayed-aligned", "all"), "n (SEAL code, hh-rlhf)"] == 77_646
    assert rt.table.xs("all", level="group")["n"].sum() == len(study.view)
    assert "Welch" in rt.note
    # the page says the paper prints no statistic for these panels (fixed prose: the notebook's Markdown)
    assert "prints no test statistic" in (Path(__file__).parents[2] / "notebooks" / "seal_resistance.py").read_text()
    gaps = resistance.reward_gap_distributions(study)
    assert (
        gaps.table.loc["post-D RM", "a₊ (paper)"] == 0.74
        and gaps.table.loc["pre-D RM", "lowest reward (paper)"] == -6.9
    )
    util = gaps.table.loc["population mean utility (planted)"]
    assert np.isnan(util["a₊ (paper)"]) and util["n (this run)"] == len(study.view)
    (qc, qr) = study.rewards_of("post")
    assert gaps.table.loc["post-D RM", "a₊ (this run)"] == pytest.approx(np.mean(qc > qr))
    assert gaps.figure is not None
    top = resistance.topic_distribution(study)
    assert top.table.loc["Law", "in the prompt's list"] == "added (App. E.1)" and "stand-in" in top.note
    with pytest.raises(ValueError, match="needs the LM-labeller's labels"):
        resistance.topic_distribution(_with(study, topic_source="llm"))
    res = resistance.resistance_on_other_sets(study)
    t = res.table
    assert t.loc[("webgpt", "—"), "a₋ (paper, RM not named)"] == 0.49
    assert t.loc[("summarize-from-feedback", "—"), "a₋ (paper, RM not named)"] == 0.66
    assert t.loc[(study.D.name, "post-D RM"), "a₋"] == pytest.approx(np.mean(~(qc > qr)))
    assert "neither set" in res.note and res.values["n_other_sets"] == 2


class _LengthRM:
    """A named RM stand-in: rewards a reply by its length (a data set: response A's and B's; (history, reply)
    pairs: the reply's)."""

    def score(self, data, progress=False, **_):
        if isinstance(data, list):
            return np.array([len(r) / 100 for _, r in data], float)
        p = data.pairs
        return pd.DataFrame(
            {
                "pair_id": p["pair_id"],
                "reward_a": p["response_a"].str.len() / 100,
                "reward_b": p["response_b"].str.len() / 100,
            }
        )


def test_the_paper_paths_named_models_llm_topics_and_other_sets(study, monkeypatch):
    import dataclasses

    from pluralign import rewards

    monkeypatch.setattr(rewards, "load", lambda **kw: _LengthRM())
    n = len(study.view)
    named = dataclasses.replace(
        _with(study, reward_gap_models=["post", {"name_or_path": "OpenAssistant/reward-model-deberta-v3-base"}]),
        models={"post": {"name_or_path": "OpenAssistant/reward-model-deberta-v3-large-v2"}},
    )
    gaps = resistance.reward_gap_distributions(named)
    g = gaps.table
    post, base = (
        "post-D RM: OpenAssistant/reward-model-deberta-v3-large-v2",
        "OpenAssistant/reward-model-deberta-v3-base",
    )
    assert set(g.index) == {"pre-D RM (not scored in this run)", post, base}
    assert g.loc["pre-D RM (not scored in this run)", "a₊ (paper)"] == 0.57
    assert np.isnan(g.loc["pre-D RM (not scored in this run)", "n (this run)"])
    assert (
        g.loc[post, "a₊ (paper)"] == 0.74 and np.isnan(g.loc[base, "a₊ (paper)"]) and g.loc[base, "n (this run)"] == n
    )
    n = len(study.view)
    labels = pd.DataFrame(
        {"topics": [["Law"]] * n, "last_response_is_discriminating_against": [[]] * (n - 1) + [["Gender"]]}
    )
    llm_study = dataclasses.replace(
        _with(study, topic_source="llm"),
        F=dataclasses.replace(study.F, labels_chosen=labels, labels_rejected=labels, labeller="fake-labeller"),
    )
    top = resistance.topic_distribution(llm_study)
    assert top.table.loc["Law", "chosen (n)"] == n and top.values["top_topic"] == "Law"
    assert top.data["discrimination"].loc["Gender", "rejected (n)"] == 1 and "fake-labeller" in top.note
    with pytest.raises(ValueError, match="topic_source must be one of"):
        _with(study, topic_source="planted")
    length_study = dataclasses.replace(study, rms=AlignmentModels(pre=_LengthRM(), post=_LengthRM(), design="length"))
    res = resistance.resistance_on_other_sets(
        _with(length_study, other_preference_sets=[{"simulate": {"n_pairs": 40, "seed": 9, "name": "sim-40"}}])
    )
    assert "neither set" not in res.note and res.values["n_other_sets"] == 1
    assert set(res.table.index.get_level_values("data set")) == {"sim-40", "webgpt", "summarize-from-feedback"}


def test_resistance_on_other_sets_scores_what_the_study_scores_d_with():
    """With a scoring input, each set's entries are scored as D is (seal.scoring_inputs); on data without dialogues
    "prompt_reply" is the loader's (prompt, response), so both paths give the same a₋."""
    import pandas as pd

    from pluralign import simulate
    from pluralign.seal.preference_sets import resistance_by_dataset

    class LengthRM:  # reward = length of the reply: deterministic, differs between entries
        seen = []

        def score(self, x, progress=False):
            self.seen.append(type(x).__name__)
            if isinstance(x, list):
                return [float(len(r)) for _, r in x]
            p = x.pairs
            return pd.DataFrame(
                {
                    "pair_id": p["pair_id"],
                    "reward_a": p["response_a"].str.len().astype(float),
                    "reward_b": p["response_b"].str.len().astype(float),
                }
            )

    d = simulate(n_pairs=60, seed=4)
    rm = LengthRM()
    plain = resistance_by_dataset([d], {"rm": rm})
    same = resistance_by_dataset([d], {"rm": rm}, scoring_input="prompt_reply")
    assert rm.seen == ["PreferenceData", "list"]  # the second call scored (history, reply) entries
    assert plain.equals(same) and 0 < plain["a_minus"].iloc[0] < 1

"""The SEAL alignment-resistance page (seal.pages.resistance_page) on a simulated D with reward models whose rewards are
the planted utility (the ``study`` fixture)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pluralign.data import simulate
from pluralign.report import Result
from pluralign.seal.design import AlignmentModels, _oriented, entry_features
from pluralign.seal.pages import resistance_page
from pluralign.seal.pairs import chosen_rejected
from pluralign.seal.resistance import alignment_summary, regime_prevalence
from pluralign.seal.settings import SealSettings
from pluralign.seal.stand_ins import study_stand_ins
from pluralign.seal.study import Study


def test_resistance_page_sections(study):
    reg = resistance_page.regime_table(study)
    assert sum(v for k, v in reg.values.items() if k.startswith("prev_")) == pytest.approx(1.0)
    assert reg.values["prev_reversed"] == regime_prevalence(study.regimes)["reversed"]
    lr = resistance_page.labeller_rules(study)
    from pluralign.seal.design import labeller_gamma

    for rule, prio in (("harmless_first", "harmless"), ("helpful_first", "helpful")):
        g = labeller_gamma(study.F, priority=prio)
        name = resistance_page.RULE_NAMES[rule]
        name = name.removesuffix(")") + "; this page)" if rule == "harmless_first" else name
        assert lr.table.loc[name, "γ = c (chosen)"] == int(np.sum(g == "c"))
        assert lr.table.loc[name, "γ = r (rejected)"] == int(np.sum(g == "r"))
    assert lr.table.loc["SEAL's analysis code (hh-rlhf, harmless first)", "γ = c (chosen)"] == 28443
    assert lr.values["n_rule_differs"] == int(
        np.sum(labeller_gamma(study.F, priority="harmless") != labeller_gamma(study.F, priority="helpful"))
    )
    assert list(study.gamma) == list(labeller_gamma(study.F, priority="harmless"))  # the page's rule
    ag = resistance_page.labeller_agreement(study)
    assert ag.values["n_c"] + ag.values["n_r"] == resistance_page.decisive_pairs(study).table.iloc[0, 0]
    assert lr.values["labeller_rule"] == "harmless first (SEAL's code)"  # the rule's name, not the setting's key
    assert ag.values["paper_n_decisive"] == "39,283" and ag.values["paper_share_i"] == 0.73
    mis = resistance_page.misalignment(study)
    assert mis.values["t7_base"] == pytest.approx(
        1
        - alignment_summary(*[study.R[c] for c in ("pre_chosen", "pre_rejected", "post_chosen", "post_rejected")])[
            "a_plus_post"
        ]
    )
    t7 = mis.table
    assert t7.index.names == ["SEAL feature", "entry", "estimator"] and len(t7.columns) <= 7
    lpm = ("refusal", "rejected", "LPM (OLS on 0/1, Table 7's scale)")
    assert t7.loc[lpm, "In the paper"] == "0.134595"  # as Table 7 prints it
    long = mis.data["long"].set_index(["paper_feature", "group", "variant"])
    assert long.loc[("last_response_is_refusal", *lpm[1:]), "estimate"] == pytest.approx(
        mis.data["linear"].table.loc[("r", "refusal"), "estimate"]
    )


# ---- the page's further analyses (regime t-tests, reward gaps, topics, other preference sets)
class _PlantedRM:
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
def study_with_other():
    """A planted-feature study whose pre-D RM was trained on other simulated data (the resistance page's further
    analyses need the other data set)."""
    D = simulate(n_pairs=300, seed=2)
    other = simulate(n_pairs=100, seed=5, name="simulated-other")
    pairs = chosen_rejected(D)
    rms = AlignmentModels(pre=_PlantedRM(D, 3.0, 0), post=_PlantedRM(D, 0.5, 1), design="utility RMs")
    rms.pre.s = {s: {**rms.pre.s[s], **_PlantedRM(other, 3.0, 2).s[s]} for s in ("a", "b")}
    rms.post.s = {s: {**rms.post.s[s], **_PlantedRM(other, 0.5, 3).s[s]} for s in ("a", "b")}
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


def test_the_further_sections(study_with_other):
    study = study_with_other
    rt = resistance_page.regime_shift_tests(study)
    assert isinstance(rt, Result) and rt.table.loc[("stayed-aligned", "all"), "pairs in SEAL's code, hh-rlhf (n)"] == (
        77_646
    )
    assert rt.table.xs("all", level="group")["pairs (n)"].sum() == len(study.view)
    assert "Welch" in rt.note
    # the page says the paper prints no statistic for these panels (fixed prose: the notebook's Markdown)
    assert "prints no test statistic" in (Path(__file__).parents[2] / "notebooks" / "seal_resistance.py").read_text()
    gaps = resistance_page.reward_gap_distributions(study)
    assert (
        gaps.table.loc["post-D RM", "a₊ (paper)"] == 0.74
        and gaps.table.loc["pre-D RM", "lowest reward (paper)"] == -6.9
    )
    util = gaps.table.loc["population mean utility (planted)"]
    assert np.isnan(util["a₊ (paper)"]) and util["n (this run)"] == len(study.view)
    (qc, qr) = study.rewards_of("post")
    assert gaps.table.loc["post-D RM", "a₊ (this run)"] == pytest.approx(np.mean(qc > qr))
    assert gaps.figure is not None
    top = resistance_page.topic_distribution(study)
    assert top.table.loc["Law", "in the prompt's list"] == "added (App. E.1)" and "stand-in" in top.note
    with pytest.raises(ValueError, match="needs the LM-labeller's labels"):
        resistance_page.topic_distribution(_with(study, topic_source="llm"))
    res = resistance_page.resistance_on_other_sets(study)
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


def test_the_paper_paths_named_models_llm_topics_and_other_sets(study_with_other, monkeypatch):
    study = study_with_other
    import dataclasses

    from pluralign import rewards
    from pluralign.model_options import ModelOptions
    from pluralign.named_models import resolve_model

    monkeypatch.setattr(rewards, "load", lambda **kw: _LengthRM())
    n = len(study.view)
    models = {"post": {"name_or_path": "OpenAssistant/reward-model-deberta-v3-large-v2"}}
    gap_models = ["post", {"name_or_path": "OpenAssistant/reward-model-deberta-v3-base"}]
    named = _with(study, reward_gap_models=resolve_model(gap_models, models, ModelOptions, what="reward_gap_models"))
    gaps = resistance_page.reward_gap_distributions(named)
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
    top = resistance_page.topic_distribution(llm_study)
    assert top.table.loc["Law", "chosen (n)"] == n and top.values["top_topic"] == "Law"
    assert top.data["discrimination"].loc["Gender", "rejected (n)"] == 1 and "fake-labeller" in top.note
    with pytest.raises(ValueError, match="topic_source: Input should be 'rules' or 'llm'"):
        _with(study, topic_source="planted")
    length_study = dataclasses.replace(study, rms=AlignmentModels(pre=_LengthRM(), post=_LengthRM(), design="length"))
    res = resistance_page.resistance_on_other_sets(
        _with(length_study, other_preference_sets=[{"simulate": {"n_pairs": 40, "seed": 9, "name": "sim-40"}}])
    )
    assert "neither set" not in res.note and res.values["n_other_sets"] == 1
    assert set(res.table.index.get_level_values("data set")) == {"sim-40", "webgpt", "summarize-from-feedback"}

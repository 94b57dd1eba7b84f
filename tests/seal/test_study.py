"""The SEAL Study's page sections (seal.study.Study): each returns a report.Result whose values are the
library's statistics, on a simulated D with reward models whose rewards are the planted utility (no training)."""

import numpy as np
import pandas as pd
import pytest

from pluralign import seal
from pluralign.data import simulate
from pluralign.report import Result
from pluralign.seal.design import (
    TRAINED_PAIR_NOTE,
    AlignmentModels,
    alignment_rewards,
    chosen_rejected,
    entry_features,
    study_stand_ins,
)
from pluralign.seal.resistance import alignment_summary, regime_prevalence
from pluralign.seal.study import Study


class _UtilityRM:
    """Rewards a simulated response by the population's planted utility plus seeded noise (a data set), or
    a (prompt, reply) pair by its reply's length and enthusiasm (the rewriting's re-scoring)."""

    def __init__(self, D, noise, seed):
        t, w = D.truth, D.meta["weights"]["mean"]
        rng = np.random.default_rng(seed)
        self.a = {
            p: u
            for p, u in zip(
                t.index,
                t[[f"a_{f}" for f in w.index]].to_numpy(float) @ w.to_numpy() + noise * rng.standard_normal(len(t)),
            )
        }
        self.b = {
            p: u
            for p, u in zip(
                t.index,
                t[[f"b_{f}" for f in w.index]].to_numpy(float) @ w.to_numpy() + noise * rng.standard_normal(len(t)),
            )
        }

    def score(self, data, progress=False):
        if isinstance(data, list):
            return np.array([len(r) / 100 + r.count("!") for _, r in data], float)
        ids = data.pairs["pair_id"]
        return pd.DataFrame({"pair_id": ids, "reward_a": ids.map(self.a), "reward_b": ids.map(self.b)})


@pytest.fixture(scope="module")
def study():
    D = simulate(n_pairs=300, seed=2)
    pairs = chosen_rejected(D)
    view = pairs.table
    rms = AlignmentModels(
        pre=_UtilityRM(D, 3.0, 0), post=_UtilityRM(D, 0.5, 1), design="utility RMs", n_train_pre=100, n_train_post=300
    )
    R = alignment_rewards(D, rms=rms, scoring_input="prompt_reply")
    F = entry_features(D, view, "planted")
    return Study(
        D=D,
        other=None,
        other_parts=[],
        view=view,
        rms=rms,
        R=R,
        F=F,
        stand_ins=study_stand_ins(None, F),
        n_ties_dropped=pairs.n_ties_dropped,
        n_splits_dropped=pairs.n_splits_dropped,
        profile="demo",
        seed=0,
        settings={"rewriter": "simulator", "n_rewrite": 60, "p_flip": 0.5, "similarity_model": None},
    )


def test_rewards_page_sections(study):
    R = study.R
    ds = study.dataset()
    assert isinstance(ds, Result) and ds.values["n_pairs"] == len(study.view) == len(R)
    assert ds.values["n_ties"] + study.n_splits_dropped == 300 - len(R) and ds.values["n_invalid"] == 0
    assert ds.values["paper_n_pairs"] == "160,800" and ds.table.loc["pairs analysed", "This run"] == len(R)
    assert (
        ds.table.loc["design", "This run"] == "utility RMs" and ds.table.loc["pre-D training pairs", "This run"] == 100
    )
    sc = study.scoring()
    assert sc.values["n_history_differs"] == 0 and sc.table.loc["entries scored", "This run"] == 2 * len(R)
    assert sc.table.loc["post-D RM: entries truncated", "This run"].startswith("—")  # no tokenizer to read
    assert len(sc.data["inputs"]) == 2 * len(R)
    al = study.alignment()
    s = alignment_summary(R["pre_chosen"], R["pre_rejected"], R["post_chosen"], R["post_rejected"])
    assert al.values["a_plus_post"] == s["a_plus_post"] and al.values["a_minus_pre"] == s["a_minus_pre"]
    assert al.values["paper_a_plus_pre"] == 0.57 and al.values["paper_a_minus_pre"] == pytest.approx(0.43)
    sh = study.reward_shifts()
    assert sh.values["theta_abs_mean"] == pytest.approx(np.nanmean(np.abs(study.theta())))
    q = study.quadrants()
    assert (
        q.table["post-D"].sum() == pytest.approx(1.0, abs=0.003)
        and q.table.loc["both negative", "paper (post-D)"] == 0.53
    )
    assert q.figure is not None and study.reward_vectors().figure is not None


def test_imprint_page_sections(study):
    im = study.imprints()
    assert im.values["n_imprint_obs"] == 2 * len(study.view) and im.values["paper_n_t5"] == 15
    assert im.values["paper_harmless_post"] == 2.0898
    # Table 5's rows (SEAL's names): this run's estimate of the simulator feature that plays each, sign-aligned,
    # beside the paper's, in both variants of Eq. 1, with a verdict from the CI
    from pluralign.report import present_html
    from pluralign.seal.design import PAPER_FEATURES

    t, long = im.table, im.data["long"]
    assert t.index.names == ["SEAL feature", "RM", "estimator"] and len(t.columns) <= 7
    run = "This run (simulator feature, sign-aligned)"
    assert {"simulator feature", "In the paper", run, "verdict (95% CI)"} <= set(t.columns)
    fe = im.data["fixed_effects"]["post"].table["estimate"]
    for sim, (name, sign) in PAPER_FEATURES.items():  # every mapped feature: the paper's number on this run's row
        row = t.loc[(name, "post-D", "pair fixed effects (this project)")]
        assert row["In the paper"] == pytest.approx(
            im.paper.set_index(["feature", "group"]).loc[(name, "post-D"), "estimate"]
        )
        assert (
            row[run] == pytest.approx(sign * fe[sim])
            and row["simulator feature"] == f"{sim} × {'+1' if sign > 0 else '−1'}"
        )
    assert t.loc[("last_response_is_harmless", "post-D", "pair fixed effects (this project)"), "In the paper"] == 2.0898
    assert im.values["n_t5_compared"] == len(PAPER_FEATURES)
    # a paper-only feature: no number of this run, the reason in the verdict; demo-only features come last
    eloq = t.loc[("last_response_is_eloquent", "post-D", "—")]
    assert pd.isna(eloq[run]) and "no feature of this run plays it" in eloq["verdict (95% CI)"]
    assert list(dict.fromkeys(t.index.get_level_values(0)))[-1] == "interpretation"
    assert "nan" not in present_html(t).lower()
    fc = study.featurizer_check()
    assert fc.table.loc["last_response_is_refusal", "agreement"] == 1.0 and "AUROC" in fc.note
    assert "LM-labellers" in study.label_stability().skipped
    prev = study.prevalence()
    p4 = prev.table
    assert p4.loc["last_response_is_harmless", "simulator feature"] == "1 − harmfulness"
    assert p4.loc["last_response_is_harmless", "share chosen (this run, simulator feature)"] == pytest.approx(
        1 - study.F.chosen["harmfulness"].mean()
    )
    assert p4.loc["last_response_is_harmless", "share chosen (paper)"] == 0.942
    rec = study.planted_recovery()
    assert rec.table.loc["Pearson r (imprint vs weight)", "planted utility (method check)"] == pytest.approx(1.0)
    assert study.vif_dropped().table.shape == (4, 1)
    assert 0 <= study.shift_regression().values["t6_r2"] <= 1


def test_resistance_page_sections(study):
    reg = study.regime_table()
    assert sum(reg.values.values()) == pytest.approx(1.0)
    assert reg.values["prev_reversed"] == regime_prevalence(study.regimes())["reversed"]
    lr = study.labeller_rules()
    from pluralign.seal.design import labeller_gamma

    for rule, prio in (("harmless_first", "harmless"), ("helpful_first", "helpful")):
        g = labeller_gamma(study.F, priority=prio)
        name = rule + (" (this page)" if rule == "harmless_first" else "")
        assert lr.table.loc[name, "γ = c (chosen)"] == int(np.sum(g == "c"))
        assert lr.table.loc[name, "γ = r (rejected)"] == int(np.sum(g == "r"))
    assert lr.table.loc["SEAL's analysis code (hh-rlhf, harmless first)", "γ = c (chosen)"] == 28443
    assert lr.values["n_rule_differs"] == int(
        np.sum(labeller_gamma(study.F, priority="harmless") != labeller_gamma(study.F, priority="helpful"))
    )
    assert list(study.gamma()) == list(labeller_gamma(study.F, priority="harmless"))  # the page's rule
    ag = study.labeller_agreement()
    assert ag.values["n_c"] + ag.values["n_r"] == study.decisive_pairs().table.iloc[0, 0]
    assert ag.values["paper_n_decisive"] == "39,283" and ag.values["paper_share_i"] == 0.73
    mis = study.misalignment()
    assert mis.values["t7_base"] == pytest.approx(
        1
        - alignment_summary(*[study.R[c] for c in ("pre_chosen", "pre_rejected", "post_chosen", "post_rejected")])[
            "a_plus_post"
        ]
    )
    t7 = mis.table
    assert t7.index.names == ["SEAL feature", "entry", "estimator"] and len(t7.columns) <= 7
    lpm = ("last_response_is_refusal", "rejected", "LPM (OLS on 0/1, Table 7's scale)")
    assert t7.loc[lpm, "In the paper"] == pytest.approx(0.134595)
    assert t7.loc[lpm, "This run (simulator feature, sign-aligned)"] == pytest.approx(
        mis.data["linear"].table.loc[("r", "refusal"), "estimate"]
    )


def test_robustness_page_sections(study):
    rs = study.rewrite_summary()
    assert rs.table.loc["pairs drawn for rewriting", "this run"] == 60 and rs.table.loc["pairs kept", "this run"] == 60
    assert study.rewriting() is study.rewriting()  # computed once
    fl = study.label_flips()
    assert fl.table.index.names == ["entry", "feature", "flip"]
    assert np.allclose(fl.data["shares"][[-1, 0, 1]].sum(axis=1), 1.0)
    assert fl.table["share of entries"].groupby(level=["entry", "feature"]).sum().between(0.99, 1.01).all()
    # Table 3 on the same rows where the paper has the feature (sentiment), — elsewhere
    p3 = fl.table["cosine mean (paper, Table 3)"]
    assert (
        p3.loc[("chosen", "last_response_sentiment", 1)] == 0.96
        and p3.loc[("rejected", "last_response_sentiment", -1)] == 0.95
    )
    assert p3.loc[("chosen", "verbosity", 0)] != p3.loc[("chosen", "verbosity", 0)]  # NaN: not in Table 3
    pi = study.robustness()
    assert pi.data["scores"].n_pairs <= 60 and "pairs enter the regression" in pi.note
    assert f"{pi.data['scores'].n_pairs} pairs enter the regression" in pi.note
    # the LPM (SEAL's code) is plotted by default, the logit beside it; the paper's Table 8 beside both
    assert pi.data["scores"].model == "linear" and pi.data["fits"]["logit"].model == "logit"
    t8 = pi.table
    assert t8.index.names == ["SEAL feature", "score", "estimator"]
    lpm = "LPM (SEAL's code, Table 8's scale)"
    assert t8.loc[("last_response_sentiment", "π^c_+", lpm), "In the paper"] == pytest.approx(0.1169, abs=1e-4)
    lin = pi.data["fits"]["linear"].table
    first = lin.index[0]
    from pluralign.paper.seal import flip_label
    from pluralign.report import present_html

    assert t8.loc[
        (first[1], flip_label(first[0], first[2]), lpm), "This run (rewritten feature, sign-aligned)"
    ] == pytest.approx(lin.loc[first, "estimate"])
    assert "nan" not in present_html(t8).lower()


def test_profile_note_names_the_pages_stand_ins(study):
    note = study.profile_note("imprint").data
    assert TRAINED_PAIR_NOTE in note and "rule-based featurizer checked against the planted" in note
    assert "simulator's own rewrites" in study.profile_note("robustness").data
    assert "simulator's own rewrites" not in study.profile_note().data


def test_sections_without_features_or_rewriting_say_so(study):
    bare = Study(D=study.D, other=None, other_parts=[], view=study.view, rms=study.rms, R=study.R)
    with pytest.raises(ValueError, match="features"):
        bare.imprints()
    assert "rewriting needs" in bare.rewrite_summary().skipped and bare.robustness().table is None
    assert "no planted weights" in bare.planted_recovery().skipped


def test_setup_refuses_unknown_design_keys():
    with pytest.raises(ValueError, match="unknown design key"):
        seal.setup({"data": {"simulate": {"n_pairs": 10}}, "typo": 1})


def test_model_names_resolve_against_the_profiles_models():
    from pluralign.params import ParamsError
    from pluralign.seal.study import _load_args

    models = {
        "seal_pre_alignment": {"load": {"name_or_path": "OpenAssistant/reward-model-deberta-v3-large"}},
        "seal_labeller": {"name": "gpt-4-turbo-2024-04-09", "backend": "openai"},
    }
    assert _load_args("seal_pre_alignment", models, "reward_models.pre") == {
        "name_or_path": "OpenAssistant/reward-model-deberta-v3-large"
    }
    assert _load_args("seal_labeller", models, "labeller")["backend"] == "openai"
    assert _load_args({"name": "x"}, models, "labeller") == {"name": "x"} and _load_args(None, models, "x") is None
    with pytest.raises(ParamsError, match="seal_labeller"):
        _load_args("seal_labeler", models, "labeller")


def test_the_rewards_page_warns_when_pre_and_post_are_one_model():
    import warnings

    from pluralign import seal

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the untrained-head warning of the embedded default
        study = seal.setup(
            {"data": {"simulate": {"n_pairs": 20, "seed": 0}}, "reward_models": {"pre": {}, "post": {}}},
            features="planted",
        )
        note = study.dataset().note
    assert ":::{warning}" in note and "same model" in note


def test_a_rewriter_without_a_labeller_is_refused_before_any_work():
    from pluralign import seal

    with pytest.raises(ValueError, match="rewriter needs a labeller"):
        seal.setup({"data": {"simulate": {"n_pairs": 10}}}, rewriter={"name": "m", "base_url": "http://127.0.0.1:9/v1"})

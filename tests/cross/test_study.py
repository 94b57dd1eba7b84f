"""Part IV's study (pluralign.cross.study): setup from a page's parameters, the shared computations, several data
sets analysed apart, and the profiles' parameter files."""

import numpy as np
import pytest

from pluralign import cross, report
from pluralign.cross.pages import margins_page, stand_ins
from pluralign.model_options import ModelOptions


def _note(study, profile: str = "demo") -> str:
    return report.profile_note(profile, stand_ins(study, "margins")).data


def test_setup_refuses_unknown_settings():
    with pytest.raises(ValueError, match="seal: unknown key"):
        cross.setup(data={"simulate": {"n_pairs": 60, "seed": 0}}, seal={"other": []})
    with pytest.raises(TypeError, match="design"):
        cross.setup(design={})


def test_setup_resolves_named_models_and_says_what_stands_in():
    models = {"rm": {"head": "linear"}, "pre": {"head": "mlp"}, "judge": {"name": "big-judge"}}
    s = cross.setup(
        "paper",
        3,
        models=models,
        settings={"data": {"simulate": {"n_pairs": 40, "seed": 0}}, "reward_model": "rm"},
        seal={"reward_models": {"pre": "pre", "post": "pre"}},
        judge={"model": "judge"},
    )
    assert s.seed == 3 and s.reward_model == ModelOptions(head="linear") and s.settings.reward_model == "rm"
    assert s.seal_design.reward_models.pre == s.seal_design.reward_models.post == ModelOptions(head="mlp")
    assert "big-judge" in _note(s, "paper")
    with pytest.raises(ValueError, match="reward_model 'nope'"):
        cross.setup(models=models, data={"simulate": {"n_pairs": 40, "seed": 0}}, reward_model="nope")


def test_demo_note_names_the_judge_noise():
    s = cross.setup(data={"simulate": {"n_pairs": 40, "seed": 0}}, judge={"noise": 0.5, "n": 7})
    note = _note(s)
    assert "sd 0.5" in note and "n = 7 draws" in note


@pytest.mark.parametrize("profile", ["demo", "sample", "paper"])
def test_every_profile_has_the_four_pages_with_valid_parameters(profile):
    """Each page's parameters are the settings' fields (plus profile, seed, models): setup takes them as they are."""
    from pluralign import params as P
    from pluralign.book import manifest_plan

    runs = {r.notebook: r for r in manifest_plan.runs(profile, only="cross")}
    assert sorted(runs) == ["cross_margins", "cross_regimes", "cross_training", "cross_uncertainty"]
    params = {nb: P.read_params(manifest_plan.ROOT / r.params, r.source) for nb, r in runs.items()}
    p = params["cross_margins"]
    assert all(q == p for q in params.values())  # one study shared by the four pages
    settings = cross.CrossSettings.create({k: v for k, v in p.items() if k not in ("profile", "seed", "models")})
    if profile == "paper":  # MultiPref and HelpSteer2, analysed apart, with the paper's models by name
        assert [d.name for d in settings.data] == ["multipref", "helpsteer2"]
        assert settings.judge.source == "llm" and settings.reward_model == "diverging_llama3_8b"
    elif profile == "sample":
        assert settings.data.model_dump() == {"name": "pandalm"} and not settings.has_judge


def test_sample_pandalm_gold_margins_by_class(shared_data, monkeypatch):
    """On PandaLM (three real annotators) question 1 runs without any model: every pair has a gold margin, and
    a 2–1 split (diverging when the annotators picked opposite responses) has m = 1/3."""
    monkeypatch.setenv("PLURALIGN_SHARED_DATA", str(shared_data))
    s = cross.setup("sample", data={"name": "pandalm"}, p_star_from="annotators", judge={"source": None}, n_boot=100)
    gold = "gold (the pair's own votes)"
    assert list(s.margins) == [gold] and s.margins_left_out == {gold: 0}
    div = s.classified.index[s.classified["agreement"] == "diverging"]
    assert len(div) > 10 and np.allclose(s.margins[gold].reindex(div), 1 / 3)
    r = margins_page.separation(s)
    assert r.table.loc[gold, "verdict"] == "above 0.5"  # no planted value on real data: the null's reading alone
    assert r.values["x_auc_verdict_0"].startswith("supported")
    assert r.values["x_auc_synthetic"].startswith("no synthetic judge runs on this profile")
    assert "not tested independently" in r.note


def test_a_list_of_data_sets_is_analysed_apart_and_joined():
    """The paper profile's shape (MultiPref and HelpSteer2 apart): one Study per data set, tables stacked
    under a "data set" level, values of each suffixed."""
    s = cross.setup(
        data=[
            {"simulate": {"n_pairs": 120, "seed": 1, "name": "sim-one"}},
            {"simulate": {"n_pairs": 120, "seed": 2, "name": "sim-two"}},
        ],
        n_boot=30,
    )
    assert isinstance(s, cross.Studies) and list(s.studies) == ["sim-one", "sim-two"]
    assert [t.settings.data.simulate.name for t in s.studies.values()] == ["sim-one", "sim-two"]
    r = margins_page.separation(s)
    assert list(r.table.index.get_level_values("data set").unique()) == ["sim-one", "sim-two"]
    assert "x_auc_0_0" in r.values and "x_auc_0_1" in r.values and "**sim-two**" in r.note
    assert r.values["x_auc_0"] == r.values["x_auc_0_0"]  # unsuffixed: the first data set's
    assert "Stand-ins" in _note(s)

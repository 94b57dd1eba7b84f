"""The SEAL study core (seal.study): setup's one signature over the typed settings (seal.settings.SealSettings),
the design's keys, the models named by key, and what is refused before any work."""

import pytest

from pluralign import seal


def test_setup_refuses_unknown_design_keys():
    with pytest.raises(ValueError, match=r"design: unknown key\(s\) \['typo'\]"):
        seal.setup(design={"data": {"simulate": {"n_pairs": 10}}, "typo": 1})


def test_setup_resolves_every_model_the_settings_name_to_its_options():
    from pluralign.llm.options import LLMOptions
    from pluralign.model_options import ModelOptions
    from pluralign.params import ParamsError
    from pluralign.seal.settings import SealSettings
    from pluralign.seal.study import _resolved

    models = {
        "seal_pre_alignment": {"load": {"name_or_path": "OpenAssistant/reward-model-deberta-v3-large"}},
        "seal_labeller": {"name": "gpt-4-turbo-2024-04-09", "backend": "openai"},
    }
    given = SealSettings.create(
        labeller="seal_labeller",
        stability_labellers=["seal_labeller", {"name": "other"}],
        reward_gap_models=["seal_pre_alignment"],
        design={"reward_models": {"pre": "seal_pre_alignment", "post": {"name_or_path": "owner/post"}}},
    )
    s = _resolved(given, models)
    pre = ModelOptions(name_or_path="OpenAssistant/reward-model-deberta-v3-large")
    assert s.design.reward_models.pre == pre and s.design.reward_models.post.name_or_path == "owner/post"
    assert s.labeller == LLMOptions(name="gpt-4-turbo-2024-04-09", backend="openai") and s.reward_gap_models == [pre]
    assert [x.name for x in s.stability_labellers] == ["gpt-4-turbo-2024-04-09", "other"]
    assert _resolved(SealSettings.create(rewriter="simulator"), models).rewriter == "simulator"
    with pytest.raises(ParamsError, match="seal_labeller"):
        _resolved(SealSettings.create(labeller="seal_labeler"), models)


def test_a_rewriter_without_a_labeller_is_refused_before_any_work():
    from pluralign import seal

    with pytest.raises(ValueError, match="rewriter needs a labeller"):
        seal.setup(
            design={"data": {"simulate": {"n_pairs": 10}}}, rewriter={"name": "m", "base_url": "http://127.0.0.1:9/v1"}
        )


def test_setup_has_the_one_signature_and_refuses_unknown_settings():
    import inspect

    from pluralign.seal.settings import SealSettings

    params = inspect.signature(seal.setup).parameters
    assert list(params)[:4] == ["profile", "seed", "models", "settings"]
    assert params["profile"].default == "demo" and params["seed"].default == 0
    with pytest.raises(TypeError, match="unknown setting"):
        seal.setup(design={"data": {"simulate": {"n_pairs": 10}}}, typo=1)
    s = SealSettings.create({"features": "planted"}, p_flip=0.5)
    assert s.features == "planted" and s.p_flip == 0.5 and s.labeller_rule == "harmless_first"
    assert SealSettings().p_flip == 0.25 and SealSettings().robustness_model == "linear"
    docs = SealSettings.documentation()
    assert set(docs.index) == {f for f in SealSettings.model_fields} and docs["meaning"].str.len().gt(10).all()


def test_every_seal_page_parameter_is_a_setting():
    """A page's parameters (besides profile, seed, models) are settings fields, so seal.setup(**parameters) works."""
    from pluralign import params
    from pluralign.book import manifest_plan
    from pluralign.seal.settings import SealSettings

    fields = set(SealSettings.model_fields)
    for page in ("rewards", "imprint", "resistance", "robustness"):
        notebook = manifest_plan.ROOT / "notebooks" / f"seal_{page}.py"
        declared = set(params.page_cell(notebook).declared)
        assert declared - {"profile", "seed", "models"} <= fields, (page, declared - fields)
        for profile in ("demo", "sample", "paper"):
            p = params.read_params(manifest_plan.ROOT / "params" / profile / f"seal-{page}.yml", notebook)
            SealSettings.create({k: v for k, v in p.items() if k not in ("profile", "seed", "models")})


def test_the_vif_threshold_reaches_both_fits_of_eq1(study):
    """Footnote 6's VIF filter (5 by default) is a setting: a threshold just above 1 drops features from both
    Eq. 1 fits (this project's and SEAL's code's), the default drops fewer; a threshold a VIF cannot exceed is
    refused."""
    import dataclasses

    from pluralign.seal.settings import SealSettings

    tight = dataclasses.replace(study, settings=study.settings.replace(vif_threshold=1.0001)).imprint
    default = study.imprint
    for fit in ("post", "pre"):
        assert len(tight[fit].dropped_vif) > len(default[fit].dropped_vif)
        assert len(tight["seal_code"][fit].dropped_vif) > len(default["seal_code"][fit].dropped_vif)
    with pytest.raises(ValueError, match="vif_threshold: Input should be greater than 1"):
        SealSettings.create(vif_threshold=0.5)

"""Part IV's settings (pluralign.cross.settings): every page parameter documented once, nested defaults merged in
one place, bad values refused with the field named."""

import pytest

from pluralign.cross.settings import DEMO_DATA, JUDGE, SEAL, SPLIT, CrossSettings


def test_defaults_and_nested_overrides_merged_once():
    s = CrossSettings()
    assert s.data == DEMO_DATA and s.judge == JUDGE and s.split == SPLIT and s.seal == SEAL and s.n_boot == 2000
    o = CrossSettings.create({"judge": {"n": 3}}, split={"test": 50}, seal={"reward_models": {"pre": "a"}})
    assert o.judge == {**JUDGE, "n": 3} and o.split == {"test": 50, "validation": 100}
    assert o.seal["reward_models"] == {"pre": "a"} and o.seal["other_data"] == SEAL["other_data"]
    assert o.replace(n_boot=7).judge == o.judge  # merging again over the defaults changes nothing
    assert list(CrossSettings.documentation().index) == [
        "data",
        "ties",
        "p_star_from",
        "labeller",
        "judge",
        "split",
        "reward_model",
        "train",
        "train_margin",
        "seal",
        "n_boot",
    ]
    assert CrossSettings.documentation()["meaning"].str.len().gt(10).all()


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"ties": "most"}, "ties must be"),
        ({"p_star_from": "oracle"}, "p_star_from must be"),
        ({"judge": {"from": "crowd"}}, "judge.from must be"),
        ({"judge": {"temperature": 1}}, "judge: unknown key"),
        ({"split": {"train": 3}}, "split: unknown key"),
        ({"seal": {"other": []}}, "seal: unknown key"),
        ({"train_margin": "planted"}, "train_margin must be"),
        ({"n_boot": 0}, "n_boot must be"),
    ],
)
def test_bad_values_are_refused_naming_the_setting(bad, match):
    with pytest.raises(ValueError, match=match):
        CrossSettings.create(**bad)


def test_unknown_names_are_refused():
    with pytest.raises(TypeError, match="design"):
        CrossSettings.create(design={})

"""Part IV's settings (pluralign.cross.settings): every page parameter documented once, nested defaults merged in
one place, bad values refused with the field named."""

import pytest

from pluralign.btb.settings import Judge
from pluralign.cross.settings import DEMO_DATA, CrossSettings
from pluralign.diverging.settings import Split
from pluralign.seal.settings import AlignmentDesign


def test_defaults_and_nested_overrides_merged_once():
    """Part IV's judge, split and SEAL design are the other parts' own settings, with Part IV's defaults."""
    s = CrossSettings()
    assert (
        s.data.model_dump() == DEMO_DATA
        and s.judge == Judge(job="cross-margins")
        and s.split == Split()
        and s.n_boot == 2000
    )
    assert s.seal == AlignmentDesign(data=None, scoring_input=None)
    o = CrossSettings.create({"judge": {"n": 3}}, split={"test": 50}, seal={"reward_models": {"pre": "a", "post": "b"}})
    assert o.judge == Judge(job="cross-margins", n=3) and o.split == Split(test=50, validation=100)
    assert (o.seal.reward_models.pre, o.seal.reward_models.post) == (
        "a",
        "b",
    ) and o.seal.other_data == AlignmentDesign().other_data
    assert o.replace(n_boot=7).judge == o.judge  # laying the current values over themselves changes nothing
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
        ({"ties": "most"}, "ties: Input should be"),
        ({"p_star_from": "oracle"}, "p_star_from: Input should be"),
        ({"judge": {"source": "crowd"}}, "judge.source: Input should be"),
        ({"judge": {"from": "llm"}}, r"judge: unknown key\(s\) \['from'\]"),
        ({"seal": {"data": {"name": "x"}}}, "seal.data: Part IV's D is the study's own data"),
        ({"judge": {"temperature": 1}}, "judge: unknown key"),
        ({"split": {"train": 3}}, "split: unknown key"),
        ({"seal": {"other": []}}, "seal: unknown key"),
        ({"train_margin": "planted"}, "train_margin: Input should be"),
        ({"n_boot": 0}, "n_boot: Input should be greater than or equal to 1"),
    ],
)
def test_bad_values_are_refused_naming_the_setting(bad, match):
    with pytest.raises(ValueError, match=match):
        CrossSettings.create(**bad)


def test_unknown_names_are_refused():
    with pytest.raises(TypeError, match="design"):
        CrossSettings.create(design={})

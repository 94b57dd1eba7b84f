"""The settings of the Part I pages (:class:`pluralign.diverging.settings.DivergingSettings`): every default and
its meaning written once, nested settings merged over their defaults, bad values refused with their name."""

from __future__ import annotations

import pytest

from pluralign import diverging
from pluralign.diverging import reward_models
from pluralign.diverging.settings import Annotation, CauseClassifier, DivergingSettings, JudgeLLM, Split

SPECS = [{"simulate": {"n_pairs": 300, "seed": 0, "annotation_format": "multipref"}}]


def test_every_setting_is_documented_once():
    doc = DivergingSettings.documentation()
    assert list(doc.index) == list(DivergingSettings.model_fields)
    assert (doc["meaning"].str.len() > 20).all()
    assert {"profile", "seed", "models"}.isdisjoint(doc.index)
    assert doc.loc["n_boot", "default"] == 2000 and doc.loc["split", "default"] == {"test": 300, "validation": 100}
    s = DivergingSettings()
    assert len(s.datasets) == 2 and s.ties == "majority" and s.judges is None and s.reward_model is None


def test_nested_settings_are_merged_over_their_defaults():
    s = DivergingSettings.create(split={"test": 10}, annotation={"reference": "planted"})
    assert s.split == Split(test=10, validation=100)
    assert s.annotation == Annotation(n=50, dir=None, files={}, reference="planted")
    assert s.cause_classifier == CauseClassifier(llm=None, pairs=50)
    assert s.replace(n_boot=5).split == s.split  # laying the current values over themselves changes nothing
    judge = DivergingSettings.create(judge_llm={"simulated": {"noise": 1.0}}).judge_llm
    assert judge == JudgeLLM(simulated={"noise": 1.0}) and judge.label == "LLM judge"
    with pytest.raises(ValueError, match=r"split: unknown key\(s\) \['tset'\]"):
        DivergingSettings.create(split={"tset": 1})
    with pytest.raises(ValueError, match=r"annotation: unknown key\(s\) \['nn'\]"):
        DivergingSettings.create(annotation={"nn": 1})


@pytest.mark.parametrize(
    "bad, pattern",
    [
        ({"ties": "unanimity"}, "ties: Input should be 'majority' or 'plurality'"),
        ({"n_boot": 0}, "n_boot: Input should be greater than or equal to 1"),
        ({"split": {"test": -1}}, "split.test: Input should be greater than or equal to 0"),
        ({"annotation": {"reference": "people"}}, "annotation.reference: Input should be 'planted'"),
        ({"judge_llm": {"label": "x"}}, "judge_llm needs exactly one of 'load'"),
        ({"judge_llm": {"load": {"name": "m"}, "simulated": {"noise": 1}}}, "judge_llm needs exactly one of 'load'"),
        ({"judges": {"humans": "h"}}, "judges.verdicts: Field required; .*judges.annotators: Field required$"),
        ({"cause_classifier": None}, "cause_classifier: Input should be a valid dictionary or instance of CauseClass"),
        ({"datasets": "pandalm"}, "datasets: Input should be a valid list"),
    ],
)
def test_a_bad_value_is_refused_with_its_name(bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        DivergingSettings.create(**bad)


def test_mse_aggregate_variants_are_named_options():
    """Table 2's MSE (Agg): majority vote (the paper's, §3) by default, the mean Likert score on request."""
    assert (
        reward_models.table2_models()["MSE (Agg)"] == ("mse", "aggregate") == reward_models.TABLE2_MODELS["MSE (Agg)"]
    )
    assert reward_models.table2_models("mean")["MSE (Agg)"] == ("mse", "aggregate-mean")
    assert reward_models.table2_models("mean")["BT (Agg)"] == ("bt", "aggregate")
    assert diverging.setup(datasets=SPECS).settings.mse_aggregate == "majority"
    assert diverging.setup(datasets=SPECS, mse_aggregate="mean").settings.mse_aggregate == "mean"
    with pytest.raises(ValueError, match="mse_aggregate: Input should be 'majority' or 'mean'"):
        diverging.setup(datasets=SPECS, mse_aggregate="median")

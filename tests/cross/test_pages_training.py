"""Page "Which training handles disagreement?" (pluralign.cross.pages.training) on a small simulation: the five
models train, nothing shows NaN, and the planted references stand beside the estimates."""

from pluralign.cross import training as q4
from pluralign.cross.pages import training


def test_the_five_models_train_and_are_compared(small_study, no_nan):
    trained, measures, gaps = (
        training.models_trained(small_study),
        training.measures(small_study),
        training.decisiveness_gaps(small_study),
    )
    for r in (trained, measures, gaps):
        assert no_nan(r)
    assert trained.table["trained"].eq("yes").all() and list(trained.table.index) == list(q4.MODELS)
    assert trained.values == {"x_n_train": 90, "x_n_test": 80}
    assert "synthetic margins (n = 10)" in trained.note
    assert "planted (population p*)" in measures.table.columns and measures.figure is not None
    assert "planted gap (population p*)" in gaps.table.columns
    assert sorted(k for k in gaps.values if k.startswith("x_gap_")) == [f"x_gap_{k}" for k in range(5)]

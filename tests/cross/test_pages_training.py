"""Page "Which training handles disagreement?" (pluralign.cross.pages.training_page) on a small simulation: the five
models train, nothing shows NaN, and the planted references stand beside the estimates."""

from pluralign.cross import training as q4
from pluralign.cross.pages import training_page


def test_the_five_models_train_and_are_compared(small_study, no_nan):
    trained, measures, gaps = (
        training_page.models_trained(small_study),
        training_page.measures(small_study),
        training_page.decisiveness_gaps(small_study),
    )
    for r in (trained, measures, gaps):
        assert no_nan(r)
    assert trained.table["trained"].eq("yes").all() and list(trained.table.index) == list(q4.MODELS)
    assert trained.values == {"x_n_train": 90, "x_n_test": 80, "x_n_no_margin": 0}
    assert "synthetic margins (n = 10)" in trained.note
    assert "planted p*" in measures.table.columns and measures.figure is not None
    assert "planted gap (population p*)" in gaps.table.columns
    assert sorted(k for k in gaps.values if k[len("x_gap_") :].isdigit()) == [f"x_gap_{k}" for k in range(5)]
    assert gaps.values["x_gap_paper_ref"] == "0.029" and gaps.values["x_gap_paper_data"] == "HelpSteer2"
    assert "paper's gap (HelpSteer2, Table 2)" in gaps.table.columns
    assert "—" not in gaps.note  # no em dash inside a sentence: the reference model says so in words


def test_the_page_counts_the_training_pairs_without_a_synthetic_margin(small_study):
    """The judge gave no parseable verdict on some pairs: the training page says how many training pairs that
    left without a margin and that they trained with margin 0 (value ``x_n_no_margin``); none on the demo's judge."""
    import dataclasses

    import numpy as np

    assert training_page.models_trained(small_study).values["x_n_no_margin"] == 0
    st = dataclasses.replace(small_study)  # a fresh study: its models retrain on the margins below
    for k in ("run", "measures", "training_margins"):
        st.__dict__.pop(k, None)
    sj = small_study.synthetic_judgments.copy()
    sj.iloc[::4, sj.columns.get_loc("margin")] = np.nan  # every fourth pair unparseable
    st.__dict__["synthetic_judgments"] = sj
    r = training_page.models_trained(st)
    train_ids = set(st.run.train.pairs["pair_id"])
    want = sum(1 for p in sj.index[::4] if p in train_ids)
    assert 0 < want < len(train_ids) and r.values["x_n_no_margin"] == want
    assert f"{want} of the {len(train_ids)} training pairs have no synthetic margin" in r.note
    assert "trained with margin 0" in r.note and r.table["trained"].eq("yes").all()

"""Fixtures of Part IV's tests: agreement classes by hand, and one small study on the simulator shared by the page
tests (its five reward models and SEAL's pre-D / post-D models trained once per session)."""

import pandas as pd
import pytest


def _classes(labels) -> pd.DataFrame:
    ids = [f"p{i}" for i in range(len(labels))]
    return pd.DataFrame({"agreement": labels, "substantial": False}, index=pd.Index(ids, name="pair_id"))


@pytest.fixture
def classes():
    """Agreement classes by hand: ``classes(labels)`` gives pairs p0, p1, … with those ``agreement`` labels, as
    :func:`pluralign.diverging.agreement_classes` gives them."""
    return _classes


@pytest.fixture(scope="session")
def small_study():
    """Every page's study on a small simulation (seed 2: texts the other demo-RM tests embed too; embeddings are
    memoized per process)."""
    from pluralign import cross

    return cross.setup(
        data={"simulate": {"n_pairs": 200, "seed": 2, "annotation_format": "helpsteer2"}},
        split={"test": 80, "validation": 30},
        reward_model={"head": "linear"},
        train={"epochs": 2, "eval_every": 0.5},
        n_boot=50,
        seal={
            "other_data": [{"simulate": {"n_pairs": 80, "seed": 6, "name": "sim-other"}}],
            "base_model": {"head": "linear"},
            "train": {"objective": "bt", "labels": "aggregate", "epochs": 2},
        },
    )


def _no_nan(result) -> bool:
    return result.table is not None and not result.table.astype(str).isin(["nan", "NaN"]).any().any()


@pytest.fixture
def no_nan():
    """``no_nan(result)``: the section's table exists and shows no NaN."""
    return _no_nan

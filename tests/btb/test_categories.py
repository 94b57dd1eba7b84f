"""Beyond the Binary (004) §3.1: the categories of subjectivity from each source, the annotators' majority vote and
the summary with p* (pluralign.btb.categories)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pluralign.btb.categories import categories_from, majority_vote


def test_majority_vote_over_human_labels():
    lab = pd.DataFrame(
        {
            "pair_id": ["a"] * 3 + ["b"] * 3 + ["c"] * 2,
            "annotator": list("xyz") * 2 + list("xy"),
            "kind": ["single", "multiple", "single", "multiple", "multiple", "multiple", "single", "multiple"],
        }
    )
    with pytest.warns(UserWarning, match="1 items tied"):
        out = majority_vote(lab, "kind")
    r = out.set_index("pair_id")
    assert r.loc["a", "kind"] == "single" and r.loc["a", "agreement"] == pytest.approx(2 / 3)
    assert r.loc["b", "kind"] == "multiple" and r.loc["b", "n"] == 3
    assert r.loc["c", "kind"] is None
    with pytest.raises(ValueError, match="need columns"):
        majority_vote(lab, "distinguishable")


def test_category_summary_hand_values():
    from pluralign.btb.categories import category_summary

    kind = pd.Series({"a": "single", "b": "multiple", "c": "multiple", "d": None})
    dist = pd.Series({"a": True, "b": False, "c": True, "d": True})
    p = pd.Series({"a": 1.0, "b": 0.5, "c": 0.7, "d": 0.2})
    t = category_summary(kind, dist, p).set_index(["dimension", "category"])
    assert t.loc[("plurality of responses", "Multiple Correct"), "n"] == 2
    assert t.loc[("plurality of responses", "unassigned"), "n"] == 1  # counted, not dropped
    assert t.loc[("plurality of responses", "Multiple Correct"), "mean_p_star"] == pytest.approx(0.6)
    assert t.loc[("plurality of responses", "Multiple Correct"), "mean_agreement"] == pytest.approx((0 + 0.4) / 2)
    assert t.loc[("distinguishability", "Distinguishable"), "share"] == pytest.approx(0.75)
    assert t.loc[("distinguishability", "Indistinguishable"), "mean_agreement"] == pytest.approx(0.0)
    assert "mean_p_star" not in category_summary(kind).columns
    with pytest.raises(ValueError, match="'single' or 'multiple'"):
        category_summary(pd.Series({"a": "both"}))
    # a pair without p* (e.g. every LLM answer unparseable) is counted per category and left out of the means
    lacking = category_summary(kind, p_star=p.drop("d")).set_index("category")
    assert lacking.loc["unassigned", "n_without_p_star"] == 1 and np.isnan(lacking.loc["unassigned", "mean_p_star"])
    assert lacking.loc["Multiple Correct", "n_without_p_star"] == 0
    assert lacking.loc["Multiple Correct", "mean_p_star"] == pytest.approx(0.6)


def test_categories_from_each_source(tmp_path):
    from pluralign.data import simulate

    d = simulate(n_pairs=30, seed=2)
    c = categories_from("truth", d)
    assert c["kind"].tolist() == d.truth["kind"].tolist()
    assert c["distinguishable"].tolist() == d.truth["distinguishable"].tolist()
    assert categories_from("none", d).isna().all().all() and len(categories_from("none", d)) == 30
    ids = list(d.pairs["pair_id"][:4])
    c = categories_from({"kind": {d.pairs["dataset"].iloc[0]: "single"}}, d, ids)
    assert c["kind"].tolist() == ["single"] * 4 and c["distinguishable"].isna().all()
    f = tmp_path / "labels.csv"
    pd.DataFrame(
        {
            "pair_id": [ids[0]] * 3 + [ids[1]] * 2,
            "annotator": [1, 2, 3, 1, 2],
            "kind": ["single", "single", "multiple", "multiple", "multiple"],
            "distinguishable": [True, False, False, True, True],
        }
    ).to_csv(f, index=False)
    c = categories_from("labels", d, ids[:2], labels_file=f)
    assert c["kind"].tolist() == ["single", "multiple"] and c["distinguishable"].tolist() == [False, True]
    with pytest.raises(ValueError, match="categories must be"):
        categories_from("datasets", d)

"""The taxonomy of disagreement causes (Diverging Preferences Table 1, §2.1; :mod:`pluralign.diverging.causes`):
Table 1 as data, κ over full label sets and α with MASI against hand values, cause frequencies, the planted and
the surface-feature labellers, agreement beside the paper's."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from pluralign.data.core import PreferenceData
from pluralign.diverging import causes
from pluralign.diverging.causes import (
    CAUSE_IDS,
    CAUSES,
    CLASSES,
    cause_frequencies,
    cohen_kappa_sets,
    label_agreement,
    masi_alpha,
    paper_agreement,
    planted_causes,
    taxonomy_table,
)


def test_table1_as_data():
    t = taxonomy_table()
    assert len(CAUSES) == 10 and len(CLASSES) == 4
    assert t["class"].value_counts().to_dict() == {"Response Style": 4, "Refusals": 4, "Task": 1, "Errors": 1}
    # Table 1 frequencies (MP / HS2)
    assert t.loc["verbosity", ["paper MP", "paper HS2"]].tolist() == [0.38, 0.44]
    assert t.loc["refuse-vs-refuse", ["paper MP", "paper HS2"]].tolist() == [0.20, 0.00]
    assert t.loc["comply-vs-refuse", ["paper MP", "paper HS2"]].tolist() == [0.05, 0.04]
    assert t["paper MP"].sum() == pytest.approx(1.61) and t["paper HS2"].sum() == pytest.approx(1.62)
    assert paper_agreement("multipref") == {"kappa": 0.59, "alpha": 0.68}
    assert paper_agreement("helpsteer2") == {"kappa": 0.58, "alpha": 0.62} and paper_agreement(None) == {}
    assert "distinct, valid interpretations" in t.loc["task-underspecification", "definition"]
    assert t["definition"].str.len().min() > 40


# ---- κ and α-MASI against hand computation ------------------------------------------------------------
V, VF, S, C = (
    frozenset({"verbosity"}),
    frozenset({"verbosity", "format"}),
    frozenset({"safety"}),
    frozenset({"complexity"}),
)


def labels(rows):
    return pd.DataFrame(rows, columns=["pair_id", "annotator", "causes"])


HAND = labels([("p1", "x", V), ("p1", "y", V), ("p2", "x", VF), ("p2", "y", V), ("p3", "x", S), ("p3", "y", C)])


def test_cohen_kappa_over_full_label_sets_by_hand():
    # categories = label sets. p_o = 1/3 (only p1 identical; {V,F} vs {V} counts as disagreement);
    # marginals x: V 1/3, VF 1/3, S 1/3; y: V 2/3, C 1/3 → p_e = 1/3·2/3 = 2/9; κ = (1/3 − 2/9)/(1 − 2/9) = 1/7
    assert cohen_kappa_sets([V, VF, S], [V, V, C]) == pytest.approx(1 / 7)
    assert cohen_kappa_sets([V, VF], [V, VF]) == pytest.approx(1.0)
    assert cohen_kappa_sets([V, V], [V, V]) == 1.0  # a single category used by both: perfect


def test_krippendorff_alpha_masi_by_hand():
    # MASI: d(V,V)=0; d(VF,V) = 1 − |∩|/|∪|·m = 1 − 1/2·2/3 = 2/3 (subset); d(S,C) = 1 (disjoint)
    assert masi_distance(set(VF), set(V)) == pytest.approx(2 / 3)
    # Observed: n = 6 pairable values, each unit has 2 coders → D_o = Σ_u 2·d_u / n = (0 + 4/3 + 2)/6 = 5/9
    # Expected: value counts V 3, VF 1, S 1, C 1; Σ_{c≠k} n_c n_k d = 2·(3·2/3 + 3 + 3 + 1 + 1 + 1) = 22;
    # D_e = 22 / (6·5) = 11/15 → α = 1 − (5/9)/(11/15) = 8/33
    assert masi_alpha(HAND) == pytest.approx(8 / 33)
    task = AnnotationTask(data=[(a, p, c) for p, a, c in HAND.itertuples(index=False)], distance=masi_distance)
    assert task.alpha() == pytest.approx(8 / 33)


def test_alpha_is_one_where_kappa_is_one_despite_singly_labelled_items():
    """Only items labelled by ≥ 2 annotators are pairable: a label set used by one annotator on an item nobody
    else labelled must not enter α's value domain (it used to make α NaN where κ was 1)."""
    lab = labels([("p1", "x", V), ("p1", "y", V), ("p2", "x", V), ("p2", "y", V), ("p3", "x", S)])
    res = label_agreement(lab)
    assert res["kappa"] == 1.0 and res["alpha"] == 1.0 and res["n_items"] == 2
    # the singly-labelled item changes nothing in the general case either
    assert masi_alpha(pd.concat([HAND, labels([("p9", "x", C)])])) == pytest.approx(8 / 33)
    with pytest.raises(ValueError, match="two or more annotators"):
        masi_alpha(labels([("p1", "x", V), ("p2", "y", V)]))


def test_label_agreement_three_annotators_and_missing():
    rng = np.random.default_rng(3)
    pool = [V, VF, S, C, frozenset({"format"}), frozenset({"errors", "verbosity"})]
    rows = []
    for i in range(30):
        base = pool[rng.integers(len(pool))]
        for a in ("ann1", "ann2", "ann3"):
            if a == "ann3" and i % 7 == 0:
                continue  # missing labels
            rows.append((f"p{i}", a, base if rng.random() < 0.7 else pool[rng.integers(len(pool))]))
    lab = labels(rows)
    res = label_agreement(lab)
    # κ: mean of the three pairwise Cohen's κ on items both labelled
    wide = lab.pivot(index="pair_id", columns="annotator", values="causes")
    ks = []
    for a1, a2 in itertools.combinations(["ann1", "ann2", "ann3"], 2):
        both = wide[[a1, a2]].dropna()
        ks.append(cohen_kappa_sets(both[a1], both[a2]))
    assert res["kappa"] == pytest.approx(np.mean(ks))
    assert len(res["pairwise_kappa"]) == 3 and res["n_annotators"] == 3 and res["n_items"] == 30
    # α: krippendorff package with MASI == nltk's AnnotationTask with MASI (missing labels included)
    task = AnnotationTask(data=[(a, p, c) for p, a, c in rows], distance=masi_distance)
    assert res["alpha"] == pytest.approx(task.alpha())
    assert 0.3 < res["alpha"] < 0.95 and 0.2 < res["kappa"] < 0.95
    # identical labellings → both 1
    same = labels([(p, a, c) for p, _, c in rows if _ == "ann1" for a in ("u", "v")])
    perfect = label_agreement(same)
    assert perfect["kappa"] == pytest.approx(1.0) and perfect["alpha"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="labelled twice"):
        label_agreement(pd.concat([lab, lab.head(1)]))


def test_cause_frequencies_beside_table1():
    lab = labels([("p1", "x", V), ("p2", "x", VF), ("p3", "x", S), ("p4", "x", frozenset({"format", "errors"}))])
    f = cause_frequencies({"MultiPref": lab})
    assert f.loc["verbosity", "MultiPref"] == 0.5
    assert f.loc["format", "MultiPref"] == 0.5
    assert f.loc["safety", "MultiPref"] == 0.25 and f.loc["complexity", "MultiPref"] == 0.0
    assert (f["MultiPref n"] == 4).all()
    assert f.loc["verbosity", "paper MP"] == 0.38 and f.loc["format", "paper HS2"] == 0.32
    g = cause_frequencies(lab.assign(dataset=["a", "a", "b", "b"]), paper=False)
    assert g.loc["verbosity", ["a", "b"]].tolist() == [1.0, 0.0] and "paper MP" not in g


def test_cause_ids_match_the_simulator_and_planted_reference():
    from pluralign.data import simulate
    from pluralign.data.simulate import CAUSES as SIM_CAUSES

    assert set(SIM_CAUSES) - {"none"} == set(CAUSE_IDS)
    data = simulate(n_pairs=300, seed=2)
    ref = planted_causes(data.truth)
    assert len(ref) == int((data.truth["cause"] != "none").sum())
    assert all(len(s) == 1 for s in ref["causes"])
    f = cause_frequencies({"demo": ref})
    planted = data.truth.loc[data.truth["cause"] != "none", "cause"].value_counts(normalize=True)
    assert f["demo"].to_dict() == pytest.approx(planted.reindex(list(CAUSE_IDS)).fillna(0).to_dict())


def test_rule_causes_reads_surface_features():
    long = " ".join(["word"] * 60)
    texts = {  # pair: (A, B, expected causes)
        "v": ("Short answer here.", f"A long answer. {long}", {"verbosity"}),
        "f": ("Use flour and water.", "Steps:\n1. Use flour.\n2. Use water.", {"format"}),
        "h": ("Paris.", "## Answer\nParis.", {"format"}),
        "c": ("I'm sorry, but I can't help with that.", "Sure, here is how you do it.", {"comply-vs-refuse"}),
        "r": ("I'm sorry, but I can't help with that.", "I cannot assist with that request.", {"refuse-vs-refuse"}),
        "n": ("The capital is Paris.", "Paris is the capital.", None),
    }
    pairs = pd.DataFrame(
        {
            "pair_id": list(texts),
            "dataset": "hand",
            "split": "test",
            "prompt": "q",
            "response_a": [v[0] for v in texts.values()],
            "response_b": [v[1] for v in texts.values()],
        }
    )
    ann = pd.DataFrame({"pair_id": list(texts), "annotator_id": "w", "preference": -2})
    out = causes.rule_causes(PreferenceData(pairs, ann, {"name": "hand"}))
    got = dict(zip(out["pair_id"], out["causes"]))
    assert got == {k: frozenset(v[2]) for k, v in texts.items() if v[2] is not None}
    assert "n" not in set(out["pair_id"]) and set(out["annotator"]) == {"rules"}


def test_rule_causes_agree_with_planted_causes_where_the_text_shows_them():
    from pluralign.data import simulate

    d = simulate(n_pairs=400, seed=3)
    t = d.truth
    ids = t.index[t["cause"].isin(["verbosity", "comply-vs-refuse", "refuse-vs-refuse"])]
    rules = causes.rule_causes(d, ids).set_index("pair_id")["causes"]
    hit = [t.at[i, "cause"] in rules.get(i, frozenset()) for i in ids]
    assert np.mean(hit) > 0.7  # the surface features the simulator plants for these causes are visible


def test_agreement_table_beside_the_paper():
    lab = pd.DataFrame(
        [
            {"pair_id": "p1", "annotator": "x", "causes": frozenset({"verbosity"})},
            {"pair_id": "p1", "annotator": "y", "causes": frozenset({"verbosity"})},
            {"pair_id": "p2", "annotator": "x", "causes": frozenset({"format"})},
            {"pair_id": "p2", "annotator": "y", "causes": frozenset({"format"})},
        ]
    )
    single = lab[lab["annotator"] == "x"]
    t = causes.agreement_table({"simulated-multipref": lab, "pandalm": lab, "one annotator": single})
    assert list(t.index) == ["simulated-multipref", "pandalm"]
    assert t.loc["simulated-multipref", "κ"] == pytest.approx(1.0) and t.loc["pandalm", "α (MASI)"] == pytest.approx(
        1.0
    )
    assert t.loc["simulated-multipref", "paper κ"] == 0.59 and t.loc["simulated-multipref", "paper α"] == 0.68
    assert np.isnan(t.loc["pandalm", "paper κ"]) and t.loc["pandalm", "pairs labelled by ≥ 2"] == 2
    assert pd.isna(t.loc["pandalm", "paper reference"]) and "one annotator" not in t.index
    assert t.loc["simulated-multipref", "paper reference"] == "paper (MultiPref, stand-in reference)"
    r = causes.agreement_table({"pandalm": lab}, paper_reference={"pandalm": "helpsteer2"})
    assert r.loc["pandalm", "paper κ"] == 0.58 and r.loc["pandalm", "paper α"] == 0.62
    assert r.loc["pandalm", "paper reference"] == "paper (HelpSteer2, stand-in reference)"


def test_rule_causes_verbosity_thresholds_are_the_module_constants():
    import inspect

    sig = inspect.signature(causes.rule_causes).parameters
    assert sig["verbosity_ratio"].default == causes.VERBOSITY_RATIO
    assert sig["min_extra_words"].default == causes.MIN_EXTRA_WORDS

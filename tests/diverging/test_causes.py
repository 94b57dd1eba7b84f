"""Taxonomy of disagreement causes (Diverging Preferences Table 1, §2.1): data, annotation round-trip,
LLM classifier through a fake ``.structured``, κ over full label sets and α with MASI against hand values."""

from __future__ import annotations

import itertools

import jsonschema
import numpy as np
import openpyxl
import pandas as pd
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from pluralign.data.core import DataError, PreferenceData
from pluralign.diverging.agreement import agreement_classes as classify
from pluralign.diverging.causes import (
    CAUSE_IDS,
    CAUSES,
    CLASSES,
    cause_frequencies,
    cause_prompt,
    cause_schema,
    classify_causes,
    cohen_kappa_sets,
    export_for_annotation,
    import_annotations,
    label_agreement,
    masi_alpha,
    paper_agreement,
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


# ---- annotation round-trip ----------------------------------------------------------------------------
def small_data(n=12) -> PreferenceData:
    pairs = pd.DataFrame(
        {
            "pair_id": [f"q{i}" for i in range(n)],
            "dataset": "demo",
            "split": "test",
            "prompt": [f"prompt {i}" for i in range(n)],
            "response_a": [f"A{i}" for i in range(n)],
            "response_b": [f"B{i}" for i in range(n)],
        }
    )
    votes = [[-2, 2, 0] if i % 2 == 0 else [-2, -2, -1] for i in range(n)]  # even ids diverging
    ann = pd.DataFrame(
        [
            {"pair_id": f"q{i}", "annotator_id": f"w{j}", "preference": v}
            for i, vs in enumerate(votes)
            for j, v in enumerate(vs)
        ]
    )
    return PreferenceData(pairs, ann, {"name": "demo"})


def fill(path, marks: dict[int, tuple[str, list[str]]], raw: dict[tuple[int, str], object] | None = None):
    """Mark the exported sheet like a person would: {sheet data row (0-based): (annotator, causes)}."""
    wb = openpyxl.load_workbook(path)
    ws = wb["pairs"]
    header = [c.value for c in ws[1]]
    for i, (ann, causes) in marks.items():
        ws.cell(row=i + 2, column=header.index("annotator") + 1, value=ann)
        for c in causes:
            ws.cell(row=i + 2, column=header.index(c) + 1, value="x")
    for (i, col), v in (raw or {}).items():
        ws.cell(row=i + 2, column=header.index(col) + 1).value = v  # (cell(value=None) would not clear)
    wb.save(path)


def test_export_import_round_trip(tmp_path):
    data = small_data()
    cl = classify(data)
    p = tmp_path / "to_annotate.xlsx"
    sheet = export_for_annotation(data, cl, 4, p, seed=1)
    assert len(sheet) == 4 and set(sheet["pair_id"]) <= set(cl.index[cl["agreement"] == "diverging"])
    assert sheet["votes"].iloc[0] == "-2 +2 0"
    again = export_for_annotation(data, cl, 4, tmp_path / "again.xlsx", seed=1)
    assert again["pair_id"].tolist() == sheet["pair_id"].tolist()  # seeded
    wb = openpyxl.load_workbook(p)
    assert {"pairs", "instructions", "taxonomy"} <= set(wb.sheetnames)
    header = [c.value for c in wb["pairs"][1]]
    assert {"pair_id", "prompt", "response_a", "response_b", "annotator", *CAUSE_IDS} <= set(header)
    assert wb["taxonomy"].max_row == 11
    # nothing marked yet → nothing imported
    assert import_annotations(p).empty
    fill(p, {0: ("alice", ["verbosity"]), 1: ("alice", ["format", "verbosity"]), 3: ("alice", ["safety"])})
    q = tmp_path / "bob.xlsx"
    export_for_annotation(data, cl, 4, q, seed=1)
    fill(
        q,
        {0: ("bob", ["verbosity"]), 1: ("bob", ["verbosity"]), 2: ("bob", ["errors"]), 3: ("bob", ["safety"])},
        raw={(3, "complexity"): 1},
    )
    got = import_annotations([p, q])
    assert len(got) == 7
    ids = sheet["pair_id"].tolist()
    alice = got[got["annotator"] == "alice"].set_index("pair_id")["causes"]
    assert alice[ids[1]] == frozenset({"format", "verbosity"})
    bob = got[got["annotator"] == "bob"].set_index("pair_id")["causes"]
    assert bob[ids[3]] == frozenset({"safety", "complexity"})  # a 1 counts as a mark
    res = label_agreement(got)
    assert res["n_items"] == 3 and res["n_annotators"] == 2


@pytest.mark.parametrize(
    "raw,pattern",
    [
        ({(1, "format"): "maybe"}, r"bad\.xlsx, row 3, field 'format': cannot read mark 'maybe'"),
        ({(2, "verbosity"): "x"}, r"row 4, field 'annotator': causes are marked but the annotator is empty"),
        ({(2, "annotator"): "carol"}, r"row 4, field 'causes': no cause marked"),
        ({(1, "pair_id"): None}, r"row 3, field 'pair_id': empty pair_id"),
        ({(1, "pair_id"): "SAME", (0, "pair_id"): "SAME"}, r"row 3, field 'pair_id': pair 'SAME' labelled twice"),
    ],
)
def test_import_refuses_a_bad_sheet(tmp_path, raw, pattern):
    data = small_data()
    p = tmp_path / "bad.xlsx"
    export_for_annotation(data, classify(data), 4, p, seed=0)
    fill(p, {0: ("alice", ["verbosity"]), 1: ("alice", ["verbosity"])}, raw=raw)
    with pytest.raises(DataError, match=pattern):
        import_annotations(p)


def test_import_missing_column_and_too_many_requested(tmp_path):
    data = small_data()
    cl = classify(data)
    p = tmp_path / "cols.xlsx"
    sheet = export_for_annotation(data, cl, 2, p)
    sheet.drop(columns=["errors"]).to_excel(p, sheet_name="pairs", index=False)
    with pytest.raises(DataError, match=r"cols\.xlsx, row 1, field 'errors': missing column"):
        import_annotations(p)
    with pytest.raises(ValueError, match="only 6 are in classes"):
        export_for_annotation(data, cl, 7, tmp_path / "x.xlsx")


# ---- LLM cause classifier through a fake .structured --------------------------------------------------
class FakeLLM:
    """Stands in for pluralign.llm.LLM: checks the schema and answers from the pair's text."""

    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer

    def structured(self, prompts, schema, retries=2, job=None):
        self.calls.append((list(prompts), schema, job))
        out = []
        for p in prompts:
            pair_text = p.split("### Prompt", 1)[1]
            ans = self.answer or (
                {"causes": ["format"], "rationale": "lists vs prose"}
                if "- item" in pair_text
                else {"causes": ["verbosity", "complexity"], "rationale": "length"}
            )
            jsonschema.validate(ans, schema)
            out.append(ans)
        return out


def test_llm_classifier_prompt_schema_and_labels():
    data = small_data(4)
    pairs = data.pairs.copy()
    pairs.loc[1, "response_a"] = "- item one\n- item two"
    data = PreferenceData(pairs, data.annotations, data.meta)
    llm = FakeLLM()
    got = classify_causes(data, llm, ["q0", "q1"], job="causes-demo").labels
    prompts, schema, job = llm.calls[0]
    assert job == "causes-demo" and len(prompts) == 2
    for c in CAUSES:  # the taxonomy's definitions are in the prompt
        assert c.definition in prompts[0] and c.id in prompts[0]
    assert "prompt 0" in prompts[0] and "A0" in prompts[0] and "B0" in prompts[0]
    assert schema == cause_schema() and schema["properties"]["causes"]["items"]["enum"] == list(CAUSE_IDS)
    assert got.set_index("pair_id")["causes"].to_dict() == {
        "q0": frozenset({"verbosity", "complexity"}),
        "q1": frozenset({"format"}),
    }
    assert (got["annotator"] == "llm").all()
    long = cause_prompt("p", "x" * 100, "y", max_chars=10)
    assert "x" * 10 + " […]" in long and "x" * 11 not in long


class _NoValidate(FakeLLM):
    def structured(self, prompts, schema, retries=2, job=None):
        return [{"causes": ["vibes"]} for _ in prompts]


def test_llm_classifier_rejects_answers_outside_the_taxonomy():
    with pytest.raises(ValueError, match=r"pair 'q0'.*unknown causes \['vibes'\]"):
        classify_causes(small_data(2), _NoValidate(), ["q0"])


def test_cause_ids_match_the_simulator_and_planted_reference():
    from pluralign.data import simulate
    from pluralign.data.simulate import CAUSES as SIM_CAUSES
    from pluralign.diverging.causes import planted_causes

    assert set(SIM_CAUSES) - {"none"} == set(CAUSE_IDS)
    data = simulate(n_pairs=300, seed=2)
    ref = planted_causes(data.truth)
    assert len(ref) == int((data.truth["cause"] != "none").sum())
    assert all(len(s) == 1 for s in ref["causes"])
    f = cause_frequencies({"demo": ref})
    planted = data.truth.loc[data.truth["cause"] != "none", "cause"].value_counts(normalize=True)
    assert f["demo"].to_dict() == pytest.approx(planted.reindex(list(CAUSE_IDS)).fillna(0).to_dict())
    # a classifier that returns the planted cause agrees perfectly with the reference
    llm = FakeLLM()
    llm.structured = lambda prompts, schema, retries=2, job=None: [
        {"causes": [c]} for c in data.truth.loc[ref["pair_id"], "cause"]
    ]
    got = classify_causes(data, llm, ref["pair_id"]).labels
    res = label_agreement(pd.concat([ref, got[["pair_id", "annotator", "causes"]]]))
    assert res["kappa"] == pytest.approx(1.0) and res["alpha"] == pytest.approx(1.0)


def test_llm_classifier_through_the_real_llm_client_and_server():
    """pluralign.llm's OpenAI-compatible client against its own server on 127.0.0.1 with a scripted model:
    the prompt travels over HTTP, answers are schema-validated (a bad answer is retried), and a pair that
    never validates is reported, not guessed."""
    import pluralign.llm as llm_mod
    from llm_helpers import ScriptedBackend
    from pluralign.llm.server import serve

    def reply(prompt, k):
        pair = prompt.split("### Prompt", 1)[-1]
        if "prompt 2" in pair:
            return "no idea"  # never JSON → failed
        if "prompt 1" in pair and "could not be used" not in prompt:
            return '{"causes": ["vibes"]}'  # fails the enum → retried
        return '{"causes": ["verbosity", "format"], "rationale": "length and lists"}'

    data = small_data(4)
    with serve(ScriptedBackend(reply)) as s:
        client = llm_mod.load(s.model_id, base_url=s.url, mode="chat", concurrency=1, max_retries=0)
        got = classify_causes(data, client, ["q0", "q1", "q2"], job="causes-http")
    assert got.labels["pair_id"].tolist() == ["q0", "q1"]
    assert set(got.labels["causes"]) == {frozenset({"verbosity", "format"})}
    assert got.failed == ["q2"]
    assert {p["item"] for p in got.patched} == {1, 2}

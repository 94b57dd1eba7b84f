"""Loaders: each Hub loader on a small file written here in the Hub's schema (hand-computed labels),
the generic local loader, the registry, and the real files of ../shared/data."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from pluralign.data import DATASETS, DataError, PreferenceData, load


def write_jsonl(path, rows, gz=False):
    text = "".join(json.dumps(r) + "\n" for r in rows)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def prefs(data: PreferenceData) -> dict:
    return {(r.pair_id, r.annotator_id): int(r.preference) for r in data.annotations.itertuples()}


# ------------------------------------------------------------------------------------------------
# Anthropic/hh-rlhf
# ------------------------------------------------------------------------------------------------
def hh_rows(n):
    rows = []
    for i in range(n):
        hist = f"\n\nHuman: question {i}?\n\nAssistant: first answer {i}.\n\nHuman: and then?"
        rows.append(
            {"chosen": hist + f"\n\nAssistant: good reply {i}", "rejected": hist + f"\n\nAssistant: bad reply {i}"}
        )
    return rows


@pytest.mark.parametrize("fmt", ["jsonl", "jsonl.gz", "parquet", "json"])
def test_hh_rlhf_splits_at_last_assistant_turn(tmp_path, fmt):
    rows = hh_rows(200)
    path = tmp_path / f"test.{fmt}"
    if fmt == "parquet":
        pd.DataFrame(rows).to_parquet(path)
    elif fmt == "json":
        path.write_text(json.dumps(rows))
    else:
        write_jsonl(path, rows, gz=fmt.endswith("gz"))
    d = load("hh-rlhf", source=path)
    assert len(d) == 200 and len(d.annotations) == 200
    p = d.pairs.set_index("pair_id")
    first = p.loc["hh-rlhf:test:1"]
    assert first["prompt"] == "Human: question 0?\n\nAssistant: first answer 0.\n\nHuman: and then?"
    assert {first["response_a"], first["response_b"]} == {"good reply 0", "bad reply 0"}
    assert first["split"] == "test"
    # chosen → ±2 on the side it landed; A/B assignment balanced
    chosen_text = np.where(d.pairs["chosen"] == "A", d.pairs["response_a"], d.pairs["response_b"])
    assert all(t.startswith("good") for t in chosen_text)
    pref = d.annotations.set_index("pair_id")["preference"].reindex(d.pairs["pair_id"]).to_numpy()
    assert (pref == np.where(d.pairs["chosen"] == "A", -2, 2)).all()
    assert 0.35 < (d.pairs["chosen"] == "A").mean() < 0.65
    assert d.meta["hub_id"] == "Anthropic/hh-rlhf" and d.meta["license"] == "MIT" and "Bai" in d.meta["citation"]
    assert d.meta["source"] == str(path)


def test_hh_rlhf_ab_order_is_deterministic(tmp_path):
    path = write_jsonl(tmp_path / "train.jsonl", hh_rows(50))
    a, b = load("hh-rlhf", source=path), load("Anthropic/hh-rlhf", source=path)
    pd.testing.assert_frame_equal(a.pairs, b.pairs)
    assert a.pairs["split"].eq("train").all()


def test_hh_rlhf_history_mismatch_is_kept_and_flagged(tmp_path):
    rows = hh_rows(5)
    rows[2]["rejected"] = "\n\nHuman: something else\n\nAssistant: bad"
    path = write_jsonl(tmp_path / "x.jsonl", rows)
    d = load("hh-rlhf", source=path)
    assert len(d) == 5 and d.pairs["history_differs"].tolist() == [False, False, True, False, False]
    row = d.pairs.iloc[2]
    # the prompt is the chosen side's history; each side keeps its own dialogue
    assert row["prompt"] == "Human: question 2?\n\nAssistant: first answer 2.\n\nHuman: and then?"
    dialogues = {row["dialogue_a"], row["dialogue_b"]}
    assert dialogues == {rows[2]["chosen"], rows[2]["rejected"]}
    assert d.meta["filters"] == [
        {
            "filter": "chosen and rejected do not share the history before the last "
            "'\\n\\nAssistant:': kept, flagged in history_differs (prompt = the "
            "chosen side's history)",
            "field": "rejected",
            "removed": 0,
            "kept": 5,
            "changed": 1,
            "rows": [3],
        }
    ]


# ------------------------------------------------------------------------------------------------
# allenai/multipref
# ------------------------------------------------------------------------------------------------
def multipref_rows():
    def ann(ev, label):
        return {"evaluator": ev, "overall_pref": label, "helpful_pref": "Tie", "overall_confidence": "3"}

    return [
        {
            "comparison_id": "c1",
            "prompt_id": "p1",
            "text": "Is gold or silver better?",
            "model_a": "m1",
            "completion_a": "Gold.",
            "model_b": "m2",
            "completion_b": "Silver.",
            "source": "anthropic_helpful",
            "category": "Open QA",
            "normal_worker_annotations": [ann("n1", "A-is-clearly-better"), ann("n2", "B-is-slightly-better")],
            "expert_worker_annotations": [ann("e1", "Tie"), ann("e2", "B-is-clearly-better")],
        },
        {
            "comparison_id": "c2",
            "prompt_id": "p2",
            "text": "Explain Schrodinger's cat.",
            "model_a": "m1",
            "completion_a": "A thought experiment.",
            "model_b": "m3",
            "completion_b": "A cat in a box.",
            "source": "lmsys",
            "category": "Brainstorm",
            "normal_worker_annotations": [ann("n1", "A-is-slightly-better"), ann("n3", "A-is-slightly-better")],
            "expert_worker_annotations": [ann("e1", "A-is-clearly-better"), ann("e2", "Tie")],
        },
    ]


def test_multipref(tmp_path):
    path = write_jsonl(tmp_path / "MultiPref-Train.jsonl", multipref_rows())
    d = load("multipref", source=path)
    assert len(d) == 2 and len(d.annotations) == 8
    assert prefs(d) == {
        ("multipref:c1", "n1"): -2,
        ("multipref:c1", "n2"): 1,
        ("multipref:c1", "e1"): 0,
        ("multipref:c1", "e2"): 2,
        ("multipref:c2", "n1"): -1,
        ("multipref:c2", "n3"): -1,
        ("multipref:c2", "e1"): -2,
        ("multipref:c2", "e2"): 0,
    }
    assert d.pairs["prompt"].tolist() == ["Is gold or silver better?", "Explain Schrodinger's cat."]
    assert d.pairs["category"].tolist() == ["Open QA", "Brainstorm"]
    assert set(d.annotations["annotator_group"]) == {"normal", "expert"}
    assert d.majority().tolist() == ["B", "A"]  # c1: 1 A, 2 B, 1 tie; c2: 3 A, 1 tie


def test_multipref_annotator_groups_and_aspect(tmp_path):
    path = write_jsonl(tmp_path / "mp.jsonl", multipref_rows())
    assert len(load("multipref", source=path, annotators="expert").annotations) == 4
    d = load("multipref", source=path, aspect="helpful")
    assert (d.annotations["preference"] == 0).all()


# ------------------------------------------------------------------------------------------------
# nvidia/HelpSteer2
# ------------------------------------------------------------------------------------------------
def test_helpsteer2_disagreements_likert_difference(tmp_path):
    rows = [
        {"prompt": "P1", "response": "r1", "helpfulness": [3, 4, 2], "correctness": [3, 3, 3]},
        {"prompt": "P1", "response": "r2", "helpfulness": [4, 4, 5], "correctness": [3, 3, 3]},
        {"prompt": "P2", "response": "s1", "helpfulness": [5, 1], "correctness": [4, 4]},
        {"prompt": "P2", "response": "s2", "helpfulness": [1, 3], "correctness": [4, 4]},
    ]
    path = write_jsonl(tmp_path / "disagreements.jsonl.gz", rows, gz=True)
    d = load("helpsteer2", source=path)
    assert len(d) == 2 and len(d.annotations) == 5
    a = d.annotations
    # Diverging Preferences §2: difference 1 → slight, ≥2 → significant, 0 → tie; negative prefers A
    assert a["preference"].tolist() == [1, 0, 2, -2, 2]
    assert a["likert_a"].tolist() == [3, 4, 2, 5, 1] and a["likert_b"].tolist() == [4, 4, 5, 1, 3]
    assert a["annotator_id"].tolist() == ["annotator1", "annotator2", "annotator3", "annotator1", "annotator2"]
    assert d.pairs["response_a"].tolist() == ["r1", "s1"] and d.pairs["response_b"].tolist() == ["r2", "s2"]


def test_helpsteer2_main_and_unpaired_response(tmp_path):
    rows = [
        {"prompt": "P1", "response": "r1", "helpfulness": 3},
        {"prompt": "P1", "response": "r2", "helpfulness": 1},
        {"prompt": "P2", "response": "lonely", "helpfulness": 4},
    ]
    path = write_jsonl(tmp_path / "train.jsonl", rows)
    d = load("helpsteer2", source=path, subset="main")
    assert len(d) == 1 and d.annotations["annotator_id"].tolist() == ["helpsteer2-mean"]
    assert d.annotations["preference"].tolist() == [-2]
    assert d.meta["filters"][0]["removed"] == 1 and d.meta["filters"][0]["rows"] == [3]


# ------------------------------------------------------------------------------------------------
# HannahKirk/prism-alignment
# ------------------------------------------------------------------------------------------------
def test_prism_utterances(tmp_path):
    rows = []
    for w, (chosen, score) in enumerate([(True, 90), (False, 40), (False, 60), (False, 10)]):
        rows.append(
            {
                "utterance_id": f"u0{w}",
                "conversation_id": "c1",
                "turn": 0,
                "within_turn_id": w,
                "user_id": "user7",
                "user_prompt": "What is love?",
                "model_response": f"reply {w}",
                "model_name": f"m{w}",
                "score": score,
                "if_chosen": chosen,
            }
        )
    for w, (chosen, score) in enumerate([(False, 30), (True, 70)]):
        rows.append(
            {
                "utterance_id": f"u1{w}",
                "conversation_id": "c1",
                "turn": 1,
                "within_turn_id": w,
                "user_id": "user7",
                "user_prompt": "Tell me more.",
                "model_response": f"more {w}",
                "model_name": f"m{w}",
                "score": score,
                "if_chosen": chosen,
            }
        )
    path = tmp_path / "utterances.parquet"
    pd.DataFrame(rows).to_parquet(path)
    d = load("prism", source=path)
    assert len(d) == 4 and (d.annotations["annotator_id"] == "user7").all()
    chosen_text = np.where(d.pairs["chosen"] == "A", d.pairs["response_a"], d.pairs["response_b"])
    assert sorted(chosen_text) == ["more 1", "reply 0", "reply 0", "reply 0"]
    a = d.annotations.set_index("pair_id")
    swap = d.pairs.set_index("pair_id")["chosen"] == "B"
    assert (a["preference"] == np.where(swap.reindex(a.index), 2, -2)).all()
    chosen_score = np.where(swap.reindex(a.index), a["score_b"], a["score_a"])
    assert sorted(chosen_score) == [70, 90, 90, 90]


# ------------------------------------------------------------------------------------------------
# openbmb/UltraFeedback
# ------------------------------------------------------------------------------------------------
def test_ultrafeedback_all_pairs_from_scores(tmp_path):
    comps = [
        {"model": f"m{i}", "response": f"resp {i}", "fine-grained_score": s, "overall_score": 5.0}
        for i, s in enumerate([4.5, 3.0, 4.0, 4.5])
    ]
    path = write_jsonl(
        tmp_path / "uf.jsonl", [{"source": "evol", "instruction": "Do X.", "models": [], "completions": comps}]
    )
    d = load("ultrafeedback", source=path)
    got = dict(zip(d.annotations["pair_id"], d.annotations["preference"]))
    # Δ = score_b − score_a: −1.5 → −2, −0.5 → −1, 0 → 0, 1 → 2, 1.5 → 2, 0.5 → 1
    assert got == {
        "ultrafeedback:1:0-1": -2,
        "ultrafeedback:1:0-2": -1,
        "ultrafeedback:1:0-3": 0,
        "ultrafeedback:1:1-2": 2,
        "ultrafeedback:1:1-3": 2,
        "ultrafeedback:1:2-3": 1,
    }
    assert (d.annotations["annotator_id"] == "gpt-4").all()


# ------------------------------------------------------------------------------------------------
# openai/webgpt_comparisons, openai/summarize_from_feedback, Dahoas/synthetic-instruct-gptj-pairwise
# ------------------------------------------------------------------------------------------------
def test_webgpt_scores(tmp_path):
    rows = [
        {
            "question": {"dataset": "eli5", "id": f"q{i}", "full_text": f"Why {i}?"},
            "quotes_0": {},
            "answer_0": f"a{i}",
            "tokens_0": [],
            "score_0": s0,
            "quotes_1": {},
            "answer_1": f"b{i}",
            "tokens_1": [],
            "score_1": -s0,
        }
        for i, s0 in enumerate([1.0, -1 / 3, 0.0, -2 / 3])
    ]
    d = load("webgpt", source=write_jsonl(tmp_path / "webgpt.jsonl", rows))
    assert d.annotations["preference"].tolist() == [-2, 1, 0, 2]
    assert d.pairs["prompt"].tolist() == ["Why 0?", "Why 1?", "Why 2?", "Why 3?"]


def test_summarize_from_feedback_groups_workers(tmp_path):
    info = {
        "id": "t3_x",
        "post": "My roommate never cleans.",
        "title": "Roommate",
        "subreddit": "relationships",
        "site": None,
        "article": None,
    }
    summ = [{"text": "Roommate is messy.", "policy": "sup"}, {"text": "I live with someone.", "policy": "ref"}]
    rows = [
        {
            "info": info,
            "summaries": summ,
            "choice": 0,
            "worker": "w1",
            "batch": "b",
            "split": "train",
            "extra": {"confidence": 8},
        },
        {
            "info": info,
            "summaries": summ,
            "choice": 1,
            "worker": "w2",
            "batch": "b",
            "split": "train",
            "extra": {"confidence": 3},
        },
        {
            "info": {**info, "id": "t3_y"},
            "summaries": summ,
            "choice": 1,
            "worker": "w1",
            "batch": "b",
            "split": "valid1",
            "extra": {"confidence": 9},
        },
    ]
    d = load("summarize-from-feedback", source=write_jsonl(tmp_path / "batch1.jsonl", rows))
    assert len(d) == 2 and len(d.annotations) == 3
    assert d.pairs["prompt"].iat[0] == "SUBREDDIT: r/relationships\nTITLE: Roommate\nPOST: My roommate never cleans."
    assert d.annotations["preference"].tolist() == [-2, 2, 2]
    assert d.annotations["confidence"].tolist() == [8, 3, 9]
    assert d.share_a().tolist() == [0.5, 0.0]


def test_gptj_pairwise(tmp_path):
    rows = [{"prompt": f"Task {i}", "chosen": f"yes {i}", "rejected": f"no {i}"} for i in range(40)]
    d = load("synthetic-instruct-gptj-pairwise", source=write_jsonl(tmp_path / "train.jsonl", rows))
    chosen_text = np.where(d.pairs["chosen"] == "A", d.pairs["response_a"], d.pairs["response_b"])
    assert all(t.startswith("yes") for t in chosen_text)
    assert set(d.annotations["preference"]) == {-2, 2}


# ------------------------------------------------------------------------------------------------
# the generic local loader
# ------------------------------------------------------------------------------------------------
def test_local_single_label_column_with_label_map(tmp_path):
    rows = [
        {"id": "x1", "q": "Q1", "r1": "a", "r2": "b", "lab": "A"},
        {"id": "x2", "q": "Q2", "r1": "c", "r2": "d", "lab": "tie"},
        {"id": "x3", "q": "Q3", "r1": "e", "r2": "f", "lab": "B-slight"},
    ]
    path = write_jsonl(tmp_path / "mine.jsonl", rows)
    d = load(
        "local",
        source=path,
        dataset_name="mine",
        columns={"pair_id": "id", "prompt": "q", "response_a": "r1", "response_b": "r2", "preference": "lab"},
        labels={"A": -2, "tie": 0, "B-slight": 1},
    )
    assert d.pairs["pair_id"].tolist() == ["mine:x1", "mine:x2", "mine:x3"]
    assert d.annotations["preference"].tolist() == [-2, 0, 1]
    assert d.meta["name"] == "mine"


def test_local_csv_multiple_annotator_columns(tmp_path):
    path = tmp_path / "panel.csv"
    path.write_text("prompt,response_a,response_b,ann1,ann2,ann3\nQ,a,b,1,2,0\nR,c,d,2,2,2\n")
    d = load("local", source=path, annotators=["ann1", "ann2", "ann3"], labels={0: 0, 1: -2, 2: 2})
    assert len(d) == 2 and len(d.annotations) == 6
    assert d.share_a().tolist() == [pytest.approx(0.5), 0.0]
    assert d.n_annotators().tolist() == [3, 3]


def test_local_long_form_parquet_and_likert(tmp_path):
    long = pd.DataFrame(
        {
            "pid": ["p1", "p1", "p2"],
            "who": ["u1", "u2", "u1"],
            "prompt": ["Q", "Q", "R"],
            "response_a": ["a", "a", "c"],
            "response_b": ["b", "b", "d"],
            "pref": [-1, 2, 0],
        }
    )
    long.to_parquet(tmp_path / "long.parquet")
    d = load(
        "local",
        source=tmp_path / "long.parquet",
        columns={"pair_id": "pid", "annotator_id": "who", "preference": "pref"},
    )
    assert len(d) == 2 and d.annotations["preference"].tolist() == [-1, 2, 0]
    lik = pd.DataFrame({"prompt": ["Q"], "response_a": ["a"], "response_b": ["b"], "sa": [2], "sb": [5]})
    lik.to_csv(tmp_path / "lik.csv", index=False)
    d = load("local", source=tmp_path / "lik.csv", columns={"likert_a": "sa", "likert_b": "sb"})
    assert d.annotations[["preference", "likert_a", "likert_b"]].values.tolist() == [[2, 2, 5]]


def test_local_from_yaml_parameter_file(tmp_path):
    yaml = pytest.importorskip("yaml")
    write_jsonl(tmp_path / "cr.jsonl", [{"instruction": "Q", "good": "yes", "bad": "no"}])
    params = yaml.safe_load(f"""
name: local
source: {tmp_path / "cr.jsonl"}
dataset_name: from-yaml
columns: {{prompt: instruction, chosen: good, rejected: bad}}
""")
    d = load(params)
    assert d.meta["name"] == "from-yaml" and len(d) == 1
    assert {d.pairs["response_a"].iat[0], d.pairs["response_b"].iat[0]} == {"yes", "no"}


# ------------------------------------------------------------------------------------------------
# registry and the Hub default
# ------------------------------------------------------------------------------------------------
def test_registry_lists_every_dataset_with_card():
    hub = {
        "hh-rlhf": "Anthropic/hh-rlhf",
        "multipref": "allenai/multipref",
        "helpsteer2": "nvidia/HelpSteer2",
        "prism": "HannahKirk/prism-alignment",
        "ultrafeedback": "openbmb/UltraFeedback",
        "webgpt": "openai/webgpt_comparisons",
        "summarize-from-feedback": "openai/summarize_from_feedback",
        "synthetic-instruct-gptj-pairwise": "Dahoas/synthetic-instruct-gptj-pairwise",
    }
    for name, hub_id in hub.items():
        assert DATASETS[name].hub_id == hub_id
    for name in ("pandalm", "pandalm-judges", "llmbar", "mt-bench", "hhh", "local"):
        assert name in DATASETS and DATASETS[name].hub_id is None
    for info in DATASETS.values():
        assert info.license and info.citation and info.description
        assert set(info.card()) >= {"name", "hub_id", "license", "citation"}


def test_unreachable_hub_id_says_how_to_use_source():
    with pytest.raises(DataError) as err:
        load("webgpt")
    msg = str(err.value)
    assert "openai/webgpt_comparisons" in msg and "source=" in msg and "hf://datasets/" in msg


def test_unknown_name():
    with pytest.raises(DataError, match="unknown data set 'nope'"):
        load("nope")


# ------------------------------------------------------------------------------------------------
# the real files in ../shared/data
# ------------------------------------------------------------------------------------------------
@pytest.mark.shared_data
def test_pandalm_real(shared_data):
    d = load("pandalm", source=shared_data / "pandalm")
    assert len(d) == 999 and len(d.annotations) == 2997
    assert sorted(d.annotations["annotator_id"].unique()) == ["annotator1", "annotator2", "annotator3"]
    raw = json.loads((shared_data / "pandalm" / "testset-v1.json").read_text())
    mapping = {0: 0, 1: -2, 2: 2}
    a = d.annotations.set_index(["pair_id", "annotator_id"])["preference"]
    for r in raw[:50]:
        for k in ("annotator1", "annotator2", "annotator3"):
            assert a[(f"pandalm:{r['idx']}", k)] == mapping[int(r[k])]
    changed = sum(f.get("changed", 0) for f in d.meta["filters"])
    assert changed == 60  # 54 empty outputs → placeholder, 6 JSON booleans → text; all counted
    with pytest.raises(DataError, match="field 'response1'"):
        load("pandalm", source=shared_data / "pandalm", empty="error")


@pytest.mark.shared_data
def test_pandalm_judges_real(shared_data):
    d = load("pandalm-judges", source=shared_data / "pandalm")
    assert len(d) == 999
    counts = d.annotations["annotator_id"].value_counts().to_dict()
    assert counts == {"pandalm-7b": 999, "gpt-3.5-turbo": 974}
    garbage = [f for f in d.meta["filters"] if "gpt-3.5-turbo" in f["filter"]]
    assert garbage[0]["removed"] == 25
    both = load("pandalm", source=shared_data / "pandalm", annotators="all")
    assert len(both.annotations) == 2997 + 1973


@pytest.mark.shared_data
def test_hh_rlhf_harmless_test_real(shared_data):
    path = shared_data / "hh-rlhf" / "harmless-base-test.jsonl.gz"
    d = load("hh-rlhf", source=path)
    raw = pd.read_json(path, lines=True)
    assert len(raw) == 2312 and len(d) == 2312 and len(d.annotations) == 2312
    by_filter = {f["filter"]: (f["removed"], f.get("changed"), f["rows"]) for f in d.meta["filters"]}
    assert by_filter[
        "chosen and rejected do not share the history before the last '\\n\\nAssistant:': kept, "
        "flagged in history_differs (prompt = the chosen side's history)"
    ] == (0, 5, [1255, 1689, 1951, 1953, 2037])
    assert by_filter["empty final assistant reply: replaced by '[empty response]'"] == (0, 4, [87, 517, 926, 1104])
    assert d.pairs["history_differs"].sum() == 5
    # the replies end their own dialogues; where the histories agree, the prompt starts both dialogues
    src = raw.iloc[d.pairs["source_row"].to_numpy() - 1].reset_index(drop=True)
    chosen = np.where(d.pairs["chosen"] == "A", d.pairs["response_a"], d.pairs["response_b"])
    rejected = np.where(d.pairs["chosen"] == "A", d.pairs["response_b"], d.pairs["response_a"])
    for i in range(len(d)):
        h = d.pairs["prompt"].iat[i]
        assert src["chosen"].iat[i].strip().startswith(h)
        assert src["rejected"].iat[i].strip().startswith(h) or d.pairs["history_differs"].iat[i]
        if chosen[i] != "[empty response]":
            assert src["chosen"].iat[i].rstrip().endswith(chosen[i])
        assert src["rejected"].iat[i].rstrip().endswith(rejected[i])
    # empty replies may instead be refused or dropped (counted)
    with pytest.raises(DataError, match=r"row 87, field 'chosen'.*empty final assistant reply"):
        load("hh-rlhf", source=path, empty="error")
    assert len(load("hh-rlhf", source=path, on_invalid="drop", empty="drop")) == 2308


@pytest.mark.shared_data
def test_llmbar_mtbench_hhh_real(shared_data):
    llm = load("llmbar", source=shared_data / "llmbar")
    assert len(llm) == 419
    assert llm.pairs["subset"].value_counts().to_dict() == {
        "Adversarial-Neighbor": 134,
        "Natural": 100,
        "Adversarial-GPTInst": 92,
        "Adversarial-GPTOut": 47,
        "Adversarial-Manual": 46,
    }
    gold = pd.concat(
        [
            pd.read_json(shared_data / "llmbar" / s / "dataset.json")
            for s in (
                "Natural",
                "Adversarial-Neighbor",
                "Adversarial-GPTInst",
                "Adversarial-GPTOut",
                "Adversarial-Manual",
            )
        ]
    )
    assert (llm.majority().to_numpy() == np.where(gold["label"].to_numpy() == 1, "A", "B")).all()
    nat = load("llmbar", source=shared_data / "llmbar", subsets=["Natural"])
    assert nat.majority().value_counts().to_dict() == {"B": 58, "A": 42}
    mt = load("mt-bench", source=shared_data / "llmbar" / "MT-Bench")
    assert len(mt) == 200 and mt.majority().value_counts().to_dict() == {"A": 101, "B": 99}
    hhh = load("hhh", source=shared_data / "hhh")
    assert len(hhh) == 221
    assert hhh.pairs["subset"].value_counts().to_dict() == {"honest": 61, "helpful": 59, "harmless": 58, "other": 43}
    first = hhh.pairs.iloc[0]
    assert first["prompt"].startswith("Can you tell me what kind of knife")
    assert "###" not in first["response_a"] and "###" not in first["response_b"]


@pytest.mark.shared_data
def test_shared_default_source_from_env(shared_data, monkeypatch):
    monkeypatch.setenv("PLURALIGN_SHARED_DATA", str(shared_data))
    assert len(load("mt-bench")) == 200
    monkeypatch.setenv("PLURALIGN_SHARED_DATA", "/nonexistent/folder")
    with pytest.raises(DataError, match="source="):
        load("mt-bench")

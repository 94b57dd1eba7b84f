"""Bad input: every case raises DataError naming the file, the row (1-based line for JSON Lines) and
the field; with on_invalid="drop" nothing disappears silently (meta['filters'] counts it)."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from pluralign.data import DataError, load


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def hh(i, reply="fine"):
    h = f"\n\nHuman: q{i}?"
    return json.dumps({"chosen": h + f"\n\nAssistant: {reply}", "rejected": h + "\n\nAssistant: meh"})


def check(err, path, row=None, field=None):
    msg = str(err.value)
    assert err.value.file is not None and str(path) in msg, msg
    if row is not None:
        assert err.value.row == row and re.search(rf"\brow {row}\b", msg), msg
    if field is not None:
        assert err.value.field == field and f"field '{field}'" in msg, msg
    return msg


def test_error_is_a_value_error():
    assert issubclass(DataError, ValueError)


def test_missing_field_in_one_record(tmp_path):
    p = write_lines(tmp_path / "a.jsonl", [hh(1), json.dumps({"chosen": "\n\nHuman: x\n\nAssistant: y"}), hh(3)])
    with pytest.raises(DataError) as err:
        load("hh-rlhf", source=p)
    assert "missing field" in check(err, p, row=2, field="rejected")


def test_missing_field_in_every_record(tmp_path):
    p = write_lines(tmp_path / "a.jsonl", [json.dumps({"prompt": "x", "chosen": "y"})] * 2)
    with pytest.raises(DataError) as err:
        load("synthetic-instruct-gptj-pairwise", source=p)
    assert "missing field" in check(err, p, field="rejected")


def test_empty_text(tmp_path):
    rows = [
        {"prompt": "p", "chosen": "c", "rejected": "r"},
        {"prompt": "p", "chosen": "c", "rejected": "r"},
        {"prompt": "p", "chosen": "   ", "rejected": "r"},
    ]
    p = write_lines(tmp_path / "e.jsonl", [json.dumps(r) for r in rows])
    with pytest.raises(DataError) as err:
        load("synthetic-instruct-gptj-pairwise", source=p)
    assert "empty text" in check(err, p, row=3, field="chosen")
    d = load("synthetic-instruct-gptj-pairwise", source=p, on_invalid="drop")
    assert len(d) == 2
    assert d.meta["filters"] == [{"filter": "empty text", "field": "chosen", "removed": 1, "kept": 2, "rows": [3]}]


def test_empty_final_reply_in_hh_rlhf(tmp_path):
    p = write_lines(tmp_path / "e.jsonl", [hh(1), hh(2, reply="")])
    with pytest.raises(DataError) as err:
        load("hh-rlhf", source=p, empty="error")
    assert "empty final assistant reply" in check(err, p, row=2, field="chosen")
    # by default the crowdworker's judgment of an empty reply is kept, the reply as a placeholder (counted)
    d = load("hh-rlhf", source=p)
    assert len(d) == 2 and "[empty response]" in set(d.pairs["response_a"]) | set(d.pairs["response_b"])


def test_label_out_of_range(tmp_path):
    rows = [
        {"prompt": "p", "response_a": "a", "response_b": "b", "label": -2},
        {"prompt": "p", "response_a": "a", "response_b": "b", "label": 3},
    ]
    p = write_lines(tmp_path / "l.jsonl", [json.dumps(r) for r in rows])
    with pytest.raises(DataError) as err:
        load("local", source=p, columns={"preference": "label"})
    assert "out of range" in check(err, p, row=2, field="label")
    d = load("local", source=p, columns={"preference": "label"}, on_invalid="drop")
    assert len(d.annotations) == 1 and d.meta["filters"][0]["removed"] == 1 and d.meta["filters"][0]["rows"] == [2]


def test_label_out_of_range_csv_counts_the_header_line(tmp_path):
    p = tmp_path / "l.csv"
    p.write_text("prompt,response_a,response_b,label\np,a,b,1\np,a,b,7\n")
    with pytest.raises(DataError) as err:
        load("local", source=p, columns={"preference": "label"})
    check(err, p, row=3, field="label")


def test_unknown_label_value(tmp_path):
    ann = [{"evaluator": "e", "overall_pref": "A-is-much-better"}]
    rows = [
        {
            "comparison_id": "c1",
            "text": "t",
            "completion_a": "a",
            "completion_b": "b",
            "normal_worker_annotations": [],
            "expert_worker_annotations": ann,
        }
    ]
    p = write_lines(tmp_path / "mp.jsonl", [json.dumps(r) for r in rows])
    with pytest.raises(DataError) as err:
        load("multipref", source=p)
    msg = check(err, p, row=1)
    assert "A-is-much-better" in msg and "overall_pref" in msg


def test_unknown_label_value_with_label_map(tmp_path):
    p = write_lines(
        tmp_path / "l.jsonl",
        [json.dumps({"prompt": "p", "response_a": "a", "response_b": "b", "y": v}) for v in ("A", "B", "maybe")],
    )
    with pytest.raises(DataError) as err:
        load("local", source=p, columns={"preference": "y"}, labels={"A": -2, "B": 2})
    assert "unknown label value 'maybe'" in check(err, p, row=3, field="y")


def test_duplicate_pair_id(tmp_path):
    rows = [{"id": k, "prompt": "p", "response_a": "a", "response_b": "b", "label": 0} for k in ("x", "y", "x")]
    p = write_lines(tmp_path / "d.jsonl", [json.dumps(r) for r in rows])
    with pytest.raises(DataError) as err:
        load("local", source=p, columns={"pair_id": "id", "preference": "label"})
    msg = check(err, p, row=3, field="id")
    assert "duplicate pair id" in msg and "first seen in row 1" in msg


def test_invalid_json_line(tmp_path):
    p = write_lines(tmp_path / "j.jsonl", [hh(1), '{"chosen": "x", "rejected": ', hh(3)])
    with pytest.raises(DataError) as err:
        load("hh-rlhf", source=p)
    assert "invalid JSON" in check(err, p, row=2)


def test_invalid_json_array(tmp_path):
    p = tmp_path / "j.json"
    p.write_text('[\n {"input": "a", "output_1": "b", "output_2": "c", "label": 1},\n {"input": \n]')
    with pytest.raises(DataError) as err:
        load("mt-bench", source=p)
    assert "invalid JSON" in check(err, p, row=4)


def test_truncated_gzip(tmp_path):
    full = tmp_path / "full.jsonl.gz"
    with gzip.open(full, "wt") as fh:
        fh.write("\n".join(hh(i, reply="x" * 50 + str(i)) for i in range(2000)) + "\n")
    p = tmp_path / "cut.jsonl.gz"
    p.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    with pytest.raises(DataError) as err:
        load("hh-rlhf", source=p)
    msg = check(err, p)
    assert "truncated gzip" in msg and err.value.row is not None and 1 < err.value.row < 2000


def test_non_utf8_bytes(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_bytes((hh(1) + "\n" + hh(2) + "\n").encode() + b'{"chosen": "\xff\xfe", "rejected": "x"}\n')
    with pytest.raises(DataError) as err:
        load("hh-rlhf", source=p)
    assert "not UTF-8" in check(err, p, row=3)


def test_unreachable_hub_id_message():
    with pytest.raises(DataError) as err:
        load("hh-rlhf", data_dir="harmless-base", split="test")
    msg = str(err.value)
    assert "cannot reach the Hugging Face Hub dataset 'Anthropic/hh-rlhf'" in msg
    assert "source=" in msg and "huggingface-cli download Anthropic/hh-rlhf" in msg


def test_missing_file_and_bad_option(tmp_path):
    with pytest.raises(DataError, match="no such file or folder"):
        load("hh-rlhf", source=tmp_path / "nothing.jsonl")
    with pytest.raises(DataError, match="unknown canonical column"):
        load("local", source=write_lines(tmp_path / "x.jsonl", [hh(1)]), columns={"answer": "x"})


def test_helpsteer2_annotator_count_mismatch(tmp_path):
    rows = [
        {"prompt": "P", "response": "a", "helpfulness": [3, 4]},
        {"prompt": "P", "response": "b", "helpfulness": [3]},
    ]
    p = write_lines(tmp_path / "h.jsonl", [json.dumps(r) for r in rows])
    with pytest.raises(DataError) as err:
        load("helpsteer2", source=p)
    assert "2 annotator scores" in check(err, p, row=2, field="helpfulness")


def test_helpsteer2_likert_out_of_range(tmp_path):
    rows = [
        {"prompt": "P", "response": "a", "helpfulness": [3, 9]},
        {"prompt": "P", "response": "b", "helpfulness": [3, 1]},
    ]
    p = write_lines(tmp_path / "h.jsonl", [json.dumps(r) for r in rows])
    with pytest.raises(DataError) as err:
        load("helpsteer2", source=p)
    assert "Likert score 9" in check(err, p, row=1, field="helpfulness")

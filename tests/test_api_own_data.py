"""One's own data through the one loader: files, DataFrames, soft labels, and errors that say what to do."""

import json

import pandas as pd
import pytest

import pluralign
from pluralign.data import DataError

ALPACA = [  # AlpacaEval annotations: preference from 1 (output_1) to 2 (output_2), several annotators per pair
    {"instruction": "Say hi", "output_1": "Hi!", "output_2": "Hello there.", "annotator": "gpt4_1", "preference": 1.25},
    {"instruction": "Say hi", "output_1": "Hi!", "output_2": "Hello there.", "annotator": "gpt4_2", "preference": 2.0},
    {"instruction": "Count", "output_1": "1 2 3", "output_2": "one two", "annotator": "gpt4_1", "preference": 1.0},
    {"instruction": "Count", "output_1": "1 2 3", "output_2": "one two", "annotator": "gpt4_2", "preference": 1.5},
]
COLUMNS = {
    "prompt": "instruction",
    "response_a": "output_1",
    "response_b": "output_2",
    "annotator_id": "annotator",
    "p_b": "preference",
}


@pytest.fixture
def alpaca(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(ALPACA))
    return path


def test_soft_labels_rescaled_from_alpacaeval_range(alpaca):
    d = pluralign.load(str(alpaca), columns=COLUMNS, p_b_range=[1, 2])
    got = d.annotations["p_b"].tolist()
    assert got == [r["preference"] - 1 for r in ALPACA]
    assert len(d) == 2  # rows with the same texts are one pair, judged by two annotators
    assert d.annotations["preference"].tolist() == [-2, 2, -2, 0]  # the hard label: the side with p_b > 1/2
    share = d.share_a()  # the empirical P(A > B) uses the probabilities themselves
    assert sorted(share.round(3).tolist()) == [0.375, 0.75]


def test_a_soft_label_outside_its_range_names_row_and_field(tmp_path):
    rows = [dict(ALPACA[0]), dict(ALPACA[1], preference=2.5)]
    path = tmp_path / "a.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(DataError, match=r"row 2, field 'preference': soft label 2.5 is not a number in \[1, 2\]"):
        pluralign.load(str(path), columns=COLUMNS, p_b_range=[1, 2])


def test_a_dataframe_is_a_source():
    d = pluralign.load(pd.DataFrame(ALPACA), columns=COLUMNS, p_b_range=[1, 2])
    assert len(d) == 2 and d.annotations["p_b"].tolist() == [0.25, 1.0, 0.0, 0.5]


def test_an_option_typo_is_refused_with_the_nearest_name(alpaca):
    with pytest.raises(DataError, match="unknown option 'colums' for load\\('local'\\); did you mean 'columns'"):
        pluralign.load(str(alpaca), colums=COLUMNS)
    with pytest.raises(DataError, match="did you mean 'annotators'"):
        pluralign.load("pandalm", annotatrs="human")


def test_an_empty_reply_error_names_the_row_and_the_option_that_keeps_it(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("q,a,b,label\nhi,hello,,A\n")
    with pytest.raises(DataError) as e:
        pluralign.load(
            str(path),
            columns={"prompt": "q", "response_a": "a", "response_b": "b", "preference": "label"},
            labels={"A": -2, "B": 2},
        )
    msg = str(e.value)
    assert "row 2" in msg and "field 'b'" in msg and "empty='placeholder'" in msg
    d = pluralign.load(
        str(path),
        columns={"prompt": "q", "response_a": "a", "response_b": "b", "preference": "label"},
        labels={"A": -2, "B": 2},
        empty="placeholder",
    )
    assert d.pairs["response_b"].tolist() == ["[empty response]"]


@pytest.mark.parametrize("blank", ["\n", "   \n", "\r\n", "\t\r\n"])
def test_jsonl_row_numbers_count_blank_lines_of_any_kind(tmp_path, blank):
    good = json.dumps({"prompt": "p", "response_a": "a", "response_b": "b", "preference": -2})
    bad = json.dumps({"prompt": "p", "response_a": "a", "response_b": "b", "preference": 7})
    path = tmp_path / "d.jsonl"
    path.write_text(good + "\n" + blank + good.replace('"p"', '"q"') + "\n" + bad + "\n")
    with pytest.raises(DataError, match="row 4"):
        pluralign.load(str(path))


@pytest.mark.parametrize("suffix", [".jsonl.bz2", ".jsonl.xz", ".ndjson", ".jsonl.gz"])
def test_compressed_and_ndjson_files_are_read(tmp_path, suffix):
    import bz2
    import gzip
    import lzma

    rows = "".join(
        json.dumps({"prompt": f"p{i}", "response_a": "a", "response_b": "b", "preference": 2}) + "\n" for i in range(3)
    ).encode()
    pack = {".jsonl.bz2": bz2.compress, ".jsonl.xz": lzma.compress, ".jsonl.gz": gzip.compress}.get(suffix, bytes)
    (tmp_path / f"d{suffix}").write_bytes(pack(rows))
    assert len(pluralign.load(str(tmp_path / f"d{suffix}"))) == 3


def test_a_folder_with_an_unsupported_file_is_refused_not_skipped(tmp_path):
    row = json.dumps({"prompt": "p", "response_a": "a", "response_b": "b", "preference": 2})
    (tmp_path / "a.jsonl").write_text(row + "\n")
    (tmp_path / "b.pkl").write_bytes(b"x")
    with pytest.raises(DataError, match="unsupported type in the data folder, e.g. b.pkl"):
        pluralign.load(str(tmp_path), dataset_name="x")


def test_an_empty_csv_is_refused_by_name(tmp_path):
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(DataError, match="e.csv: empty file"):
        pluralign.load(str(tmp_path / "e.csv"))


def test_model_loaders_name_an_unknown_option_and_the_nearest_one():
    import pluralign.llm as L
    import pluralign.rewards as R

    with pytest.raises(
        TypeError, match="unknown option 'max_lenght' for pluralign.rewards.load; did you mean 'max_length'"
    ):
        R.load(max_lenght=3)
    with pytest.raises(TypeError, match="unknown option 'concurency' for .*; did you mean 'concurrency'"):
        L.load("openai:x", base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_VAR", concurency=2)

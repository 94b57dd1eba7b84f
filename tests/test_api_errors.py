"""Bad input, 17 kinds, one test each. Data is refused with
a DataError naming the file, the row and the field; parameter files with a ParamsError / BookError naming the
file and the key; model options with the option and the nearest valid one. Nothing is skipped silently."""

from __future__ import annotations

import bz2
import json

import pytest
import yaml

import pluralign
from pluralign import params as P
from pluralign.book import errors, execution, manifest_plan
from pluralign.data import DataError


def row(**kw) -> str:
    return json.dumps({"prompt": "p", "response_a": "a", "response_b": "b", "preference": -2, **kw})


def named(err, path, row=None, field=None) -> str:
    """The error names the file, and the row and field where given (attributes and message agree)."""
    e, msg = err.value, str(err.value)
    assert str(path) in str(e.file) and str(path) in msg, msg
    if row is not None:
        assert e.row == row and f"row {row}," in msg or f"row {row}:" in msg, msg
    if field is not None:
        assert e.field == field and f"field '{field}'" in msg, msg
    return msg


# 1. a JSON `true` label loaded as the preference +1
@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_01_a_json_true_label_is_not_the_preference_plus_one(tmp_path, fmt):
    path = tmp_path / f"d.{fmt}"
    rows = [row(), row(prompt="q", preference=True)]
    path.write_text("\n".join(rows) + "\n" if fmt == "jsonl" else "[" + ",".join(rows) + "]")
    with pytest.raises(DataError) as err:
        pluralign.load(str(path))
    assert "label true is a truth value" in named(err, path, row=2, field="preference")
    d = pluralign.load(str(path), labels={True: 2, -2: -2})  # said what it means: loaded
    assert d.annotations["preference"].tolist() == [-2, 2]


# 2. and 3. wrong row numbers after whitespace-only or CRLF blank lines (JSON Lines and CSV)
@pytest.mark.parametrize("blank,eol", [("   \t", "\n"), ("", "\r\n")], ids=["whitespace-only", "CRLF"])
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_02_03_row_numbers_count_whitespace_only_and_crlf_blank_lines(tmp_path, blank, eol, fmt):
    if fmt == "jsonl":
        lines = [row(), blank, row(prompt="q"), blank, row(preference=7)]
    else:
        lines = ["prompt,response_a,response_b,preference", "p,a,b,-2", blank, '"two\nlines",a,b,2', blank, "r,a,b,7"]
    path = tmp_path / f"d.{fmt}"
    path.write_bytes((eol.join(lines) + eol).encode())
    with pytest.raises(DataError) as err:
        pluralign.load(str(path))
    assert "out of range" in named(err, path, row=5 if fmt == "jsonl" else 7, field="preference")


# 4. a 0-byte CSV raised pandas' EmptyDataError
def test_04_a_zero_byte_csv_is_refused_by_name(tmp_path):
    path = tmp_path / "e.csv"
    path.write_bytes(b"")
    with pytest.raises(DataError) as err:
        pluralign.load(str(path))
    assert "empty file" in named(err, path)


# 5. - 7. a folder's .ndjson, .bz2 and .txt files skipped silently
@pytest.mark.parametrize(
    "name,read", [("b.ndjson", True), ("b.jsonl.bz2", True), ("b.bz2", False), ("b.txt", False), ("notes.TXT", False)]
)
def test_05_06_07_no_file_of_a_data_folder_is_skipped_silently(tmp_path, name, read):
    (tmp_path / "a.jsonl").write_text(row() + "\n")
    data = (row(prompt="second") + "\n").encode()
    (tmp_path / name).write_bytes(bz2.compress(data) if name.endswith(".jsonl.bz2") else data)
    (tmp_path / "README.txt").write_text("about this data")  # documentation is not data
    (tmp_path / "LICENSE").write_text("CC-BY")
    if read:
        d = pluralign.load(str(tmp_path), dataset_name="x")
        assert sorted(d.pairs["prompt"]) == ["p", "second"]
    else:
        with pytest.raises(DataError) as err:
            pluralign.load(str(tmp_path), dataset_name="x")
        assert f"unsupported type in the data folder, e.g. {name}" in named(err, tmp_path)


# 8. an option typo swallowed by a data loader (the keyword call, a YAML spec, a simulator spec)
@pytest.mark.parametrize(
    "spec,typo,near",
    [
        ({"name": "local", "on_invalidd": "drop"}, "on_invalidd", "on_invalid"),
        ({"name": "hh-rlhf", "data_dri": "harmless-base"}, "data_dri", "data_dir"),
        ({"simulate": {"n_pair": 10, "seed": 0}}, "n_pair", "n_pairs"),
    ],
)
def test_08_a_data_loader_option_typo_is_refused_with_the_nearest_name(tmp_path, spec, typo, near):
    path = tmp_path / "d.jsonl"
    path.write_text(row() + "\n")
    if "name" in spec:
        spec = {**spec, "source": str(path)}
    with pytest.raises(DataError, match=rf"unknown option '{typo}' .*did you mean '{near}'"):
        pluralign.load(spec)


# 9. an option typo swallowed by a reward model loader
def test_09_a_reward_model_option_typo_is_refused():
    import pluralign.rewards as R

    with pytest.raises(
        TypeError, match="unknown option 'truncaton_side' for pluralign.rewards.load; did you mean 'truncation_side'"
    ):
        R.load("some/model", truncaton_side="left")


# 10. an option typo swallowed by an LLM loader
def test_10_an_llm_option_typo_is_refused():
    import pluralign.llm as L

    with pytest.raises(TypeError, match="unknown option 'json_mod' for .*; did you mean 'json_mode'"):
        L.load("openai:x", base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_VAR", json_mod=True)


# 11. a list (or an object, a number) where a reply should be was kept
@pytest.mark.parametrize("value,what", [(["x", "y"], "a list"), ({"text": "x"}, "an object"), (5, "a number")])
def test_11_a_list_where_a_reply_should_be_is_refused(tmp_path, value, what):
    path = tmp_path / "d.jsonl"
    path.write_text(row() + "\n" + row(prompt="q", response_b=value) + "\n")
    with pytest.raises(DataError) as err:
        pluralign.load(str(path))
    assert f"{what} (" in named(err, path, row=2, field="response_b") and "where text is expected" in str(err.value)
    d = pluralign.load(str(path), on_invalid="drop")  # or dropped, and counted
    assert len(d) == 1 and d.meta["filters"][0]["rows"] == [2] and d.meta["filters"][0]["field"] == "response_b"
    hh = tmp_path / "hh.jsonl"  # the same in a loader that splits dialogues (it crashed inside Arrow)
    hh.write_text(
        json.dumps({"chosen": [f"\n\nHuman: x\n\nAssistant: {value}"], "rejected": "\n\nHuman: x\n\nAssistant: z"})
        + "\n"
    )
    with pytest.raises(DataError) as err:
        pluralign.load("hh-rlhf", source=str(hh))
    named(err, hh, row=1, field="chosen")


def test_11_any_loader_refuses_a_list_where_the_prompt_should_be(tmp_path):
    """The last guard, in the canonical table every loader builds (here MultiPref, whose loader checks only replies)."""
    ann = [{"evaluator": "e1", "overall_pref": "A-is-slightly-better"}]
    rows = [
        {
            "comparison_id": f"c{i}",
            "text": text,
            "completion_a": "a",
            "completion_b": "b",
            "normal_worker_annotations": ann,
            "expert_worker_annotations": ann,
        }
        for i, text in enumerate(["hi", ["hi", "there"]])
    ]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(DataError) as err:
        pluralign.load("multipref", source=str(path))
    assert "a list (['hi', 'there']) where text is expected" in named(err, path, row=2, field="prompt")


# 12. HelpSteer2 rows dropped with the wrong reason
def test_12_helpsteer2_drops_a_pair_with_an_empty_response_under_that_reason(tmp_path):
    rows = [
        {"prompt": "P", "response": "a", "helpfulness": [3, 4]},
        {"prompt": "P", "response": "b", "helpfulness": [2, 4]},
        {"prompt": "Q", "response": "a", "helpfulness": [3, 4]},
        {"prompt": "Q", "response": " ", "helpfulness": [3, 4]},
        {"prompt": "R", "response": "x", "helpfulness": [1, 1]},
        {"prompt": "R", "response": "y", "helpfulness": [1, 2]},
        {"prompt": "S", "response": "lonely", "helpfulness": [1, 2]},
    ]
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(DataError) as err:
        pluralign.load("helpsteer2", source=str(path))
    assert "empty text" in named(err, path, row=4, field="response")
    d = pluralign.load("helpsteer2", source=str(path), on_invalid="drop")
    assert d.pairs["prompt"].tolist() == ["P", "R"]  # pairing unchanged by the drop: R's responses stay together
    reasons = {f["filter"]: (f["removed"], f["rows"]) for f in d.meta["filters"]}
    assert reasons == {
        "unpaired response (odd number of responses for its prompt)": (1, [7]),
        "empty text in a response: its pair is dropped (both responses)": (2, [4]),
    }
    with pytest.raises(DataError) as err:  # a truth value is no Likert score either
        rows[5]["helpfulness"] = [1, True]
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        pluralign.load("helpsteer2", source=str(path), on_invalid="drop")
    assert "Likert score true" in named(err, path, row=6, field="helpfulness")


# 13. a YAML error that does not name the file
def test_13_a_yaml_error_names_the_file_and_line(tmp_path):
    (tmp_path / "page.yml").write_text("seed: 1\ndesign: {n: [1, 2}\n")
    with pytest.raises(P.ParamsError) as err:
        P.read_params(tmp_path / "page.yml")
    assert str(tmp_path / "page.yml") in str(err.value) and "line 2" in str(err.value)


# 14. an `include:` outside the project read
@pytest.mark.parametrize("include", ["../outside.yml", "/etc/hostname"])
def test_14_an_include_outside_the_parameter_folder_is_not_read(tmp_path, include):
    (tmp_path / "outside.yml").write_text("seed: 1\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "page.yml").write_text(yaml.safe_dump({"include": include}))
    with pytest.raises(P.ParamsError) as err:
        P.read_params(tmp_path / "conf" / "page.yml")
    assert str(tmp_path / "conf" / "page.yml") in str(err.value) and "lies outside" in str(err.value)


NOTEBOOK = """# %% tags=["parameters"]
profile = "demo"
seed = 0
models = None
design = {"n": 1}

# %%
print(seed + 1)
"""


def _page(tmp_path, monkeypatch, **keys):
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "nb.py").write_text(NOTEBOOK)
    (root / "params" / "demo").mkdir(parents=True)
    (root / "params" / "demo" / "common.yml").write_text("profile: demo\nseed: 0\n")
    (root / "params" / "demo" / "nb.yml").write_text(yaml.safe_dump(keys))
    monkeypatch.setattr(manifest_plan, "ROOT", root)
    return manifest_plan.Run("nb", "params/demo/nb.yml", "demo")


# 15. a wrong parameter type failing deep inside a cell (a part's nested settings: their own tests, by key path)
@pytest.mark.parametrize(
    "keys,message",
    [
        ({"seed": "zero"}, r"parameter 'seed' is str 'zero', but the notebook expects int"),
        ({"seed": True}, r"parameter 'seed' is bool True, but the notebook expects int"),
        ({"models": "three"}, r"parameter 'models' is str 'three', but the notebook expects dict"),
    ],
)
def test_15_a_wrong_parameter_type_fails_before_any_cell_runs(tmp_path, monkeypatch, keys, message):
    r = _page(tmp_path, monkeypatch, **keys)
    with pytest.raises(errors.BookError, match=r"nb\.yml: " + message):
        execution.execute(r)
    assert not r.output.exists()  # refused before a kernel ran a cell


@pytest.mark.parametrize("design", [{"n": 2.5}, {"n": {"hh-rlhf": 3}}, {"n": 2, "other": "x"}])
def test_15_inside_a_dict_a_number_or_another_accepted_form_passes(tmp_path, design):
    (tmp_path / "nb.py").write_text(NOTEBOOK)
    (tmp_path / "page.yml").write_text(yaml.safe_dump({"design": design}))
    got = P.read_params(tmp_path / "page.yml", tmp_path / "nb.py")
    assert got["design"] == design


# 16. a file with no records (a header-only CSV, an empty JSON Lines file, an empty array) loaded as empty data
@pytest.mark.parametrize(
    "name,text", [("h.csv", "prompt,response_a,response_b,preference\n"), ("e.jsonl", "\n\n"), ("a.json", "[]")]
)
def test_16_a_file_without_records_is_refused(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataError) as err:
        pluralign.load(str(path))
    assert "no records" in named(err, path)


# 17. a parameter-file key typo swallowed
def test_17_a_parameter_key_typo_names_file_key_and_nearest_name(tmp_path, monkeypatch):
    r = _page(tmp_path, monkeypatch, desing={"n": 2})
    with pytest.raises(errors.BookError, match=r"nb\.yml: unknown parameter 'desing'.*did you mean 'design'"):
        execution.execute(r)

"""The Hub mirror: an id resolves to $PLURALIGN_MIRROR/<id>; a missing one offline names the id and the folder."""

import json

import pytest

import pluralign
from pluralign import mirror
from pluralign.data import DataError


def test_an_id_resolves_to_its_mirror_folder_and_a_local_path_stays(tmp_path, monkeypatch):
    (tmp_path / "OpenAssistant" / "reward-model-deberta-v3-large-v2").mkdir(parents=True)
    monkeypatch.setenv("PLURALIGN_MIRROR", str(tmp_path))
    assert mirror.resolve("OpenAssistant/reward-model-deberta-v3-large-v2") == str(
        tmp_path / "OpenAssistant" / "reward-model-deberta-v3-large-v2"
    )
    assert mirror.resolve(str(tmp_path)) == str(tmp_path)
    monkeypatch.delenv("PLURALIGN_MIRROR")
    assert (
        mirror.resolve("OpenAssistant/reward-model-deberta-v3-large-v2")
        == "OpenAssistant/reward-model-deberta-v3-large-v2"
    )


def test_a_missing_id_offline_names_the_id_and_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("PLURALIGN_MIRROR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(mirror.MirrorError) as e:
        mirror.resolve("meta-llama/Meta-Llama-3-8B-Instruct")
    assert "'meta-llama/Meta-Llama-3-8B-Instruct'" in str(e.value)
    assert str(tmp_path / "meta-llama" / "Meta-Llama-3-8B-Instruct") in str(e.value)


def test_a_data_set_loads_from_the_mirror_in_the_hub_layout(tmp_path, monkeypatch):
    folder = tmp_path / "Anthropic" / "hh-rlhf" / "harmless-base"
    folder.mkdir(parents=True)
    rows = [
        {"chosen": f"\n\nHuman: q{i}\n\nAssistant: good {i}", "rejected": f"\n\nHuman: q{i}\n\nAssistant: bad {i}"}
        for i in range(4)
    ]
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("PLURALIGN_MIRROR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    d = pluralign.load("hh-rlhf", data_dir="harmless-base")
    assert len(d) == 4


def test_a_missing_data_set_offline_is_a_data_error_naming_the_mirror(tmp_path, monkeypatch):
    monkeypatch.setenv("PLURALIGN_MIRROR", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(DataError, match="looked in .*allenai/multipref"):
        pluralign.load("multipref")


def test_mirror_list_names_every_paper_model_and_data_set(capsys):
    from pluralign.book import hub_ids as mirror_list

    assert mirror_list.main(["list", "--profile", "paper"]) == 0
    out = capsys.readouterr().out
    for hub_id in (
        "OpenAssistant/reward-model-deberta-v3-large-v2",
        "meta-llama/Meta-Llama-3-8B-Instruct",
        "microsoft/deberta-v3-large",
        "Anthropic/hh-rlhf",
        "allenai/multipref",
        "nvidia/HelpSteer2",
    ):
        assert f"download {hub_id} " in out

"""A model folder cannot switch on its own code: trust_remote_code comes from the caller only."""

import json

import pytest

import pluralign.rewards as R


@pytest.fixture(scope="module")
def hostile_folder(tmp_path_factory):
    from rm_helpers import tiny_seqcls_folder

    folder = tiny_seqcls_folder(tmp_path_factory.mktemp("hostile"), hidden=16, layers=1)
    marker = folder / "code-ran"
    (folder / "evil.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "from transformers import BertForSequenceClassification as EvilModel\n"
    )
    conf = json.loads((folder / "config.json").read_text())
    conf["auto_map"] = {"AutoModelForSequenceClassification": "evil.EvilModel", "AutoConfig": "evil.EvilConfig"}
    (folder / "config.json").write_text(json.dumps(conf))
    (folder / "pluralign_rm.json").write_text(
        json.dumps({"backend": "seq-cls", "trust_remote_code": True, "max_length": 64, "truncation_side": "left"})
    )
    return folder, marker


def test_a_folder_asking_for_remote_code_does_not_run_it(hostile_folder):
    folder, marker = hostile_folder
    with pytest.warns(UserWarning, match="asks for trust_remote_code; it stays off"):
        rm = R.load(folder)
    assert rm.trust_remote_code is False
    rm.score([("hi", "hello")], progress=False, cache=False)
    assert not marker.exists(), "the folder's own code ran"


def test_a_model_folders_identity_follows_its_content_not_its_path(tmp_path):
    import shutil

    from pluralign.rewards.folders import folder_identity

    a = tmp_path / "model"
    a.mkdir()
    (a / "config.json").write_text('{"hidden": 8}')
    (a / "model.safetensors").write_bytes(b"\x00" * 64)
    first = folder_identity(a)
    shutil.copytree(a, tmp_path / "elsewhere" / "model")
    assert folder_identity(tmp_path / "elsewhere" / "model") == first  # same model, another checkout
    (a / "model.safetensors").write_bytes(b"\x01" * 64)  # another model, same size, same folder
    assert folder_identity(a) != first


def _ask_for_remote_code(folder, marker, auto_map: dict):
    (folder / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    conf = json.loads((folder / "config.json").read_text())
    conf["auto_map"] = auto_map
    (folder / "config.json").write_text(json.dumps(conf))


@pytest.mark.slow
def test_the_folder_would_run_its_code_were_the_caller_to_allow_it(hostile_folder, tmp_path):
    """The control: with the caller's own trust_remote_code=True the same folder's code does run (so the tests
    above could fail). In a child process, with the Hub's module cache in tmp_path."""
    import os
    import shutil
    import subprocess
    import sys

    folder = shutil.copytree(hostile_folder[0], tmp_path / "copy")
    marker = tmp_path / "code-ran"
    _ask_for_remote_code(
        folder, marker, {"AutoConfig": "evil.EvilConfig", "AutoModelForSequenceClassification": "evil.EvilModel"}
    )
    code = (
        f"import pluralign.rewards as R\ntry:\n    R.load({str(folder)!r}, trust_remote_code=True)\n"
        "except Exception:\n    pass\n"
    )
    env = dict(os.environ, HF_MODULES_CACHE=str(tmp_path / "modules"))
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120)
    assert marker.exists()


def test_an_llm_folder_asking_for_remote_code_does_not_run_it(tmp_path):
    import pluralign.llm as L
    from pluralign.llm.tiny import make_tiny_causal_lm

    folder = make_tiny_causal_lm(tmp_path / "llm", hidden_size=16, layers=1)
    marker = tmp_path / "code-ran"
    _ask_for_remote_code(
        folder,
        marker,
        {
            "AutoConfig": "evil.EvilConfig",
            "AutoModelForCausalLM": "evil.EvilLM",
            "AutoTokenizer": ["evil.EvilTokenizer", None],
        },
    )
    out = L.load(str(folder)).generate(["Say hi"], max_tokens=2)
    assert len(out) == 1 and not marker.exists(), "the folder's own code ran"


class _Evil:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def test_weights_only_as_pickle_are_refused_and_never_unpickled(tmp_path):
    """Safetensors only: a folder whose weights are a pickle (pytorch_model.bin, which runs code when unpickled)
    is refused by name, and the pickle is never opened."""
    import pickle

    from rm_helpers import tiny_seqcls_folder

    folder = tiny_seqcls_folder(tmp_path / "rm", hidden=16, layers=1)
    (folder / "model.safetensors").unlink()
    marker = tmp_path / "pickle-ran"
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(_Evil(marker)))
    with pytest.raises(OSError, match="model.safetensors"):
        R.load(folder).score([("hi", "hello")], progress=False, cache=False)
    assert not marker.exists(), "the folder's pickle was unpickled"
    pickle.loads((folder / "pytorch_model.bin").read_bytes())  # the control: unpickling it does run its code
    assert marker.exists()


def test_the_caller_can_opt_out_of_safetensors_only(tmp_path):
    """allow_pickle_weights=True (the caller's own choice) reads PyTorch weights from a folder the caller trusts;
    the scores equal those of the same weights in safetensors."""
    from transformers import AutoModelForSequenceClassification

    from rm_helpers import tiny_seqcls_folder

    folder = tiny_seqcls_folder(tmp_path / "rm", hidden=16, layers=1)
    expected = R.load(folder).score([("hi", "hello")], progress=False, cache=False)
    bin_folder = tmp_path / "rm-bin"
    import torch

    model = AutoModelForSequenceClassification.from_pretrained(folder)
    model.save_pretrained(bin_folder)
    (bin_folder / "model.safetensors").unlink()
    torch.save(model.state_dict(), bin_folder / "pytorch_model.bin")
    for f in folder.iterdir():
        if "token" in f.name or f.name in ("vocab.txt", "special_tokens_map.json"):
            (bin_folder / f.name).write_bytes(f.read_bytes())
    assert not (bin_folder / "model.safetensors").exists() and (bin_folder / "pytorch_model.bin").exists()
    with pytest.raises(OSError, match="model.safetensors"):
        R.load(bin_folder).score([("hi", "hello")], progress=False, cache=False)
    got = R.load(bin_folder, allow_pickle_weights=True).score([("hi", "hello")], progress=False, cache=False)
    import numpy as np

    assert np.allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float), atol=1e-6)

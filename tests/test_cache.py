import json

import numpy as np
import pandas as pd
import pytest

from pluralign import cache


def test_key_depends_on_step_inputs_and_settings():
    df = pd.DataFrame({"a": [1, 2]})
    k = cache.key("scores", df, {"model": "m"})
    assert k == cache.key("scores", df.copy(), {"model": "m"})
    assert k != cache.key("scores", pd.DataFrame({"a": [1, 3]}), {"model": "m"})
    assert k != cache.key("scores", df, {"model": "n"})
    assert k != cache.key("labels", df, {"model": "m"})
    assert cache.fingerprint({"b": 1, "a": 2}) == cache.fingerprint({"a": 2, "b": 1})
    assert cache.fingerprint(np.arange(3)) != cache.fingerprint(np.arange(3).astype(float))


def test_second_call_reuses_and_refresh_recomputes():
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"x": [len(calls)]})

    e = cache.Entry("step", {"in": 1}, {"s": 2}, fmt="parquet")
    assert e.get_or_compute(compute)["x"].item() == 1
    assert e.get_or_compute(compute)["x"].item() == 1
    assert len(calls) == 1
    with cache.refreshing():
        assert e.get_or_compute(compute)["x"].item() == 2
        assert e.get_or_compute(compute)["x"].item() == 2  # once per process, not every call
    assert len(calls) == 2


def test_crash_in_compute_leaves_no_entry():
    e = cache.Entry("crashy", 1, None, fmt="dir")

    def half_written(folder):
        (folder / "part.bin").write_bytes(b"x" * 10)
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        e.get_or_compute(half_written)
    assert not e.exists()
    assert not any(p.name == "part.bin" for p in cache.cache_dir().rglob("*"))
    path = e.get_or_compute(lambda folder: (folder / "model.bin").write_bytes(b"ok"))
    assert (path / "model.bin").read_bytes() == b"ok"


def test_item_store_survives_torn_line_and_resumes(tmp_path):
    s = cache.ItemStore("labels", {"model": "x"})
    s.put("a", {"label": 1})
    s.put("b", [1, 2])
    s.close()
    with open(s.path, "ab") as f:  # a kill in the middle of a write
        f.write(b'{"k": "c", "v": ')
    again = cache.ItemStore("labels", {"model": "x"})
    assert again.get("a") == {"label": 1} and again.get("b") == [1, 2]
    assert again.missing(["a", "b", "c"]) == ["c"]
    again.put("c", 3)
    again.close()
    assert cache.ItemStore("labels", {"model": "x"}).get("c") == 3


def test_cache_dir_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path / "here"))
    assert cache.cache_dir() == tmp_path / "here"
    cache.Entry("j", 1, None, fmt="json").get_or_compute(lambda: {"v": 1})
    assert json.loads(next((tmp_path / "here" / "j").glob("*.json")).read_text()) == {"v": 1}

"""Concurrent writers of one cache entry, killed writers' leftovers, and one job run at a time."""

import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from pluralign import cache


def _write_dir_entry(root: str) -> str:
    os.environ["PLURALIGN_CACHE"] = root

    def fill(folder):
        for i in range(20):
            (folder / f"part{i}.txt").write_text(str(i) * 1000)
        time.sleep(0.01)

    out = cache.Entry("test/dir", inputs="same", fmt="dir").get_or_compute(fill)
    files = sorted(p.name for p in out.iterdir())
    return "ok" if len(files) == 20 else f"incomplete: {len(files)}"


def test_concurrent_writers_of_a_folder_entry_neither_crash_nor_leave_it_incomplete(tmp_path):
    with ProcessPoolExecutor(8) as pool:
        results = list(pool.map(_write_dir_entry, [str(tmp_path)] * 40))
    assert results == ["ok"] * 40
    assert not list(tmp_path.rglob(".*.tmp-*"))  # every writer cleaned up after itself


def test_stale_temporary_folders_of_killed_writers_are_removed_and_fresh_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path))
    old = tmp_path / "rewards" / ".abc.parquet.tmp-x1"
    fresh = tmp_path / "rewards" / ".def.parquet.tmp-x2"
    for d in (old, fresh):
        d.mkdir(parents=True)
        (d / "junk").write_bytes(b"0" * 100)
    past = time.time() - 2 * cache.STALE_TEMP_S
    os.utime(old, (past, past))
    assert cache.clean_stale_temps(tmp_path) == 1
    assert not old.exists() and fresh.exists()


def test_a_second_run_of_a_job_waits_for_the_first_and_sends_nothing_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path))
    sent = []

    def run():
        store = cache.ItemStore("llm/job", settings={"model": "m"})
        with store.lock():
            for k in store.missing([f"item{i}" for i in range(10)]):
                sent.append(k)
                time.sleep(0.01)
                store.put(k, k.upper())
        store.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(sent) == sorted(f"item{i}" for i in range(10))  # each item sent once


def test_auto_format_stores_tables_arrays_and_json_and_refuses_pickle_unless_asked(tmp_path, monkeypatch):
    import numpy as np
    import pandas as pd

    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path))
    df = pd.DataFrame({"a": [1, 2]})
    assert cache.Entry("t/df", inputs=1).get_or_compute(lambda: df).equals(df)
    assert list(tmp_path.glob("t/*.parquet")) or list(tmp_path.rglob("*.parquet"))
    arr = np.arange(3.0)
    assert (cache.Entry("t/arr", inputs=1).get_or_compute(lambda: arr) == arr).all()
    assert cache.Entry("t/js", inputs=1).get_or_compute(lambda: {"x": [1, 2]}) == {"x": [1, 2]}
    assert not list(tmp_path.rglob("*.pkl"))
    with pytest.raises(TypeError, match="fmt='pickle'"):
        cache.Entry("t/obj", inputs=1).get_or_compute(lambda: object())
    assert cache.Entry("t/obj", inputs=2, fmt="pickle").get_or_compute(lambda: {1, 2}) == {1, 2}
    calls = []
    assert cache.Entry("t/js", inputs=1).get_or_compute(lambda: calls.append(1) or {}) == {"x": [1, 2]} and not calls


def test_temp_folders_are_found_down_to_two_levels_and_a_vanished_folder_is_passed_over(tmp_path, monkeypatch):
    from pluralign import cache

    for rel in (".a.tmp-1", "step/.b.tmp-2", "step/key/.c.tmp-3", "step/key/deep/.d.tmp-4", "step/plain"):
        (tmp_path / rel).mkdir(parents=True)
    names = sorted(p.name for p in cache._temp_folders(tmp_path))
    assert names == [".a.tmp-1", ".b.tmp-2", ".c.tmp-3"]
    real = cache.os.scandir

    def vanishing(path):  # another writer renames "step/key" away while the tree is read
        if str(path).endswith("key"):
            raise FileNotFoundError(path)
        return real(path)

    monkeypatch.setattr(cache.os, "scandir", vanishing)
    assert sorted(p.name for p in cache._temp_folders(tmp_path)) == [".a.tmp-1", ".b.tmp-2"]


def _run_in_threads(*targets, limit=120):
    """Start every target in a thread and join them; a thread still alive after ``limit`` seconds is a hang."""
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=limit)
    assert not any(t.is_alive() for t in threads), "a computation waited forever (deadlock)"


def test_a_second_computation_of_one_entry_waits_for_the_first_and_reads_its_value(tmp_path, monkeypatch):
    """Two pages of the book executing side by side need the same entry: it is computed once."""
    import fcntl

    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path))
    first_in, second_waits, release = threading.Event(), threading.Event(), threading.Event()
    real_flock = fcntl.flock

    def flock(fh, op):
        if op == fcntl.LOCK_EX and first_in.is_set():  # a blocking request while the first computes
            second_waits.set()
        return real_flock(fh, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    computed, got = [], {}

    def first():
        def compute():
            first_in.set()
            release.wait()
            computed.append("first")
            return {"value": 1}

        got["first"] = cache.Entry("test/shared", inputs="same").get_or_compute(compute)

    def second():
        first_in.wait()
        got["second"] = cache.Entry("test/shared", inputs="same").get_or_compute(
            lambda: computed.append("second") or {"value": 2}
        )

    def conductor():
        second_waits.wait()
        release.set()

    _run_in_threads(first, second, conductor)
    assert computed == ["first"]
    assert got == {"first": {"value": 1}, "second": {"value": 1}}
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.startswith(".")][1:]  # one entry


def test_two_computations_that_each_need_the_others_entry_do_not_wait_on_each_other(tmp_path, monkeypatch):
    """A computes entry a and needs b; B computes b and needs a: the one that already holds a lock computes the
    other entry itself instead of waiting (a wait here would never end)."""
    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path))
    a_in, b_in = threading.Event(), threading.Event()
    got, inner = {}, {}

    def outer(mine, other, me_in, them_in):
        def compute():
            me_in.set()
            them_in.wait()  # both now hold their own entry's lock
            inner[mine] = cache.Entry("test/pair", inputs=other).get_or_compute(lambda: {"name": other})
            return {"name": mine}

        got[mine] = cache.Entry("test/pair", inputs=mine).get_or_compute(compute)

    _run_in_threads(lambda: outer("a", "b", a_in, b_in), lambda: outer("b", "a", b_in, a_in))
    assert got == {"a": {"name": "a"}, "b": {"name": "b"}}
    assert inner == {"a": {"name": "b"}, "b": {"name": "a"}}


def test_the_compute_locks_are_hidden_files_the_cache_listing_passes_over(tmp_path, monkeypatch):
    from pluralign import report

    monkeypatch.setenv("PLURALIGN_CACHE", str(tmp_path))
    cache.Entry("test/listed", inputs=1).get_or_compute(lambda: {"x": 1})
    locks = list(tmp_path.rglob(".*.lock"))
    assert len(locks) == 1 and locks[0].parent == tmp_path / "test_listed"
    assert report.cache_state().values["cache_entries"] == 1

"""Beyond one GPU: training and scoring data-parallel under ``accelerate launch``.

tests/rewards/distributed_job.py runs once in this process and once on two CPU processes (``accelerate launch
--multi_gpu --num_processes 2`` with ``ACCELERATE_USE_CPU=1``: torchrun, gloo), each with its own cache. The
two-process run must give the single-process rewards, in input order, on every process; the same trained
weights; and a cache written once, by the main process, with the same entries as the single-process run.

Tolerances. Scoring runs the same texts in differently padded batches: rewards agree to float32 rounding
(measured ~3e-9; checked to 1e-6). Training: both runs take the same global batch per step (16 instances of
BT in steps of 8 = 4 per process × 2; DDP averages the two gradients, which is the gradient of the batch's
mean loss), so the only difference is float32 summation order in the gradients. AdamW divides each step by
the gradient's running magnitude, so on a coordinate whose gradient is at rounding level that difference
becomes part of a step of size ``lr``: BT's classifier bias has an exactly zero gradient (a shift of every
reward leaves r_A − r_B unchanged), so it moves by rounding noise alone and is not compared; every other
weight is checked to 0.1 × lr = 1e-4 (measured ≤ 4e-5; the head weight ≤ 2e-6), and the reward differences
r_A − r_B that BT identifies to 1e-5 (measured ~1e-8). The MSE model (no such direction) is checked to 1e-6
(measured 6e-8). A run that took other batches (8 instances per process: twice the global batch, half the
steps) moved weights by 3.9e-3 and fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from safetensors.numpy import load_file

HERE = Path(__file__).parent
JOB = HERE / "distributed_job.py"
LR = 1e-3


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(single-process folder, two-process folder, their caches, launch seconds)."""
    import importlib.util

    from rm_helpers import tiny_seqcls_folder

    tmp = tmp_path_factory.mktemp("distributed")
    model = tiny_seqcls_folder(tmp / "model")
    env = {
        **os.environ,
        "ACCELERATE_USE_CPU": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PLURALIGN_CACHE": str(tmp / "cache-2"),
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parent / "lib"), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("WORLD_SIZE", None)
    cmd = [
        str(Path(sys.executable).with_name("accelerate")),
        "launch",
        "--multi_gpu",
        "--num_processes",
        "2",
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        "0",
        str(JOB),
        str(model),
        str(tmp / "two"),
    ]
    t0 = time.perf_counter()
    launched = subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        mp = pytest.MonkeyPatch()
        mp.setenv("PLURALIGN_CACHE", str(tmp / "cache-1"))
        mp.delenv("WORLD_SIZE", raising=False)
        try:
            spec = importlib.util.spec_from_file_location("distributed_job", JOB)  # beside this file, by path
            job = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(job)
            job.main(str(model), str(tmp / "one"))
        finally:
            mp.undo()
        log, _ = launched.communicate(timeout=900)  # a hang guard: ~55 s of CPU, far longer on a busy machine
    finally:
        if launched.poll() is None:
            launched.kill()
    assert launched.returncode == 0, f"accelerate launch failed ({launched.returncode}):\n{log[-6000:]}"
    return tmp / "one", tmp / "two", tmp / "cache-1", tmp / "cache-2", time.perf_counter() - t0


@pytest.mark.slow  # launches two more Python processes (~55 s of CPU in all); CI runs it (make test-slow)
def test_two_processes_score_like_one_in_input_order(runs):
    one, two, *_ = runs
    ref = np.load(one / "rank0.npz")
    r0, r1 = np.load(two / "rank0.npz"), np.load(two / "rank1.npz")
    # 32 texts in 4 cache chunks of 10 (the last one short), 2 rounds of 2 chunks split between the processes
    assert ref["base_scores"].shape == (32,) and np.ptp(ref["base_scores"]) > 1e-4  # not all equal
    np.testing.assert_allclose(r0["base_scores"], ref["base_scores"], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(r1["base_scores"], r0["base_scores"])  # every process holds all, same order
    for objective in ("bt", "bt-margin"):
        assert list(r0[f"{objective}/pair_id"]) == list(ref[f"{objective}/pair_id"])
        np.testing.assert_array_equal(r1[f"{objective}/reward_a"], r0[f"{objective}/reward_a"])
        d_ref = ref[f"{objective}/reward_a"] - ref[f"{objective}/reward_b"]
        d_two = r0[f"{objective}/reward_a"] - r0[f"{objective}/reward_b"]
        np.testing.assert_allclose(d_two, d_ref, rtol=0, atol=1e-5)
    a = pd.read_parquet(one / "mse-scores.parquet")
    b = pd.read_parquet(two / "mse-scores.parquet")
    assert list(b.pair_id) == list(a.pair_id) and list(b.columns) == list(a.columns) and len(a) == 8
    cols = ["reward_a", "reward_b", "p_a"]
    np.testing.assert_allclose(b[cols], a[cols], rtol=0, atol=1e-5)
    pd.testing.assert_frame_equal(b.drop(columns=cols), a.drop(columns=cols))


@pytest.mark.slow  # launches two more Python processes (~55 s of CPU in all); CI runs it (make test-slow)
def test_two_processes_train_the_same_weights(runs):
    one, two, *_ = runs
    ref, r0, r1 = np.load(one / "rank0.npz"), np.load(two / "rank0.npz"), np.load(two / "rank1.npz")
    init = load_file(str(runs[0].parent / "model" / "model.safetensors"))["classifier.weight"]
    for objective in ("bt", "bt-margin"):
        names = [k for k in ref.files if k.startswith(f"{objective}/weights/")]
        assert f"{objective}/weights/classifier.weight" in names and len(names) > 10
        for k in names:
            np.testing.assert_array_equal(r1[k], r0[k])  # every process opens the one saved model
            if k.endswith("classifier.bias"):
                continue  # zero BT gradient: moved by rounding noise only (module docstring)
            np.testing.assert_allclose(r0[k], ref[k], rtol=0, atol=0.1 * LR, err_msg=k)
        # training moved the head by far more than the tolerance: the comparison tells runs apart
        assert np.abs(ref[f"{objective}/weights/classifier.weight"] - init).max() > 10 * 0.1 * LR
    # bt-margin evaluated after each of its 4 steps (evaluation batches sharded, losses gathered), best kept
    h1, h2 = ref["bt-margin/history"], r0["bt-margin/history"]
    assert h1.shape == (5, 2) and list(h1[:, 0]) == [1, 2, 3, 4, -1]
    np.testing.assert_array_equal(h2[:, 0], h1[:, 0])
    np.testing.assert_allclose(h2[:, 1], h1[:, 1], rtol=0, atol=1e-6)  # measured 1.2e-7
    w1 = load_file(str(one / "mse-model" / "model.safetensors"))
    w2 = load_file(str(two / "mse-model" / "model.safetensors"))
    assert sorted(w1) == sorted(w2)
    for k in w1:
        np.testing.assert_allclose(w2[k], w1[k], rtol=0, atol=1e-6, err_msg=k)


@pytest.mark.slow  # launches two more Python processes (~55 s of CPU in all); CI runs it (make test-slow)
def test_the_cache_is_written_once_by_the_main_process(runs):
    one, two, cache1, cache2, seconds = runs
    assert not list(two.glob("writes_rank1.txt")), "process 1 wrote to the shared cache"
    w1 = (one / "writes_rank0.txt").read_text().split()
    w2 = (two / "writes_rank0.txt").read_text().split()
    rel = lambda paths, root: sorted(str(Path(p).relative_to(root)) for p in paths)  # noqa: E731
    assert len(set(w2)) == len(w2), "an entry was written twice"
    assert rel(w2, cache2) == rel(w1, cache1)  # the same entries as the single-process run
    n_score = sum("rewards_score" in p for p in w2)
    n_train = sum("rewards_train" in p for p in w2)
    # bt, bt-margin, mse trained once each; scored at 10 texts per chunk: 32 texts (base, bt, bt-margin):
    # 3 × 4 chunks, 16 (mse): 2
    assert n_train == 3 and n_score == 14
    print(f"two-process launch: {seconds:.1f} s")


def test_the_global_batch_must_split_evenly_between_the_processes(monkeypatch):
    from pluralign.rewards import distributed

    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert not distributed.active() and distributed.per_device_batch(7, 13) == 7  # one process: unchanged
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "0")
    assert distributed.active() and distributed.per_device_batch(8, 16) == 4
    with pytest.raises(
        ValueError,
        match=r"batch_size=7 is the global batch and must be a multiple of the 2 "
        r"processes.*batch_size=6",
    ):
        distributed.per_device_batch(7, 14)
    with pytest.warns(UserWarning, match="13 training instances are not a multiple of the global batch 8"):
        assert distributed.per_device_batch(8, 13) == 4

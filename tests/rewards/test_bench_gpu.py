"""The GPU benchmark's frame, on the CPU: its parts run in the order of importance whatever order they are asked in,
every part's figures are on disk as soon as the part ends (a run stopped by its time limit keeps them), a failed
part is recorded and the next one still runs, and every rate is the median step after the warm-up steps."""

from __future__ import annotations

import importlib.util
import json

import pytest
import torch


def _bench():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "bench_gpu.py"
    spec = importlib.util.spec_from_file_location("bench_gpu_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_parts_run_in_the_order_of_importance():
    b = _bench()
    assert b.parse_parts("scoring,lora-bf16, syncs") == ["lora-bf16", "syncs", "scoring"]
    assert b.parse_parts("all") == b.PARTS and b.PARTS[0] == "lora-bf16" and b.PARTS[8] == "llama-32"
    with pytest.raises(SystemExit, match="unknown part"):
        b.parse_parts("lora-bf16,warp-drive")


def test_every_part_is_written_as_it_ends_and_a_failure_does_not_stop_the_run(tmp_path):
    b = _bench()
    out = tmp_path / "gpu.json"
    copy = tmp_path / "gpu-runs" / "start.json"
    run = b.Run([out, copy], torch.device("cpu"), "tiny")

    def first(r):
        r.figures["first_figure"] = 1.5

    def broken(r):
        r.figures["half_way"] = 2.0
        raise RuntimeError("out of luck")

    run.part("lora-bf16", first)
    on_disk = json.loads(out.read_text())
    assert on_disk["figures"]["first_figure"] == 1.5 and on_disk["parts"] == ["lora-bf16"]
    assert json.loads(copy.read_text()) == on_disk  # the run's own copy, written at the same time
    run.part("syncs", broken)
    run.part("lora-8bit", first)
    on_disk = json.loads(out.read_text())
    assert on_disk["parts"] == ["lora-bf16", "lora-8bit"] and on_disk["figures"]["failed_parts"] == 1
    assert "syncs: RuntimeError: out of luck" in on_disk["notes"] and on_disk["figures"]["half_way"] == 2.0
    assert on_disk["figures"]["train_steady_excludes_profile"] == 1  # no timed window holds a profiled step


def test_a_rate_is_the_median_step_after_the_warm_up():
    b = _bench()
    # step 0 compiles kernels, step 1 builds allocator pools: a mean over every step would count both
    assert b.timed_median([9.0, 3.0, 1.0, 1.2, 0.8]) == 1.0
    assert b.WARMUP == 2

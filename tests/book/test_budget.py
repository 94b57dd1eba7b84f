"""The paper profile's GPU budget: the arithmetic on a hand case, and every part present."""

import pytest

from pluralign.book import budget


def test_hours_are_items_times_flops_over_the_assumed_throughput():
    s = budget.Step("p", "s", "m", params_b=1.0, items=1000, tokens=100, flops_per_token=2, mfu=0.5)
    assert s.flops() == pytest.approx(2 * 1e9 * 100 * 1000)
    assert s.hours("H100") == pytest.approx(2e14 / (989e12 * 0.5) / 3600)
    assert s.hours("A100") / s.hours("H100") == pytest.approx(989 / 312)


def test_every_part_of_the_paper_profile_has_a_budget_and_a_basis():
    b = budget.gpu_budget()
    assert {p.split()[0] for p in b["part"]} == {"I", "II", "III"}
    assert b["basis"].str.len().min() > 20 and (b["H100 GPU-hours (estimate)"] > 0).all()
    per_part = budget.budget_by_part()
    assert per_part["H100 GPU-hours (estimate)"].sum() == pytest.approx(b["H100 GPU-hours (estimate)"].sum())


def _run(date, figures, gpu="NVIDIA H100 80GB HBM3"):
    return {"name": "gpu", "date": date, "figures": figures, "units": {}, "machine": {"gpu": gpu}, "notes": ""}


def test_a_measured_share_replaces_the_assumed_one_and_the_row_names_its_run():
    step = budget.Step("p", "s", "m", 1.0, items=1000, tokens=100, flops_per_token=4, mfu=0.15, measured="train_x")
    record = [_run("2026-11-26 15:39:54", {"train_x": 0.05})]
    mfu, source = step.share(record)
    assert mfu == 0.05 and source == "run 26\u00a0Nov\u00a015:39"
    assert step.hours("H100", mfu) == pytest.approx(step.hours("H100") * 0.15 / 0.05)
    assert step.share([]) == (0.15, "assumed")
    b = budget.gpu_budget([step], record)
    assert b.loc[0, "MFU"] == 0.05 and b.loc[0, "H100 GPU-hours (estimate)"] == pytest.approx(
        4e14 / (989e12 * 0.05) / 3600
    )


def test_the_newest_valid_run_gives_each_figure():
    from pluralign.book import gpu_runs

    old = _run("2026-11-26 15:22:35", {"score_a": 0.1, "train_b_pairs_per_s": 40.0, "train_c": 1.0})
    new = _run(
        "2026-11-26 15:39:54",
        # a run that profiled training steps without leaving them out of the steady state: its training rates
        # are not taken, its scoring figures are; a NaN is no measurement
        {"score_a": 0.2, "train_b_pairs_per_s": 77.0, "train_b_profiled_gpu_busy_share": 0.8, "train_c": float("nan")},
    )
    record = [new, old]
    assert gpu_runs.measured("score_a", record) == (0.2, new)
    assert gpu_runs.measured("train_b_pairs_per_s", record) == (40.0, old)
    assert gpu_runs.measured("train_b_profiled_gpu_busy_share", record) == (0.8, new)
    assert gpu_runs.measured("train_c", record) == (1.0, old)
    fixed = _run(
        "2026-11-27 10:00:00",
        {"train_b_pairs_per_s": 160.0, "train_b_profiled_gpu_busy_share": 0.8, "train_steady_excludes_profile": 1},
    )
    assert gpu_runs.measured("train_b_pairs_per_s", [fixed, *record]) == (160.0, fixed)
    assert gpu_runs.measured("missing", record) is None


def test_the_runs_on_record_are_read_newest_first_once_each(tmp_path):
    import json

    from pluralign.book import gpu_runs

    (tmp_path / "gpu-runs").mkdir()
    a, b = _run("2026-11-26 15:22:35", {"x": 1}), _run("2026-11-26 15:39:54", {"x": 2})
    (tmp_path / "gpu.json").write_text(json.dumps(b))
    for r in (a, b):
        (tmp_path / "gpu-runs" / f"{r['date'].replace(' ', 'T').replace(':', '-')}.json").write_text(json.dumps(r))
    assert [r["date"] for r in gpu_runs.runs(tmp_path)] == [b["date"], a["date"]]
    assert gpu_runs.runs(tmp_path / "nothing") == []
    run = _run("2026-11-26 15:39:54", {"score_llama_bf16_share_of_peak": 0.473})
    # a target the run did not record is not shown: the page states only the benchmark's own targets
    assert gpu_runs.benchmark_table([run])["target"].tolist() == [""]
    table = gpu_runs.benchmark_table([{**run, "target": {"score_llama_bf16_share_of_peak": ">= 0.40"}}])
    assert table.to_dict("records") == [
        {
            "figure": "Llama-3-8B scoring: share of peak",
            "value": "47.3 %",
            "target": "≥\u00a040\u00a0%",
            "met": "yes",
            "run": "26\u00a0Nov\u00a015:39",
        }
    ]


def test_the_benchmark_table_keeps_each_values_significant_digits(tmp_path):
    import json

    from pluralign.book import performance

    (tmp_path / "llm.json").write_text(
        json.dumps({"name": "llm", "figures": {"judge_ab_many_pairs_per_s": 0.487, "load_s": 19.27}, "machine": {}})
    )
    shown = performance.benchmark_results(tmp_path).table["value"].tolist()
    assert shown == ["0.487", "19.3"]


def test_the_peak_is_the_exact_devices():
    """An H100 PCIe or NVL computes less than the SXM part: its shares of peak were taken of the SXM's 989 TFLOP/s."""
    assert budget.peak_tflops("NVIDIA H100 80GB HBM3") == 989.0
    assert budget.peak_tflops("NVIDIA H100 PCIe") == 756.0
    assert budget.peak_tflops("NVIDIA H100 NVL") == 835.0
    assert budget.peak_tflops("NVIDIA H200") == 989.0 and budget.peak_tflops("NVIDIA H200 NVL") == 835.0
    assert budget.peak_tflops("NVIDIA A100-SXM4-80GB") == budget.peak_tflops("NVIDIA A100 80GB PCIe") == 312.0
    assert budget.peak_tflops("Some Future GPU") != budget.peak_tflops("Some Future GPU")  # NaN: no share stated


def test_the_runs_left_out_say_what_and_why():
    """The contaminated run: its training rates counted profiled steps; a failed part's figures are missing."""
    from pluralign.book import gpu_runs, performance

    bad = _run(
        "2026-11-26 15:39:54",
        {
            "train_lora_bf16_llama_pairs_per_s": 77.4,
            "train_lora_bf16_llama_share_of_peak": 0.159,
            "train_full_ft_deberta_share_of_peak": 0.008,
            "train_lora_bf16_llama_profiled_gpu_busy_share": 0.83,
            "score_llama_bf16_share_of_peak": 0.47,
        },
    )
    bad["notes"] = "... FAILED PARTS: training lora: TypeError: 'NoneType' object is not iterable"
    clean = _run(
        "2026-11-27 10:00:00", {"train_lora_bf16_llama_share_of_peak": 0.31, "train_steady_excludes_profile": 1}
    )
    (what, why), (part, failed) = gpu_runs.left_out(bad)
    assert "LoRA, bf16 base: share of peak" in what and "DeBERTa full fine-tuning" in what and "profiled" in why
    assert "Llama-3-8B scoring" not in what
    assert part == "the training lora part" and "missing" in failed and "TypeError" not in failed
    assert gpu_runs.left_out(clean) == []
    res = performance.left_out([clean, bad])
    assert res.values["perf_left_out"] == 1 and len(res.table) == 2
    assert not any("_" in str(c) for c in res.table.reset_index().columns)  # display names only
    sentence = performance.opening([clean, bad]).values["perf_sentence"]
    assert sentence.startswith("On one H100 the paper profile needs about") and "Part III" in sentence
    assert "_" not in sentence and "None" not in sentence

"""The GPU budget of the ``paper`` profile, per part — an estimate from arithmetic, stated as one.

Each heavy step is (items) × (FLOPs per item) at a share of the GPU's peak (model FLOPs utilisation, MFU): the
share ``make bench-gpu`` measured for that step where a run on record measured it (:mod:`pluralign.book.gpu_runs`:
the newest valid figure, named with its GPU and date), else an assumed one (a low one for memory-bound token
generation), and each row says which. FLOPs per item follow the usual
transformer count: 2·P·T for a forward pass over T tokens with P non-embedding parameters, 4·P·T for a
LoRA training step (forward plus backward through the frozen weights; no weight gradients) and 6·P·T for
full fine-tuning. Item counts are the papers' data sizes; token lengths are measured on the shared real
files where the step reads such text (hh-rlhf conversations: mean 139 tokens) and assumed elsewhere (each
row says which). Peaks: H100 SXM 989 TFLOP/s and A100 312 TFLOP/s (dense bf16); int8 (bitsandbytes
LLM.int8) matmuls are counted at bf16 peak with a lower MFU, since they run slower than bf16 in practice.

The measured shares come from random-weight models of the papers' shapes (``bench/bench_gpu.py``): the DeBERTa-v3-large
shape itself, and a Llama-3-8B shape with 8 of its 32 layers — the same matrix shapes, so the same share per layer,
which is what carries over to the full depth. The A100 column takes the same share of the A100's peak (not
measured). Run ``make bench-gpu`` on your GPU to measure your own."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

#: dense bf16 peak, TFLOP/s, by GPU (datasheets; SXM parts: the H200 has the H100's arithmetic and faster memory)
PEAK_TFLOPS = {"H100": 989.0, "H200": 989.0, "A100": 312.0}

#: dense bf16 peak, TFLOP/s, by the exact device name torch reports (NVIDIA datasheets, sparsity halved away): the
#: PCIe and NVL parts of a generation run at lower clocks and power than its SXM part. First match wins.
PEAK_BY_DEVICE = [
    (r"GH200", 989.0),
    (r"H100.*PCIe", 756.0),
    (r"H100.*NVL", 835.0),
    (r"H100", 989.0),  # SXM5: "NVIDIA H100 80GB HBM3"
    (r"H200.*NVL", 835.0),
    (r"H200", 989.0),  # SXM: "NVIDIA H200"
    (r"A100", 312.0),  # SXM4 and PCIe alike
    (r"L40S", 362.0),
    (r"L4\b", 121.0),
]


def peak_tflops(device_name: str) -> float:
    """The dense bf16 peak of the GPU ``device_name`` names (``torch.cuda.get_device_name``), or NaN for a GPU not in
    :data:`PEAK_BY_DEVICE` (a share of peak is then not stated)."""
    import re

    for pattern, tflops in PEAK_BY_DEVICE:
        if re.search(pattern, device_name, re.I):
            return tflops
    return float("nan")


@dataclass(frozen=True)
class Step:
    part: str
    step: str
    model: str
    params_b: float  # non-embedding parameters, billions
    items: float  # sequences (or pair-steps) processed
    tokens: float  # tokens per item
    flops_per_token: int  # 2 inference, 4 LoRA training, 6 full fine-tuning
    mfu: float  # assumed share of peak, where no run measured it
    gpus: int = 1  # GPUs the step needs at once (memory)
    basis: str = ""
    measured: str | None = None  # the bench_gpu figure that measures this step's share of peak at this FLOP count

    def flops(self) -> float:
        return self.flops_per_token * self.params_b * 1e9 * self.tokens * self.items

    def share(self, record: list[dict] | None = None) -> tuple[float, str]:
        """The share of peak this step runs at and where it comes from: "run <day month time>" (the benchmark run
        that measured it) or "assumed"."""
        from pluralign.book import gpu_runs

        found = gpu_runs.measured(self.measured, record) if self.measured else None
        if found is None:
            return self.mfu, "assumed"
        value, run = found
        return value, "run " + gpu_runs.when(run)

    def hours(self, gpu: str, mfu: float | None = None) -> float:
        """GPU-hours on ``gpu`` (all the step's GPUs counted) at ``mfu`` (default: the assumed share)."""
        per_gpu = PEAK_TFLOPS[gpu] * 1e12 * (self.mfu if mfu is None else mfu)
        return self.flops() / per_gpu / 3600


#: The paper profile's heavy steps (see the module docstring for the arithmetic).
STEPS = [
    Step(
        "I Diverging",
        "train 10 Llama-3-8B reward models (BT, MSE × Agg, All; mean-variance), LoRA, 8-bit",
        "Llama-3-8B-Instruct",
        7.0,
        items=2 * 10 * (10_461 * (1 + 4 + 1 + 4 + 4)) * 2,
        tokens=600,
        flops_per_token=4,
        mfu=0.15,
        measured="train_lora_8bit_llama_share_of_peak",
        basis="MultiPref 10,461 pairs (4 annotators) and HelpSteer2 about as many; 10 epochs (App. A: at most 10, "
        "best checkpoint every 0.25 epoch); 2 sequences per pair; 600 tokens per prompt+response (assumed)",
    ),
    Step(
        "I Diverging",
        "score held-out pairs at every 0.25-epoch checkpoint",
        "Llama-3-8B-Instruct",
        7.0,
        items=10 * 4 * 10 * 2 * 1_000,
        tokens=600,
        flops_per_token=2,
        mfu=0.25,
        measured="budget_mfu_score_llama_8bit",
        basis="10 models × 40 checkpoints × 1,000 validation+test pairs × 2 sequences; 8-bit weights, as trained",
    ),
    Step(
        "II SEAL",
        "score D with the pre-D and post-D reward models",
        "DeBERTa-v3-large RM",
        0.30,
        items=160_800 * 2 * 2,
        tokens=139,
        flops_per_token=2,
        mfu=0.30,
        measured="budget_mfu_score_deberta_fp32",
        basis="hh-rlhf train 160,800 pairs × 2 entries × 2 RMs; mean conversation 139 tokens (measured once on the "
        "shared hh-rlhf test file with the MiniLM tokenizer; DeBERTa-v3's differs by a few percent), no "
        "truncation; fp32, the profile's precision (bf16 measured about 2.4 times faster)",
    ),
    Step(
        "II SEAL",
        "rewrite 1% of D with Mistral-7B and rescore",
        "Mistral-7B-Instruct",
        7.0,
        items=1_608 * 2,
        tokens=400,
        flops_per_token=2,
        mfu=0.05,
        basis="§2.3: 1% of D, both entries; ~400 tokens read+written per rewrite; decoding is memory-bound "
        "(MFU 5% assumed)",
    ),
    Step(
        "III Beyond the Binary",
        "10 sampled Llama-3-70B judgments per pair (Eq. 3 margins)",
        "Llama-3-70B-Instruct",
        70.0,
        items=300_000,
        tokens=700 + 10 * 10,
        flops_per_token=2,
        mfu=0.30,
        gpus=2,
        basis="~300,000 pairs in the four data sets; a ~700-token prompt read once and 10 samples of ~10 tokens "
        "(n=10 sampling shares the prompt, as vLLM does); 70B in bf16 needs 2 × 80 GB",
    ),
    Step(
        "III Beyond the Binary",
        "train DeBERTa-v3-large RMs (baseline and margin, 3 learning rates, 1 epoch)",
        "DeBERTa-v3-large",
        0.30,
        items=300_000 * 2 * 2 * 3,
        tokens=300,
        flops_per_token=6,
        mfu=0.30,
        measured="train_full_ft_deberta_share_of_peak",
        basis="~300,000 pairs × 2 sequences × 2 objectives × 3 learning rates, 1 epoch, 300 tokens (max 512)",
    ),
]


def gpu_budget(steps: list[Step] | None = None, record: list[dict] | None = None) -> pd.DataFrame:
    """One row per heavy step of the paper profile: part, step, model, items, tokens per item, PFLOP, the share of
    peak used (MFU) and its source (measured by a GPU benchmark run on record, with its GPU and date, or assumed),
    GPUs, estimated GPU-hours on one H100 and on one A100, and the basis of the estimate (:func:`budget_by_part` sums
    them per part). ``record``: the GPU benchmark runs (default: those in ``bench/results``)."""
    from pluralign.book import gpu_runs

    record = gpu_runs.runs() if record is None else record  # read once, not once per step
    rows = []
    for s in steps or STEPS:
        mfu, source = s.share(record)
        rows.append(
            {
                "part": s.part,
                "step": s.step,
                "model": s.model,
                "items": int(s.items),
                "tokens per item": int(s.tokens),
                "PFLOP": s.flops() / 1e15,
                "MFU": mfu,
                "MFU source": source,
                "GPUs at once": s.gpus,
                "H100 GPU-hours (estimate)": s.hours("H100", mfu),
                "A100 GPU-hours (estimate)": s.hours("A100", mfu),
                "basis": s.basis,
            }
        )
    return pd.DataFrame(rows)


def budget_by_part(budget: pd.DataFrame | None = None) -> pd.DataFrame:
    """GPU-hours per part: the sums of a :func:`gpu_budget` table (built when not given)."""
    b = gpu_budget() if budget is None else budget
    return b.groupby("part", sort=False)[["H100 GPU-hours (estimate)", "A100 GPU-hours (estimate)"]].sum()

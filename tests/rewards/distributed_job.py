"""The job tests/test_distributed.py runs twice: in one plain process, and under ``accelerate launch`` on two CPU
processes (gloo). It trains the tiny sequence-classification RM with BT and BT-with-margin (library calls) and
MSE (``pluralign train``), scores the data with every trained model (``pluralign score`` for the MSE one),
and writes what each process ended with (``OUT/rank<r>.npz``) and every cache write it made
(``OUT/writes_rank<r>.txt``).

    python tests/distributed_job.py MODEL_FOLDER OUT
    ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu --num_processes 2 tests/distributed_job.py MODEL_FOLDER OUT
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

import pluralign.cache as cache
import pluralign.rewards as R
import pluralign.rewards.base as base
from pluralign.data import simulate
from pluralign.rewards.cli import cli

N_PAIRS = 16  # bt / bt-margin: 16 instances, a multiple of the global batch
BATCH = 8  # global batch: 8 instances per step in one process, 4 per process on two
EPOCHS = 2  # 4 steps
LR = 1e-3
MAX_LENGTH = 32  # tokens per (prompt, response): the test is about the plumbing, not the texts
CHUNK = 10  # scoring cache chunk: 32 texts -> 4 chunks, 2 rounds on two processes, the last one short


def main(model_folder: str, out: str) -> None:
    rank = int(os.environ.get("RANK", "0"))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    writes = out / f"writes_rank{rank}.txt"
    real_write = cache._atomic_write

    def logged(path, write, **kw):
        with open(writes, "a") as f:
            f.write(f"{path}\n")
        return real_write(path, write, **kw)

    saved = cache._atomic_write, base.CHUNK
    cache._atomic_write, base.CHUNK = logged, CHUNK
    try:
        np.savez(out / f"rank{rank}.npz", **run(model_folder))
        run_cli(model_folder, out)
    finally:
        cache._atomic_write, base.CHUNK = saved


def run(model_folder: str) -> dict:
    sim = simulate(n_pairs=40, seed=0, annotation_format="helpsteer2")
    majority = sim.majority()
    data = sim.subset(majority[majority.isin(["A", "B"])].index[:N_PAIRS], "decided pairs")  # no instance dropped
    rm = R.load(model_folder, batch_size=4, max_length=MAX_LENGTH)
    result = {
        "base_scores": rm.score(
            [(p, r) for p, r in zip(data.pairs.prompt, data.pairs.response_a)]
            + [(p, r) for p, r in zip(data.pairs.prompt, data.pairs.response_b)],
            progress=False,
        )
    }
    for objective in ("bt", "bt-margin"):
        # bt-margin also evaluates every step on the same pairs (sharded, losses gathered) and keeps the best
        evaluate = {"eval_data": data, "keep_best": True} if objective == "bt-margin" else {"keep_best": False}
        trained = rm.train(
            data,
            objective=objective,
            labels="aggregate",
            epochs=EPOCHS,
            lr=LR,
            batch_size=BATCH,
            dropout=0.0,
            progress=False,
            **evaluate,
        )
        result[f"{objective}/history"] = np.array(
            [[h.get("step", -1), h.get("eval_loss", h.get("best_eval_loss"))] for h in trained.history], dtype=float
        ).reshape(-1, 2)
        for name, p in trained.module.model.state_dict().items():
            result[f"{objective}/weights/{name}"] = p.detach().cpu().numpy()
        s = trained.score(data, progress=False)
        result[f"{objective}/pair_id"] = s.pair_id.to_numpy().astype(str)
        result[f"{objective}/reward_a"] = s.reward_a.to_numpy()
        result[f"{objective}/reward_b"] = s.reward_b.to_numpy()
    return result


def run_cli(model_folder: str, out: Path) -> None:
    """MSE through the command line: ``pluralign train`` (64 Likert instances, global batch 16), then
    ``pluralign score`` with the trained model; both write once, from the main process."""
    data = ["--data", "simulate", "--option", "n_pairs=8", "--option", "annotation_format=helpsteer2"]
    rc = cli(
        [
            "train",
            "--model",
            model_folder,
            *data,
            "--objective",
            "mse",
            "--labels",
            "all",
            "--epochs",
            "1",
            "--max-length",
            str(MAX_LENGTH),
            "--lr",
            str(LR),
            "--batch-size",
            "16",
            "--dropout",
            "0",
            "--out",
            str(out / "mse-model"),
            "--no-progress",
        ]
    )
    assert rc == 0, rc
    rc = cli(
        [
            "score",
            "--model",
            str(out / "mse-model"),
            *data,
            "--batch-size",
            "4",
            "--max-length",
            str(MAX_LENGTH),
            "--out",
            str(out / "mse-scores.parquet"),
            "--no-progress",
        ]
    )
    assert rc == 0, rc


if __name__ == "__main__":
    main(*sys.argv[1:3])

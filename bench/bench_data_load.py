"""Benchmark: load and validate a 160,800-pair Anthropic/hh-rlhf-format file.

Generates a ``.jsonl.gz`` with the size of SEAL's alignment data set (N = 160,800 pairs; SEAL §2) in a
temporary folder — multi-turn "\\n\\nHuman: … \\n\\nAssistant: …" dialogues whose chosen and rejected
versions share every turn but the last reply — then times ``pluralign.data.load("hh-rlhf", source=...)``
(read, gunzip, parse, split at the last "Assistant:", check, build and validate the canonical tables)
and records seconds and peak memory with ``pluralign.book.benchmark.record("data_load", ...)``.
Target: under 10 s on 2 cores. ``--quick``: 16,080 pairs.

    .venv/bin/python bench/bench_data_load.py [--quick] [--pairs N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import tempfile
import time
from pathlib import Path

from pluralign.book.benchmark import peak_rss_mib, record, timer

WORDS = (
    "the a you can I would like to help with that about what how why people often think it is not very "
    "good idea make sure your time home work friend money day night question answer maybe because"
).split()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + rng.choice([".", "?", "!"])


def generate(path: Path, n_pairs: int, seed: int = 0) -> int:
    """Write ``n_pairs`` hh-rlhf rows; returns the uncompressed size in bytes."""
    rng = random.Random(seed)
    size = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as fh:
        for _ in range(n_pairs):
            turns = rng.randint(1, 4)
            hist = "".join(
                f"\n\nHuman: {sentence(rng, rng.randint(5, 25))}\n\nAssistant: "
                f"{' '.join(sentence(rng, rng.randint(5, 20)) for _ in range(rng.randint(1, 3)))}"
                for _ in range(turns - 1)
            )
            hist += f"\n\nHuman: {sentence(rng, rng.randint(5, 25))}\n\nAssistant:"
            chosen = " " + " ".join(sentence(rng, rng.randint(5, 20)) for _ in range(rng.randint(1, 4)))
            rejected = " " + " ".join(sentence(rng, rng.randint(5, 20)) for _ in range(rng.randint(1, 4)))
            line = json.dumps({"chosen": hist + chosen, "rejected": hist + rejected}) + "\n"
            size += len(line.encode())
            fh.write(line)
    return size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="16,080 pairs instead of 160,800")
    ap.add_argument("--pairs", type=int, default=None)
    args = ap.parse_args()
    n = args.pairs or (16_080 if args.quick else 160_800)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.jsonl.gz"
        t0 = time.perf_counter()
        raw_bytes = generate(path, n)
        gen_s = time.perf_counter() - t0
        rss_before = peak_rss_mib()
        from pluralign.data import load

        cpu0 = time.process_time()
        with timer() as t:
            data = load("hh-rlhf", source=path)
        seconds = t()
        cpu_s = time.process_time() - cpu0
        load1 = os.getloadavg()[0]
        peak = peak_rss_mib()
        assert len(data) == n and len(data.annotations) == n, (len(data), n)
        assert (data.pairs["chosen"] == "A").mean() > 0.45 and (data.pairs["chosen"] == "A").mean() < 0.55
        figures = {
            "pairs": n,
            "load_validate_s": round(seconds, 2),
            "load_validate_cpu_s": round(cpu_s, 2),
            "load_average_1min": round(load1, 2),
            "pairs_per_s": round(n / seconds),
            "peak_rss_mib": round(peak, 1),
            "peak_rss_before_load_mib": round(rss_before, 1),
            "file_mib_gz": round(path.stat().st_size / 2**20, 1),
            "file_mib_raw": round(raw_bytes / 2**20, 1),
            "generate_s": round(gen_s, 1),
        }
    out = record(
        "data_load" if n == 160_800 else "data_load_quick",
        figures,
        {
            "pairs": "pairs",
            "load_validate_s": "s",
            "load_validate_cpu_s": "s (CPU, all threads)",
            "load_average_1min": "runnable processes (machine busy-ness during the run)",
            "pairs_per_s": "pairs/s",
            "peak_rss_mib": "MiB",
            "peak_rss_before_load_mib": "MiB",
            "file_mib_gz": "MiB",
            "file_mib_raw": "MiB",
            "generate_s": "s",
        },
        target={"load_validate_s": "< 10 s on 2 cores"} if n == 160_800 else {},
        notes=f"load('hh-rlhf', source=<generated {n}-pair jsonl.gz>): gunzip, parse, split at the last "
        "'\\n\\nAssistant:', shared-history / empty-text checks, canonical tables, validation. "
        f"cpu count {os.cpu_count()}. Wall time is sensitive to other load on the machine: "
        "compare load_validate_cpu_s and load_average_1min.",
    )
    print(json.dumps(figures, indent=2))
    print(f"written {out}")


if __name__ == "__main__":
    main()

"""Beyond one GPU: reward-model training and scoring data-parallel under ``accelerate launch``.

The library needs no code of its own to be launched on several processes; the same notebook call or
``pluralign score`` / ``pluralign train`` command runs under ::

    accelerate launch --multi_gpu --num_processes 4 -m pluralign.rewards.cli score --model ... --out ...

(on CPU machines, for a rehearsal or a test: ``ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu
--num_processes 2 ...``: gloo backend. ``--multi_gpu`` names accelerate's torchrun launcher; accelerate's own
``--cpu`` flag starts one process unless MPI is set up). Every process runs the same code; this module is
the small part that differs, used by :mod:`pluralign.rewards.base` and :mod:`pluralign.rewards.trainer` only
when the launcher started more than one process (``WORLD_SIZE > 1``). Single-process behaviour is unchanged.

* **Training** goes through ``transformers.Trainer``, which speaks accelerate itself (DDP, gradients averaged
  over processes). ``train(batch_size=B)`` keeps meaning the *global* batch: each of the N processes gets
  ``B / N`` instances per step (:func:`per_device_batch`; B must be a multiple of N). Trainer's sampler draws
  the same seeded permutation on every process and accelerate hands process i the i-th slice of each global
  batch, so a step sees the same B instances as the single-process run, the averaged gradient is the
  gradient of the same mean loss, and the trained weights agree with the single-process ones up to float
  rounding — when (1) the number of training instances is a multiple of B (otherwise accelerate fills the
  last, short global batch of an epoch with instances from the epoch's start, and a warning says so) and (2)
  training draws no random numbers (``dropout=0``: each process draws its own dropout masks, so with
  dropout the runs agree in distribution, not number by number). The trained model is written to the cache
  once, by the main process, and every process then opens that one folder. The frozen-encoder head's compact
  loop (``engine="torch"``, seconds on a CPU) is not split: every process trains the same head, the main
  process writes it.
* **Scoring** (:meth:`RewardModel.raw_outputs`, hence ``score``, ``prob_a``, ``predict``) keeps the
  single-process cache chunks (``base.CHUNK`` texts, same keys): the main process looks up which chunks are
  cached, then the missing chunks are scored in rounds of N chunks, each round's texts split evenly between
  the processes (``PartialState.split_between_processes``), gathered back in input order on every process
  (``gather_object``), and written to the cache by the main process only — once per chunk, and a killed job
  loses at most its current round. Every process returns the same full array, in input order. A reward
  never depends on the other texts of its batch, so the rewards equal the single-process ones (up to the
  float rounding of a different padding length). While a process scores its shard, its own cache writes
  (a frozen encoder's embeddings) go to a private scratch folder, so the shared cache holds what a
  single-process run writes, written once.

Assumes one cache folder (``$PLURALIGN_CACHE``) visible to all processes of a machine, as on one node; on
several nodes point ``PLURALIGN_CACHE`` at a shared file system.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "world_size",
    "active",
    "state",
    "is_main",
    "device",
    "per_device_batch",
    "raw_outputs",
    "train_entry",
    "barrier",
]


def world_size() -> int:
    """Number of processes the launcher started (``WORLD_SIZE``, set by ``accelerate launch`` / torchrun); 1
    when the library runs in a plain Python process or notebook."""
    try:
        return int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return 1


def active() -> bool:
    """Whether this process is one of several data-parallel processes."""
    return world_size() > 1


def _cpu() -> bool:
    import torch

    flag = os.environ.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true", "yes")
    return flag or not torch.cuda.is_available()


def state():
    """accelerate's ``PartialState`` (initialises the process group the first time: gloo on CPU, NCCL on GPUs) —
    the same shared state ``transformers.Trainer`` uses."""
    from accelerate import PartialState

    return PartialState(cpu=_cpu())


def is_main() -> bool:
    """True in the main process, and in any single-process run."""
    return not active() or state().is_main_process


def device():
    """This process's device: ``cuda:<local rank>`` on GPUs, the CPU otherwise."""
    return state().device


def barrier() -> None:
    if active():
        state().wait_for_everyone()


def per_device_batch(batch_size: int, n_instances: int | None = None) -> int:
    """Per-process batch for a *global* batch of ``batch_size`` (the single-process batch): ``batch_size / N``.
    A global batch that N does not divide is an error (the runs could not see the same instances per step);
    a training set that the global batch does not divide gets a warning (its last step of an epoch differs)."""
    n = world_size()
    if n <= 1:
        return batch_size
    if batch_size % n:
        raise ValueError(
            f"batch_size={batch_size} is the global batch and must be a multiple of the {n} processes "
            f"(each process gets batch_size / {n} instances per step); use e.g. batch_size="
            f"{max(n, batch_size // n * n)}"
        )
    if n_instances is not None and n_instances % batch_size and os.environ.get("RANK", "0") == "0":
        warnings.warn(
            f"{n_instances} training instances are not a multiple of the global batch {batch_size}: "
            f"accelerate fills each epoch's last batch on {n} processes with instances from the epoch's "
            "start, so the weights will differ slightly from a single-process run",
            stacklevel=3,
        )
    return batch_size // n


_SCRATCH: list[str] = []


def _scratch() -> Path:
    """A private folder of this process, removed when it exits."""
    if not _SCRATCH:
        d = tempfile.mkdtemp(prefix=f"pluralign-rank{os.environ.get('RANK', '0')}-")
        _SCRATCH.append(d)
        atexit.register(shutil.rmtree, d, True)
    return Path(_SCRATCH[0])


@contextlib.contextmanager
def private_cache() -> Iterator[Path]:
    """Point :mod:`pluralign.cache` at this process's scratch folder for the block (cache writes made while a
    process works on its shard stay out of the shared cache)."""
    old = os.environ.get("PLURALIGN_CACHE")
    folder = _scratch() / "cache"
    os.environ["PLURALIGN_CACHE"] = str(folder)
    try:
        yield folder
    finally:
        if old is None:
            os.environ.pop("PLURALIGN_CACHE", None)
        else:
            os.environ["PLURALIGN_CACHE"] = old


def _broadcast(value: Any) -> Any:
    """The main process's ``value`` on every process."""
    from accelerate.utils import broadcast_object_list

    box = [value]
    broadcast_object_list(box, from_process=0)
    return box[0]


def _needs_compute(entry) -> bool:
    from pluralign import cache

    return not entry.exists() or (cache._refresh_on() and entry.key not in cache._REFRESHED)


def raw_outputs(
    rm,
    texts: list[tuple[str, str]],
    batch_size: int,
    *,
    settings: dict,
    chunk: int,
    cache: bool = True,
    progress: bool = True,
) -> np.ndarray:
    """:meth:`RewardModel.raw_outputs` on N processes: missing cache chunks scored in rounds of N chunks, each
    round split evenly between the processes, gathered in input order, written to the cache by the main
    process; the full (n, k) array, in input order, on every process."""
    from accelerate.utils import gather_object

    from pluralign.cache import Entry
    from pluralign.progress import bar as progress_bar

    st = state()
    n_proc, main = st.num_processes, st.is_main_process
    k = rm.n_outputs
    bounds = [(s, min(s + chunk, len(texts))) for s in range(0, len(texts), chunk)]
    entries = (
        [Entry("rewards/score", inputs=(rm.identity, texts[a:b]), settings=settings, fmt="npy") for a, b in bounds]
        if cache
        else None
    )
    parts: dict[int, np.ndarray] = {}
    if main:
        todo = [i for i in range(len(bounds)) if not cache or _needs_compute(entries[i])]
        for i in set(range(len(bounds))) - set(todo):
            parts[i] = entries[i].get_or_compute(lambda: None)  # a hit: loads (and counts it)
    todo = _broadcast(todo if main else None)
    bar = progress_bar(len(texts), f"scoring ({rm.backend}, {n_proc} processes)", "text", enabled=progress and main)
    with bar:
        bar.update(sum(b - a for i, (a, b) in enumerate(bounds) if i not in todo))
        for r in range(0, len(todo), n_proc):
            group = todo[r : r + n_proc]
            round_texts = [t for i in group for t in texts[bounds[i][0] : bounds[i][1]]]
            with st.split_between_processes(round_texts) as shard, private_cache():
                mine = rm._raw_outputs_uncached(list(shard), batch_size, None) if len(shard) else np.zeros((0, k))
            out = np.concatenate([np.asarray(x, dtype=np.float64).reshape(-1, k) for x in gather_object([mine])])
            if len(out) != len(round_texts):  # pragma: no cover - a broken launcher
                raise RuntimeError(f"gathered {len(out)} outputs for {len(round_texts)} texts")
            s = 0
            for i in group:
                a, b = bounds[i]
                part = out[s : s + b - a]
                s += b - a
                if cache and main:
                    part = entries[i].get_or_compute(lambda p=part: p)  # written once, by the main process
                parts[i] = part
            bar.update(len(round_texts))
    if main:
        full = np.concatenate([parts[i] for i in range(len(bounds))]) if bounds else np.zeros((0, k))
    return _broadcast(full if main else None)


def train_entry(entry, compute: Callable[[Path], None]) -> Path:
    """``entry.get_or_compute(compute)`` for a trained model (``fmt="dir"``) on N processes: the main process
    decides hit or miss; on a miss every process runs ``compute`` (the Trainer's collective steps need all of
    them) but only the main process writes the cache entry (the others' ``compute`` fills a private scratch
    folder, where ``save_pretrained`` writes no weights off rank 0). Returns the folder of the cache entry on
    every process."""
    st = state()
    hit = _broadcast(not _needs_compute(entry) if st.is_main_process else None)
    if st.is_main_process:
        path = str(entry.get_or_compute(compute))
    elif not hit:
        with private_cache():
            compute(Path(tempfile.mkdtemp(prefix="trained-", dir=_scratch())))
    path = _broadcast(path if st.is_main_process else None)
    if not Path(path).exists():
        raise FileNotFoundError(
            f"process {st.process_index} cannot see the main process's trained model {path}: "
            "point PLURALIGN_CACHE at a folder all processes share"
        )
    return Path(path)

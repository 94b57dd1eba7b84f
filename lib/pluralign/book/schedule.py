"""Pages executed side by side: how many at once, and which may start when.

Most of a demo page's time is one core's work (pandas, bootstraps, plotting, a one-thread reward-model fit), so
on a machine with two or more cores the book executes pages ``jobs`` at a time, each in its own kernel. What two
pages both need (the same embeddings, the same trained model) is computed once: the second waits for the first's
cache entry (:meth:`pluralign.cache.Entry.get_or_compute`; of the embeddings' chunks, each takes first those the
other is not computing). The manifest says what waits for what (:func:`pluralign.book.manifest_plan.execution_plan`):
a page that reads another's trained models starts after it (``after:``), so that it does not hold a worker while it
waits; a page marked ``execute: first`` starts first (once the pages it waits for have run, which a free worker takes
before the pages nothing waits for: the recovery report starts beside the remaining pages as soon as the studies it
reads are cached); the build report (``execute: last``) runs after all others. A page that fails stops new pages
from starting; those already running finish and are kept.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence

from pluralign.book.errors import BookError

#: the most pages executed at once by default (each kernel holds its models and data: about 1–2 GiB)
MAX_JOBS = 4
JOBS_ENV = "PLURALIGN_BOOK_JOBS"


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_jobs(profile: str) -> int:
    """Pages executed at once when ``pluralign book`` is not told (``--jobs``): ``$PLURALIGN_BOOK_JOBS`` where set;
    one on the paper profile (its pages share one GPU and the LLM endpoints); otherwise one per core, at most
    :data:`MAX_JOBS`."""
    raw = os.environ.get(JOBS_ENV, "").strip()
    if raw:
        try:
            n = int(raw)
        except ValueError:
            raise BookError(f"${JOBS_ENV} must be a whole number of pages, got {raw!r}") from None
        if n < 1:
            raise BookError(f"${JOBS_ENV} must be at least 1, got {n}")
        return n
    if profile == "paper":
        return 1
    return max(1, min(MAX_JOBS, usable_cores()))


def run_graph(items: Sequence, after: dict, jobs: int, work: Callable, done: Callable) -> None:
    """Run ``work(item)`` for every item, at most ``jobs`` at once, each only after the items ``after[item]`` names
    have finished; a free worker takes the first item of ``items`` that may start. ``done(item, result, error)`` is
    called once per item as it ends (one call at a time). The first exception raised by ``work`` stops new items
    from starting; items already running finish; then that exception is raised here. With ``jobs == 1`` the items
    run one after another in the calling thread; otherwise ``KeyboardInterrupt`` in the calling thread stops new
    items from starting and is raised at once (the running pages' kernels receive the same Ctrl-C)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    pending = list(items)
    deps = {item: set(after.get(item, ())) & set(items) for item in items}
    finished: set = set()
    running: set = set()
    failed: list[BaseException] = []
    cond = threading.Condition()

    def take():
        """The next item that may start (None: none is left, or a failure stopped the run); waits while every
        remaining item waits for one that runs."""
        with cond:
            while pending and not failed:
                ready = next((i for i in pending if deps[i] <= finished), None)
                if ready is not None:
                    pending.remove(ready)
                    running.add(ready)
                    return ready
                if not running:  # every remaining item waits for another remaining one
                    failed.append(BookError(f"these pages wait for each other: {', '.join(map(str, pending))}"))
                    break
                cond.wait()
            return None

    def worker() -> None:
        while (item := take()) is not None:
            try:
                result, error = work(item), None
            except BaseException as e:  # noqa: BLE001 - handed to the calling thread below
                result, error = None, e
            with cond:
                running.discard(item)
                if error is None:
                    finished.add(item)
                else:
                    failed.append(error)
                done(item, result, error)
                cond.notify_all()

    if jobs == 1:
        worker()
    else:
        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(jobs, len(pending)))]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except KeyboardInterrupt:
            with cond:
                failed.append(KeyboardInterrupt())
                cond.notify_all()
            raise
    if failed:
        raise failed[0]

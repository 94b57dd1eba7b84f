"""Progress of long steps, readable wherever it is shown.

:func:`bar` returns a tqdm-compatible object (``update``, ``close``, a context manager):

- in a terminal: a tqdm bar that clears itself when done (``leave=False``);
- in a log file or a pipe (stderr is not a terminal): plain lines — ``scoring: 250/1000 texts (25%), 12 s`` —
  at most one every ``PLURALIGN_PROGRESS_EVERY`` seconds (default 30) and one at the end, never carriage
  returns or escape codes;
- inside a Jupyter kernel (a book page): nothing (the book runner prints one line per executed cell).
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["bar"]


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Lines(_Silent):
    """Progress as plain log lines (module docstring)."""

    def __init__(self, total: int, desc: str, unit: str, stream=None, every: float | None = None):
        self.total, self.desc, self.unit, self.n = total, desc, unit, 0
        self.stream = stream or sys.stderr
        self.every = float(os.environ.get("PLURALIGN_PROGRESS_EVERY", 30)) if every is None else every
        self.t0 = self.last = time.perf_counter()
        self.closed = False

    def _line(self) -> str:
        share = f" ({self.n / self.total:.0%})" if self.total else ""
        return f"{self.desc}: {self.n}/{self.total} {self.unit}s{share}, {time.perf_counter() - self.t0:.0f} s"

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.last >= self.every and self.n < self.total:
            self.last = now
            print(self._line(), file=self.stream, flush=True)

    def close(self) -> None:
        if not self.closed and self.n:
            print(self._line(), file=self.stream, flush=True)
        self.closed = True


def _in_kernel() -> bool:
    return "ipykernel" in sys.modules and type(sys.stderr).__module__.startswith("ipykernel")


def bar(total: int, desc: str, unit: str = "item", enabled: bool = True):
    """A progress display for ``total`` units of work (module docstring)."""
    if not enabled or total == 0 or _in_kernel():
        return _Silent()
    if sys.stderr.isatty():
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True)
    return _Lines(total, desc, unit)

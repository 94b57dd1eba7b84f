"""The Jupyter kernels that execute the book's pages: their environment and their kernel manager.

:func:`environment` is what every page's kernel runs with; :func:`ipc_kernel_manager` talks to the kernel over
local IPC sockets in a private folder and, inside a book build, forks the kernel from the warm server
(:mod:`pluralign.book.warm`); :func:`log_tail` quotes the kernel's own log in an error.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from pluralign.book.errors import BookError


def environment(profile: str, root: Path, *, book_cache: bool = True) -> dict:
    """The environment variables a page's kernel runs with: the profile and project ``root``, inline figures, a
    fixed hash seed, no progress bars, the page-stated warnings, the book's cache folder (``book_cache``) and,
    off the paper profile, the Hugging Face libraries offline."""
    env = {
        "PLURALIGN_PROFILE": profile,
        "PLURALIGN_ROOT": str(root),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONHASHSEED": "0",
        # no download / weight-loading / split-generating bars in a rendered page (they are stderr noise there)
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
        # a page states failed LLM answers and endpoint redirects in its text (report.stated_warning)
        "PLURALIGN_ON_PAGE": "1",
    }
    if book_cache:  # the book keeps its cache in the project; a user's run uses the user's cache folder
        env.setdefault("PLURALIGN_CACHE", os.environ.get("PLURALIGN_CACHE", str(root / ".cache" / "pluralign")))
    if profile != "paper":
        env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    return env


def ipc_kernel_manager(log: Path | None = None):
    """A kernel manager whose kernel talks over local IPC sockets (not TCP on localhost): nothing listens on a
    port, and ipykernel has no reason to warn about unencrypted TCP in every build log. The kernel process's own
    log (its messages about being interrupted at shutdown, a crash) goes to ``log``, not into the build log;
    what the cells print stays in the notebook. Each kernel's sockets live in a fresh private folder: two builds
    (or a build and a ``pluralign run``) started in the same folder would otherwise pick the same socket files
    and read each other's messages ("Invalid Signature")."""
    import shutil
    import tempfile

    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kw):
            kw.setdefault("transport", "ipc")
            self._socket_dir = tempfile.mkdtemp(prefix="pluralign-kernel-")
            kw.setdefault("ip", str(Path(self._socket_dir) / "kernel"))
            super().__init__(**kw)

        async def _async_cleanup_resources(self, restart: bool = False) -> None:  # called at shutdown
            await super()._async_cleanup_resources(restart=restart)
            if not restart:
                shutil.rmtree(self._socket_dir, ignore_errors=True)

        cleanup_resources = _async_cleanup_resources

        async def start_kernel(self, **kw):
            if log is not None:
                kw.setdefault("stderr", open(log, "ab"))
            return await super().start_kernel(**kw)

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            from pluralign.book import warm  # inside build(): a kernel forked from the warm server (#19)

            if os.environ.get(warm.SOCKET_ENV):
                kernel_cmd = warm.kernel_command(kernel_cmd)
            return await super()._async_launch_kernel(kernel_cmd, **kw)

    return IPCKernelManager


def log_tail(path: Path, n: int = 1500) -> str:
    """The last ``n`` characters of a kernel's log, as a parenthesis for an error message ("" when empty)."""
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    return f" (kernel log: ...{text[-n:]})" if text else ""


@contextlib.contextmanager
def environ(env: dict):
    """``os.environ`` with ``env`` set inside the block, as it was after it (the papermill kernel inherits it)."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cell_hooks(on_cell, n_cells: int) -> dict:
    """papermill hooks calling ``on_cell(index, n_cells, cell, seconds)`` after each cell."""
    started: dict = {}
    return {
        "on_cell_start": lambda cell, cell_index: started.__setitem__(cell_index, time.perf_counter()),
        "on_cell_executed": lambda cell, cell_index, execute_reply: on_cell(
            cell_index, n_cells, cell, time.perf_counter() - started.get(cell_index, time.perf_counter())
        ),
    }


def run_notebook(nb, output: Path, params: dict, *, cwd: Path, name: str, what: str, hooks: dict) -> None:
    """Execute the notebook ``nb`` with papermill (``params`` injected, kernel in ``cwd``) into ``output``; a
    failure raises :class:`BookError` naming ``what`` (the run) and the failing cell's error, or the kernel log's
    end when the kernel itself failed."""
    import tempfile

    import nbformat
    import papermill as pm

    with tempfile.TemporaryDirectory(prefix="pluralign-src-") as srcdir:
        src = Path(srcdir) / f"{name}.ipynb"
        kernel_log = Path(srcdir) / "kernel.log"
        nbformat.write(nb, src)
        try:
            pm.execute_notebook(
                str(src),
                str(output),
                parameters=params,
                kernel_name="python3",
                cwd=str(cwd),
                progress_bar=False,
                log_output=False,
                request_save_on_cell_execute=False,
                kernel_manager_class=ipc_kernel_manager(kernel_log),
                **hooks,
            )
        except pm.PapermillExecutionError as e:
            raise BookError(f"{what} failed in cell {e.exec_count}: {e.ename}: {e.evalue}") from None
        except (KeyboardInterrupt, BookError):
            raise
        except Exception as e:  # noqa: BLE001 - kernel death, bad notebook: still name the run
            raise BookError(f"{what} failed: {type(e).__name__}: {e}{log_tail(kernel_log)}") from None

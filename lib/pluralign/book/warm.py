"""Warm kernels for the book build: import the heavy modules once, fork a kernel per page.

Every page of the book runs in its own fresh Jupyter kernel, and each kernel used to pay the same start-up
cost: importing numpy, pandas, scipy, matplotlib, torch, transformers, sentence-transformers and pluralign
(about 3–5 s of CPU per page, × 20 pages of the demo book). :func:`server` starts one process
that imports those modules once and then waits; each kernel the runner starts is a tiny client
(``_warm_client.py``) that asks that process to ``fork`` a child, and the child becomes the page's IPython
kernel. A forked child starts with the modules already imported and nothing else: no figure, no cache
entry, no random draw, no torch thread pool has been made in the parent, so the page computes exactly what
it would in a fresh process (the glue values and figures of the demo book are identical either way).

The client forwards the signals jupyter sends the kernel (interrupt, terminate) to the child, and exits
with the child's exit status; if the client is killed, the server kills the child. Where anything is
off — no ``fork`` on this platform, the server gone, the client's environment differing from the server's
in a variable read at import time — the client starts an ordinary kernel instead (``exec`` of the
kernelspec's command), so a warm kernel is never a different kernel. ``PLURALIGN_WARM_KERNELS=0`` turns
it off.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: what the server imports before it forks (a module missing from the environment is passed over)
WARM_MODULES = (
    "numpy",
    "pandas",
    "scipy.stats",
    "scipy.optimize",
    "sklearn.linear_model",
    "sklearn.metrics",
    "sklearn.datasets",
    "nltk",
    "tabulate",
    "matplotlib",
    "matplotlib.pyplot",
    "matplotlib.figure",
    "yaml",
    "IPython",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "myst_nb",
    "myst_nb.ext.glue",
    "jupytext",  # a part's setup(..., page=...) reads its page's parameters cell (pluralign.params.cell_parameters)
    "papermill.inspection",
    "torch",
    "torch.nn",
    "safetensors.torch",
    "transformers",
    "transformers.models.bert.modeling_bert",
    "transformers.models.auto.modeling_auto",
    "transformers.models.auto.tokenization_auto",
    "sentence_transformers",
    # the SEAL regressions (statsmodels' OLS / Logit, pyfixest's fixed effects): imported by the SEAL pages, Part IV's
    # regimes and the recovery (about 1.1 s a page after the fork, once here)
    "statsmodels.api",
    "pyfixest.estimation",
    "pluralign",
    "pluralign.report",
    "pluralign.stats",
    "pluralign.data",
    "pluralign.diverging",
    "pluralign.seal",
    "pluralign.btb",
    "pluralign.cross",
    "pluralign.recovery",
    "pluralign.rewards",
    "pluralign.rewards.frozen",
    "pluralign.rewards.trainer",
    "pluralign.embed",
    "pluralign.book.benchmark",
)

#: environment variables a page may set differently from the server (read when called, not at import)
MAY_DIFFER = ("PLURALIGN_REFRESH", "PLURALIGN_RUN_PARAMS", "PLURALIGN_RUN_SOURCES", "PLURALIGN_WARM_SOCKET")

SOCKET_ENV = "PLURALIGN_WARM_SOCKET"
#: beside the socket, the file the server makes once its imports are done (before that it has forked nothing)
READY = ".ready"
CLIENT = Path(__file__).with_name("_warm_client.py")


def enabled() -> bool:
    """Whether the runner uses warm kernels: on POSIX with ``fork``, unless ``PLURALIGN_WARM_KERNELS=0``."""
    return hasattr(os, "fork") and os.environ.get("PLURALIGN_WARM_KERNELS", "1") not in ("0", "false", "False", "")


def kernel_command(cmd: list[str]) -> list[str]:
    """The kernelspec's command wrapped by the warm client (which falls back to ``cmd`` itself)."""
    return [sys.executable, "-I", str(CLIENT), *cmd]


def env_differences(a: dict, b: dict) -> list[str]:
    """The variables in which two environments differ, other than those a page may set itself
    (:data:`MAY_DIFFER`) and jupyter's own (``JPY_*``)."""
    keys = set(a) | set(b)
    return sorted(k for k in keys if a.get(k) != b.get(k) and k not in MAY_DIFFER and not k.startswith("JPY_"))


@contextlib.contextmanager
def server(env: dict | None = None, *, log: Path | None = None, modules=WARM_MODULES) -> Iterator[str | None]:
    """Run a warm server for the duration of the block, with ``env`` the kernels' environment and ``modules``
    imported before any fork; yields the socket path (``None`` where warm kernels are off: the block then starts
    ordinary kernels). The server stops with the block, and by itself when this process dies."""
    if not enabled():
        yield None
        return
    folder = tempfile.mkdtemp(prefix="pluralign-warm-")
    path = str(Path(folder) / "s")
    full_env = {**os.environ, **(env or {})}
    full_env.pop(SOCKET_ENV, None)
    err = open(log, "ab") if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "pluralign.book.warm", path, ",".join(modules)],
        env=full_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=err,
        cwd=folder,
    )
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # bound (it then imports; the first kernel waits in the listen queue)
        yield path if os.path.exists(path) else None
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()  # the server exits when its stdin closes
        if proc.poll() is None and not os.path.exists(path + READY):  # still importing (the block ended before any
            proc.terminate()  # kernel ran: a refused parameter file): nothing forked, nothing to wait for
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if err is not subprocess.DEVNULL:
            err.close()
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def _recv(conn: socket.socket) -> tuple[dict, list[int]]:
    """One request: a 4-byte length, a JSON body, and the client's stdin/stdout/stderr as passed fds."""
    fds = array.array("i")
    buf = b""
    msg, anc, _, _ = conn.recvmsg(1 << 16, socket.CMSG_LEN(3 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    buf += msg
    while len(buf) < 4 or len(buf) < 4 + struct.unpack("!I", buf[:4])[0]:
        more = conn.recv(1 << 16)
        if not more:
            raise ConnectionError("client closed the connection mid-request")
        buf += more
    n = struct.unpack("!I", buf[:4])[0]
    return json.loads(buf[4 : 4 + n]), list(fds)


def _child(req: dict, fds: list[int]) -> None:
    """In the forked child: become the client's kernel (never returns)."""
    code = 1
    try:
        for i, fd in enumerate(fds[:3]):
            os.dup2(fd, i)
        for fd in fds:
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        sys.argv = list(req["argv"])
        import random

        import numpy as np

        random.seed()  # a fresh process seeds these from the OS; so does each child (not the parent's state)
        np.random.seed()
        from ipykernel import kernelapp as app

        # the two settings ipykernel reads from the environment when it is imported (here: in the server), set
        # as a fresh kernel would have them: the parent it watches (and exits with), Windows' interrupt event
        app.launch_new_instance(
            parent_handle=int(os.environ.get("JPY_PARENT_PID") or 0),
            interrupt=int(os.environ.get("JPY_INTERRUPT_EVENT") or 0),
        )
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - report and exit; the client returns the status
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _import_modules(modules) -> tuple[dict, dict]:
    """Import ``modules`` (a missing optional one is skipped): (the environment before, the variables the imports
    set — torch sets a few of its own, KMP_*, ...: a forked kernel gets them as a fresh one would)."""
    import importlib
    import logging
    import warnings

    own_env = dict(os.environ)
    # a module that configures logging at import (pyfixest's `logging.basicConfig(level=INFO)`) would give every
    # forked kernel a root handler on stderr at INFO, and each library's INFO record (openai's HTTP requests) would
    # reach the page: the root logger is put back as it was before the imports
    root = logging.getLogger()
    root_handlers, root_level = list(root.handlers), root.level
    # the imports are silent, but the warning filters they install stay (catch_warnings() would drop them on exit,
    # e.g. the rewards' filter of peft's deprecated-name FutureWarning, which then reached every LoRA page's stderr)
    warnings.simplefilter("ignore")
    silence = warnings.filters[0]
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - an optional module missing here is imported by the page if at all
                pass
    finally:
        warnings.filters.remove(silence)
        warnings._filters_mutated()
        root.handlers[:] = root_handlers
        root.setLevel(root_level)
    sys.stdout.flush()
    sys.stderr.flush()
    return own_env, {k: v for k, v in os.environ.items() if own_env.get(k) != v}


def _reap(children: dict, conns: dict, sel) -> None:
    """Tell each client whose kernel exited its exit status (and log the kernel's CPU time), and forget it."""
    for pid, conn in list(children.items()):
        try:
            done, status, usage = os.wait4(pid, os.WNOHANG)
        except ChildProcessError:
            done, status, usage = pid, 0, None
        if done:
            code = os.waitstatus_to_exitcode(status)
            if usage is not None:  # the server's log (a file given to server(log=...)): CPU of each kernel
                print(
                    f"kernel {pid} exit {code} cpu {usage.ru_utime + usage.ru_stime:.2f}s", file=sys.stderr, flush=True
                )
            with contextlib.suppress(OSError):
                conn.sendall(struct.pack("!i", code))
            children.pop(pid)
            conns.pop(conn, None)
            with contextlib.suppress(Exception):
                sel.unregister(conn)
            conn.close()


def _accept(listener, own_env: dict, added: dict, children: dict, conns: dict, sel) -> None:
    """Serve one client: fork its kernel (the child becomes the kernel; the client gets the child's pid), or send
    -1 when its environment differs in a variable read at import time (the client then starts an ordinary
    kernel)."""
    import selectors

    conn, _ = listener.accept()
    try:
        req, fds = _recv(conn)
    except (OSError, ValueError, ConnectionError):
        conn.close()
        return
    diff = env_differences(own_env, req.get("env", {}))
    if diff:
        print(f"warm kernels: environment differs in {diff}: an ordinary kernel starts", file=sys.stderr, flush=True)
        with contextlib.suppress(OSError):
            conn.sendall(struct.pack("!i", -1))
        conn.close()
        for fd in fds:
            os.close(fd)
        return
    pid = os.fork()
    if pid == 0:
        listener.close()
        conn.close()
        _child({**req, "env": {**req["env"], **added}}, fds)
    for fd in fds:
        os.close(fd)
    conn.sendall(struct.pack("!i", pid))
    children[pid] = conn
    conns[conn] = pid
    sel.register(conn, selectors.EVENT_READ, "conn")


def serve(path: str, modules=WARM_MODULES) -> None:
    """The server's main loop (``python -m pluralign.book.warm SOCKET MODULES``): bind, import ``modules``
    (default :data:`WARM_MODULES`), then fork one kernel per request until stdin closes."""
    import selectors

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    if sys.path and sys.path[0] in ("", os.getcwd()):  # as ipykernel_launcher: not the server's folder
        del sys.path[0]
    own_env, added = _import_modules(modules)
    Path(path + READY).touch()
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(sys.stdin, selectors.EVENT_READ, "stdin")
    children: dict[int, socket.socket] = {}  # pid -> the client's connection
    conns: dict[socket.socket, int] = {}
    while True:
        _reap(children, conns, sel)
        for key, _ in sel.select(timeout=0.2):
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 1 << 12):  # the runner is gone or done
                    for pid in children:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    return
            elif key.data == "accept":
                _accept(listener, own_env, added, children, conns, sel)
            else:  # a client's connection: closed means the client died; its kernel goes too
                conn = key.fileobj
                try:
                    gone = not conn.recv(1 << 12)
                except OSError:
                    gone = True
                if gone and conn in conns:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(conns[conn], signal.SIGKILL)
                    sel.unregister(conn)


if __name__ == "__main__":
    serve(sys.argv[1], [m for m in sys.argv[2].split(",") if m] if len(sys.argv) > 2 else WARM_MODULES)
    # its kernels are gone and it has nothing left to write: it skips the interpreter's teardown of the modules it
    # imported (torch, transformers, …: about 5 s on 2 cores), which the book's build would wait for
    sys.stderr.flush()
    os._exit(0)

"""Warm kernels (pluralign.book.warm): a page's kernel forked from a server that imported the heavy
modules once computes what a fresh kernel computes, and anything off falls back to a fresh kernel."""

import os
import signal
import subprocess
import sys
import time

import pytest

from pluralign.book import kernels, warm

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="warm kernels need fork (POSIX)")

PROBE = """# %% tags=["parameters"]
x = 1
# %%
import json, os, sys
print(json.dumps({"x": x, "ppid": os.getppid(), "cwd": os.getcwd(), "probe": os.environ.get("WARM_PROBE"),
                  "preloaded": "colorsys" in sys.modules, "main": sys.modules["__main__"].__name__}))
"""


def _execute(tmp_path, name="probe", env=None):
    """Run PROBE through papermill with the runner's kernel manager; returns what the kernel printed."""
    import json

    import jupytext
    import nbformat
    import papermill as pm

    nb = jupytext.reads(PROBE, fmt="py:percent")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src, out = tmp_path / f"{name}.ipynb", tmp_path / f"{name}.out.ipynb"
    nbformat.write(nb, src)
    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        pm.execute_notebook(
            str(src),
            str(out),
            parameters={"x": 7},
            kernel_name="python3",
            cwd=str(tmp_path),
            progress_bar=False,
            log_output=False,
            kernel_manager_class=kernels.ipc_kernel_manager(),
        )
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    text = "".join(
        o.get("text", "")
        for c in nbformat.read(out, as_version=4).cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
    )
    return json.loads(text.strip().splitlines()[-1])


def test_a_warm_kernel_is_forked_from_the_server_with_the_pages_folder_and_environment(tmp_path):
    with warm.server({"WARM_PROBE": "a"}, modules=("colorsys",)) as path:
        assert path and os.path.exists(path)
        os.environ[warm.SOCKET_ENV] = path
        try:
            got = _execute(tmp_path, env={"WARM_PROBE": "a"})
            again = _execute(tmp_path, "again", env={"WARM_PROBE": "a"})
        finally:
            os.environ.pop(warm.SOCKET_ENV)
    assert got["x"] == 7 and got["cwd"] == str(tmp_path) and got["probe"] == "a" and got["main"] == "__main__"
    assert got["preloaded"]  # imported by the server, not by the page
    assert got["ppid"] != os.getpid() and again["ppid"] == got["ppid"]  # both children of the one server
    assert not os.path.exists(path)  # the server and its socket folder are gone with the block


def test_an_environment_differing_in_an_import_time_variable_gets_a_fresh_kernel(tmp_path):
    with warm.server({"WARM_PROBE": "a"}, modules=("colorsys",)) as path:
        os.environ[warm.SOCKET_ENV] = path
        try:
            got = _execute(tmp_path, env={"WARM_PROBE": "b"})
        finally:
            os.environ.pop(warm.SOCKET_ENV)
    assert got["probe"] == "b" and not got["preloaded"]
    assert got["ppid"] == os.getpid()  # started by jupyter (here, this process) through the client's exec


def test_env_differences_ignore_jupyters_and_the_pages_own_variables():
    a = {"A": "1", "JPY_PARENT_PID": "3", "PLURALIGN_REFRESH": "1"}
    assert warm.env_differences(a, {"A": "1", "JPY_PARENT_PID": "4"}) == []
    assert warm.env_differences(a, {"A": "2"}) == ["A"]
    assert warm.env_differences(a, {"A": "1", "HF_HUB_OFFLINE": "1"}) == ["HF_HUB_OFFLINE"]


def test_the_client_without_a_server_runs_the_command_itself():
    env = {k: v for k, v in os.environ.items() if k != warm.SOCKET_ENV}
    p = subprocess.run(
        warm.kernel_command([sys.executable, "-c", "print('plain')"]),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and p.stdout.strip() == "plain"
    env[warm.SOCKET_ENV] = "/nonexistent/socket"
    p = subprocess.run(
        warm.kernel_command([sys.executable, "-m", "ipykernel_launcher", "--version"]),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and p.stdout.strip()


def test_a_killed_client_takes_its_kernel_with_it(tmp_path):
    """jupyter kills a kernel that does not shut down by killing the process it started (the client): the forked
    kernel must not live on."""
    with warm.server({}, modules=()) as path:
        env = {**os.environ, warm.SOCKET_ENV: path}
        conn = tmp_path / "conn.json"
        client = subprocess.Popen(
            warm.kernel_command([sys.executable, "-m", "ipykernel_launcher", "-f", str(conn)]),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp_path,
        )
        deadline = time.monotonic() + 120
        while not conn.exists() and time.monotonic() < deadline:  # the forked kernel writes its connection file
            time.sleep(0.1)
        assert conn.exists(), "the forked kernel did not start"
        # a forked kernel keeps the server's command line (with the socket path); the server is this process's child
        same = [int(p) for p in subprocess.run(["pgrep", "-f", path], capture_output=True, text=True).stdout.split()]
        kernel_pids = [p for p in same if _ppid(p) != os.getpid()]
        assert kernel_pids and len(kernel_pids) < len(same)
        client.send_signal(signal.SIGKILL)
        client.wait()
        deadline = time.monotonic() + 120  # poll until the kernel is gone; the deadline only guards against a hang
        while any(_alive(p) for p in kernel_pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in kernel_pids)


def _ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().split(")")[-1].split()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by the server) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_preloaded_module_keeps_the_warning_filters_it_installs(tmp_path, monkeypatch):
    """The warm kernel imports modules silently, and a filter a module installs at import stays: before, the imports
    ran inside catch_warnings(), which dropped the rewards' filter of peft's deprecated-name FutureWarning, and every
    LoRA page of the rehearsal printed it to stderr."""
    import warnings

    from pluralign.book import warm

    (tmp_path / "planted_filter_module.py").write_text(
        "import warnings\nwarnings.filterwarnings('ignore', message='planted deprecation', category=FutureWarning)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    before = list(warnings.filters)
    try:
        warm._import_modules(["planted_filter_module"])
        added = [f for f in warnings.filters if f not in before]
        assert [f[1].pattern for f in added if f[1] is not None] == ["planted deprecation"]
    finally:
        warnings.filters[:] = before
        warnings._filters_mutated()


def test_a_preloaded_module_that_configures_logging_leaves_the_kernels_root_logger_as_it_was(tmp_path, monkeypatch):
    """pyfixest calls ``logging.basicConfig(level=INFO)`` when imported; preloaded by the server, that gave every
    forked kernel a root handler on stderr at INFO, and the rehearsal's LLM pages printed openai's INFO record of
    each HTTP request into the page (CI failed on it). The server puts the root logger back after its imports."""
    import logging

    (tmp_path / "planted_logging_module.py").write_text("import logging\nlogging.basicConfig(level=logging.INFO)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    root = logging.getLogger()
    # as in the server's process (pytest's own capture handler on the root would make basicConfig a no-op)
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", logging.WARNING)
    warm._import_modules(["planted_logging_module"])
    assert (root.handlers, root.level) == ([], logging.WARNING)


def test_the_server_stops_without_the_interpreters_teardown_of_what_it_imported(tmp_path):
    """When the build is done (its stdin closes) the server exits at once: the teardown of torch and the other
    modules it imported took about 5 s on 2 cores, inside the build's time. A module's exit handler is its own
    teardown: it does not run; the server still exits cleanly."""
    (tmp_path / "planted_exit_module.py").write_text(
        "import atexit, pathlib\n"
        f"here = pathlib.Path({str(tmp_path)!r})\n"
        "(here / 'imported').write_text('yes')\n"
        "atexit.register(lambda: (here / 'torn down').write_text('yes'))\n"
    )
    with warm.server({"PYTHONPATH": str(tmp_path)}, modules=("planted_exit_module",)) as path:
        assert path is not None
    assert (tmp_path / "imported").exists()  # the server did import it
    assert not (tmp_path / "torn down").exists()


def test_a_server_still_importing_when_the_block_ends_is_terminated_not_waited_on(tmp_path):
    """A block that ends before any kernel ran (a cold build whose parameter file is refused) ends a server that is
    still importing with SIGTERM at once: it has forked nothing. Waiting for its imports instead (up to 10 s) would end
    it with SIGKILL, which the planted module's handler never sees."""
    (tmp_path / "planted_blocking_module.py").write_text(
        "import os, pathlib, signal, time\n"
        f"here = pathlib.Path({str(tmp_path)!r})\n"
        "signal.signal(signal.SIGTERM, lambda *a: ((here / 'terminated').write_text('yes'), os._exit(0)))\n"
        "(here / 'importing').write_text('yes')\n"
        "while not (here / 'release').exists():\n"
        "    time.sleep(0.05)\n"
    )
    with warm.server({"PYTHONPATH": str(tmp_path)}, modules=("planted_blocking_module",)) as path:
        assert path is not None
        deadline = time.monotonic() + 120  # a bound on the wait for the condition, not a timing assertion
        while not (tmp_path / "importing").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tmp_path / "importing").exists(), "the server never began importing"
    assert (tmp_path / "terminated").exists()
    (tmp_path / "release").write_text("yes")

"""The notebooks in JupyterLab, with the real clients: a Jupyter server started as ``make lab`` starts it
(scripts/lab.sh, on 127.0.0.1, a free port, a token) serves a page's Jupytext ``.py`` as a notebook through its
contents API, a save through the API writes the same ``.py`` back (never an output), a kernel of the venv executes
the page through the kernels API; and headless Chromium opens the page in JupyterLab, runs all cells, and finds a
figure and a glued number in what it renders (a screenshot is kept beside the test's files).

The server is rooted in a temporary folder holding a copy of the page, so that nothing here writes into
``notebooks/``. Glued names and values are read from the outputs, never from the notebook's source."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = "diverging_agreement"  # seconds on the demo profile
START_TIMEOUT_S = 120


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """``scripts/lab.sh`` (what ``make lab`` runs) serving ``root`` on 127.0.0.1 with a token."""

    def __init__(self, root: Path, home: Path):
        self.root, self.port, self.token = root, _free_port(), secrets.token_hex(16)
        env = dict(
            os.environ,
            BIN=str(Path(sys.executable).parent),
            JUPYTER_CONFIG_DIR=str(home / "config"),  # nothing of the user's own Jupyter set-up, nothing written there
            JUPYTER_DATA_DIR=str(home / "data"),
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(home / "lab-workspaces"),
        )
        # the test never saves from the browser: autosave off (the contents-API test saves explicitly)
        docmanager = home / "lab-settings" / "@jupyterlab" / "docmanager-extension"
        docmanager.mkdir(parents=True)
        (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
        self.proc = subprocess.Popen(
            [
                "bash",
                str(ROOT / "scripts" / "lab.sh"),
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={root}",
                "--LabApp.expose_app_in_browser=True",  # the test drives JupyterLab's own commands (Run All)
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []
        ready = threading.Event()

        def read():  # the server says when it listens; keep its log for a failure message
            for line in self.proc.stderr:
                self.log.append(line)
                if f":{self.port}/" in line and "running at" in "".join(self.log[-3:]):
                    ready.set()
            ready.set()  # it exited

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        # it logs its address, then binds it from its event loop: connect until it accepts (or exits)
        started = ready.wait(START_TIMEOUT_S) and self._accepts(deadline)
        if not started or self.proc.poll() is not None:
            self.stop()
            raise AssertionError("JupyterLab did not start:\n" + "".join(self.log[-30:]))
        self.url = f"http://127.0.0.1:{self.port}"

    def _accepts(self, deadline: float) -> bool:
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
                return True
            except OSError:
                try:  # returns at once if the server has exited
                    self.proc.wait(timeout=0.1)
                    return False
                except subprocess.TimeoutExpired:
                    pass
        return False

    def api(self, path: str, method: str = "GET", body: dict | None = None) -> dict:
        req = urllib.request.Request(
            f"{self.url}/api/{path}",
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read() or b"{}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class PortTaken(AssertionError):
    """The free port picked for the server was taken by another process before the server bound it."""


def _start_lab(root: Path, home_factory, attempts: int = 5) -> Lab:
    """A Lab on a free port. The port is found free here and bound by the server a moment later; another process
    (other servers run beside the tests) may take it in between, so a start that fails with the port in use is
    retried on a new port; any other failure fails at once."""
    for _ in range(attempts):
        try:
            return Lab(root, home_factory())
        except AssertionError as e:
            if "already in use" not in str(e):
                raise
            last = e
    raise PortTaken(f"every one of {attempts} free ports was taken before the server bound it") from last


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-root")
    (root / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / f"{PAGE}.py", root / "notebooks" / f"{PAGE}.py")
    server = _start_lab(root, lambda: tmp_path_factory.mktemp("lab-home"))
    yield server
    server.stop()


def _execute(ws, code: str, session: str, timeout: float = 300) -> list[dict]:
    """Send one execute_request on a kernel's websocket channel; its iopub outputs once the kernel is idle again."""
    msg_id = uuid.uuid4().hex
    ws.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "session": session,
                    "username": "test",
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "channel": "shell",
                "buffers": [],
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
            }
        )
    )
    ws.settimeout(timeout)
    outputs = []
    while True:
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id or msg.get("channel") != "iopub":
            continue
        kind = msg["header"]["msg_type"]
        if kind in ("stream", "display_data", "execute_result", "error"):
            outputs.append(dict(msg["content"], output_type=kind))
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            return outputs


@pytest.mark.slow  # a Jupyter server and a kernel in child processes
def test_the_server_opens_a_page_as_a_notebook_and_a_save_writes_the_same_py(lab):
    path = f"notebooks/{PAGE}.py"
    source = (lab.root / path).read_bytes()
    model = lab.api(f"contents/{path}?type=notebook")
    assert model["type"] == "notebook" and model["format"] == "json"
    nb = model["content"]
    assert [c["cell_type"] for c in nb["cells"]].count("code") >= 3
    assert any("parameters" in c["metadata"].get("tags", []) for c in nb["cells"])
    # an output as a run in JupyterLab leaves it: the save writes the inputs only
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "an output that must not be saved\n"}]
    code["execution_count"] = 7
    saved = lab.api(f"contents/{path}", "PUT", {"type": "notebook", "format": "json", "content": nb})
    assert saved["type"] == "notebook"
    assert (lab.root / path).read_bytes() == source
    assert sorted(p.name for p in (lab.root / "notebooks").iterdir()) == [f"{PAGE}.py"]  # no .ipynb beside it


@pytest.mark.slow
def test_a_kernel_of_the_venv_executes_the_page_through_the_kernels_api(lab):
    import websocket

    nb = lab.api(f"contents/notebooks/{PAGE}.py?type=notebook")["content"]
    spec = nb["metadata"]["kernelspec"]["name"]
    assert spec in lab.api("kernelspecs")["kernelspecs"]
    session = lab.api(
        "sessions", "POST", {"path": f"notebooks/{PAGE}.py", "type": "notebook", "name": "", "kernel": {"name": spec}}
    )
    kernel = session["kernel"]["id"]
    ws = websocket.create_connection(
        f"ws://127.0.0.1:{lab.port}/api/kernels/{kernel}/channels?token={lab.token}", timeout=60
    )
    try:
        sid = uuid.uuid4().hex
        out = _execute(ws, "import sys; print(sys.prefix)", sid)
        assert [o.get("text", "").strip() for o in out if o["output_type"] == "stream"] == [sys.prefix]
        glued = {}
        for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
            out = _execute(ws, cell["source"], sid)
            errors = [o for o in out if o["output_type"] == "error"]
            assert not errors, f"code cell {i}: {errors[0]['ename']}: {errors[0]['evalue']}"
            for o in out:
                name = o.get("metadata", {}).get("scrapbook", {}).get("name")
                if name:
                    glued[name] = o["data"]
        assert glued, "the page glued no value"
    finally:
        ws.close()
        lab.api(f"sessions/{session['id']}", "DELETE")


def _chrome():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,2000"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


#: the glued values of the open notebook, read from its outputs in JupyterLab's own model
GLUED_JS = """
const nb = window.jupyterapp.shell.currentWidget.content.model;
const out = {};
for (let i = 0; i < nb.cells.length; i++) {
  const cell = nb.cells.get(i);
  if (cell.type !== 'code') continue;
  for (let j = 0; j < cell.outputs.length; j++) {
    const o = cell.outputs.get(j).toJSON();
    const sb = (o.metadata || {}).scrapbook;
    if (sb) out[sb.name] = String((o.data || {})[(sb.mime_prefix || '') + 'text/plain']);
  }
}
return out;
"""


def renderings(value: str) -> set[str]:
    """How a page may show a glued number: as it is, an integer, a share in percent, two decimals."""
    try:
        x = float(value)
    except ValueError:
        return set()
    shown = {f"{x:.2f}", f"{x:.3f}"}
    if x.is_integer():
        shown |= {str(int(x)), f"{int(x):,}"}
    if 0 <= x <= 1:
        shown |= {f"{100 * x:.1f}%", f"{100 * x:.0f}%"}
    return shown


def run_all_and_look(url: str, screenshot: Path, timeout_s: float = 900) -> dict:
    """Open ``url`` (a page in JupyterLab) in headless Chromium, run all cells with JupyterLab's "Run All" command,
    save a screenshot of the first figure; returns what it found: ``glued`` (name -> value), ``shown`` (the glued
    numbers found in the rendered outputs), ``figures`` (loaded images in the outputs), ``errors``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    driver = _chrome()
    try:
        driver.get(url)
        wait = WebDriverWait(driver, 180)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".jp-Notebook .jp-Cell")))
        wait.until(lambda d: d.execute_script("return !!(window.jupyterapp && window.jupyterapp.shell.currentWidget)"))
        wait.until(  # the kernel has started
            lambda d: d.execute_script(
                "const s = window.jupyterapp.shell.currentWidget.sessionContext;"
                "return !!(s && s.session && s.session.kernel && s.session.kernel.status === 'idle');"
            )
        )
        driver.set_script_timeout(timeout_s)
        ran = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.jupyterapp.commands.execute('notebook:run-all-cells')"
            ".then(r => done(String(r)), e => done('error: ' + e));"
        )
        errors = driver.execute_script(
            "return Array.from(document.querySelectorAll('.jp-OutputArea-output[data-mime-type="
            '"application/vnd.jupyter.stderr"] pre\')).map(e => e.innerText).filter(t => /Error|Traceback/.test(t));'
        )
        glued = driver.execute_script(GLUED_JS)
        text = driver.find_element(By.CSS_SELECTOR, ".jp-Notebook").get_attribute("innerText")
        shown = {k: v for k, v in glued.items() if any(r in text for r in renderings(v))}
        figures = driver.execute_script(
            "return Array.from(document.querySelectorAll('.jp-OutputArea-output img'))"
            ".filter(i => i.complete && i.naturalWidth > 0).length;"
        )
        first = driver.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output img")
        if first:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", first[0])
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(screenshot))
        return {"ran": ran, "glued": glued, "shown": shown, "figures": figures, "errors": errors}
    finally:
        driver.quit()


@pytest.mark.slow  # JupyterLab, a kernel and Chromium
def test_jupyterlab_in_chromium_runs_all_cells_and_shows_a_figure_and_a_glued_number(lab, tmp_path):
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("Debian chromium/chromium-driver not installed (scripts/install-chromium.sh)")
    shot = tmp_path / f"lab_{PAGE}.png"  # the test's artefact
    found = run_all_and_look(f"{lab.url}/lab/tree/notebooks/{PAGE}.py?token={lab.token}", shot)
    assert found["ran"] == "true" and found["errors"] == []
    assert found["figures"] >= 1
    assert found["glued"] and found["shown"], found
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")

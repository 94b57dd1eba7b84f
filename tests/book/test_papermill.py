"""papermill as its users call it: ``pluralign params`` resolves a page's parameter file, ``jupytext --to ipynb``
makes the notebook, and plain ``papermill`` (the command line, and ``papermill.execute_notebook``) on it gives the
same glued values as ``pluralign run`` on the same file. Everything runs from an empty folder outside the project;
glued names and values are read from the executed notebooks' outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PAGE = "diverging_agreement"  # seconds on the demo and sample profiles


def glued(notebook: Path) -> dict:
    """``{name: value as text}`` of every glued output of an executed notebook."""
    values = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for o in cell.get("outputs", []):
            sb = o.get("metadata", {}).get("scrapbook")
            if sb:
                values[sb["name"]] = o["data"].get(sb.get("mime_prefix", "") + "text/plain")
    return values


def _run(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"{' '.join(args)} failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return r


@pytest.mark.slow  # three executions of a page in child processes
@pytest.mark.parametrize("profile", ["demo", pytest.param("sample", marks=pytest.mark.shared_data)])
def test_plain_papermill_on_the_resolved_parameters_gives_the_page_s_glued_values(profile, tmp_path, request):
    if profile == "sample":
        request.getfixturevalue("shared_data")  # the real files (skipped on a developer machine without them)
    params_file = f"params/{profile}/diverging-agreement.yml"
    work = tmp_path / "empty"
    work.mkdir()
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    env.pop("PLURALIGN_CACHE", None)
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")  # a user's cache: nothing of the book's
    _run(["pluralign", "run", PAGE, "-f", str(ROOT / params_file), "--out", "runs"], work, env)
    by_run = glued(work / "runs" / f"{PAGE}__{Path(params_file).stem}.ipynb")
    assert by_run, "the page glued no value"

    _run(["pluralign", "params", PAGE, "-f", str(ROOT / params_file), "-o", "resolved.yml"], work, env)
    _run(["jupytext", "--to", "ipynb", "-o", f"{PAGE}.ipynb", str(ROOT / "notebooks" / f"{PAGE}.py")], work, env)
    r = _run(["papermill", f"{PAGE}.ipynb", "out.ipynb", "-f", "resolved.yml", "--no-progress-bar"], work, env)
    assert "unknown parameter" not in r.stderr  # every name it injects is one of the parameters cell
    assert glued(work / "out.ipynb") == by_run

    api = (
        "import yaml, papermill as pm; "
        f"pm.execute_notebook('{PAGE}.ipynb', 'api.ipynb', parameters=yaml.safe_load(open('resolved.yml')), "
        "progress_bar=False)"
    )
    _run([sys.executable, "-c", api], work, env)
    assert glued(work / "api.ipynb") == by_run
    if profile == "demo":  # no parameter file at all: the page reads its profile's own file (page=...)
        help_text = _run(["papermill", "--help-notebook", f"{PAGE}.ipynb"], work, env).stdout
        assert "settings" in help_text and "DivergingSettings" in help_text
        bare = _run(["papermill", f"{PAGE}.ipynb", "bare.ipynb", "-y", "settings: {}", "--no-progress-bar"], work, env)
        assert "unknown parameter" not in bare.stderr, bare.stderr[-3000:]
        assert glued(work / "bare.ipynb") == by_run
        (work / "bare.ipynb").unlink()
    assert sorted(p.name for p in work.iterdir()) == sorted(
        ["runs", "resolved.yml", f"{PAGE}.ipynb", "out.ipynb", "api.ipynb"]
    )  # nothing else written into the user's folder

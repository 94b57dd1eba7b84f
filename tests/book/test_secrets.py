"""A secret-looking value under an unknown, arbitrary parameter name never appears in any
executed notebook or page. A small book (a page that prints its parameters and the real build-report page, which
shows every page's parameters) is built in a project folder of its own; the value is refused by name, and no file
written anywhere (pages, executed notebooks, cache, run folder) nor the console holds it. The same book with a
harmless value in the same place is in the build-report page's table, so the scan would see a leak."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-proj-Qm7Zt2Lx9Vb4Nc8Rw1Ky6Hd3Fp5Sj0Ua"
HARMLESS = "plain-value-shown-on-the-page"
PAGE = """# %% tags=["parameters"]
profile = "demo"
seed = 0
design = {}

# %%
print("design", design)
"""


def _project(tmp_path: Path, value: str) -> Path:
    root = tmp_path / "project"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "page.py").write_text(PAGE)
    shutil.copy(ROOT / "notebooks" / "build_report.py", root / "notebooks" / "build_report.py")
    demo = root / "params" / "demo"
    demo.mkdir(parents=True)
    (demo / "common.yml").write_text("profile: demo\nseed: 0\n")
    (demo / "page.yml").write_text(yaml.safe_dump({"design": {"n": 3, "xq_7": {"whatever": value}}}))
    (demo / "build_report.yml").write_text("{}\n")
    (root / "manifest.yml").write_text(
        yaml.safe_dump(
            {
                "parts": [
                    {
                        "caption": "Test",
                        "name": "frame",
                        "chapters": [{"run": "page"}, {"run": "build_report", "execute": "last"}],
                    }
                ],
                "profiles": {
                    "demo": {"page": ["params/demo/page.yml"], "build_report": ["params/demo/build_report.yml"]}
                },
            }
        )
    )
    return root


def _cli(root: Path, cache: Path, *args, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PLURALIGN_ROOT=str(root), PLURALIGN_CACHE=str(cache), PYTHONPATH=str(ROOT / "lib"))
    return subprocess.run(
        [sys.executable, "-m", "pluralign.book.cli", *args],
        cwd=cwd or root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _files_holding(folder: Path, text: str) -> list[str]:
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and text.encode() in p.read_bytes() and p.suffix != ".yml"
    )


@pytest.mark.slow
def test_a_secret_under_an_arbitrary_parameter_name_never_reaches_a_page(tmp_path):
    root, cache = _project(tmp_path, SECRET), tmp_path / "cache"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "own.yml").write_text(yaml.safe_dump({"design": {"odd-name": {"deeper": [1, {"q": SECRET}]}}}))
    procs = [
        _cli(root, cache, "book", "--profile", "demo", "--no-html"),
        _cli(root, cache, "book", "--profile", "demo", "--only", "build_report", "--no-html"),
        _cli(root, cache, "run", str(root / "notebooks" / "page.py"), "-f", "own.yml", cwd=mine),
    ]
    for proc, key in zip(procs, ["design.xq_7.whatever", "design.xq_7.whatever", "design.odd-name.deeper"]):
        assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert key in proc.stderr and "environment" in proc.stderr, proc.stderr[-2000:]
        assert SECRET not in proc.stdout + proc.stderr
    # the project (pages, executed notebooks, partial notebooks), the cache, the run folder
    assert _files_holding(tmp_path, SECRET) == [], "the secret was written outside its parameter file"


def test_the_same_value_when_harmless_is_in_the_build_reports_table(tmp_path, monkeypatch):
    """The control, in-process (no kernel): the build-report page's table holds a harmless value in that place,
    so the scan above would see the secret had it been let through; with the secret the table is refused."""
    from pluralign import params, report
    from pluralign.book import manifest_plan

    monkeypatch.setattr(manifest_plan, "ROOT", _project(tmp_path / "harmless", HARMLESS))
    table = report.parameter_report("demo").table
    assert HARMLESS in table.loc[("page", "design"), "value"]
    monkeypatch.setattr(manifest_plan, "ROOT", _project(tmp_path / "secret", SECRET))
    try:
        report.parameter_report("demo")
    except params.ParamsError as e:  # the page's parameter file refused as pluralign.params reads it
        assert "design.xq_7.whatever" in str(e) and SECRET not in str(e)
    else:
        raise AssertionError("the build report read a secret-looking parameter value")

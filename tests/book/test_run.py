"""``pluralign run`` from a folder outside the project, on a data file the project has never seen."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "pluralign.book.cli"]

RATINGS = """item,rater,question,answer_left,answer_right,verdict
q1,r1,How do I boil an egg?,Put it in boiling water for 9 minutes.,Eggs are laid by hens.,left
q1,r2,How do I boil an egg?,Put it in boiling water for 9 minutes.,Eggs are laid by hens.,left
q1,r3,How do I boil an egg?,Put it in boiling water for 9 minutes.,Eggs are laid by hens.,left
q2,r1,Write a haiku about rain.,Rain taps the window,Soft rain on tin roofs,right
q2,r2,Write a haiku about rain.,Rain taps the window,Soft rain on tin roofs,left
q2,r3,Write a haiku about rain.,Rain taps the window,Soft rain on tin roofs,same
"""
MINE = """datasets:
  - name: local
    source: ./ratings.csv
    dataset_name: my-ratings
    columns: {pair_id: item, annotator_id: rater, prompt: question, response_a: answer_left,
              response_b: answer_right, preference: verdict}
    labels: {left: -2, right: 2, same: 0}
"""
CACHED = """# %% tags=["parameters"]
profile = "demo"
value = 3

# %%
import os
from pluralign.cache import Entry
computed = []
result = Entry("test/run-own", inputs=value).get_or_compute(lambda: computed.append(1) or value * 2)
print("computed" if computed else "from cache", result, os.getcwd())
"""


def _git_status():
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True
    ).stdout


def _run(folder: Path, *args, cache: Path):
    env = {**os.environ, "PLURALIGN_CACHE": str(cache)}
    env.pop("PLURALIGN_ROOT", None)
    return subprocess.run(CLI + ["run", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_agreement_page_on_my_ratings_writes_only_into_my_folder(tmp_path):
    (tmp_path / "ratings.csv").write_text(RATINGS)
    (tmp_path / "mine.yml").write_text(MINE)
    before = _git_status()
    proc = _run(tmp_path, "diverging_agreement", "-f", "mine.yml", cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = tmp_path / "pluralign-runs"
    assert sorted(p.name for p in out.iterdir()) == [
        "diverging_agreement__mine.html",
        "diverging_agreement__mine.ipynb",
    ]
    page = (out / "diverging_agreement__mine.html").read_text()
    assert "mine.yml" in page and "./ratings.csv" in page and "my-ratings" in page
    assert "simulated data with planted truth" not in page  # the page does not call the user's data 'demo'
    assert _git_status() == before, "pluralign run wrote into the project's checkout"
    assert "[" in proc.stdout and "done in" in proc.stdout  # a progress line per step


@pytest.mark.slow  # three `pluralign run` child processes, each executing a notebook in a kernel
def test_relative_paths_resolve_against_the_parameter_file_and_a_second_run_reuses_the_cache(tmp_path):
    (tmp_path / "nb.py").write_text(CACHED)
    sub = tmp_path / "conf"
    sub.mkdir()
    (sub / "p.yml").write_text("value: 21\n")
    cache = tmp_path / "cache"
    first = _run(tmp_path, str(tmp_path / "nb.py"), "-f", "conf/p.yml", "--out", "runs", cache=cache)
    assert first.returncode == 0, first.stderr[-2000:]
    executed = (tmp_path / "runs" / "nb__p.ipynb").read_text()
    assert "computed 42" in executed and str(sub) in executed  # the kernel ran in the parameter file's folder
    second = _run(tmp_path, str(tmp_path / "nb.py"), "-f", "conf/p.yml", "--out", "runs", cache=cache)
    assert second.returncode == 0
    assert "from cache 42" in (tmp_path / "runs" / "nb__p.ipynb").read_text()
    third = _run(tmp_path, str(tmp_path / "nb.py"), "-f", "conf/p.yml", "--out", "runs", "--refresh", cache=cache)
    assert third.returncode == 0 and "computed 42" in (tmp_path / "runs" / "nb__p.ipynb").read_text()


def test_an_unknown_parameter_or_notebook_is_refused_by_name(tmp_path):
    (tmp_path / "nb.py").write_text(CACHED)
    (tmp_path / "p.yml").write_text("valeu: 1\n")
    proc = _run(tmp_path, "nb.py", "-f", "p.yml", cache=tmp_path / "cache")
    assert proc.returncode == 1 and "unknown parameter 'valeu'" in proc.stderr and "did you mean 'value'" in proc.stderr
    proc = _run(tmp_path, "no_such_page", "-f", "p.yml", cache=tmp_path / "cache")
    assert proc.returncode == 1 and "no notebook 'no_such_page'" in proc.stderr and "diverging_agreement" in proc.stderr

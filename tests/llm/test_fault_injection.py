"""Crash and resume: a labelling job and a ``pluralign run`` are killed (SIGKILL) at seeded random points and
resumed; nothing finished is redone (requests counted at the project's own OpenAI-compatible server, journal lines
and cache writes counted on disk) and nothing is lost (the final result equals an uninterrupted run's)."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pluralign.llm as llm_mod
from pluralign.cache import cache_dir
from pluralign.llm.scripted import ScriptedBackend
from pluralign.llm.server import serve

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict:
    """The test's environment (its own cache folder, set per test by conftest) for a child process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "lib"), PLURALIGN_CACHE=str(cache_dir()))
    env.pop("PLURALIGN_ROOT", None)
    return env


LABEL = re.compile(r"label of (item \d+)")


def _reply(prompt: str, k: int) -> str:
    return f"label of {prompt}"


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the notebook kernel runs in a session of its own)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL the process and everything it started, as a lost machine or the OOM killer would."""
    for p in [proc.pid, *_descendants(proc.pid)]:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()


def _finished_labels(job: str) -> tuple[set[str], int]:
    """(items whose answer is journaled, journal lines) of an LLM job, read from the journal on disk."""
    lines = [ln for f in cache_dir().glob(f"llm_{job}/*.jsonl") for ln in f.read_bytes().splitlines()]
    done = {m.group(1) for ln in lines for m in [LABEL.search(ln.decode(errors="replace"))] if m}
    return done, len(lines)


def _kill_chain(start, progress, snapshot, points, rng) -> tuple[list[dict], subprocess.Popen]:
    """Start a run, SIGKILL it once ``progress()`` reaches the next point (plus a random few ms, so the kill can land
    mid-request or mid-write), restart, ...; the last run goes to the end. Returns ``snapshot()`` taken as each run
    starts, plus one after the last run, and the last process."""
    states = []
    for point in points:
        states.append(snapshot())
        proc = start()
        deadline = time.time() + 60
        while progress() < point and proc.poll() is None and time.time() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.05))
        if proc.poll() is not None:  # finished before the point: no kill
            states[-1]["killed"] = False
            break
        _kill(proc)
        states[-1]["killed"] = True
    else:
        states.append({**snapshot(), "killed": False})
        proc = start()
    assert proc.wait(timeout=120) == 0, proc.stdout.read().decode()[-3000:]
    states.append(snapshot())
    return states, proc


JOB = r"""
import sys, json
import pluralign.llm as llm
url, model, out, prompts = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
c = llm.load(model, base_url=url, mode="completions", concurrency=2, max_retries=0)
json.dump(c.generate(prompts, max_tokens=2, job="faults"), open(out, "w"))
"""


@pytest.mark.slow
def test_a_labelling_job_killed_at_seeded_random_points_redoes_nothing_and_loses_nothing(tmp_path):
    rng = random.Random(18)
    prompts = [f"item {i}" for i in range(20)]
    (tmp_path / "prompts.json").write_text(json.dumps(prompts))
    (tmp_path / "job.py").write_text(JOB)
    out = tmp_path / "out.json"
    with serve(ScriptedBackend(_reply), delay=0.04, record=True) as srv:
        uninterrupted = llm_mod.load(srv.model_id, base_url=srv.url, mode="completions", concurrency=2).generate(
            prompts, max_tokens=2
        )  # no journal
        base = len(srv.log)

        def start():
            cmd = [
                sys.executable,
                str(tmp_path / "job.py"),
                srv.url,
                srv.model_id,
                str(out),
                str(tmp_path / "prompts.json"),
            ]
            return subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

        def snapshot():  # what is finished on disk, and how far the server log has got
            return {"finished": _finished_labels("faults")[0], "log": len(srv.log)}

        points = sorted(rng.sample(range(2, len(prompts) - 2), 3))
        states, _ = _kill_chain(start, lambda: len(_finished_labels("faults")[0]), snapshot, points, rng)
        journaled, lines = _finished_labels("faults")
        runs = states[:-1]
        for run, after in zip(runs, states[1:]):  # each run asked only for what was not finished when it started
            asked = {body["prompt"] for _, body in srv.log[run["log"] : after["log"]]}
            assert not asked & run["finished"], f"finished items asked again: {sorted(asked & run['finished'])}"
    assert sum(r["killed"] for r in runs) == 3
    assert json.loads(out.read_text()) == uninterrupted == [[f"label of {p}"] for p in prompts]  # nothing lost
    assert journaled == set(prompts) and lines == len(prompts)  # every item journaled once
    sent = len(srv.log) - base
    assert sent <= len(prompts) + 2 * 3, sent  # at most the two requests in flight per kill are sent again


NOTEBOOK = """# %% tags=["parameters"]
profile = "demo"
url = ""
model = ""
n_steps = 4

# %%
import time
import pluralign.llm as llm
from pluralign.cache import Entry
client = llm.load(model, base_url=url, mode="completions", concurrency=1, max_retries=0)
labels = client.generate([f"item {i}" for i in range(8)], max_tokens=2, job="run-faults")


def step(i):
    time.sleep(0.15)
    with open("computed.log", "a") as f:
        f.write(f"{i}\\n")
    return {"i": i, "label": labels[i][0], "square": i * i}


steps = []
for i in range(n_steps):
    steps.append(Entry("test/run-faults", inputs=i).get_or_compute(lambda i=i: step(i)))
    with open("stored.log", "a") as f:
        f.write(f"{i}\\n")
print("RESULT", labels, steps)
"""


def _lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.slow
def test_pluralign_run_killed_at_seeded_random_points_keeps_finished_work(tmp_path):
    rng = random.Random(7)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "nb.py").write_text(NOTEBOOK)
    cli = [sys.executable, "-m", "pluralign.book.cli", "run", "nb.py", "-f", "p.yml", "--out", "runs"]
    with serve(ScriptedBackend(_reply), delay=0.05, record=True) as srv:
        (folder / "p.yml").write_text(f"url: {srv.url}\nmodel: {srv.model_id}\n")

        def start():
            return subprocess.Popen(
                cli, cwd=folder, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
            )

        def progress():  # finished work on disk: journaled labels + stored steps
            return len(_finished_labels("run-faults")[0]) + len(set(_lines(folder / "stored.log")))

        def snapshot():
            return {
                "labels": _finished_labels("run-faults")[0],
                "steps": set(_lines(folder / "stored.log")),
                "log": len(srv.log),
                "computed": len(_lines(folder / "computed.log")),
            }

        points = sorted(rng.sample(range(2, 11), 2))
        states, _ = _kill_chain(start, progress, snapshot, points, rng)
        executed = (folder / "runs" / "nb__p.ipynb").read_text()
        computed = _lines(folder / "computed.log")
        runs = states[:-1]
        for run, after in zip(runs, states[1:]):  # a run redoes nothing that was finished when it started
            asked = {body["prompt"] for _, body in srv.log[run["log"] : after["log"]]}
            assert not asked & run["labels"], f"finished labels asked again: {sorted(asked & run['labels'])}"
            again = set(computed[run["computed"] : after["computed"]]) & run["steps"]
            assert not again, f"stored steps computed again: {sorted(again)}"
        n_asked, journaled, lines = len(srv.log) - states[0]["log"], *_finished_labels("run-faults")

        # the same page, uninterrupted, in a fresh cache and folder
        clean = tmp_path / "clean"
        clean.mkdir()
        (clean / "nb.py").write_text(NOTEBOOK)
        (clean / "p.yml").write_text((folder / "p.yml").read_text())
        env = {**_env(), "PLURALIGN_CACHE": str(tmp_path / "clean-cache")}
        proc = subprocess.run(cli, cwd=clean, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        reference = (clean / "runs" / "nb__p.ipynb").read_text()

    def result(text):
        return next(
            line
            for line in "".join(
                "".join(o.get("text", "")) for c in json.loads(text)["cells"] for o in c.get("outputs", [])
            ).splitlines()
            if line.startswith("RESULT")
        )

    assert sum(r["killed"] for r in runs) == 2
    assert result(executed) == result(reference)  # nothing lost
    kills = 2
    assert journaled == {f"item {i}" for i in range(8)} and lines == 8  # each label journaled once
    assert n_asked <= 8 + kills  # at most the one request in flight at a kill is sent again
    assert sorted(set(computed)) == ["0", "1", "2", "3"] and len(computed) <= 4 + kills, computed

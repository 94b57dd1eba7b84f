"""Pages executed side by side: what starts after what, at most ``jobs`` at once, the first failure stops new
pages."""

import threading

import pytest
import yaml

from pluralign.book import manifest_plan, schedule
from pluralign.book.errors import BookError

LIMIT = 120  # seconds a wait may take before the test calls it a hang (never reached when the code is right)


def test_pages_run_side_by_side_and_a_page_starts_only_after_those_it_waits_for():
    both_running = threading.Barrier(2, timeout=LIMIT)  # breaks (and fails the test) unless 1 and 2 overlap
    log, ended = [], []

    def work(item):
        log.append(("start", item))
        if item in (1, 2):
            both_running.wait()
        return item * 10

    def done(item, result, error):
        assert error is None
        ended.append((item, result))

    schedule.run_graph([1, 2, 3, 4], {3: {1, 2}, 4: {3}}, 2, work, done)
    assert sorted(ended[:2]) == [(1, 10), (2, 20)] and ended[2:] == [(3, 30), (4, 40)]
    assert log.index(("start", 3)) > max(log.index(("start", 1)), log.index(("start", 2)))


def test_a_free_worker_takes_the_first_page_that_may_start_not_the_next_in_line():
    """While "know" waits for "rewards", the other worker runs the independent pages after it in the list."""
    others_done = threading.Event()
    order = []

    def work(item):
        order.append(item)
        if item == "rewards":
            others_done.wait(LIMIT)  # still training while the independent pages run
        if item == "agreement":
            others_done.set()

    schedule.run_graph(["rewards", "know", "causes", "agreement"], {"know": {"rewards"}}, 2, work, lambda *a: 0)
    assert order.index("know") > order.index("agreement")


def test_pages_that_wait_for_each_other_are_refused_by_name():
    with pytest.raises(BookError, match="wait for each other: a, b"):
        schedule.run_graph(["a", "b"], {"a": {"b"}, "b": {"a"}}, 2, lambda i: None, lambda *a: 0)


def test_never_more_pages_at_once_than_jobs():
    running, peak, lock = [0], [0], threading.Lock()

    def work(item):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        with lock:
            running[0] -= 1

    schedule.run_graph(list(range(40)), {}, 3, work, lambda *a: None)
    assert 1 <= peak[0] <= 3


def test_a_failing_page_stops_new_pages_lets_running_ones_finish_and_raises_its_error():
    second_started, first_failed = threading.Event(), threading.Event()
    ran, ended = [], {}

    def work(item):
        ran.append(item)
        if item == "bad":
            second_started.wait(LIMIT)
            raise BookError("notebooks/bad.py failed in cell 3: ValueError: planted")
        if item == "slow":
            second_started.set()
            first_failed.wait(LIMIT)  # still running when the other page fails: it finishes and is kept
            return "ok"
        return "ok"

    def done(item, result, error):
        ended[item] = (result, error)
        if error is not None:
            first_failed.set()  # reported, so no new page may start from here on

    with pytest.raises(BookError, match="planted"):
        schedule.run_graph(["bad", "slow", "later", "last"], {"last": {"bad", "slow", "later"}}, 2, work, done)
    assert sorted(ran) == ["bad", "slow"]  # nothing started after the failure
    assert ended["slow"] == ("ok", None) and isinstance(ended["bad"][1], BookError)


def test_one_job_runs_every_page_in_order_in_the_calling_thread():
    seen = []
    schedule.run_graph(["a", "b", "c"], {}, 1, lambda i: seen.append((i, threading.current_thread())), lambda *a: 0)
    assert [i for i, _ in seen] == ["a", "b", "c"] and {t for _, t in seen} == {threading.current_thread()}


def test_default_jobs_one_on_the_paper_profile_else_the_cores_up_to_four(monkeypatch):
    monkeypatch.delenv(schedule.JOBS_ENV, raising=False)
    monkeypatch.setattr(schedule, "usable_cores", lambda: 2)
    assert schedule.default_jobs("paper") == 1 and schedule.default_jobs("demo") == 2
    monkeypatch.setattr(schedule, "usable_cores", lambda: 64)
    assert schedule.default_jobs("sample") == 4
    monkeypatch.setenv(schedule.JOBS_ENV, "3")
    assert schedule.default_jobs("paper") == 3
    for bad in ("two", "0"):
        monkeypatch.setenv(schedule.JOBS_ENV, bad)
        with pytest.raises(BookError, match=schedule.JOBS_ENV):
            schedule.default_jobs("demo")


def test_the_demo_book_starts_table_2s_training_first_then_the_recoverys_path_and_the_report_last():
    from pluralign.recovery.context import PAGES

    m = manifest_plan.manifest()
    order, after = manifest_plan.execution_plan(manifest_plan.runs("demo", m=m), m)
    names = [r.notebook for r in order]
    assert names[:2] == ["diverging_rewards", "recovery"] and names[-1] == "build_report"
    # then what the recovery waits for, directly or through another page (SEAL's robustness page waits for the SEAL
    # reward models), so that a free worker takes the recovery's path before the pages nothing waits for
    assert names[2:7] == ["diverging_know", "seal_rewards", "seal_robustness", "btb_rewards", "intro"]
    # where the recovery is not built (the other profiles), nothing is taken out of book order for it
    without = [r for r in manifest_plan.runs("demo", m=m) if r.notebook != "recovery"]
    plain = [r.notebook for r in manifest_plan.execution_plan(without, m)[0]]
    assert plain[:3] == ["diverging_rewards", "intro", "data"]
    waits = {r.notebook: sorted(o.notebook for o in deps) for r, deps in after.items()}
    assert waits["diverging_know"] == ["diverging_rewards"] and waits["seal_imprint"] == ["seal_rewards"]
    # the recovery reads the studies of the pages PAGES names (and what they trained): it starts once they ran,
    # beside the remaining pages, rather than alone at the end
    assert waits["recovery"] == sorted(PAGES.values())
    assert set(waits["build_report"]) == set(names[:-1])
    assert waits["btb_margins"] == []


def test_an_after_naming_no_chapter_or_closing_a_circle_is_refused(tmp_path):
    def manifest(chapters):
        path = tmp_path / "manifest.yml"
        path.write_text(yaml.safe_dump({"parts": [{"caption": "T", "chapters": chapters}], "profiles": {}}))
        return path

    with pytest.raises(BookError, match="after: 'nowhere' is no notebook chapter"):
        manifest_plan.manifest(manifest([{"run": "a", "after": "nowhere"}]))
    with pytest.raises(BookError, match="wait for each other: a -> b -> a"):
        manifest_plan.manifest(manifest([{"run": "a", "after": "b"}, {"run": "b", "after": ["a"]}]))
    with pytest.raises(BookError, match="execute: first or execute: last"):
        manifest_plan.manifest(manifest([{"run": "a", "execute": "sometime"}]))

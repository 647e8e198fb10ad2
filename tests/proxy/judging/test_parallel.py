"""Judging across processes gives the same outcomes, in the same order, as judging in this process."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from backchannel.proxy.judging import parallel
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.parallel import judge_all, tasks_for

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"


def test_two_workers_give_the_outcomes_of_one_in_input_order_and_a_hostile_file_is_an_outcome(tmp_path: Path) -> None:
    for source in sorted(REFERENCE.glob("mrtr-provenance-*.sqlite")):
        shutil.copyfile(source, tmp_path / source.name)
    hostile = tmp_path / "mrtr-provenance-zz-hostile.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-fixed.sqlite", hostile)
    conn = sqlite3.connect(hostile)
    with conn:
        conn.execute("CREATE VIEW sneaky AS SELECT 1")
        conn.execute("CREATE TRIGGER t INSTEAD OF INSERT ON sneaky BEGIN SELECT 1; END")
    conn.close()
    tasks = tasks_for(expand([str(tmp_path)]))
    advanced: list[int] = []
    serial = list(judge_all(tasks, 1))
    pooled = list(judge_all(tasks, 2, lambda: advanced.append(1)))
    assert pooled == serial
    assert [o.name for o in pooled] == [t.name for t in tasks]
    assert len(advanced) == len(tasks)
    assert pooled[-1].report is None and "triggers" in (pooled[-1].error or "")
    assert all(o.report is not None for o in pooled[:-1])


def _corpus(folder: Path, count: int) -> list[parallel.Task]:
    sources = sorted(REFERENCE.glob("mrtr-provenance-*.sqlite"))
    for n in range(count):
        shutil.copyfile(sources[n % len(sources)], folder / f"{n:03d}-{sources[n % len(sources)].name}")
    return tasks_for(expand([str(folder)]), shape="summary")


def _dies_on(monkeypatch: pytest.MonkeyPatch, victims: set[str]) -> None:
    """Judging a victim kills the process judging it, as the OOM killer does (the forked workers inherit it)."""
    loading = parallel.load

    def load(path: str) -> object:
        if path in victims:
            os.kill(os.getpid(), signal.SIGKILL)
        return loading(path)

    monkeypatch.setattr(parallel, "load", load)


@pytest.mark.parametrize(("count", "size", "victim"), [(12, 1, 5), (40, 3, 0), (40, 3, 17), (40, 3, 39)])
def test_a_worker_that_dies_leaves_its_recording_not_judged_and_every_other_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, size: int, victim: int
) -> None:
    """A worker killed mid-run (the OOM killer, a crash in a library) hung `judge --jobs N` for ever: the pool never
    returned its task. Now what finished is kept, the rest is judged again, and only the recording whose judging
    kills its process is an error; the others in its chunk, before it and after it, are judged."""
    tasks = _corpus(tmp_path, count)
    serial = list(judge_all(tasks, 1))
    monkeypatch.setattr(parallel, "chunk_size", lambda tasks, workers: size)
    _dies_on(monkeypatch, {tasks[victim].path})
    advanced: list[int] = []
    outcomes = list(judge_all(tasks, 2, lambda: advanced.append(1)))
    assert [o.name for o in outcomes] == [t.name for t in tasks] and len(advanced) == len(tasks)
    (dead,) = [o for o in outcomes if o.error]
    killed = tasks[victim].path
    assert dead.name == killed and dead.error == f"{killed}: the process judging it died (killed, or out of memory)"
    assert [o for o in outcomes if o.name != killed] == [o for o in serial if o.name != killed]


def test_two_recordings_that_kill_their_workers_are_each_named_and_the_rest_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = _corpus(tmp_path, 30)
    monkeypatch.setattr(parallel, "chunk_size", lambda tasks, workers: 4)
    _dies_on(monkeypatch, {tasks[2].path, tasks[21].path})
    outcomes = list(judge_all(tasks, 2))
    assert [o.name for o in outcomes if o.error] == [tasks[2].path, tasks[21].path]
    assert all(o.report is not None for o in outcomes if not o.error)


def test_a_caller_that_stops_reading_stops_the_workers_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C, an error in the output, a scenario that cannot load: the workers are stopped, not left to judge the
    chunks already sent to them (up to WINDOW_PER_WORKER a worker)."""
    tasks = _corpus(tmp_path, 40)
    monkeypatch.setattr(parallel, "chunk_size", lambda tasks, workers: 1)
    started = tmp_path / "started"
    loading = parallel.load

    def slow_load(path: str) -> object:  # each recording takes a while to judge: the stop lands mid-judging
        with open(started, "a") as log:
            log.write(path + "\n")
        time.sleep(0.2)
        return loading(path)

    monkeypatch.setattr(parallel, "load", slow_load)
    judged = judge_all(tasks, 2)
    next(judged)
    workers = [child.pid for child in multiprocessing.active_children()]
    assert len(workers) == 2, "the pool's workers are running"
    judged.close()
    assert multiprocessing.active_children() == []
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    # the first, and what the two workers had begun when they were stopped; not the six chunks sent ahead
    assert len(started.read_text().splitlines()) <= 4

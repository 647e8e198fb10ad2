"""Judging across processes gives the same outcomes, in the same order, as judging in this process."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
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


def test_a_worker_that_dies_leaves_its_recording_not_judged_and_every_other_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed mid-run (the OOM killer, a crash in a library) hung `judge --jobs N` for ever: the pool never
    returned its task. Now what finished is kept, the rest is judged again one by one, and only the recording
    whose judging kills its process is an error."""
    for source in sorted(REFERENCE.glob("mrtr-provenance-*.sqlite"))[:12]:
        shutil.copyfile(source, tmp_path / source.name)
    tasks = tasks_for(expand([str(tmp_path)]), shape="summary")
    victim = tasks[5].path
    serial = list(judge_all(tasks, 1))
    judging = parallel.run_task

    def dies_on_the_victim(task: parallel.Task) -> parallel.Outcome:
        if task.path == victim:
            os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer does
        return judging(task)

    monkeypatch.setattr(parallel, "run_task", dies_on_the_victim)  # the forked workers inherit it
    advanced: list[int] = []
    outcomes = list(judge_all(tasks, 2, lambda: advanced.append(1)))
    assert [o.name for o in outcomes] == [t.name for t in tasks] and len(advanced) == len(tasks)
    (dead,) = [o for o in outcomes if o.error]
    assert dead.name == victim and dead.error == f"{victim}: the process judging it died (killed, or out of memory)"
    assert [o for o in outcomes if o.name != victim] == [o for o in serial if o.name != victim]

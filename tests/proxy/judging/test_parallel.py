"""Judging across processes gives the same outcomes, in the same order, as judging in this process."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

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
    parallel = list(judge_all(tasks, 2, lambda: advanced.append(1)))
    assert parallel == serial
    assert [o.name for o in parallel] == [t.name for t in tasks]
    assert len(advanced) == len(tasks)
    assert parallel[-1].report is None and "triggers" in (parallel[-1].error or "")
    assert all(o.report is not None for o in parallel[:-1])

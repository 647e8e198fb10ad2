"""A `conformance` session built by hand (tests/oracle/session/wire.py's Wire), recorded and judged by one check."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from backchannel.oracle import all_checks, judge
from backchannel.oracle.model import Result
from backchannel.recordings import load
from tests.factories import new_recording
from tests.oracle.session.wire import Wire


def conformance_wire() -> Wire:
    return Wire(scenario="conformance")


def judged(tmp_path: Path, wire: Wire, check: str) -> list[Result]:
    """Record `wire` as one run of the conformance scenario and judge it by `check` alone."""
    path = new_recording(
        tmp_path / f"conformance-{len(list(tmp_path.iterdir()))}.sqlite",
        runs=[{"id": wire.run, "name": "hand", "scenario": "conformance"}],
        exchanges=wire.exchanges,
        messages=wire.messages,
    )
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET started_at = 1, ended_at = 2, outcome = 'exited', exit_code = 0")
    conn.close()
    return [r for r in judge(load(path), [all_checks()[check]]).results if r.id == check]

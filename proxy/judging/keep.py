"""A recording keeps the report it was judged to when it was made, so a later oracle can say what changed
(`judge --diff`). Called by `check`, `record` and `replay --out` once their recording is closed."""

from __future__ import annotations

from pathlib import Path

from backchannel.oracle import ORACLE_VERSION, judge
from backchannel.oracle.model import Report
from backchannel.oracle.render import render
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.reports import store_report


def keep_report(path: Path, report: Report | None = None) -> str | None:
    """Store `report` (judged now if not given) in the closed recording at `path`; a warning if it could not be.

    Not storing never changes a run's outcome: a harness that broke may leave a `-wal` beside the file, which
    `store_report` refuses to write past, and the report printed is the same either way.
    """
    try:
        report = report if report is not None else judge(load(path))
        store_report(path, render(report, "json"), ORACLE_VERSION)
    except RecordingError as exc:
        return f"the report was not stored in the recording: {exc}"
    return None

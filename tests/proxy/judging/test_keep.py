"""A closed recording keeps the report it was judged to; one a writer left open is not written to, and says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from backchannel.oracle import ORACLE_VERSION, judge
from backchannel.oracle.render import render
from backchannel.proxy.judging.keep import keep_report
from backchannel.recordings import load
from backchannel.recordings.reports import stored_report

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"


def test_a_closed_recording_keeps_the_report_it_judges_to_now(tmp_path: Path):
    rec_path = tmp_path / "rec.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-flawed.sqlite", rec_path)
    assert keep_report(rec_path) is None
    kept = stored_report(load(rec_path))
    assert kept is not None and kept.oracle_version == ORACLE_VERSION
    assert kept.document == json.loads(render(judge(load(rec_path)), "json"))


def test_a_recording_left_open_is_not_written_and_the_warning_says_why(tmp_path: Path):
    rec_path = tmp_path / "rec.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-flawed.sqlite", rec_path)
    Path(f"{rec_path}-wal").write_bytes(b"\0" * 32)  # what a writer that died leaves beside the file
    before = rec_path.read_bytes()
    warning = keep_report(rec_path)
    assert warning is not None and "not stored" in warning and "-wal" in warning
    assert rec_path.read_bytes() == before

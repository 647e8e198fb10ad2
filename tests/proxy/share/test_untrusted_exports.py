"""A damaged or hostile recording is exported and reported, or refused with one line and exit 2: never a traceback."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.recordings.test_untrusted_recordings import HOSTILE

from .conftest import FLAWED, invoke

WIRE = [
    "UPDATE exchanges SET status = 700000",
    "UPDATE exchanges SET t_request = 1e308, t_response = -1e308, t_end = NULL",
    """UPDATE exchanges SET request_headers = '[["Host", "[::1"], ["X", "\u202e\u001b[2J"]]'""",
    "UPDATE exchanges SET method = 'G\nET', path = 'no-slash?token=abcdefghijkl'",
    """UPDATE exchanges SET response_headers = '[["content-encoding", "br"], ["content-type", "text/html"]]'""",
    "UPDATE exchanges SET response_body = x'1f8b00ff', request_body = x'ff'",
    """INSERT INTO meta VALUES ('redactions:proxy', '{"counts": {}, "patterns": ["(a+)+$", "(", "customer"]}')""",
    "UPDATE files SET path = '../../etc/passwd'",
    "UPDATE runs SET id = '`', name = '<script>' WHERE name = 'probe'",
]


@pytest.mark.parametrize("statement", [*HOSTILE, *WIRE])
def test_every_export_and_the_bug_report_succeed_or_refuse_in_one_line(tmp_path: Path, statement: str):
    path = tmp_path / "hostile.sqlite"
    shutil.copyfile(FLAWED, path)
    with sqlite3.connect(path) as conn:
        conn.execute(statement)
    conn.close()
    for args in (
        ["export", path, "--format", "har", "--out", tmp_path / "o.har"],
        ["export", path, "--format", "mitm", "--out", tmp_path / "o.mitm"],
        ["export", path, "--format", "sqlite", "--out", tmp_path / "o.sqlite"],
        ["bug-report", path, "--out", tmp_path / "report"],
    ):
        result = invoke(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 2), result.output
        if result.exit_code == 2:
            assert len(result.output.strip().splitlines()) == 1, result.output
        assert "\x1b" not in result.output and "\u202e" not in result.output

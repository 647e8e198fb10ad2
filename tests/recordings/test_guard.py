"""Opening an untrusted recording: the depth scan and the paths the opener refuses before SQLite sees them."""

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.recordings import RecordingError, load
from backchannel.recordings.errors import RecordingFormatError
from backchannel.recordings.guard import ReadLimits, json_depth_over, open_untrusted

REFERENCE_FLAWED = (
    Path(__file__).resolve().parents[2] / "recordings" / "reference" / "mrtr-provenance-toy-flawed.sqlite"
)


@pytest.mark.parametrize(
    ("text", "limit", "over"),
    [
        ("[" * 10 + "]" * 10, 10, False),
        ("[" * 11 + "]" * 11, 10, True),
        ('{"a": "[[[[[[[[[[[[[[[["}', 3, False),  # brackets inside strings do not nest
        ('["\\"[[[[[[["]', 3, False),  # nor after an escaped quote
        ("[" * 1_000_000, 64, True),  # unterminated: still linear, still refused
        ("not json at all", 0, False),
    ],
)
def test_json_depth_is_measured_outside_strings(text: str, limit: int, over: bool) -> None:
    assert json_depth_over(text, limit) is over


def test_a_directory_or_a_fifo_is_refused_without_being_opened(tmp_path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for name in ("fifo", "."):
        with pytest.raises(RecordingError, match="not a regular file"), open_untrusted(tmp_path / name, ReadLimits()):
            pass


def test_a_missing_file_is_named(tmp_path) -> None:
    with pytest.raises(RecordingError, match="no such recording"), open_untrusted(tmp_path / "gone.sqlite"):
        pass


def test_a_view_whose_name_differs_from_a_known_table_only_in_case_is_refused(tmp_path):
    path = tmp_path / "case.sqlite"
    shutil.copyfile(REFERENCE_FLAWED, path)
    with sqlite3.connect(path) as conn:  # SQLite resolves `FROM anomalies` to this endless view
        conn.execute("DROP TABLE anomalies")
        conn.execute(
            "CREATE VIEW Anomalies AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
            "SELECT x AS seq, 'r' AS run_id, NULL AS flow_id, 'k' AS kind, 'd' AS detail, 0.0 AS t FROM r"
        )
    with pytest.raises(RecordingFormatError, match="not a table"):
        load(path)

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


def _run_row(name: str):
    from backchannel.recordings.rows import RunRow

    return RunRow(id=name, ordinal=1, name=name, upstream="http://127.0.0.1:1/mcp", plan={})


def _live_with_another_process(tmp_path, live: bool) -> list[str]:
    """A writer here and a connection in another process (as a capture and its mitmdump); this process reads the
    recording mid-write; the other process then closes its connection first (mitmdump dying mid-capture); the
    writer here writes one more run, and this process reads again, still mid-capture. Returns the runs it sees."""
    import subprocess
    import sys

    from backchannel.recordings import load, store

    path = store.create(tmp_path / "live.sqlite")
    writer = store.RecordingWriter(path)
    try:
        writer.insert(_run_row("before"))
        writer.flush()
        other = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM runs');"
                " print('ready', flush=True); sys.stdin.readline(); c.close()",
                str(path),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert other.stdout is not None and other.stdout.readline().strip() == "ready"
            load(path, live=live)  # the read under test, in this process, while both connections are open
            other.communicate("close\n", timeout=20)
        finally:
            if other.poll() is None:
                other.kill()
        writer.insert(_run_row("after"))
        writer.flush()
        return [run.name for run in load(path, live=live).runs]
    finally:
        writer.close()


def test_a_capture_reading_its_own_live_recording_sees_rows_written_after_another_process_closed(tmp_path):
    # a copy made by this process (load without live) drops this process's locks on the file: the other process's
    # close then folds the WAL in and deletes it under the writer, and later rows stay invisible until the end
    assert _live_with_another_process(tmp_path, live=True) == ["before", "after"]

import sqlite3

import pytest
from sqlite_utils import Migrations

from backchannel.oracle.terminal import raw_bytes
from backchannel.recordings import RecordingError, RecordingFormatError, format_names, load, store
from backchannel.recordings import migrations as m
from backchannel.recordings.reader import read_run
from backchannel.recordings.rows import RunRow
from tests.factories import new_recording


def test_a_missing_file_is_named_in_the_error(tmp_path):
    with pytest.raises(RecordingError, match="no such recording"):
        load(tmp_path / "nope.sqlite")


def test_a_file_that_is_not_sqlite_is_refused_with_a_clear_error(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(RecordingFormatError, match="not a SQLite database"):
        load(path)


def test_an_unrelated_sqlite_file_is_not_mistaken_for_a_recording(tmp_path):
    path = tmp_path / "other.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(RecordingFormatError, match="not a backchannel recording"):
        load(path)


def test_a_recording_from_a_newer_tool_asks_for_an_update(tmp_path):
    path = new_recording(tmp_path / "r.sqlite")
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('backchannel', 'm999_future', 'x')"
    )
    conn.commit()
    conn.close()
    with pytest.raises(RecordingFormatError, match="please update backchannel"):
        load(path)


def test_a_recording_in_an_older_format_names_the_upgrade_command(tmp_path, monkeypatch):
    path = new_recording(tmp_path / "r.sqlite")
    newer = Migrations(m.MIGRATION_SET)  # this tool's migrations and one more, as a newer tool would have
    for name in m.known_migrations():
        newer(name=name)(getattr(m, name))

    @newer(name="m999_test_only")
    def m999_test_only(db):
        db.execute("CREATE TABLE extra (x)")

    monkeypatch.setattr(m, "migrations", newer)
    monkeypatch.setattr(format_names, "NAMES", (*format_names.NAMES, "m999_test_only"))  # and the reader's list
    with pytest.raises(RecordingFormatError, match=f"Run: backchannel upgrade {path}"):
        load(path)
    assert store.upgrade(path) == ["m999_test_only"]
    assert load(path).format_version == "m999_test_only"


def test_a_malformed_row_is_named_by_table_and_key(tmp_path):
    path = new_recording(tmp_path / "r.sqlite", runs=[{"id": "a"}])
    conn = sqlite3.connect(path)
    conn.execute("UPDATE runs SET plan = 'not json' WHERE id = 'a'")
    conn.commit()
    conn.close()
    with pytest.raises(RecordingFormatError, match="row a of table runs, column plan, is malformed"):
        load(path)


def test_a_message_with_an_impossible_direction_is_refused(tmp_path):
    path = new_recording(tmp_path / "r.sqlite", messages=[{"direction": "sideways", "kind": "request", "text": "{}"}])
    with pytest.raises(RecordingFormatError, match="sideways"):
        load(path)


def test_bodies_not_rewritten_resolve_to_what_the_other_side_saw(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite", exchanges=[{"flow_id": "f", "request_body": b"req", "upstream_response_body": b"resp"}]
    )
    (exchange,) = load(path).exchanges
    assert exchange.upstream_request_body == b"req"
    assert exchange.response_body == b"resp"


def test_terminal_output_is_reassembled_by_offset(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}],
        terminal=[
            {"run_id": "a", "stream": "stdout", "offset": 3, "data": b"def"},
            {"run_id": "a", "stream": "stdout", "offset": 0, "data": b"abc"},
            {"run_id": "a", "stream": "stderr", "offset": 0, "data": b"err"},
        ],
    )
    assert raw_bytes(load(path), "a", "stdout") == b"abcdef"


def test_a_run_can_be_read_alone_while_the_recording_is_written(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.insert(RunRow(id="a", ordinal=1, name="x", upstream="http://127.0.0.1:1/mcp", plan={"mutations": []}))
    writer.flush()
    run = read_run(path, "a")
    assert run is not None and run.plan == {"mutations": []}
    assert read_run(path, "b") is None
    writer.close()

"""A working copy: made beside where it will go, refused for a file still being written or not a SQLite file, and
never left behind."""

import os
from pathlib import Path

import pytest

from backchannel.recordings.errors import RecordingError, RecordingFormatError
from backchannel.recordings.working_copy import working_copy
from tests.factories import new_recording


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_the_copy_holds_the_same_bytes_beside_the_destination_and_is_gone_after(tmp_path):
    source = new_recording(tmp_path / "rec.sqlite")
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    with working_copy(source, beside=elsewhere / "shared.sqlite", suffix=".testing", untouched="nothing") as copy:
        assert copy.parent == elsewhere and copy.name.startswith(".shared.sqlite.") and copy.suffix == ".testing"
        assert copy.read_bytes() == source.read_bytes()
    assert _leftovers(elsewhere) == [] and _leftovers(tmp_path) == []


def test_a_failure_inside_the_block_leaves_no_copy_and_no_journal(tmp_path):
    source = new_recording(tmp_path / "rec.sqlite")
    with pytest.raises(ValueError, match="boom"):
        with working_copy(source, beside=source, suffix=".testing", untouched="nothing") as copy:
            copy.with_name(copy.name + "-journal").write_bytes(b"x")
            raise ValueError("boom")
    assert _leftovers(tmp_path) == []


def test_a_recording_with_rows_in_its_wal_is_refused_with_what_was_not_done(tmp_path):
    source = new_recording(tmp_path / "rec.sqlite")
    (tmp_path / "rec.sqlite-wal").write_bytes(b"rows")
    with pytest.raises(RecordingError, match="another process may be writing it; nothing was stored$"):
        with working_copy(source, beside=source, suffix=".testing", untouched="nothing was stored"):
            pytest.fail("no copy is made")
    assert _leftovers(tmp_path) == []


def test_an_empty_wal_is_no_reason_to_refuse(tmp_path):
    source = new_recording(tmp_path / "rec.sqlite")
    (tmp_path / "rec.sqlite-wal").write_bytes(b"")
    with working_copy(source, beside=source, suffix=".testing", untouched="nothing") as copy:
        assert copy.is_file()


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda p: p.write_bytes(b""), RecordingError, "is empty, not a recording"),
        (lambda p: p.write_bytes(b"hello, world, not sqlite"), RecordingFormatError, "is not a SQLite database"),
        (lambda p: p.mkdir(), RecordingError, "is a directory"),
        (lambda p: os.mkfifo(p), RecordingError, "is a FIFO, not a recording"),
    ],
)
def test_what_is_not_a_sqlite_file_is_refused_without_blocking_and_leaves_nothing(tmp_path, make, error, message):
    source = tmp_path / "rec.sqlite"
    make(source)
    with pytest.raises(error, match=message):
        with working_copy(source, beside=tmp_path / "out.sqlite", suffix=".testing", untouched="nothing"):
            pytest.fail("no copy is made")
    assert _leftovers(tmp_path) == []

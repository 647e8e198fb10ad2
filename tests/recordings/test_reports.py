"""A recording keeps the report it was judged to, written safely into a file that may come from anyone."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.oracle import ORACLE_VERSION, judge
from backchannel.oracle.render import render
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError, RecordingFormatError
from backchannel.recordings.reports import REPORT_KEY, store_report, stored_report

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference" / "mrtr-provenance-toy-flawed.sqlite"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / REFERENCE.name
    shutil.copyfile(REFERENCE, target)
    return target


def test_a_stored_report_reads_back_with_its_oracle_version(copy: Path) -> None:
    text = render(judge(load(copy)), "json")
    store_report(copy, text, "7")
    stored = stored_report(load(copy))
    assert stored is not None
    assert stored.oracle_version == "7"
    assert stored.document == json.loads(text)


def test_storing_a_report_does_not_change_what_the_recording_is_judged_to(copy: Path) -> None:
    before = render(judge(load(copy)), "json")
    store_report(copy, before, ORACLE_VERSION)
    assert render(judge(load(copy)), "json") == before
    assert before == REFERENCE.with_suffix(".expected.json").read_text(encoding="utf-8")


def test_storing_again_replaces_the_stored_report(copy: Path) -> None:
    store_report(copy, '{"results": [], "n": 1}', "1")
    store_report(copy, '{"results": [], "n": 2}', "2")
    stored = stored_report(load(copy))
    assert stored is not None and stored.document["n"] == 2 and stored.oracle_version == "2"


def test_a_recording_without_a_stored_report_has_none(copy: Path) -> None:
    assert stored_report(load(copy)) is None


def test_a_recording_carrying_a_trigger_is_refused_and_left_byte_for_byte_unchanged(copy: Path) -> None:
    conn = sqlite3.connect(copy)
    with conn:
        conn.execute("CREATE TABLE pwned(x)")
        conn.execute("CREATE TRIGGER t AFTER INSERT ON meta BEGIN INSERT INTO pwned VALUES (1); END")
    conn.close()
    original = copy.read_bytes()
    with pytest.raises(RecordingFormatError, match="triggers"):
        store_report(copy, '{"results": []}', "1")
    assert copy.read_bytes() == original
    assert [p.name for p in copy.parent.iterdir()] == [copy.name]  # no copy or journal left behind


def test_a_file_that_is_not_a_recording_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE meta(key, value)")
    conn.close()
    with pytest.raises(RecordingFormatError, match="not a backchannel recording"):
        store_report(other, '{"results": []}', "1")
    not_sqlite = tmp_path / "text.sqlite"
    not_sqlite.write_text("hello", encoding="utf-8")
    with pytest.raises(RecordingError):
        store_report(not_sqlite, '{"results": []}', "1")


def test_a_report_that_is_not_a_json_object_is_not_stored(copy: Path) -> None:
    with pytest.raises(RecordingError, match="not JSON"):
        store_report(copy, "{nope", "1")
    assert stored_report(load(copy)) is None


@pytest.mark.parametrize("value", ["{not json", "[1, 2]", "[" * 5000 + "]" * 5000])
def test_a_damaged_stored_report_is_a_format_error_not_a_crash(copy: Path, value: str) -> None:
    conn = sqlite3.connect(copy)
    with conn:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [REPORT_KEY, value])
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    with pytest.raises(RecordingFormatError, match="stored report"):
        stored_report(load(copy))


def test_a_symbolic_link_or_a_read_only_recording_is_refused_and_left_as_it_was(tmp_path):
    real = tmp_path / "real.sqlite"
    shutil.copyfile(REFERENCE, real)
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    with pytest.raises(RecordingError, match="symbolic link"):
        store_report(link, "{}", "1")
    assert link.is_symlink()
    real.chmod(0o444)
    before = real.read_bytes()
    with pytest.raises(RecordingError, match="read-only"):
        store_report(real, "{}", "1")
    assert real.read_bytes() == before

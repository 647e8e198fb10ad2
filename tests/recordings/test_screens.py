"""The `screens` table (m004_screens): snapshots round-trip, bad rows are refused by name, and a recording made
before it reads as it is (keeping its format name) or upgrades in place."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.terminal import is_tty, screens_in
from backchannel.recordings import RecordingFormatError, load, store
from backchannel.recordings.descriptions import rows as description_rows
from backchannel.recordings.migrations import latest
from backchannel.recordings.model import ScreenSnapshot
from backchannel.recordings.trim import trim_copy
from tests.factories import new_recording

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
M003 = REFERENCE / "mrtr-provenance-toy-flawed.sqlite"
SHOT = {
    "run_id": "a",
    "reason": "answered",
    "cols": 80,
    "rows": 24,
    "cursor_row": 1,
    "cursor_col": 6,
    "text": "Welcome\nName?",
    "answer_pattern": r"Name\? ",
    "answer_text": "alice\r",
    "t": 5.0,
}


def test_a_snapshot_comes_back_as_it_was_written(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}, {"id": "b"}],
        screens=[SHOT, {**SHOT, "run_id": "b", "reason": "exit", "answer_pattern": None, "answer_text": None}],
        terminal=[{"run_id": "a", "stream": "tty", "offset": 0, "data": b"Welcome\r\nName? "}],
    )
    rec = load(path)
    assert rec.format_version == latest()
    first = rec.screens[0]
    assert first == ScreenSnapshot(seq=first.seq, **{k: v for k, v in SHOT.items()})
    assert first.lines == ("Welcome", "Name?")
    assert [s.reason for s in screens_in(rec, "b")] == ["exit"]
    assert is_tty(rec, "a") and is_tty(rec, "b")


def test_a_piped_run_has_no_screens_and_is_not_a_tty_run(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}],
        terminal=[{"run_id": "a", "stream": "stdout", "offset": 0, "data": b"x"}],
    )
    rec = load(path)
    assert rec.screens == () and not is_tty(rec, "a")


def test_a_key_like_secret_on_the_screen_or_in_an_answer_is_masked_as_it_is_written(tmp_path):
    secret = "sk-ant-api03-" + "a" * 40
    path = new_recording(
        tmp_path / "r.sqlite", runs=[{"id": "a"}], screens=[{**SHOT, "text": f"key {secret}", "answer_text": secret}]
    )
    (shot,) = load(path).screens
    assert secret not in shot.text and secret not in (shot.answer_text or "")
    assert len(shot.text) == len(f"key {secret}")  # masked at its own length, like terminal bytes


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("UPDATE screens SET reason = 'bored'", "column reason, is malformed: reason 'bored'"),
        ("UPDATE screens SET cols = 0", "column cols, is malformed: cols 0 is outside"),
        ("UPDATE screens SET rows = 5000", "column rows, is malformed: rows 5000 is outside"),
        ("UPDATE screens SET cursor_row = 24", "is off a 80x24 screen"),
        ("UPDATE screens SET text = printf('%.30c', char(10))", "text has more than 24 rows"),
        ("UPDATE screens SET cols = 'wide'", "column cols, is malformed: expected an integer"),
    ],
    ids=["reason", "cols", "rows", "cursor", "too-many-rows", "text-cols"],
)
def test_a_malformed_snapshot_is_refused_naming_its_row_table_and_column(tmp_path, sql, said):
    path = new_recording(tmp_path / "r.sqlite", runs=[{"id": "a"}], screens=[SHOT])
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql)
    conn.close()
    with pytest.raises(RecordingFormatError, match=f"row 1 of table screens, {said}" if "column" in said else said):
        load(path)


def test_a_recording_made_before_screens_reads_as_it_is_and_keeps_its_format_name(tmp_path):
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(M003, copy)
    before = copy.read_bytes()
    rec = load(copy)
    assert rec.format_version == "m003_descriptions"  # reports of it say so, as their committed copies do
    assert rec.screens == ()
    assert copy.read_bytes() == before


def test_upgrading_a_recording_made_before_screens_adds_the_table_and_its_words_and_judges_the_same(tmp_path):
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(M003, copy)
    verdicts_before = [r.as_dict() for r in judge(load(copy)).results]
    assert store.upgrade(copy) == ["m004_screens", "m005_opens", "m006_model_exchanges", "m007_attestations"]
    rec = load(copy)
    assert rec.format_version == "m007_attestations" and rec.meta["format_version"] == "m007_attestations"
    assert [r.as_dict() for r in judge(rec).results] == verdicts_before
    with sqlite3.connect(copy) as conn:
        stored = set(conn.execute("SELECT table_name, column_name, description FROM descriptions"))
    conn.close()
    assert {row for row in description_rows() if row[0] == "screens"} <= stored
    assert store.upgrade(copy) == []


def test_a_trimmed_copy_keeps_only_the_chosen_runs_screens(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite", runs=[{"id": "a"}, {"id": "b"}], screens=[SHOT, {**SHOT, "run_id": "b"}]
    )
    out = tmp_path / "trimmed.sqlite"
    trim_copy(path, out, ["b"])
    assert [s.run_id for s in load(out).screens] == ["b"]

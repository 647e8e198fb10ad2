"""`trim_copy` writes a new recording holding only the chosen runs' rows, redacted, and never touches the source."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import msgpack
import pytest

from backchannel.oracle import judge
from backchannel.recordings import load, redact
from backchannel.recordings.errors import RecordingError, RecordingFormatError
from backchannel.recordings.redactions import Redactions
from backchannel.recordings.trim import trim_copy
from tests.factories import new_recording

ROOT = Path(__file__).resolve().parents[2]
FLAWED = ROOT / "recordings" / "reference" / "mrtr-provenance-toy-flawed.sqlite"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_copy_of_every_run_judges_exactly_as_the_original_and_the_source_is_untouched(tmp_path):
    before = digest(FLAWED)
    trim_copy(FLAWED, tmp_path / "copy.sqlite")
    assert digest(FLAWED) == before
    original, copy = load(FLAWED), load(tmp_path / "copy.sqlite")
    assert [r.as_dict() for r in judge(copy).results] == [r.as_dict() for r in judge(original).results]
    assert copy.runs == original.runs and len(copy.messages) == len(original.messages)


def test_a_copy_of_chosen_runs_holds_only_their_rows_and_no_stored_report(tmp_path):
    original = load(FLAWED)
    probe = next(r for r in original.runs if r.name == "probe")
    trim_copy(FLAWED, tmp_path / "probe.sqlite", [probe.id])
    copy = load(tmp_path / "probe.sqlite")
    assert [r.id for r in copy.runs] == [probe.id]
    for rows in (copy.exchanges, copy.messages, copy.terminal, copy.files, copy.anomalies, copy.sse_events):
        assert all(row.run_id == probe.id for row in rows)
    assert len(copy.messages) == sum(1 for _ in original.messages_in(probe.id)) > 0
    assert "stored_report" not in copy.meta


def test_the_copy_is_redacted_with_the_policy_it_is_given_and_says_what_it_redacted(tmp_path):
    source = new_recording(
        tmp_path / "src.sqlite",
        runs=[{"id": "r1"}],
        messages=[{"run_id": "r1", "direction": "to-server", "kind": "request", "text": '{"customer":"alice"}'}],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": b"customer=alice-and-bob\n"}],
        exchanges=[{"run_id": "r1", "flow_id": "f", "status": 200, "flow_state": msgpack.packb({"content": b"alice"})}],
    )
    summary = trim_copy(source, tmp_path / "out.sqlite", policy=redact.Policy(["customer"]))
    assert b"alice" not in (tmp_path / "out.sqlite").read_bytes()
    copy = load(tmp_path / "out.sqlite")
    assert copy.exchanges[0].flow_state is None  # mitmproxy's state repeats bodies unredacted: never shared
    assert copy.terminal[0].data.startswith(b"customer=") and len(copy.terminal[0].data) == 23  # offsets stay true
    assert summary.counts == {"json-member": {"customer": 1}, "terminal": {"customer": 1}}
    assert Redactions.read_all(copy.meta)[0] == Redactions(
        source="export", counts=summary.counts, patterns=("customer",)
    )


def test_an_existing_destination_is_refused_and_left_as_it_was(tmp_path):
    out = tmp_path / "out.sqlite"
    out.write_text("mine")
    with pytest.raises(RecordingError, match="already exists"):
        trim_copy(FLAWED, out)
    assert out.read_text() == "mine"


def test_a_source_that_is_not_a_recording_or_carries_a_trigger_is_refused_and_nothing_is_written(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    armed = tmp_path / "armed.sqlite"
    armed.write_bytes(FLAWED.read_bytes())
    conn = sqlite3.connect(armed)
    conn.execute("CREATE TRIGGER t AFTER DELETE ON messages BEGIN DELETE FROM meta; END")
    conn.commit()
    conn.close()
    for bad in (junk, fifo, armed, tmp_path / "missing.sqlite"):
        with pytest.raises((RecordingError, RecordingFormatError)):
            trim_copy(bad, tmp_path / "out.sqlite", ["x"])
        assert sorted(p.name for p in tmp_path.iterdir()) == ["armed.sqlite", "fifo", "junk.sqlite"]


def test_a_recording_still_being_written_is_refused_rather_than_copied_without_its_newest_rows(tmp_path):
    source = tmp_path / "open.sqlite"
    source.write_bytes(FLAWED.read_bytes())
    (tmp_path / "open.sqlite-wal").write_bytes(b"rows not yet folded in")
    with pytest.raises(RecordingError, match="-wal"):
        trim_copy(source, tmp_path / "out.sqlite")
    assert not (tmp_path / "out.sqlite").exists()


def test_a_secret_after_a_flag_in_an_older_recordings_command_lines_is_hidden_in_the_copy(tmp_path):
    source = tmp_path / "old.sqlite"
    new_recording(source, runs=[{"id": "r1"}])
    argv = ["my-client", "--api-key", "sk_live_51HxYzSECRET999", "--password", "hunter2hunter2", "{url}"]
    with sqlite3.connect(source) as conn:  # as a recorder that did not hide them wrote it
        conn.execute("UPDATE runs SET client_argv = ?", (json.dumps(argv),))
        conn.execute("INSERT INTO meta(key, value) VALUES ('invocation', ?)", (json.dumps(argv),))
    copy = tmp_path / "copy.sqlite"
    trim_copy(source, copy)
    data = copy.read_bytes()
    assert b"sk_live_51HxYzSECRET999" not in data and b"hunter2hunter2" not in data
    rec = load(copy)
    assert rec.runs[0].client_argv == (
        "my-client",
        "--api-key",
        redact.REDACTED,
        "--password",
        redact.REDACTED,
        "{url}",
    )


def test_a_copy_masks_the_machines_home_folder_and_user_name_in_output_files_and_commands_at_their_length(tmp_path):
    """A client that printed its environment named the user's home folder and name: a shared copy keeps neither,
    masks each at its own length (offsets stay true), counts them under what they were, and judges the same."""
    printed = b"PATH=/home/alice/.local/bin:/usr/bin\nUSER=alice\nsaved to /home/alice/notes.txt\n"
    source = new_recording(
        tmp_path / "src.sqlite",
        runs=[{"id": "r1", "client_argv": ["/home/alice/.venv/bin/python", "-m", "client", "http://127.0.0.1:1/mcp"]}],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": printed}],
        files=[{"run_id": "r1", "path": "log.txt", "size": 16, "data": b"cwd /home/alice\n"}],
    )
    host = redact.HostNames(home="/home/alice", user="alice")
    summary = trim_copy(source, tmp_path / "out.sqlite", policy=redact.Policy(host=host))
    assert b"alice" not in (tmp_path / "out.sqlite").read_bytes()
    copy = load(tmp_path / "out.sqlite")
    assert copy.terminal[0].data == (
        b"PATH=[home]*****/.local/bin:/usr/bin\nUSER=*****\nsaved to [home]*****/notes.txt\n"
    )
    assert len(copy.terminal[0].data) == len(printed) and copy.files[0].data == b"cwd [home]*****\n"
    assert copy.runs[0].client_argv == ("[home]*****/.venv/bin/python", "-m", "client", "http://127.0.0.1:1/mcp")
    assert summary.counts["terminal"] == {"home folder": 2, "user name": 1}
    assert summary.counts["file"] == {"home folder": 1} and summary.counts["argv"] == {"home folder": 1}


def test_another_machines_home_folder_is_masked_too_and_a_write_time_policy_masks_none(tmp_path):
    source = new_recording(
        tmp_path / "src.sqlite",
        runs=[{"id": "r1"}],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": b"at /Users/bob/x and /home/carol\n"}],
    )
    trim_copy(source, tmp_path / "out.sqlite", policy=redact.Policy(host=redact.HostNames(home="/root", user="root")))
    assert load(tmp_path / "out.sqlite").terminal[0].data == b"at /Users/***/x and /home/*****\n"
    trim_copy(source, tmp_path / "plain.sqlite", policy=redact.Policy())
    assert load(tmp_path / "plain.sqlite").terminal[0].data == b"at /Users/bob/x and /home/carol\n"


def test_a_copy_redacts_a_runs_upstream_and_detail_written_past_the_writer(tmp_path):
    """A recording from elsewhere (or one written before the writer redacted them) may hold a key in a run's
    upstream query or its detail; the shared copy keeps neither, and the server it names stays."""
    source = new_recording(tmp_path / "src.sqlite", runs=[{"id": "r1", "upstream": "http://127.0.0.1:9/mcp"}])
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with sqlite3.connect(source) as db:
        db.execute(
            "UPDATE runs SET upstream = 'http://127.0.0.1:9/mcp?api_key=X1', detail = ?", (f'{{"note":"{key}"}}',)
        )
    db.close()
    trim_copy(source, tmp_path / "out.sqlite")
    shared = (tmp_path / "out.sqlite").read_bytes()
    assert b"api_key=X1" not in shared and key.encode() not in shared
    assert load(tmp_path / "out.sqlite").runs[0].upstream.startswith("http://127.0.0.1:9/mcp?api_key=")


def test_a_user_name_spelled_with_the_masks_own_letters_is_still_masked(tmp_path):
    source = new_recording(
        tmp_path / "src.sqlite",
        runs=[{"id": "r1"}],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": b"USER=rose at /home/rose/x\n"}],
    )
    trim_copy(
        source, tmp_path / "out.sqlite", policy=redact.Policy(host=redact.HostNames(home="/home/rose", user="rose"))
    )
    assert load(tmp_path / "out.sqlite").terminal[0].data == b"USER=**** at [home]****/x\n"


SHOT = b"\x89PNG\r\n\x1a\n" + b"unique-screenshot-payload-5c1e"


def _answered(tmp_path: Path) -> Path:
    row = {"run_id": "a", "question_id": "names-requesting-server", "question": "Did it name the server?"}
    return new_recording(
        tmp_path / "answered.sqlite",
        runs=[{"id": "a"}],
        attestations=[
            {**row, "answer": "n", "screenshot": SHOT, "screenshot_type": "image/png"},
            {**row, "answer": "?"},
        ],
    )


def test_a_copy_keeps_a_persons_screenshot_as_it_was_given_by_default(tmp_path):
    trim_copy(_answered(tmp_path), tmp_path / "copy.sqlite")
    shot, none = load(tmp_path / "copy.sqlite").attestations
    assert (shot.screenshot, shot.screenshot_type) == (SHOT, "image/png")
    assert (none.screenshot, none.screenshot_type) == (None, None)


def test_a_copy_without_screenshots_keeps_every_answer_but_no_image_byte_even_in_free_pages(tmp_path):
    source = _answered(tmp_path)
    trim_copy(source, tmp_path / "copy.sqlite", screenshots=False)
    copy = load(tmp_path / "copy.sqlite")
    assert [(a.answer, a.screenshot, a.screenshot_type) for a in copy.attestations] == [
        ("n", None, None),
        ("?", None, None),
    ]
    assert b"unique-screenshot-payload" not in (tmp_path / "copy.sqlite").read_bytes()
    assert b"unique-screenshot-payload" in source.read_bytes()  # the source is left as it was


def test_a_recording_older_than_the_answers_table_is_copied_without_screenshots_all_the_same(tmp_path):
    older = ROOT / "recordings" / "reference" / "mrtr-provenance-agent-codex.sqlite"  # m006: no attestations table
    trim_copy(older, tmp_path / "copy.sqlite", screenshots=False)
    assert load(tmp_path / "copy.sqlite").attestations == ()

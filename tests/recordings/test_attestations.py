"""The `attestations` table (m007_attestations): a person's answers round-trip with their screenshot, a hostile
answer, author or image type is refused by name, and a recording made before it reads as it is (empty)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from backchannel.recordings import RecordingFormatError, load
from backchannel.recordings.migrations import READ_AS_IS, latest
from backchannel.recordings.model import Attestation
from tests.factories import new_recording

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
M006 = REFERENCE / "mrtr-provenance-agent-codex.sqlite"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
ANSWER = {"run_id": "a", "question_id": "names-requesting-server", "question": "Did the app name it?", "answer": "n"}


def test_an_answer_comes_back_as_it_was_written_with_its_screenshot(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}],
        attestations=[
            {**ANSWER, "t": 7.5, "screenshot": PNG, "screenshot_type": "image/png"},
            {**ANSWER, "answer": "?"},
        ],
    )
    rec = load(path)
    assert rec.format_version == latest() == "m007_attestations"
    first, second = rec.attestations
    assert first == Attestation(
        seq=first.seq, **{**ANSWER, "t": 7.5, "screenshot": PNG, "screenshot_type": "image/png"}, who="person"
    )
    assert second.answer == "?" and second.screenshot is None and second.screenshot_type is None
    assert list(rec.attestations_in("a")) == [first, second] and list(rec.attestations_in("b")) == []


@pytest.mark.parametrize(
    ("column", "value"), [("answer", "maybe"), ("who", "oracle"), ("screenshot_type", "image/svg+xml")]
)
def test_a_hostile_cell_is_refused_naming_its_column(tmp_path, column, value):
    path = new_recording(tmp_path / "r.sqlite", runs=[{"id": "a"}], attestations=[ANSWER])
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE attestations SET {column} = ?", (value,))
    conn.close()
    with pytest.raises(RecordingFormatError, match=column):
        load(path)


def test_a_recording_made_before_the_table_reads_as_it_is_with_no_answers():
    assert "m007_attestations" in READ_AS_IS
    rec = load(M006)
    assert rec.format_version == "m006_model_exchanges" and rec.attestations == ()

"""Redaction never changes a verdict: every committed reference recording, its every cell of every table passed
through the write-time redaction (each column's declared rule, as the writer applies it), judges to the same report,
byte for byte.

The report of the unredacted recording is its committed .expected.json: test_reference_recordings.py holds each
reference's report equal to that file byte for byte, so judging every reference a second time here would only
repeat that work (while the goldens are being rewritten, the original is judged here instead)."""

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.render import render
from backchannel.recordings import cell_rules, load

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
GOLDEN = sorted(REFERENCE.glob("*.sqlite"))


def redacted_copy(source: Path, target: Path) -> int:
    """Copy a recording and redact every column of every table as the writer does; returns how many rows changed."""
    shutil.copyfile(source, target)
    changed = 0
    conn = sqlite3.connect(target)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table, columns in cell_rules.WRITTEN.items():
            if table not in tables:
                continue
            present = {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
            names = [name for name in columns if name in present]
            for row in conn.execute(f"SELECT rowid, {', '.join(names)} FROM {table}").fetchall():
                new = [columns[name](value) for name, value in zip(names, row[1:], strict=True)]
                if new != list(row[1:]):
                    changed += 1
                    sets = ", ".join(f"{name} = ?" for name in names)
                    conn.execute(f"UPDATE {table} SET {sets} WHERE rowid = ?", (*new, row[0]))
        conn.commit()
    finally:
        conn.close()
    return changed


@pytest.mark.parametrize("recording", GOLDEN, ids=lambda p: p.stem)
def test_a_reference_recording_judges_the_same_after_redaction(recording: Path, tmp_path: Path):
    copy = tmp_path / recording.name
    redacted_copy(recording, copy)
    if os.environ.get("BACKCHANNEL_UPDATE_GOLDEN"):
        original = render(judge(load(recording)), "json")
    else:
        original = recording.with_suffix(".expected.json").read_text(encoding="utf-8")
    assert render(judge(load(copy)), "json") == original


def test_redaction_of_the_references_is_a_fixed_point(tmp_path: Path):
    """Redacting twice changes nothing more: what the writer stored is already in its final form."""
    for recording in GOLDEN:
        once, twice = tmp_path / "once.sqlite", tmp_path / "twice.sqlite"
        redacted_copy(recording, once)
        assert redacted_copy(once, twice) == 0, recording.name

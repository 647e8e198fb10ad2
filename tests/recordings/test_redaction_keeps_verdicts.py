"""Redaction never changes a verdict: every committed reference recording, its every stored text and blob passed
through the write-time redaction (as recordings/rows.py does), judges to the same report, byte for byte."""

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.render import render
from backchannel.recordings import load, redact

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
GOLDEN = sorted(REFERENCE.glob("*.sqlite"))


def _headers(text: object) -> object:
    if not isinstance(text, str):
        return text
    return json.dumps(redact.redact_headers([tuple(pair) for pair in json.loads(text)]), separators=(",", ":"))


def _text(value: object) -> object:
    return redact.redact_json_text(value) if isinstance(value, str) else value


def _blob(value: object) -> object:
    return redact.redact_json_bytes(value) if isinstance(value, bytes) else value


def _output(kind: str) -> Callable[[object], object]:
    return lambda value: redact.redact_output(value, kind) if isinstance(value, bytes) else value


def _path(value: object) -> object:
    return redact.redact_path(value) if isinstance(value, str) else value


# every column a row record passes through redaction, and how (the same functions rows.py calls)
COLUMNS: dict[str, dict[str, Callable[[object], object]]] = {
    "exchanges": {
        "path": _path,
        "request_headers": _headers,
        "response_headers": _headers,
        "upstream_response_headers": _headers,
        "request_body": _blob,
        "upstream_request_body": _blob,
        "upstream_response_body": _blob,
        "response_body": _blob,
    },
    "messages": {"text": _text, "upstream_text": _text},
    "sse_events": {"upstream_raw": _blob, "client_raw": _blob},
    "terminal": {"data": _output("terminal")},
    "files": {"data": _output("file")},
    "url_hits": {"path": _path, "headers": _headers},
}


def redacted_copy(source: Path, target: Path) -> int:
    """Copy a recording and redact every column the writer redacts; returns how many values changed."""
    shutil.copyfile(source, target)
    changed = 0
    conn = sqlite3.connect(target)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table, columns in COLUMNS.items():
            if table not in tables:
                continue
            names = list(columns)
            for row in conn.execute(f"SELECT seq, {', '.join(names)} FROM {table}").fetchall():
                new = [columns[name](value) for name, value in zip(names, row[1:], strict=True)]
                if new != list(row[1:]):
                    changed += 1
                    sets = ", ".join(f"{name} = ?" for name in names)
                    conn.execute(f"UPDATE {table} SET {sets} WHERE seq = ?", (*new, row[0]))
        conn.commit()
    finally:
        conn.close()
    return changed


@pytest.mark.parametrize("recording", GOLDEN, ids=lambda p: p.stem)
def test_a_reference_recording_judges_the_same_after_redaction(recording: Path, tmp_path: Path):
    copy = tmp_path / recording.name
    redacted_copy(recording, copy)
    assert render(judge(load(copy)), "json") == render(judge(load(recording)), "json")


def test_redaction_of_the_references_is_a_fixed_point(tmp_path: Path):
    """Redacting twice changes nothing more: what the writer stored is already in its final form."""
    for recording in GOLDEN:
        once, twice = tmp_path / "once.sqlite", tmp_path / "twice.sqlite"
        redacted_copy(recording, once)
        assert redacted_copy(once, twice) == 0, recording.name

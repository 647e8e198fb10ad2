"""The text output for many recordings: what needs a look per recording, one table, one closing line, safe text."""

from __future__ import annotations

import json
from pathlib import Path

from backchannel.proxy.judging.summary import recording_lines, render_text

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"


def test_a_recording_lists_only_what_needs_a_look_and_a_probe_shows_its_verdict() -> None:
    report = json.loads((REFERENCE / "mrtr-provenance-toy-flawed.expected.json").read_text(encoding="utf-8"))
    lines = recording_lines({"name": "flawed.sqlite", "report": report})
    assert lines[0].startswith("flawed.sqlite: ") and lines[0].endswith("exit code 1")
    assert sum(1 for line in lines[1:] if line.lstrip().startswith("CONFIRMED")) == 2
    assert all("PASS" not in line.split()[0] for line in lines[1:])


def test_an_unjudged_recording_says_why_and_the_table_shows_dashes() -> None:
    text = render_text([{"name": "broken.sqlite", "error": "broken.sqlite is not a SQLite database"}], 2)
    assert "broken.sqlite: NOT JUDGED: broken.sqlite is not a SQLite database" in text
    assert "total (1 recordings)" in text
    assert text.endswith("1 recordings, 1 not judged; exit code 2\n")


def test_control_and_bidi_characters_in_a_name_are_shown_escaped_never_emitted() -> None:
    text = render_text([{"name": "a\x1b[31m\u202eb.sqlite", "error": "x"}], 2)
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b" in text and "\\u202e" in text

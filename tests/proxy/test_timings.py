"""Phase marks are written only when BACKCHANNEL_TIMINGS names a file, one JSON line each, and never break a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from backchannel.proxy.timings import ENV, mark


def test_a_mark_is_one_json_line_with_its_phase_time_and_pid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    monkeypatch.setenv(ENV, str(path))
    mark("proxy-ready")
    mark("judged")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["phase"] for line in lines] == ["proxy-ready", "judged"]
    assert all(line["pid"] == os.getpid() and isinstance(line["t"], float) for line in lines)
    assert lines[0]["t"] <= lines[1]["t"]


def test_without_the_variable_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    mark("proxy-ready")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_cannot_be_written_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "no-such-folder" / "t.jsonl"))
    mark("proxy-ready")  # no exception: timing a check must never break it
    assert not (tmp_path / "no-such-folder").exists()

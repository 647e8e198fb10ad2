"""`check --replay FILE` re-runs a recorded scenario against a replay of its server side in one step: the same
runs, the same checks, and the report the original recording judges to."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.oracle import ORACLE_VERSION
from backchannel.recordings import load
from backchannel.recordings.reports import stored_report

from .conftest import REFERENCE

BACKCHANNEL = [sys.executable, "-m", "backchannel.proxy.cli"]
TOY_FIXED = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "--fix", "provenance", "--fix", "result-type"]


def _statuses(document: dict[str, object]) -> list[tuple[str, str]]:
    return sorted((r["id"], r["status"]) for r in document["results"])  # type: ignore[attr-defined, index]


def test_check_replay_with_a_client_reproduces_the_recorded_report_with_no_original_server(tmp_path: Path):
    source = REFERENCE / "mrtr-provenance-toy-fixed.sqlite"
    expected = json.loads(source.with_suffix(".expected.json").read_text(encoding="utf-8"))
    client = shlex.join([*TOY_FIXED, "mcp", "call", "{url}", "get_repo_status"])
    out = tmp_path / "again.sqlite"
    done = subprocess.run(
        [*BACKCHANNEL, "check", "--replay", str(source), "--client", client, "--out", str(out), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == expected["exit_code"], done.stderr
    assert _statuses(json.loads(done.stdout)) == _statuses(expected)
    rejudged = subprocess.run([*BACKCHANNEL, "judge", str(out), "--format", "json"], capture_output=True, timeout=60)
    assert _statuses(json.loads(rejudged.stdout)) == _statuses(expected)
    kept = stored_report(load(out))  # the report check printed travels inside the recording
    assert kept is not None and kept.oracle_version == ORACLE_VERSION
    assert _statuses(kept.document) == _statuses(expected)


def test_check_replay_of_a_file_that_is_not_a_recording_is_a_usage_error(tmp_path: Path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all")
    done = subprocess.run(
        [*BACKCHANNEL, "check", "--replay", str(junk), "--out", str(tmp_path / "x.sqlite")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("backchannel: ") and "Traceback" not in done.stderr


def test_a_server_scenarios_recording_has_no_client_to_re_run_and_says_how_to_use_it(tmp_path):
    from backchannel.proxy.replay.session import ReplayError
    from backchannel.proxy.replay.through_proxy import rerun

    recording = REFERENCE / "elicitation-sep1036-url-mode-bundled.sqlite"
    with pytest.raises(ReplayError, match="records the server scenario elicitation-sep1036-url-mode") as raised:
        rerun(recording, tmp_path / "out.sqlite", client=["x", "{url}"])
    assert "backchannel judge" in str(raised.value) and not (tmp_path / "out.sqlite").exists()

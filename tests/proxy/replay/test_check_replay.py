"""`check --replay FILE` re-runs a recorded scenario against a replay of its server side in one step: the same
runs, the same checks, and the report the original recording judges to.

`check` and `judge` run in this process (tests/in_process.py; the client, the replay and mitmdump are real
processes all the same); `replay`, stopped by a signal, runs as a process of its own."""

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
from tests.in_process import backchannel

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
    done = backchannel("check", "--replay", str(source), "--client", client, "--out", str(out), "--format", "json")
    assert done.exit_code == expected["exit_code"], done.stderr
    assert _statuses(json.loads(done.stdout)) == _statuses(expected)
    verdicts = sorted((r["id"], r.get("verdict")) for r in json.loads(done.stdout)["results"])
    assert verdicts == sorted((r["id"], r.get("verdict")) for r in expected["results"])  # REFUTED as recorded
    rejudged = backchannel("judge", str(out), "--format", "json")
    assert _statuses(json.loads(rejudged.stdout)) == _statuses(expected)
    kept = stored_report(load(out))  # the report check printed travels inside the recording
    assert kept is not None and kept.oracle_version == ORACLE_VERSION
    assert _statuses(kept.document) == _statuses(expected)


def test_check_replay_of_a_file_that_is_not_a_recording_is_a_usage_error(tmp_path: Path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all")
    done = backchannel("check", "--replay", str(junk), "--out", str(tmp_path / "x.sqlite"))
    assert done.exit_code == 2
    assert done.stderr.startswith("backchannel: ") and "Traceback" not in done.stderr


def test_a_server_scenarios_recording_has_no_client_to_re_run_and_says_how_to_use_it(tmp_path):
    from backchannel.proxy.replay.session import ReplayError
    from backchannel.proxy.replay.through_proxy import rerun

    recording = REFERENCE / "elicitation-sep1036-url-mode-bundled.sqlite"
    with pytest.raises(ReplayError, match="records the server scenario elicitation-sep1036-url-mode") as raised:
        rerun(recording, tmp_path / "out.sqlite", client=["x", "{url}"])
    assert "backchannel judge" in str(raised.value) and not (tmp_path / "out.sqlite").exists()


def _with_a_broken_plan(tmp_path: Path) -> Path:
    """The fixed toy's reference with its `absent` run's stored plan replaced by one naming no known kind."""
    import shutil
    import sqlite3

    copy = tmp_path / "broken-plan.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-fixed.sqlite", copy)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE runs SET plan = ? WHERE name = 'absent'", ('{"mutations":[{"kind":"no-such-kind"}]}',))
    db.close()
    return copy


def test_check_replay_of_a_stored_plan_that_does_not_parse_refuses_that_run_in_one_line_and_judges_the_rest(
    tmp_path: Path,
):
    client = shlex.join([*TOY_FIXED, "mcp", "call", "{url}", "get_repo_status"])
    out = tmp_path / "again.sqlite"
    done = backchannel("check", "--replay", str(_with_a_broken_plan(tmp_path)), "--client", client, "--out", str(out))
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert "Traceback" not in done.stderr and done.exit_code in (0, 1), done.stderr
    [line] = [x for x in done.stderr.splitlines() if "stored plan does not parse" in x]
    assert line.startswith("backchannel: run absent (") and "no-such-kind" in line
    again = load(out)
    [absent] = [r for r in again.runs if r.name == "absent"]
    refused = [a for a in again.anomalies if a.kind == "invalid-plan"]
    assert [a.run_id for a in refused] == [absent.id]  # the proxy refused that run's requests, as check does
    assert stored_report(again) is not None


def test_replay_out_of_a_stored_plan_that_does_not_parse_runs_and_says_so_in_one_line(tmp_path: Path):
    import signal

    out = tmp_path / "again.sqlite"
    source = _with_a_broken_plan(tmp_path)
    command = [*BACKCHANNEL, "replay", str(source), "--run", "absent", "--out", str(out), "--speed", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.endswith("/mcp"), url
        answered = subprocess.run([*TOY_FIXED, "mcp", "call", url, "get_repo_status"], capture_output=True, timeout=60)
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0 and "Traceback" not in err, err
    assert len([x for x in err.splitlines() if "stored plan does not parse" in x]) == 1
    assert answered.returncode != 0  # the client was answered with an error, not left waiting
    assert "invalid-plan" in [a.kind for a in load(out).anomalies]

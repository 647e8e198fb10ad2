"""`replay FILE` prints the URL a real client can use, stops on Ctrl-C, and refuses bad input with one line, exit 2."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import Result

from backchannel.oracle import judge
from backchannel.proxy.clients.drivers.paths import py_driver
from backchannel.recordings import load
from backchannel.recordings.reports import stored_report
from tests.factories import new_recording
from tests.in_process import backchannel

from .conftest import RECORDED_PORTS, REFERENCE

pytestmark = RECORDED_PORTS

REPLAY = [sys.executable, "-m", "backchannel.proxy.cli", "replay"]
START_TIMEOUT_S = 20.0


def first_line(process: subprocess.Popen[str], timeout: float = START_TIMEOUT_S) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, "the replay printed no URL in time"
    return process.stdout.readline().strip()


@pytest.fixture
def replaying(request: pytest.FixtureRequest) -> Iterator[tuple[subprocess.Popen[str], str]]:
    args = request.param
    process = subprocess.Popen([*REPLAY, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process, first_line(process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=10)  # waits and closes both pipes
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate(timeout=5)


@pytest.mark.parametrize(
    "replaying", [[str(REFERENCE / "mrtr-provenance-py-sdk.sqlite"), "--run", "probe", "--speed", "0"]], indirect=True
)
def test_the_python_sdk_completes_a_recorded_mrtr_round_against_the_printed_url(replaying):
    process, url = replaying
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    client = subprocess.run([*py_driver(), url], capture_output=True, text=True, timeout=60)
    assert client.returncode == 0, client.stderr
    assert "[answered: accept" in client.stdout
    assert "BCKCH-CONTENT-1ba31ebeaadc" in client.stdout


@pytest.mark.parametrize(
    "replaying", [[str(REFERENCE / "mrtr-provenance-py-sdk.sqlite"), "--speed", "0"]], indirect=True
)
def test_ctrl_c_stops_the_replay_cleanly(replaying):
    process, _ = replaying
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 0, err


def run_replay(*args: str) -> Result:
    """`replay ARGS` refusing its input, in this process (tests/in_process.py): the refusal is the command's logic;
    the replays that serve, and stop on a signal, run as processes of their own above and below."""
    return backchannel("replay", *args)


def test_a_file_that_is_not_a_recording_is_refused_with_one_line_and_exit_2(tmp_path: Path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not sqlite at all")
    for path in (junk, tmp_path / "missing.sqlite"):
        result = run_replay(str(path))
        assert result.exit_code == 2
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_an_unknown_run_is_refused_naming_the_runs_there_are():
    result = run_replay(str(REFERENCE / "mrtr-provenance-py-sdk.sqlite"), "--run", "nope")
    assert result.exit_code == 2
    assert "no run 'nope'; its runs: witness-ledger" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_existing_out_file_is_refused(tmp_path: Path):
    taken = tmp_path / "taken.sqlite"
    taken.write_bytes(b"")
    result = run_replay(str(REFERENCE / "mrtr-provenance-py-sdk.sqlite"), "--out", str(taken))
    assert result.exit_code == 2 and "already exists" in result.stderr


def test_with_out_the_replay_is_recorded_through_the_proxy_and_judged_like_the_original(tmp_path: Path):
    source = REFERENCE / "elicitation-url-mode-py-sdk.sqlite"
    out = tmp_path / "again.sqlite"
    command = [*REPLAY, str(source), "--out", str(out), "--speed", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = first_line(process)
        assert "/r/" in url and url.endswith("/mcp")
        client = subprocess.run([*py_driver(), url], capture_output=True, text=True, timeout=60)
        assert client.returncode == 0, client.stderr
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    expected = json.loads(source.with_suffix(".expected.json").read_text(encoding="utf-8"))
    again = judge(load(out))
    assert sorted((r.id, r.status) for r in again.results) == sorted(
        (r["id"], r["status"]) for r in expected["results"]
    )


def test_a_hostile_run_name_cannot_drive_the_terminal(tmp_path: Path):
    path = new_recording(tmp_path / "hostile.sqlite", runs=[{"id": "abc", "name": "\x1b[2J\u202eevil"}])
    result = run_replay(str(path), "--run", "nope")
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert "\\x1b[2J\\u202eevil" in result.stderr


def test_sigterm_ends_a_recorded_replay_like_ctrl_c_with_the_recording_closed_and_its_report_kept(tmp_path: Path):
    out = tmp_path / "again.sqlite"
    command = [*REPLAY, str(REFERENCE / "elicitation-url-mode-py-sdk.sqlite"), "--out", str(out), "--speed", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first_line(process)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0 and "Traceback" not in err, err
    assert f"closed {out}" in err
    assert stored_report(load(out)) is not None


def test_an_out_path_that_is_a_dangling_link_is_refused_in_one_line(tmp_path: Path):
    out = tmp_path / "dangle.sqlite"
    out.symlink_to(tmp_path / "nowhere.sqlite")
    source = str(REFERENCE / "mrtr-provenance-toy-flawed.sqlite")
    result = run_replay(source, "--out", str(out))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr

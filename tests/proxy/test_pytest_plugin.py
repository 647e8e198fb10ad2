"""The pytest plugin, as a user's test suite sees it (each case is its own pytest run in a temp folder): a marker
and `backchannel_server` replay a fixture with no network; `--backchannel-record=once` records it from a real
upstream first; `backchannel_report` judges what the client did; mistakes fail the test with a reason."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.scenarios.default.endpoint import TOOLS as DEFAULT_TOOLS

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "recordings" / "reference"
PREAMBLE = """
import json, os, subprocess, sys
import httpx, pytest
DRIVER = [sys.executable, "-m", "backchannel.proxy.clients.drivers.py_sdk"]
"""


def run_pytest(
    folder: Path, body: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    test = folder / "test_user.py"
    test.write_text(PREAMBLE + textwrap.dedent(body), encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(folder), str(test)]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=110, cwd=folder, env={**os.environ, **(env or {})}
    )


@pytest.fixture
def upstream() -> Iterator[RunningEndpoint]:
    with start_endpoint(EndpointConfig(tools=DEFAULT_TOOLS)) as running:
        yield running


def test_a_marked_test_gets_a_replay_its_client_completes_against(tmp_path: Path):
    fixture = REFERENCE / "mrtr-provenance-py-sdk.sqlite"
    result = run_pytest(
        tmp_path,
        f"""
        @pytest.mark.backchannel({str(fixture)!r}, run="probe")
        def test_client(backchannel_server):
            out = subprocess.run([*DRIVER, backchannel_server], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert "BCKCH-CONTENT-1ba31ebeaadc" in out.stdout
        """,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_once_records_from_the_upstream_then_replays_with_the_upstream_gone(tmp_path: Path, upstream):
    body = """
        @pytest.mark.backchannel("fixtures/status.sqlite", upstream=os.environ["UPSTREAM"])
        def test_client(backchannel_server, backchannel_report):
            out = subprocess.run([*DRIVER, backchannel_server], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert "result get_repo_status: repo demo" in out.stdout
            assert backchannel_report.anomalies("replay-") == []
        """
    recorded = run_pytest(tmp_path, body, "--backchannel-record=once", env={"UPSTREAM": upstream.url})
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert (tmp_path / "fixtures" / "status.sqlite").is_file()
    upstream.stop()
    replayed = run_pytest(tmp_path, body, env={"UPSTREAM": upstream.url})
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_a_request_the_fixture_does_not_hold_is_an_error_for_the_client_and_a_reported_anomaly(tmp_path: Path):
    fixture = REFERENCE / "mrtr-provenance-py-sdk.sqlite"
    result = run_pytest(
        tmp_path,
        f"""
        @pytest.mark.backchannel({str(fixture)!r}, run="control")
        def test_client(backchannel_server, backchannel_report):
            call = {{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": "nope"}}}}
            answer = httpx.post(backchannel_server, json=call, timeout=10).json()
            assert "no recorded request matches POST tools/call" in answer["error"]["message"]
            (found,) = backchannel_report.anomalies("replay-no-match")
            assert "params.name" in found
        """,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_fixture_whose_stored_plan_does_not_parse_refuses_that_runs_requests_and_reports_invalid_plan(
    tmp_path: Path,
):
    import shutil
    import sqlite3

    fixture = tmp_path / "broken-plan.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-py-sdk.sqlite", fixture)
    with sqlite3.connect(fixture) as db:
        db.execute("UPDATE runs SET plan = ? WHERE name = 'absent'", ('{"mutations":[{"kind":"no-such-kind"}]}',))
    db.close()
    result = run_pytest(
        tmp_path,
        f"""
        @pytest.mark.backchannel({str(fixture)!r}, run="absent")
        def test_client(backchannel_server, backchannel_report):
            out = subprocess.run([*DRIVER, backchannel_server], capture_output=True, text=True, timeout=60)
            assert out.returncode != 0  # answered with an error, not left waiting
            (found,) = backchannel_report.anomalies("invalid-plan")
            assert "no-such-kind" in found
        """,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_missing_fixture_fails_the_test_saying_how_to_record_it(tmp_path: Path):
    result = run_pytest(
        tmp_path,
        """
        @pytest.mark.backchannel("missing.sqlite")
        def test_client(backchannel_server):
            pass
        """,
    )
    assert result.returncode == 1
    assert "does not exist: record it with --backchannel-record=once and upstream=URL" in result.stdout


def test_recording_without_an_upstream_fails_the_test_saying_so(tmp_path: Path):
    result = run_pytest(
        tmp_path,
        """
        @pytest.mark.backchannel("new.sqlite")
        def test_client(backchannel_server):
            pass
        """,
        "--backchannel-record=all",
    )
    assert result.returncode == 1
    assert "needs the marker's upstream=URL" in result.stdout


def test_the_fixture_without_a_marker_is_a_usage_error(tmp_path: Path):
    result = run_pytest(
        tmp_path,
        """
        def test_client(backchannel_server):
            pass
        """,
    )
    assert result.returncode != 0
    assert "without @pytest.mark.backchannel" in result.stdout + result.stderr

"""A recording that shows the harness did not see its runs judges to ERROR, whatever its checks would have said."""

from __future__ import annotations

import re
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from backchannel.oracle import harness, judge
from backchannel.recordings import load
from backchannel.recordings.model import Anomaly, Recording, TerminalChunk

from .reference import REFERENCE, recording

ROOT = Path(__file__).resolve().parents[2]
ALL = sorted(p.stem for p in REFERENCE.glob("*.sqlite"))


def _with_anomaly(rec: Recording, kind: str, detail: str) -> Recording:
    return replace(
        rec, anomalies=(*rec.anomalies, Anomaly(seq=9999, run_id=None, flow_id=None, kind=kind, detail=detail))
    )


def _statuses(rec: Recording) -> set[str]:
    """The statuses of the scenario's own checks (the session rules judge what was seen, beside the ERROR)."""
    return {r.status for r in judge(rec).results if r.scenario != "session"}


@pytest.mark.parametrize("name", ALL)
def test_every_reference_recording_saw_every_run(name):
    assert list(harness.harness_problems(recording(name))) == []


def test_a_proxy_that_died_is_error_and_wins_over_the_checks_findings():
    rec = _with_anomaly(recording("mrtr-provenance-toy-flawed"), "proxy-exit", "mitmdump exited with code -9")
    report = judge(rec)
    assert _statuses(rec) == {"ERROR"} and report.exit_code == 1
    first = report.results[0]
    assert (first.id, first.reason) == (harness.CHECK_ID, "proxy-died")
    assert "code -9" in first.message


def test_a_harness_failure_wins_over_the_probes_skips():
    skipped = recording("mrtr-provenance-toy-no-call-surface")
    assert _statuses(skipped) == {"SKIP"}
    rec = _with_anomaly(skipped, "orchestrator-interrupted", "SIGTERM received by backchannel")
    report = judge(rec)
    assert _statuses(rec) == {"ERROR"} and report.exit_code == 1
    assert {r.reason for r in report.results if r.scenario != "session"} == {"orchestrator-interrupted"}


def test_an_interrupted_run_of_another_scenario_adds_one_error_beside_its_checks():
    rec = _with_anomaly(recording("elicitation-url-mode-py-sdk"), "orchestrator-interrupted", "SIGHUP")
    report = judge(rec)
    assert [r.id for r in report.results if r.status == "ERROR"] == [harness.CHECK_ID]
    assert report.exit_code == 1


def test_a_message_the_proxy_passed_unread_is_error_naming_the_limit():
    detail = "SSE item 3, event of 20000000 bytes, over the 16777216-byte hold limit (--max-body): passed unread"
    rec = _with_anomaly(recording("elicitation-url-mode-py-sdk"), "sse-event-unread", detail)
    report = judge(rec)
    [error] = [r for r in report.results if r.status == "ERROR"]
    assert (error.id, error.reason, report.exit_code) == (harness.CHECK_ID, "sse-event-unread", 1)
    assert "--max-body" in error.message


def test_a_body_the_proxy_passed_unread_is_error_and_an_anomaly_that_only_cut_what_was_stored_is_not():
    detail = "response body of 20000000 bytes is past 16777216 bytes (the larger of --max-body and --max-sse-event)"
    base = recording("elicitation-url-mode-py-sdk")
    report = judge(_with_anomaly(base, "body-unread", detail))
    [error] = [r for r in report.results if r.status == "ERROR"]
    assert (error.id, error.reason, report.exit_code) == (harness.CHECK_ID, "body-unread", 1)
    assert "--max-body" in error.message
    stored_cut = judge(_with_anomaly(base, "body-over-limit", "response body of 20000000 bytes stored up to 16777216"))
    assert not [r for r in stored_cut.results if r.status == "ERROR"], "a body read whole and stored in part is judged"


def test_a_run_with_no_recorded_end_is_error():
    rec = recording("mrtr-provenance-toy-fixed")
    runs = tuple(replace(r, ended_at=None) if r.name == "absent" else r for r in rec.runs)
    [problem] = harness.harness_problems(replace(rec, runs=runs))
    assert problem.reason == "run-never-ended" and "absent" in problem.message


def test_a_client_that_exits_non_zero_before_any_request_is_error_naming_its_code_and_stderr():
    rec = recording("mrtr-provenance-toy-fixed")
    control = next(r for r in rec.runs if r.name == "control")
    runs = tuple(replace(r, exit_code=3) if r.id == control.id else r for r in rec.runs)
    exchanges = tuple(x for x in rec.exchanges if x.run_id != control.id)
    stderr = TerminalChunk(
        seq=1, run_id=control.id, stream="stderr", offset=0, data=b"\nModuleNotFoundError: x\nmore\n"
    )
    terminal = (*(c for c in rec.terminal if c.run_id != control.id), stderr)
    broken = replace(rec, runs=runs, exchanges=exchanges, terminal=terminal)
    [problem] = harness.harness_problems(broken)
    assert problem.reason == "client-exited-before-any-request"
    assert "exited with code 3" in problem.message and "ModuleNotFoundError: x | more" in problem.message
    assert _statuses(broken) == {"ERROR"}


def test_discovery_candidates_that_fail_are_not_harness_errors_but_a_client_that_never_started_is():
    rec = recording("mrtr-provenance-fastmcp")  # two help probes exit 2: discovery does that on purpose
    assert list(harness.harness_problems(rec)) == []
    first = rec.runs[0]
    runs = (replace(first, outcome="failed-to-start", exit_code=None), *rec.runs[1:])
    [problem] = harness.harness_problems(replace(rec, runs=runs))
    assert problem.reason == "client-failed-to-start"


def test_the_readme_check_table_documents_the_harness_result():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"^\| `{harness.CHECK_ID}` \| every scenario \| MUST \|", readme, re.MULTILINE)


def test_a_recording_left_open_by_a_writer_that_died_is_error(tmp_path):
    """Built on a real file: its -wal (rows a dead writer committed) sits beside it; the same file closed passes."""
    closed = tmp_path / "closed.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-flawed.sqlite", closed)
    assert not load(closed).left_open and list(harness.harness_problems(load(closed))) == []
    left = tmp_path / "left.sqlite"
    shutil.copyfile(closed, left)
    writer = sqlite3.connect(left)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # keep the row in the WAL, as a writer killed mid-capture does
    writer.execute("INSERT INTO meta(key, value) VALUES ('late', 'row')")
    writer.commit()
    copy = tmp_path / "copy.sqlite"  # what the dead writer left: the file and its -wal, no connection
    shutil.copyfile(left, copy)
    shutil.copyfile(f"{left}-wal", f"{copy}-wal")
    writer.close()
    rec = load(copy)
    assert rec.left_open and rec.meta.get("late") == "row"  # the committed row is read from the WAL
    [problem] = harness.harness_problems(rec)
    assert (problem.status, problem.reason) == ("ERROR", "orchestrator-interrupted")
    assert "left open" in problem.message
    assert judge(rec).exit_code == 1

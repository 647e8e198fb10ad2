"""session-agent-stays-in-lab: every outside host a coding agent tried is a WARN naming it; other clients are not
judged."""

from __future__ import annotations

from pathlib import Path

from backchannel.oracle.registry import session_checks
from backchannel.recordings import load
from tests.factories import new_recording

CHECK = "session-agent-stays-in-lab"
AGENT = {"detail": {"agent": "codex"}}


def _judge(path: Path) -> list[tuple[str, str]]:
    return [(f.status, f.message) for f in session_checks()[CHECK].fn(load(path))]


def test_an_agent_that_tried_an_outside_host_is_a_warning_naming_the_host(tmp_path: Path) -> None:
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a", **AGENT}],
        anomalies=[{"run_id": "a", "kind": "agent-outside-host", "detail": "chatgpt.com:443"}],
    )
    [(status, message)] = _judge(path)
    assert status == "WARN" and "chatgpt.com:443" in message


def test_an_agent_that_stayed_in_the_lab_passes(tmp_path: Path) -> None:
    path = new_recording(tmp_path / "r.sqlite", runs=[{"id": "a", **AGENT}])
    assert [status for status, _ in _judge(path)] == ["PASS"]


def test_a_host_another_client_tried_is_not_this_rules_to_judge(tmp_path: Path) -> None:
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}],
        anomalies=[{"run_id": "a", "kind": "agent-outside-host", "detail": "example.com:443"}],
    )
    assert [status for status, _ in _judge(path)] == ["SKIP"]

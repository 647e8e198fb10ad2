"""Discovering a target through a capture: the help probes and candidate tries as runs, the ledger confirming, the
`discovery` meta written, the scenario's plan on each trial call, and the progress lines a person reads."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.discovery import Discovery
from backchannel.proxy.scenarios.registry import get_scenario
from backchannel.recordings import load
from backchannel.recordings.model import Recording
from backchannel.recordings.shapes import Discovery as DiscoveryRecord

pytestmark = pytest.mark.live

TOY = (sys.executable, "-m", "backchannel.proxy.clients.toy_agent")
SCENARIO = "elicitation-ui"
TOOLS = ("connect_account", "open_dashboard")
ERROR_PLAN: dict[str, Any] = {
    "mutations": [
        {
            "kind": "error",
            "match": {"method": "tools/call"},
            "error": {"code": -32000, "message": "trial"},
            "status": 200,
        }
    ]
}


def discovered(
    tmp_path: Path, *target: str, plan: dict[str, Any] | None = None
) -> tuple[Discovery, Recording, list[str]]:
    from backchannel.proxy.run.target_discovery import discover_target

    out = tmp_path / "discovery.sqlite"
    lines: list[str] = []
    endpoint = EndpointConfig(tools=get_scenario(SCENARIO).tools, nonce="0123abcd")
    with Capture(out, endpoint=endpoint, scenario=SCENARIO) as capture:
        found = discover_target(
            capture,
            target,
            scenario=SCENARIO,
            tools=TOOLS,
            timeout=20,
            stdin=None,
            progress=lines.append,
            call_plan=plan,
        )
    return found, load(out), lines


def test_the_first_candidate_whose_tools_call_the_ledger_saw_is_found_and_recorded(tmp_path):
    target = (*TOY, "--variant", "tool-option")
    found, rec, lines = discovered(tmp_path, *target, plan=ERROR_PLAN)
    invocation = (*target, "invoke", "--url", "{url}", "--tool", "connect_account")
    assert (found.status, found.invocation) == ("found", invocation)
    record = DiscoveryRecord.read(rec.meta)
    assert record is not None and record.status == "found"
    assert (record.invocation, record.tried) == (invocation, (invocation,))
    assert {run.name for run in rec.runs} == {"discovery-help", "discovery-call"}
    assert all(run.scenario == SCENARIO for run in rec.runs)
    [call] = [run for run in rec.runs if run.name == "discovery-call"]
    assert call.plan == ERROR_PLAN
    answers = [m.payload for m in rec.messages_in(call.id) if m.method == "tools/call" and m.direction == "to-client"]
    assert [a.get("error", {}).get("message") for a in answers] == ["trial"]  # answered by the plan, at once
    assert lines[0] == f"discovering how {' '.join(target)} calls a tool"
    assert lines[-1].startswith("trying ") and lines[-1].endswith("--tool connect_account")


def test_without_a_plan_the_trial_call_reaches_the_server_as_before(tmp_path):
    found, rec, _lines = discovered(tmp_path, *TOY, "--variant", "tool-option")
    [call] = [run for run in rec.runs if run.name == "discovery-call"]
    assert found.status == "found" and call.plan == {}
    answers = [m.payload for m in rec.messages_in(call.id) if m.method == "tools/call" and m.direction == "to-client"]
    assert answers and answers[0].get("error", {}).get("message") != "trial"  # the server's own answer


def test_a_cli_with_no_call_surface_finds_nothing_tries_nothing_and_says_so(tmp_path):
    found, rec, lines = discovered(tmp_path, *TOY, "--variant", "no-call-surface", plan=ERROR_PLAN)
    assert (found.status, found.invocation, found.tried) == ("no-mcp-call-surface", None, ())
    record = DiscoveryRecord.read(rec.meta)
    assert record is not None and record.status == "no-mcp-call-surface"
    assert {run.name for run in rec.runs} == {"discovery-help"}
    assert lines[-1] == "discovery: no-mcp-call-surface"

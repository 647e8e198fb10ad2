"""session-server-sampling-tools-declared: tool-enabled sampling only to a client that declared sampling.tools, in
2026-07-28 (inputRequests) and 2025-11-25 (server requests); 2025-06-18 is not judged."""

import json
from pathlib import Path

from backchannel.oracle import judge
from backchannel.recordings import load
from tests.oracle.session.wire import Wire, input_required, modern_meta

RULE = "session-server-sampling-tools-declared"
REFERENCE = Path(__file__).resolve().parents[4] / "recordings" / "reference"
TOOLS = [{"name": "lookup", "inputSchema": {"type": "object"}}]
PLAIN = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}
WITH_TOOLS = {**PLAIN, "tools": TOOLS, "toolChoice": {"mode": "auto"}}


def _modern(sampling: object, params: dict[str, object]) -> Wire:
    wire = Wire()
    asks = {"s": {"method": "sampling/createMessage", "params": params}}
    wire.call("tools/call", {"name": "t"}, result=input_required(inputRequests=asks, requestState="x"),
              meta=modern_meta(clientCapabilities={"sampling": sampling}))  # fmt: skip
    return wire


def _legacy(version: str, capabilities: dict[str, object], params: dict[str, object]) -> Wire:
    wire = Wire()
    wire.initialize(version, capabilities)
    wire.legacy("tools/call", {"name": "t"}, version=version)
    wire.server_request("sampling/createMessage", params, 70)
    return wire


def test_tool_enabled_sampling_to_a_client_that_declared_tools_passes_in_both_eras(tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    assert _modern({"tools": {}}, WITH_TOOLS).judged(tmp_path / "a", RULE).status == "PASS"
    assert _legacy("2025-11-25", {"sampling": {"tools": {}}}, WITH_TOOLS).judged(tmp_path / "b", RULE).status == "PASS"


def test_tools_sent_to_a_client_that_declared_sampling_without_tools_fails_in_2026(tmp_path):
    found = _modern({}, WITH_TOOLS).judged(tmp_path, RULE)
    assert found.status == "FAIL" and "sampling was declared without tools" in found.message


def test_tools_sent_in_a_2025_11_25_session_without_sampling_tools_fails_citing_the_handshake(tmp_path):
    found = _legacy("2025-11-25", {"sampling": {}}, {**PLAIN, "toolChoice": {"mode": "auto"}}).judged(tmp_path, RULE)
    assert found.status == "FAIL" and "without tools" in found.evidence[1].note


def test_sampling_without_tools_is_not_exercised_and_the_2025_06_18_era_is_not_judged(tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    assert _modern({}, PLAIN).judged(tmp_path / "a", RULE).reason == "not-exercised"
    found = _legacy("2025-06-18", {"sampling": {}}, WITH_TOOLS).judged(tmp_path / "b", RULE)
    assert (found.status, found.reason) == ("SKIP", "not-in-era")  # 2025-06-18 has no tool-enabled sampling


def test_the_broken_server_build_fails_it_on_a_real_session():
    rec = load(REFERENCE / "session-py-sdk-vs-broken-sampling-tools-undeclared.sqlite")
    statuses = {r.id: r.status for r in judge(rec).results}
    assert statuses[RULE] == "FAIL"
    expected = json.loads((REFERENCE / "session-py-sdk-vs-broken-sampling-tools-undeclared.expected.json").read_text())
    assert {r["id"]: r["status"] for r in expected["results"]}[RULE] == "FAIL"

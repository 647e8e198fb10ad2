"""What a capture hands an agent run's scripted model: the tools of the endpoint the run points at, and the gate the
endpoint opens when it lists them."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec
from backchannel.proxy.run.capture import CONTRACT_ENV_FACT, Capture, contract_env
from backchannel.recordings import load


def _tool(name: str) -> ToolSpec:
    def handler(call: ToolCall) -> ToolReply:
        return ToolReply(result={"content": [{"type": "text", "text": name}]})

    return ToolSpec(name, f"the {name} tool", {"type": "object"}, handler)


def test_an_agent_runs_tools_are_those_of_the_scripted_endpoint_its_run_points_at(tmp_path: Path) -> None:
    with Capture(tmp_path / "rec.sqlite", endpoint=EndpointConfig(tools=(_tool("first"),), nonce="n")) as capture:
        other = capture.start_endpoint(EndpointConfig(tools=(_tool("legacy_only"),), nonce="n"))
        on_other = capture.new_run("other", upstream=other.url)
        on_main = capture.new_run("main")
        assert [tool.name for tool in capture._tools_of(on_other)] == ["legacy_only"]
        assert [tool.name for tool in capture._tools_of(on_main)] == ["first"]


def test_a_runs_own_environment_reaches_its_client_over_the_captures_and_only_its_names_are_recorded(
    tmp_path: Path,
) -> None:
    script = "import os; print(os.environ['SUITE'], os.environ['SHARED'])"
    with Capture(tmp_path / "rec.sqlite", endpoint=EndpointConfig(tools=()), env={"SHARED": "all"}) as capture:
        run = capture.new_run("one")
        env = {"SUITE": "request-metadata", "MCP_CONFORMANCE_SCENARIO": "request-metadata"}
        capture.run_client(run, [sys.executable, "-c", script, "{url}"], timeout=20, env=env)
    rec = load(tmp_path / "rec.sqlite")
    [recorded] = rec.runs
    out = b"".join(c.data for c in rec.terminal if c.run_id == recorded.id and c.stream == "stdout")
    assert out.strip() == b"request-metadata all"
    assert recorded.detail.facts["lab_env"] == "MCP_CONFORMANCE_SCENARIO,SHARED,SUITE"
    # only the driver contract's values are kept, for a replay to set again
    assert contract_env(recorded.detail.facts) == {"MCP_CONFORMANCE_SCENARIO": "request-metadata"}


def test_a_replay_sets_only_the_driver_contracts_variables_a_recording_names() -> None:
    hostile = '{"MCP_CONFORMANCE_CONTEXT": "{}", "PATH": "/evil", "LD_PRELOAD": "x.so", "MCP_CONFORMANCE_X": 1}'
    assert contract_env({CONTRACT_ENV_FACT: hostile}) == {"MCP_CONFORMANCE_CONTEXT": "{}"}
    assert contract_env({CONTRACT_ENV_FACT: "not json"}) == {} and contract_env({}) == {}
    assert contract_env({CONTRACT_ENV_FACT: '["MCP_CONFORMANCE_SCENARIO"]'}) == {}

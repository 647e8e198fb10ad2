"""What a capture hands an agent run's scripted model: the tools of the endpoint the run points at, and the gate the
endpoint opens when it lists them."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec
from backchannel.proxy.run.capture import Capture


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

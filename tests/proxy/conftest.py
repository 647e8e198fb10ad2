"""Running scripted endpoints for the endpoint tests: the shipped default scenario and a testbed of scripted tools."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSet, ToolSpec
from backchannel.proxy.scenarios.registry import all_scenarios

INSTRUCTIONS = "Call get_repo_status to see a repository's state."


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def echo_call(call: ToolCall) -> ToolReply:
    """Report what the handler saw, so tests can assert on the ToolCall the endpoint built."""
    seen = {
        "name": call.name,
        "arguments": call.arguments,
        "input_responses": call.input_responses,
        "request_state": call.request_state,
        "protocol_version": call.protocol_version,
        "era": call.era,
        "client_capabilities": call.client_capabilities,
        "progress_token": call.progress_token,
        "request_id": call.request_id,
        "mcp_method_header": call.headers.get("mcp-method"),
    }
    return ToolReply(result={**_text("seen"), "structuredContent": seen})


async def hold(call: ToolCall) -> ToolReply:
    """Answer after `ms`, over `transport`, with keep-alives every `keepalive_ms`."""
    await asyncio.sleep(0)
    args = call.arguments
    return ToolReply(
        result=_text(f"held {args.get('ms', 0)} ms"),
        hold_ms=int(args.get("ms", 0)),
        transport=args.get("transport", "json"),
        keepalive_ms=int(args.get("keepalive_ms", 500)),
        progress=bool(args.get("progress", True)),
    )


def ask(call: ToolCall) -> ToolReply:
    """An MRTR round: input_required until the client echoes requestState "round-1"."""
    if call.request_state == "round-1":
        return ToolReply(result=_text(f"answered {call.input_responses}"))
    return ToolReply(result={"resultType": "input_required", "requestState": "round-1"})


def with_meta(call: ToolCall) -> ToolReply:
    return ToolReply(result={**_text("meta"), "_meta": {"com.example/trace": "t-1"}})


def scripted_error(call: ToolCall) -> ToolReply:
    return ToolReply(result=_text("never sent"), error={"code": 1234, "message": "scripted failure"}, http_status=500)


def boom(call: ToolCall) -> ToolReply:
    raise RuntimeError("handler bug")


def wrong_type(call: ToolCall) -> ToolReply:
    return {"content": []}  # type: ignore[return-value]


def _tool(name: str, handler: Any) -> ToolSpec:
    return ToolSpec(name=name, description=f"testbed tool {name}", input_schema={"type": "object"}, handler=handler)


TESTBED = ToolSet(
    name="testbed",
    description="Scripted tools for endpoint tests.",
    tools=(
        *all_scenarios()["default"].tools,
        _tool("echo_call", echo_call),
        _tool("hold", hold),
        _tool("ask", ask),
        _tool("with_meta", with_meta),
        _tool("scripted_error", scripted_error),
        _tool("boom", boom),
        _tool("wrong_type", wrong_type),
    ),
)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[RunningEndpoint]:
    """The shipped default scenario on a dual-era endpoint."""
    with start_endpoint(EndpointConfig(tools=all_scenarios()["default"].tools, instructions=INSTRUCTIONS)) as running:
        yield running


@pytest.fixture(scope="module")
def legacy_only_endpoint() -> Iterator[RunningEndpoint]:
    """The default scenario presented as a 2025-11-25-only server."""
    with start_endpoint(EndpointConfig(tools=all_scenarios()["default"].tools, legacy_only=True)) as running:
        yield running


@pytest.fixture(scope="module")
def testbed() -> Iterator[RunningEndpoint]:
    """The testbed scenario on a dual-era endpoint."""
    config = EndpointConfig(tools=TESTBED.tools, server_name="testbed", server_version="9.9.9")
    with start_endpoint(config) as running:
        yield running

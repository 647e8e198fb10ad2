"""Endpoints the bridge tests forward to: the shipped default scenario, a legacy-only one, and a testbed of tools
that answer late, stream over SSE, or fail."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSet, ToolSpec
from backchannel.proxy.scenarios.default.endpoint import TOOLS as DEFAULT_TOOLS

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
SLOW_MS = 1500


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def slow(call: ToolCall) -> ToolReply:
    return ToolReply(result=_text("slow"), hold_ms=SLOW_MS)


def fast(call: ToolCall) -> ToolReply:
    return ToolReply(result=_text("fast"))


def stream(call: ToolCall) -> ToolReply:
    """Over SSE, with progress notifications before the result (the request must carry a progressToken)."""
    return ToolReply(result=_text("streamed"), hold_ms=600, transport="sse", keepalive_ms=100, progress=True)


TESTBED = ToolSet(
    name="bridge-testbed",
    description="tools that answer late, over SSE, or at once",
    tools=tuple(ToolSpec(f.__name__, f.__name__, {"type": "object"}, f) for f in (slow, fast, stream)),
)


def modern(request_id: int | str | None, method: str, **params: Any) -> bytes:
    """One modern message as the line a stdio client writes (a notification when `request_id` is None)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": {**params, "_meta": dict(META)}}
    if request_id is not None:
        message["id"] = request_id
    return json.dumps(message).encode() + b"\n"


def call(request_id: int, name: str, progress_token: str | None = None) -> bytes:
    line = json.loads(modern(request_id, "tools/call", name=name, arguments={}))
    if progress_token is not None:
        line["params"]["_meta"]["progressToken"] = progress_token
    return json.dumps(line).encode() + b"\n"


def lines_of(data: bytes) -> list[dict[str, Any]]:
    """Every stdout line as JSON (each must be one whole message)."""
    assert data == b"" or data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[RunningEndpoint]:
    with start_endpoint(EndpointConfig(tools=DEFAULT_TOOLS)) as running:
        yield running


@pytest.fixture(scope="module")
def legacy_endpoint() -> Iterator[RunningEndpoint]:
    with start_endpoint(EndpointConfig(tools=DEFAULT_TOOLS, legacy_only=True)) as running:
        yield running


@pytest.fixture(scope="module")
def testbed() -> Iterator[RunningEndpoint]:
    with start_endpoint(EndpointConfig(tools=TESTBED.tools)) as running:
        yield running

"""The toy agent's test lab, shared by the test files of its modules: the agent as a subprocess in its own HOME and
working folder, the scripted endpoint with recording tools, and a stdlib stub for what the endpoint will not do.

The fixtures `endpoint` and `legacy_endpoint` here override tests/proxy/conftest.py's for the tests in this folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSet, ToolSpec

MODERN = "2026-07-28"
PV = "io.modelcontextprotocol/protocolVersion"
CC = "io.modelcontextprotocol/clientCapabilities"
CI = "io.modelcontextprotocol/clientInfo"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
SERVER_NAME = "toy-lab-server"
DEFAULT_CAPS: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}}
CONTENT = "CONTENT-MARKER-7f3 repo demo is clean"
BODY = "BODY-MARKER-2c9"
TOKEN = "TOKEN-123"
STATE = 'opaque "state" \u00e9\u2603 +/== \\n'
ANCHORS = ("untrusted", "server-supplied", "input request", "elicitation", "from the server", SERVER_NAME, "127.0.0.1")
ABSENT_MESSAGE = "error: the server never finished the call\n"
STRICT_MESSAGE = "error: invalid result: resultType missing (2026-07-28 servers must send it)\n"


@dataclass(frozen=True)
class Lab:
    home: Path
    work: Path

    @property
    def transcript(self) -> Path:
        return self.home / ".toy-agent" / "transcript.log"


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    # HOME and cwd are siblings under tmp_path, so a path in neither exists for the refusal test.
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    return Lab(tmp_path / "home", tmp_path / "work")


def run_agent(lab: Lab, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(lab.home), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", *args],
        cwd=lab.work,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=30,
    )


def call(lab: Lab, url: str, tool: str, arguments: dict[str, Any] | None = None, *options: str) -> Any:
    return run_agent(lab, *options, "mcp", "call", url, tool, json.dumps(arguments or {}))


def text_result(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False, **extra}


def elicitation(message: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]}
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": schema}}


# --- the scripted endpoint with recording tools ----------------------------------------------------------------


class Ledger:
    """Every ToolCall the endpoint's handlers saw, in order."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    def status(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        return ToolReply(result=text_result(CONTENT))

    def probe(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        if call.request_state == STATE and call.input_responses:
            return ToolReply(result=text_result(f"{CONTENT} after input"))
        message = f"Please confirm. {BODY}\nWRITE-MARKER {call.arguments['marker']} {TOKEN}\nThanks."
        return ToolReply(
            result={
                "resultType": "input_required",
                "inputRequests": {"probe": elicitation(message)},
                "requestState": STATE,
            }
        )

    def ask_all(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        if call.input_responses:
            return ToolReply(result=text_result("answered"))
        schema = {
            "type": "object",
            "properties": {
                "ok": {"type": "boolean"},
                "name": {"type": "string"},
                "ratio": {"type": "number"},
                "count": {"type": "integer"},
                "colour": {"type": "string", "enum": ["red", "green"]},
            },
        }
        requests = {
            "form": {"method": "elicitation/create", "params": {"message": "fill", "requestedSchema": schema}},
            "link": {"method": "elicitation/create", "params": {"mode": "url", "message": "go", "url": "https://x/y"}},
            "model": {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "SAMPLED-TEXT"}}],
                    "maxTokens": 5,
                },
            },
            "roots": {"method": "roots/list"},
        }
        return ToolReply(result={"resultType": "input_required", "inputRequests": requests})

    def ask_forever(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        return ToolReply(result={"resultType": "input_required", "requestState": f"round-{len(self.calls)}"})

    def sse(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        return ToolReply(result=text_result(CONTENT), transport="sse", hold_ms=150, keepalive_ms=40)

    def get_repo_status(self, call: ToolCall) -> ToolReply:
        self.calls.append(call)
        return ToolReply(result=text_result(f"{CONTENT} ({call.arguments.get('repo')})"))

    def scenario(self) -> ToolSet:
        tools = [self.status, self.probe, self.ask_all, self.ask_forever, self.sse, self.get_repo_status]
        tools_specs = [ToolSpec(t.__name__, f"toy test tool {t.__name__}", {"type": "object"}, t) for t in tools]
        fixed = [
            ("unknown_type", lambda c: ToolReply(result={**text_result(CONTENT), "resultType": "task"})),
            ("tool_error", lambda c: ToolReply(result={**text_result("it broke"), "isError": True})),
            ("scripted_error", lambda c: ToolReply(error={"code": 1234, "message": "scripted failure"})),
        ]
        specs = [*tools_specs, *(ToolSpec(n, n, {"type": "object"}, h) for n, h in fixed)]
        return ToolSet(name="toy", description="Recording tools for the toy agent tests.", tools=tuple(specs))


@pytest.fixture
def ledger() -> Ledger:
    return Ledger()


def _serve(ledger: Ledger, legacy_only: bool) -> RunningEndpoint:
    config = EndpointConfig(tools=ledger.scenario().tools, server_name=SERVER_NAME, legacy_only=legacy_only)
    return start_endpoint(config)


@pytest.fixture
def endpoint(ledger: Ledger) -> Iterator[RunningEndpoint]:
    with _serve(ledger, legacy_only=False) as running:
        yield running


@pytest.fixture
def legacy_endpoint(ledger: Ledger) -> Iterator[RunningEndpoint]:
    with _serve(ledger, legacy_only=True) as running:
        yield running


# --- a stdlib stub, for what the endpoint will not do (omit resultType on a modern result) and wire sequences ------


class Stub:
    """A minimal MCP server on 127.0.0.1 that records every POST and answers tools/call with `tool_result` as-is."""

    def __init__(self, tool_result: dict[str, Any], *, legacy: bool = False, discover_error: Any = None) -> None:
        self.tool_result = tool_result
        self.legacy = legacy
        self.discover_error = discover_error
        self.sse = False
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                headers = {k.lower(): v for k, v in self.headers.items()}
                stub.requests.append({**body, "headers": headers})
                stub.answer(self, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/mcp"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def methods(self) -> list[str]:
        return [r["method"] for r in self.requests]

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        method, rid = body["method"], body.get("id")
        info = {"name": "stub-server", "version": "1"}
        if rid is None:
            return self._send(handler, 202, b"", "application/json")
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
            return self._json(handler, 200, {"jsonrpc": "2.0", "id": rid, "result": result}, {"Mcp-Session-Id": "s-1"})
        if method == "server/discover" and (self.legacy or self.discover_error):
            error = self.discover_error or {"code": -32600, "message": "Bad Request: No valid session ID provided"}
            return self._json(handler, 400, {"jsonrpc": "2.0", "id": rid, "error": error})
        if method == "server/discover":
            result = {
                "resultType": "complete",
                "supportedVersions": [MODERN],
                "capabilities": {"tools": {}},
                "_meta": {SERVER_INFO: info},
            }
            return self._json(handler, 200, {"jsonrpc": "2.0", "id": rid, "result": result})
        response = {"jsonrpc": "2.0", "id": rid, "result": self.tool_result}
        if not self.sse:
            return self._json(handler, 200, response)
        noise = [
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
            {"jsonrpc": "2.0", "id": rid + 1000, "result": text_result("not yours")},
        ]
        lines = [": keepalive", "", *(f"event: message\ndata: {json.dumps(m)}\n" for m in noise)]
        lines += ["event: message", f"data: {json.dumps(response)}", "", ""]
        return self._send(handler, 200, "\r\n".join(lines).encode(), "text/event-stream")

    def _json(self, handler: BaseHTTPRequestHandler, status: int, message: Any, extra: Any = None) -> None:
        self._send(handler, status, json.dumps(message).encode(), "application/json", extra)

    def _send(self, handler: Any, status: int, data: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


ABSENT = text_result(CONTENT, _meta={SERVER_INFO: {"name": "stub-server", "version": "1"}})


def preceding(text: str, marker: str) -> str:
    """The 512 characters before the first occurrence of `marker` (the probe's attribution window)."""
    at = text.index(marker)
    return text[max(0, at - 512) : at]

"""Shared pieces for the end-to-end tests: a Capture per test, hand-made MCP requests, a raw loopback upstream.

Everything binds 127.0.0.1 and every wait is bounded; each test stops what it starts by its own handle.
"""

from __future__ import annotations

import asyncio
import json
import socket
import socketserver
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture, RunHandle
from backchannel.proxy.scenarios.default.endpoint import TOOLS as DEFAULT_TOOLS
from backchannel.recordings import Recording, load
from backchannel.recordings.model import Exchange

MODERN = "2026-07-28"
TOOL = "get_repo_status"
REPO_TEXT = "repo demo: branch main, clean, 0 ahead / 0 behind"
CLIENT_TIMEOUT_S = 20.0
HTTP_TIMEOUT = httpx.Timeout(10.0)


# ---------------------------------------------------------------------------------------------- captures


@pytest.fixture
def recording_path(tmp_path: Path) -> Path:
    return tmp_path / "recording.sqlite"


@pytest.fixture
def capture(recording_path: Path) -> Iterator[Capture]:
    """A started Capture (the default scenario's endpoint + mitmdump) writing to tmp_path; closed after the test if
    still open."""
    started = Capture(recording_path, endpoint=EndpointConfig(tools=DEFAULT_TOOLS))
    started.start()
    try:
        yield started
    finally:
        started.close()  # idempotent: a test that already closed it to load() the recording loses nothing


def close_and_load(capture: Capture) -> Recording:
    """Stop mitmdump and the endpoint, finalise the file, and read it back."""
    capture.close()
    return load(capture.out)


# ---------------------------------------------------------------------------------------------- SDK client


def run_sdk[T](coroutine: Callable[[], Awaitable[T]], timeout: float = CLIENT_TIMEOUT_S) -> T:
    """Run one in-process SDK session under a hard deadline."""

    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coroutine()

    return asyncio.run(bounded())


# ---------------------------------------------------------------------------------------------- hand-made requests


def rpc_request(
    request_id: int,
    method: str = "tools/call",
    *,
    name: str | None = TOOL,
    progress_token: str | int | None = None,
    extra_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A 2026-07-28 request with the per-request _meta envelope."""
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    }
    if progress_token is not None:
        meta["progressToken"] = progress_token
    params: dict[str, Any] = {"_meta": meta}
    if method == "tools/call":
        params.update({"name": name, "arguments": {}})
    params.update(extra_params or {})
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def rpc_headers(method: str = "tools/call", name: str | None = TOOL) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
    }
    if method == "tools/call" and name is not None:
        headers["mcp-name"] = name
    return headers


def post_rpc(client: httpx.Client, url: str, message: dict[str, Any]) -> httpx.Response:
    return client.post(url, content=json.dumps(message).encode(), headers=rpc_headers(message["method"]))


def assert_proxy_serves(capture: Capture, run: RunHandle | None = None) -> None:
    """The proxy process is alive and a well-formed tools/call through it gets the endpoint's real answer."""
    assert capture.proxy is not None and capture.proxy.process.poll() is None, "mitmdump is no longer running"
    target = run or capture.new_run("still-works")
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        response = post_rpc(client, target.url, rpc_request(9001))
    assert response.status_code == 200, response.text
    assert response.json()["result"]["content"][0]["text"] == REPO_TEXT


def sse_data_messages(raw: bytes) -> list[Any]:
    """The JSON payload of every SSE event in a byte stream."""
    out = []
    for block in raw.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = [line[5:].removeprefix(b" ") for line in block.split(b"\n") if line.startswith(b"data:")]
        if data:
            out.append(json.loads(b"\n".join(data)))
    return out


# ---------------------------------------------------------------------------------------------- ports and polling


def closed_port() -> int:
    """A loopback port nothing listens on (bound, read and released; nothing else here binds ports at random)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def query_live(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read a recording that mitmdump is still writing (WAL), read-only."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


def wait_for_rows(
    path: Path,
    sql: str,
    params: tuple[Any, ...],
    ready: Callable[[list[tuple[Any, ...]]], bool],
    *,
    timeout: float = 5.0,
) -> list[tuple[Any, ...]]:
    """Poll a live recording until `ready(rows)`; the writer commits every 50 ms, so this is a short, bounded wait."""
    deadline = time.monotonic() + timeout
    tick = threading.Event()  # never set: wait() is an interruptible, bounded pause between reads
    rows = query_live(path, sql, params)
    while not ready(rows):
        if time.monotonic() >= deadline:
            raise AssertionError(f"after {timeout} s the recording still shows {rows!r} for {sql!r}")
        tick.wait(0.02)
        rows = query_live(path, sql, params)
    return rows


# ---------------------------------------------------------------------------------------------- raw upstream


@dataclass(frozen=True)
class RawRequest:
    head: bytes
    body: bytes

    @property
    def message(self) -> Any:
        return json.loads(self.body)


Respond = Callable[[socket.socket, RawRequest, threading.Event], None]


class _Handler(socketserver.StreamRequestHandler):
    disable_nagle_algorithm = True  # TCP_NODELAY: each write leaves at once
    server: _RawServer

    def handle(self) -> None:
        self.connection.settimeout(10)
        head = b""
        while (line := self.rfile.readline(65536)) not in (b"\r\n", b"\n", b""):
            head += line
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip() or 0)
        body = self.rfile.read(length) if length else b""
        owner = self.server.owner
        try:
            owner.respond(self.connection, RawRequest(head, body), owner.stopping)
        except OSError as exc:  # the proxy went away: that is the test's business, keep it for inspection
            owner.errors.append(exc)


class _RawServer(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    owner: RawUpstream


@dataclass
class RawUpstream:
    """An HTTP/1.1 upstream on 127.0.0.1 whose every response is written by hand with `respond`."""

    respond: Respond
    stopping: threading.Event = field(default_factory=threading.Event)
    errors: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = _RawServer(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"raw-upstream-{self.port}"
        )
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()  # ends any response still pacing itself with stopping.wait()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


@pytest.fixture
def raw_upstream() -> Iterator[Callable[[Respond], RawUpstream]]:
    """Start raw upstreams with `raw_upstream(respond)`; all are stopped after the test."""
    started: list[RawUpstream] = []

    def start(respond: Respond) -> RawUpstream:
        server = RawUpstream(respond)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"


def sse_event_bytes(message: Any) -> bytes:
    return b"event: message\r\ndata: " + json.dumps(message, separators=(",", ":")).encode() + b"\r\n\r\n"


def tool_call_exchanges(rec: Recording, run_id: str) -> list[Exchange]:
    """The run's exchanges whose request was one JSON-RPC `tools/call`, in order."""
    out = []
    for exchange in rec.exchanges_in(run_id):
        request = json.loads(exchange.request_body or b"null")
        if isinstance(request, dict) and request.get("method") == "tools/call":
            out.append(exchange)
    return out

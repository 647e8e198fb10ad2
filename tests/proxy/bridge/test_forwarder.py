"""One line, one POST: the answer's messages come back as lines, and a request always gets exactly one answer."""

from __future__ import annotations

import http.server
import io
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from backchannel.proxy.bridge.forwarder import Forwarder, LineWriter
from backchannel.proxy.bridge.framing import read_line
from backchannel.proxy.bridge.headers import Negotiated
from tests.proxy.bridge.conftest import call, lines_of, modern

pytestmark = pytest.mark.live


class Bridge:
    """A Forwarder writing into memory, with its log kept."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.out = io.BytesIO()
        self.logged: list[str] = []
        self.forwarder = Forwarder(url, LineWriter(self.out), timeout=timeout, log=self.logged.append)

    def send(self, raw: bytes) -> list[dict[str, object]]:
        before = len(self.out.getvalue())
        incoming = read_line(raw)
        assert incoming is not None
        self.forwarder.forward(incoming)
        return lines_of(self.out.getvalue()[before:])


def test_a_json_answer_comes_back_as_one_line(endpoint):
    bridge = Bridge(endpoint.url)
    [answer] = bridge.send(modern(1, "server/discover"))
    assert answer["id"] == 1 and "2026-07-28" in answer["result"]["supportedVersions"]  # type: ignore[index]


def test_the_derived_headers_satisfy_the_endpoints_header_checks(endpoint):
    bridge = Bridge(endpoint.url)
    [answer] = bridge.send(call(2, "get_repo_status"))
    assert "result" in answer, answer  # a missing or wrong Mcp-Method/Mcp-Name would be -32020 HeaderMismatch


def test_every_sse_event_is_written_in_order_notifications_before_the_result(testbed):
    bridge = Bridge(testbed.url)
    lines = bridge.send(call(3, "stream", progress_token="p1"))
    assert lines[-1]["id"] == 3 and "result" in lines[-1]
    progress = [m for m in lines[:-1] if m.get("method") == "notifications/progress"]
    assert progress and len(progress) == len(lines) - 1


def test_the_legacy_handshake_keeps_the_session_and_sends_it_after(legacy_endpoint):
    bridge = Bridge(legacy_endpoint.url)
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    [answer] = bridge.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}).encode())
    assert answer["result"]["protocolVersion"] == "2025-11-25"  # type: ignore[index]
    negotiated = bridge.forwarder.negotiated
    assert negotiated.session_id and negotiated.version == "2025-11-25"
    assert bridge.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}') == []
    [tools] = bridge.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert [t["name"] for t in tools["result"]["tools"]] == ["get_repo_status"]  # type: ignore[index]


def test_without_the_session_a_legacy_server_refuses_and_the_refusal_is_written(legacy_endpoint):
    bridge = Bridge(legacy_endpoint.url)
    [answer] = bridge.send(b'{"jsonrpc":"2.0","id":5,"method":"tools/list"}')
    assert answer["id"] == 5 and "error" in answer
    assert bridge.forwarder.negotiated == Negotiated()


def test_a_line_that_is_not_json_is_still_posted_and_its_id_less_parse_error_dropped(endpoint):
    bridge = Bridge(endpoint.url)
    assert bridge.send(b"this is not json") == []
    assert bridge.send(b"{") == []  # one line of a pretty-printed message
    assert bridge.send(b"\xff\xfe\xfd") == []
    assert len(bridge.logged) == 3 and all("Parse error" in line for line in bridge.logged)


def test_json_that_is_not_json_rpc_gets_the_endpoints_error_under_its_id(endpoint):
    bridge = Bridge(endpoint.url)
    [answer] = bridge.send(b'{"id": 9, "hello": "world"}')
    assert answer["id"] == 9 and answer["error"]["code"] == -32600  # type: ignore[index]


def test_an_unreachable_server_answers_a_request_with_a_bridge_error_and_a_notification_with_a_log():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    bridge = Bridge(f"http://127.0.0.1:{port}/mcp")
    [answer] = bridge.send(modern(4, "tools/list"))
    assert answer["id"] == 4 and answer["error"]["code"] == -32603  # type: ignore[index]
    assert "cannot talk to" in answer["error"]["message"]  # type: ignore[index]
    assert bridge.send(modern(None, "notifications/cancelled", requestId=4)) == []
    assert any("cannot talk to" in line for line in bridge.logged)


def test_an_http_error_without_a_json_rpc_body_answers_the_request_with_a_bridge_error(endpoint):
    bridge = Bridge(endpoint.url.replace("/mcp", "/elsewhere"))
    [answer] = bridge.send(modern("a", "tools/list"))
    assert answer["id"] == "a" and "HTTP 404" in answer["error"]["message"]  # type: ignore[index]


@pytest.fixture
def idless_server() -> Iterator[str]:
    """A server that answers every POST 400 with a JSON-RPC error whose id is null."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"refused\\nwhole"}}'
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_an_error_the_server_could_not_pin_to_an_id_answers_the_request_it_came_back_on(idless_server):
    bridge = Bridge(idless_server)
    [answer] = bridge.send(modern(6, "tools/list"))
    assert answer == {"jsonrpc": "2.0", "id": 6, "error": {"code": -32001, "message": "refused\nwhole"}}


def test_an_id_less_error_answering_a_notification_is_dropped_and_logged(idless_server):
    bridge = Bridge(idless_server)
    assert bridge.send(modern(None, "notifications/initialized")) == []
    assert any("dropped an error without an id" in line for line in bridge.logged)


def test_a_closed_stdout_is_noticed_not_raised(endpoint):
    out = io.BytesIO()
    out.close()
    writer = LineWriter(out)
    forwarder = Forwarder(endpoint.url, writer, timeout=10, log=lambda _: None)
    incoming = read_line(modern(1, "tools/list"))
    assert incoming is not None
    forwarder.forward(incoming)
    assert writer.closed

"""The scripted client names every way a request can end, and never waits longer than its timeout."""

import json
import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.client import ScriptedClient
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.endpoint import TOOLS

pytestmark = pytest.mark.live
BOTH = {"elicitation": {"form": {}, "url": {}}}


@contextmanager
def http_server(respond):
    """A loopback HTTP server whose every POST is answered by respond(handler, request_json)."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((dict(self.headers), body))
            respond(self, body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/mcp", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _send(handler, status, content_type, body):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_it_speaks_2026_07_28_with_per_request_meta_and_the_required_headers():
    def respond(handler, body):
        _send(handler, 200, "application/json", json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": {}}).encode())

    with http_server(respond) as (url, seen):
        outcome = ScriptedClient(url, BOTH, 5).request("tools/call", {"name": "test_url_elicitation", "arguments": {}})
    assert outcome.kind == "result"
    [(headers, body)] = seen
    assert headers["MCP-Protocol-Version"] == "2026-07-28"
    assert headers["Mcp-Method"] == "tools/call" and headers["Mcp-Name"] == "test_url_elicitation"
    meta = body["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientCapabilities"] == BOTH
    assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "backchannel-server-probe"


def test_it_reads_the_answer_out_of_an_sse_stream_after_other_events():
    def respond(handler, body):
        note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}
        answer = {"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32021, "message": "no"}}
        stream = f": keepalive\n\ndata: {json.dumps(note)}\n\ndata: {json.dumps(answer)}\n\n".encode()
        _send(handler, 400, "text/event-stream", stream)

    with http_server(respond) as (url, _):
        outcome = ScriptedClient(url, {}, 5).request("tools/call", {"name": "t"})
    assert (outcome.kind, outcome.status, outcome.error["code"]) == ("error", 400, -32021)


def test_an_html_answer_is_not_json_rpc():
    with http_server(lambda h, _: _send(h, 404, "text/html", b"<h1>no</h1>")) as (url, _):
        outcome = ScriptedClient(url, {}, 5).request("tools/list", {})
    assert (outcome.kind, outcome.status) == ("not-jsonrpc", 404)
    assert outcome.detail == "HTTP 404 text/html"


def test_a_server_that_never_answers_is_a_timeout_within_the_bound():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        began = time.monotonic()
        outcome = ScriptedClient(url, {}, 0.5).request("tools/list", {})
    assert outcome.kind == "timeout" and outcome.detail == "no answer within 0.5 s"
    assert time.monotonic() - began < 3


def test_a_server_that_closes_the_connection_is_a_dropped_request():
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def close_at_once():
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.close()

        thread = threading.Thread(target=close_at_once, daemon=True)
        thread.start()
        outcome = ScriptedClient(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", {}, 5).request("tools/list", {})
        thread.join(5)
    assert outcome.kind == "dropped"


def test_nothing_listening_is_unreachable():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
    assert ScriptedClient(f"http://127.0.0.1:{port}/mcp", {}, 5).request("tools/list", {}).kind == "unreachable"


def test_the_bundled_server_answers_it_in_json():
    with start_endpoint(EndpointConfig(tools=TOOLS)) as running:
        outcome = ScriptedClient(running.url, BOTH, 5).request(
            "tools/call", {"name": "test_url_elicitation", "arguments": {}}
        )
    assert outcome.kind == "result" and outcome.result["resultType"] == "input_required"
    assert outcome.summary() == "result (input_required)"


def test_a_url_that_is_not_http_is_refused_up_front():
    with pytest.raises(ValueError, match="not an http"):
        ScriptedClient("ftp://127.0.0.1/mcp", {}, 1)


def test_an_answer_trickling_in_slower_than_the_deadline_is_cut_at_the_deadline():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        stop = threading.Event()

        def trickle():
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: ")
            while not stop.wait(0.1):  # one byte every 0.1 s, never a whole line: each read alone is quick
                try:
                    conn.sendall(b"x")
                except OSError:
                    break
            conn.close()

        thread = threading.Thread(target=trickle, daemon=True)
        thread.start()
        began = time.monotonic()
        outcome = ScriptedClient(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", {}, 1.0).request("tools/list", {})
        took = time.monotonic() - began
        stop.set()
        thread.join(5)
    assert outcome.kind == "timeout" and took < 3


def test_an_answer_nested_too_deep_to_parse_is_no_answer_not_a_crash():
    def deep(handler, body):
        _send(handler, 200, "application/json", b"[" * 100_000 + b"]" * 100_000)

    with http_server(deep) as (url, _):
        outcome = ScriptedClient(url, {}, 5).request("tools/list", {})
    assert outcome.kind in ("not-jsonrpc", "dropped")

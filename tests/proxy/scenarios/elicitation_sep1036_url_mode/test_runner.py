"""The server scenario end to end: the scripted client through the real proxy against live servers, judged.

Every broken switch and the real SDK servers are committed references (tests/oracle/scenarios/
elicitation_sep1036_url_mode/); these tests run live what a reference cannot show: timing, a server that is down,
answers HTML, hangs or stops answering halfway, and re-recording one switch to prove the references still hold."""

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from backchannel.oracle import judge
from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.endpoint import TOOLS, URL_TOOL, url_elicitation
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load
from tests.oracle.reference import results, server
from tests.servers.url_elicitation_broken import serve

pytestmark = pytest.mark.live
SCENARIO = "elicitation-sep1036-url-mode"
GOAL_S = 10.0


def check(tmp_path, url=None, **settings):
    out = tmp_path / "server.sqlite"
    began = time.monotonic()
    run_check(SCENARIO, CheckOptions(out=out, server=url, settings=settings), lambda _: None)
    report = judge(load(out))
    # the session rules judge the server too (backchannel's client is not judged): their results are their own tests'
    found = {r.id: r for r in report.results if r.scenario != "session"}
    return found, time.monotonic() - began, load(out)


def test_the_bundled_server_passes_all_seven_well_under_ten_seconds(tmp_path):
    found, took, _ = check(tmp_path)
    assert {c: r.status for c, r in found.items() if r.status != "PASS"} == {}
    assert len(found) == 7
    assert took < GOAL_S, f"the scenario took {took:.1f} s against a local server (goal: under {GOAL_S:g} s)"


def test_a_re_recorded_broken_switch_judges_like_its_committed_reference(tmp_path):
    with serve("bare-elicitation") as running:
        found, _, _ = check(tmp_path, running.url)
    committed = results(server("broken-bare-elicitation"))
    assert {c: r.status for c, r in found.items()} == {c: r.status for c, r in committed.items()}
    assert (
        found["sep-2575-missing-capability-http-400"].message
        == committed["sep-2575-missing-capability-http-400"].message
    )


def test_a_server_that_is_down_is_an_error_for_every_check_at_once(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
    found, took, rec = check(tmp_path, f"http://127.0.0.1:{port}/mcp")
    assert {r.status for r in found.values()} == {"ERROR"}
    assert {r.reason for r in found.values()} == {"server-unreachable"}
    assert rec.runs == () and took < GOAL_S


@contextmanager
def raw_server(handle):
    """A loopback TCP server handing each connection to handle(conn) on its own thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    conns = []

    def accept():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conns.append(conn)
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    finally:
        listener.close()
        for conn in conns:
            conn.close()
        thread.join(5)


def test_a_server_that_answers_html_is_an_error_not_mcp(tmp_path):
    def html(conn):
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n<h1>hi</h1>")

    with raw_server(html) as url:
        found, _, _ = check(tmp_path, url)
    assert {(r.status, r.reason) for r in found.values()} == {("ERROR", "not-mcp")}
    assert found["sep-1036-url-valid"].message == (
        "the server did not answer tools/list with JSON-RPC (HTTP 200): HTTP 200 (text/html) with no JSON-RPC answer"
    )


def test_a_server_that_hangs_is_an_error_within_a_bounded_time(tmp_path):
    with raw_server(lambda conn: conn.recv(65536)) as url:
        found, took, _ = check(tmp_path, url, request_timeout=0.5)
    assert {(r.status, r.reason) for r in found.values()} == {("ERROR", "server-hung")}
    assert took < GOAL_S


def _served(handler):
    tools = tuple(
        ToolSpec(t.name, t.description, t.input_schema, handler if t.name == URL_TOOL else t.handler) for t in TOOLS
    )
    return start_endpoint(EndpointConfig(tools=tools))


def test_a_decline_left_unanswered_fails_the_decline_check_as_a_timeout(tmp_path):
    def hold_declines(call):
        answers = list((call.input_responses or {}).values())
        if answers and answers[0].get("action") == "decline":
            return ToolReply(result={"content": []}, hold_ms=30_000)
        return url_elicitation(call)

    with _served(hold_declines) as running:
        found, took, _ = check(tmp_path, running.url, request_timeout=0.5)
    result = found["sep-2322-server-handles-decline-cancel"]
    assert result.status == "FAIL"
    assert result.message.startswith("not handled: decline: no answer: no answer within 0.5 s")
    assert {c: r.status for c, r in found.items() if r.status != "PASS"} == {result.id: "FAIL"}


def test_a_server_that_stops_answering_tool_calls_is_given_up_on_after_two_timeouts(tmp_path):
    with _served(lambda call: ToolReply(result={"content": []}, hold_ms=30_000)) as running:
        found, took, rec = check(tmp_path, running.url, request_timeout=0.5)
    assert [run.name for run in rec.runs] == ["discovery", "both-modes-accept", "both-modes-decline"]
    # the proxy saw the scripted client give up on each held request; the runner then said why it stopped
    kinds = sorted(a.kind for a in rec.anomalies)  # two writers (proxy, runner): no order between them
    assert kinds == ["client-disconnected", "client-disconnected", "server-stopped-answering"]
    assert {r.status for r in found.values()} == {"ERROR"}
    assert {r.reason for r in found.values()} == {"server-stopped-answering"}
    assert took < GOAL_S


def test_a_server_scenario_refuses_a_client_to_run():
    with pytest.raises(CheckError, match="tests a server: give --server URL"):
        run_check(SCENARIO, CheckOptions(out=None, client=["x", "{url}"]), lambda _: None)


def test_another_input_request_or_a_deliberate_error_counts_as_handling_a_decline_or_cancel(tmp_path):
    def alternatives(call):
        answers = list((call.input_responses or {}).values())
        action = answers[0].get("action") if answers else None
        if action == "decline":  # offer an alternative: another round
            return url_elicitation(ToolCall(**{**call.__dict__, "input_responses": None, "request_state": None}))
        if action == "cancel":
            return ToolReply(error={"code": -32602, "message": "cancelled: nothing to do"}, http_status=400)
        return url_elicitation(call)

    with _served(alternatives) as running:
        found, _, _ = check(tmp_path, running.url)
    result = found["sep-2322-server-handles-decline-cancel"]
    assert result.status == "PASS", result.message
    assert result.message == (
        "handled: decline: a result (input_required) under HTTP 200; cancel: JSON-RPC error -32602 (cancelled:"
        " nothing to do) under HTTP 400"
    )


def test_without_the_form_tool_the_reverse_probe_is_not_exercised_and_the_form_only_calls_still_judged(tmp_path):
    only_url = tuple(t for t in TOOLS if t.name == URL_TOOL)
    with start_endpoint(EndpointConfig(tools=only_url)) as running:
        found, _, rec = check(tmp_path, running.url)
    assert "url-only-form-tool" not in [run.name for run in rec.runs]
    result = found["sep-1036-server-no-unsupported-mode"]
    assert result.status == "PASS"
    assert result.message == (
        "2 form-only call(s) got no URL request; reverse probe not exercised: the server does not offer"
        " test_input_required_result_elicitation"
    )
    assert {r.status for r in found.values()} == {"PASS"}


def test_a_connection_dropped_on_decline_or_cancel_fails_the_decline_check(tmp_path):
    import json
    import socket as sockets
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from backchannel.proxy.endpoint.tools import ToolCall as Call

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            params = body.get("params", {})
            answers = list((params.get("inputResponses") or {}).values())
            if answers and answers[0].get("action") in ("decline", "cancel"):
                self.connection.shutdown(sockets.SHUT_RDWR)  # no answer at all: the line just drops
                self.close_connection = True
                return
            if body["method"] == "tools/list":
                result = {"tools": [{"name": t.name, "inputSchema": t.input_schema} for t in TOOLS]}
            elif body["method"] == "tools/call":
                caps = params["_meta"]["io.modelcontextprotocol/clientCapabilities"]
                call = Call(
                    params["name"],
                    {},
                    params.get("inputResponses"),
                    params.get("requestState"),
                    "2026-07-28",
                    "modern",
                    caps,
                    None,
                    body["id"],
                    {},
                )
                reply = next(t.handler for t in TOOLS if t.name == params["name"])(call)
                if reply.error:
                    return self._send(reply.http_status, {"jsonrpc": "2.0", "id": body["id"], "error": reply.error})
                result = {"resultType": "complete", **reply.result}
            else:
                result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}
            self._send(200, {"jsonrpc": "2.0", "id": body["id"], "result": result})

        def _send(self, status, message):
            data = json.dumps(message).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        found, _, _ = check(tmp_path, f"http://127.0.0.1:{server.server_port}/mcp")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    result = found["sep-2322-server-handles-decline-cancel"]
    assert result.status == "FAIL", result.message
    assert result.message.startswith("not handled: decline: ")
    assert "cancel: " in result.message
    assert {c: r.status for c, r in found.items() if r.status != "PASS"} == {result.id: "FAIL"}

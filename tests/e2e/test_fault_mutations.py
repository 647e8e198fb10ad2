"""The fault kinds end to end, through a real mitmdump with our addon: what a client sees on the wire, and what the
recording says the proxy did. Upstreams are the scripted endpoint, the official Python SDK client where it fits,
or a hand-written loopback upstream when the exact bytes and their timing matter. Every wait is bounded."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from backchannel.proxy.run.capture import Capture
from backchannel.recordings import Exchange
from tests.e2e.conftest import (
    HTTP_TIMEOUT,
    REPO_TEXT,
    SSE_HEAD,
    TOOL,
    RawRequest,
    RawUpstream,
    Respond,
    close_and_load,
    post_rpc,
    rpc_headers,
    rpc_request,
    run_sdk,
    sse_data_messages,
    sse_event_bytes,
    tool_call_exchanges,
)

CALLS = {"method": "tools/call", "name": TOOL}


def _note(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": n}}


def _result(request_id: Any) -> dict[str, Any]:
    result = {"content": [{"type": "text", "text": REPO_TEXT}], "resultType": "complete"}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def sse_answer(notes: int) -> Respond:
    """An upstream that answers SSE at once: `notes` progress notifications, then the response, then closes."""

    def respond(sock: socket.socket, request: RawRequest, stopping: threading.Event) -> None:
        events = [sse_event_bytes(_note(n)) for n in range(1, notes + 1)]
        sock.sendall(SSE_HEAD + b"".join(events) + sse_event_bytes(_result(request.message["id"])))

    return respond


def _records(exchange: Exchange) -> list[dict[str, Any]]:
    return [dict(m) for m in exchange.mutations]


# ---------------------------------------------------------------------------------------------- delay


def test_a_response_delay_holds_back_every_byte_and_the_sdk_still_gets_its_answer(capture: Capture) -> None:
    delay_ms = 600
    run = capture.new_run("delay", {"mutations": [{"kind": "delay", "match": CALLS, "ms": delay_ms}]})

    async def timed_call() -> tuple[CallToolResult, float]:
        async with Client(run.url) as client:
            began = time.monotonic()
            result = await client.call_tool(TOOL, {})
            return result, time.monotonic() - began

    result, elapsed = run_sdk(timed_call)
    block = result.content[0]
    assert isinstance(block, TextContent) and block.text == REPO_TEXT
    assert elapsed >= delay_ms / 1000

    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        began = time.monotonic()
        with client.stream("POST", run.url, content=json.dumps(rpc_request(5)).encode(), headers=rpc_headers()) as r:
            first_byte_after = time.monotonic() - began
            payload = json.loads(r.read())
    assert first_byte_after >= delay_ms / 1000, f"the status line came after {first_byte_after:.3f} s"
    assert payload["result"]["content"][0]["text"] == REPO_TEXT

    rec = close_and_load(capture)
    exchanges = tool_call_exchanges(rec, run.id)
    assert len(exchanges) == 2
    for exchange in exchanges:
        assert _records(exchange) == [{"kind": "delay", "index": 0, "where": "response", "ms": delay_ms}]
        assert exchange.upstream_response_body == exchange.response_body or exchange.response_body is None
    replies = [m for m in rec.messages_in(run.id) if m.direction == "to-client" and m.method == "tools/call"]
    assert [m.mutation for m in replies] == ["delay", "delay"]


def test_between_events_each_sse_event_after_the_first_arrives_late(capture: Capture, raw_upstream: Any) -> None:
    gap_ms = 300
    upstream: RawUpstream = raw_upstream(sse_answer(notes=2))
    plan = {"mutations": [{"kind": "delay", "match": CALLS, "ms": gap_ms, "where": "between-events"}]}
    run = capture.new_run("paced", plan, upstream=upstream.url)

    arrivals: list[float] = []
    received = b""
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        began = time.monotonic()
        body = json.dumps(rpc_request(3)).encode()
        with client.stream("POST", run.url, content=body, headers=rpc_headers()) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for chunk in response.iter_raw():
                received += chunk
                while len(arrivals) < received.count(b"\r\n\r\n"):
                    arrivals.append(time.monotonic() - began)
    events = sse_data_messages(received)
    assert [e.get("method") for e in events] == ["notifications/progress", "notifications/progress", None]
    assert events[-1]["id"] == 3
    assert len(arrivals) == 3
    assert arrivals[1] - arrivals[0] >= gap_ms / 1000 * 0.9 and arrivals[2] - arrivals[1] >= gap_ms / 1000 * 0.9, (
        arrivals
    )

    rec = close_and_load(capture)
    [exchange] = tool_call_exchanges(rec, run.id)
    assert _records(exchange) == [{"kind": "delay", "index": 0, "where": "between-events", "ms": gap_ms}]
    items = sorted((i for i in rec.sse_events if i.flow_id == exchange.flow_id), key=lambda i: i.idx)
    assert [i.origin for i in items] == ["upstream"] * 3, "paced, not made: the events are the upstream's"


# ---------------------------------------------------------------------------------------------- disconnect


def test_a_disconnect_before_the_response_leaves_the_client_with_no_status_line(capture: Capture) -> None:
    plan = {"mutations": [{"kind": "disconnect", "match": CALLS, "where": "before-response"}]}
    run = capture.new_run("gone", plan)
    with httpx.Client(timeout=HTTP_TIMEOUT) as client, pytest.raises(httpx.RemoteProtocolError):
        post_rpc(client, run.url, rpc_request(1))

    rec = close_and_load(capture)
    [exchange] = tool_call_exchanges(rec, run.id)
    assert _records(exchange) == [
        {"kind": "disconnect", "index": 0, "where": "before-response", "afterBytes": None, "sent": 0}
    ]
    assert exchange.error is not None and exchange.status is None


def test_a_disconnect_after_n_bytes_breaks_the_json_body_mid_way(capture: Capture) -> None:
    plan = {"mutations": [{"kind": "disconnect", "match": CALLS, "afterBytes": 25}]}
    run = capture.new_run("cut", plan)
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete|closed|complete message"):
            post_rpc(client, run.url, rpc_request(1))
        # the control: a request the plan does not match is answered whole on the same proxy
        listed = post_rpc(client, run.url, rpc_request(2, "tools/list"))
        assert listed.status_code == 200 and listed.json()["result"]["tools"]

    rec = close_and_load(capture)
    [exchange] = tool_call_exchanges(rec, run.id)
    assert _records(exchange) == [{"kind": "disconnect", "index": 0, "where": "body", "afterBytes": 25, "sent": 25}]
    upstream = exchange.upstream_response_body or b""
    assert exchange.response_body == upstream[:25] and len(upstream) > 25
    assert json.loads(upstream)["result"]["content"][0]["text"] == REPO_TEXT


def test_a_disconnect_inside_an_sse_stream_lets_the_first_events_through(capture: Capture, raw_upstream: Any) -> None:
    upstream: RawUpstream = raw_upstream(sse_answer(notes=1))
    first = sse_event_bytes(_note(1))
    plan = {"mutations": [{"kind": "disconnect", "match": CALLS, "afterBytes": len(first) + 5}]}
    run = capture.new_run("sse-cut", plan, upstream=upstream.url)
    received = b""
    with httpx.Client(timeout=HTTP_TIMEOUT) as client, pytest.raises(httpx.RemoteProtocolError):
        with client.stream("POST", run.url, content=json.dumps(rpc_request(4)).encode(), headers=rpc_headers()) as r:
            for chunk in r.iter_raw():
                received += chunk
    assert received == first + b"event"

    rec = close_and_load(capture)
    [exchange] = tool_call_exchanges(rec, run.id)
    assert _records(exchange)[0]["sent"] == len(first) + 5
    replies = [m for m in rec.messages_in(run.id) if m.direction == "to-client"]
    assert [m.kind for m in replies] == ["notification"], "the response event never arrived whole"


# ---------------------------------------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    ("shape", "check"),
    [
        ("not-json", lambda body: pytest.raises(ValueError, json.loads, body)),
        ("no-jsonrpc-field", lambda body: "jsonrpc" not in json.loads(body)),
        ("wrong-id", lambda body: json.loads(body)["id"] == 1_000_007),
    ],
)
def test_a_malformed_answer_reaches_the_client_in_the_asked_shape(capture: Capture, shape: str, check: Any) -> None:
    run = capture.new_run(shape, {"mutations": [{"kind": "malformed", "match": CALLS, "shape": shape}]})
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        response = post_rpc(client, run.url, rpc_request(7))
    assert response.status_code == 200
    assert check(response.content)

    rec = close_and_load(capture)
    [exchange] = tool_call_exchanges(rec, run.id)
    assert _records(exchange) == [{"kind": "malformed", "index": 0, "shape": shape}]
    assert exchange.response_body == response.content
    assert json.loads(exchange.upstream_response_body or b"")["id"] == 7


# ---------------------------------------------------------------------------------------------- truncate-sse


def test_a_truncated_stream_carries_the_notifications_and_ends_cleanly_without_the_answer(
    capture: Capture, raw_upstream: Any
) -> None:
    upstream: RawUpstream = raw_upstream(sse_answer(notes=2))
    run = capture.new_run("truncated", {"mutations": [{"kind": "truncate-sse", "match": CALLS}]}, upstream=upstream.url)
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        response = post_rpc(client, run.url, rpc_request(9))  # read to the end: a clean close, no protocol error
    assert response.status_code == 200
    assert [e.get("method") for e in sse_data_messages(response.content)] == ["notifications/progress"] * 2
    assert b'"result"' not in response.content

    rec = close_and_load(capture)
    [exchange] = tool_call_exchanges(rec, run.id)
    assert _records(exchange) == [{"kind": "truncate-sse", "index": 0, "event": 2}]
    assert exchange.response_body == response.content
    items = sorted((i for i in rec.sse_events if i.flow_id == exchange.flow_id), key=lambda i: i.idx)
    assert [i.client_raw == b"" for i in items] == [False, False, True]
    assert b'"result"' in (items[2].upstream_raw or b"")


# ---------------------------------------------------------------------------------------------- invalid plan


def test_a_run_whose_stored_plan_does_not_parse_is_refused_and_never_reaches_the_upstream(capture: Capture) -> None:
    assert capture.proxy is not None
    broken = json.dumps({"mutations": [{"kind": "hold", "ms": -1}]})
    conn = sqlite3.connect(str(capture.out), timeout=10)
    try:  # straight into the file: the orchestrator would refuse to store it
        with conn:
            conn.execute(
                "INSERT INTO runs (id, ordinal, name, upstream, plan) VALUES ('brokenplan1', 999, 'broken', ?, ?)",
                (capture.upstream, broken),
            )
    finally:
        conn.close()
    url = f"{capture.proxy.base_url}/r/brokenplan1/mcp"
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        answers = [post_rpc(client, url, rpc_request(n)) for n in (1, 2)]
    for n, answer in enumerate(answers, start=1):
        assert answer.status_code == 500
        assert answer.json()["id"] == n and answer.json()["error"]["code"] == -32603
        assert "ms must be a whole number >= 0" in answer.json()["error"]["message"]

    rec = close_and_load(capture)
    exchanges = list(rec.exchanges_in("brokenplan1"))
    assert len(exchanges) == 2 and not any(x.forwarded for x in exchanges)
    [anomaly] = [a for a in rec.anomalies if a.run_id == "brokenplan1"]
    assert anomaly.kind == "invalid-plan" and "brokenplan1" in anomaly.detail

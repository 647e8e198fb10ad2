"""Each mutation kind, end to end: the official Python SDK client (`mcp` 2.3.0) talks to the scripted endpoint
through mitmdump with our addon, and both what the client got and what the recording says are checked."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from mcp import Client, MCPError
from mcp_types import CallToolResult, ElicitRequestFormParams, ElicitResult, TextContent
from pydantic import ValidationError

from backchannel.proxy.run.capture import Capture
from backchannel.recordings import Exchange, Message, Recording
from tests.e2e.conftest import (
    HTTP_TIMEOUT,
    REPO_TEXT,
    TOOL,
    close_and_load,
    post_rpc,
    rpc_headers,
    rpc_request,
    run_sdk,
    sse_data_messages,
    tool_call_exchanges,
)

CALLS = {"method": "tools/call", "name": TOOL}
FORM_REQUEST = {
    "confirm": {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Deploy to production?",
            "requestedSchema": {
                "type": "object",
                "properties": {"confirmed": {"type": "boolean"}},
                "required": ["confirmed"],
            },
        },
    }
}


def _text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def _call_tool(url: str, **client_kwargs: Any) -> CallToolResult:
    async with Client(url, **client_kwargs) as client:
        return await client.call_tool(TOOL, {})


async def _failing_call(url: str) -> Exception:
    """The exception call_tool raised, caught inside the session (outside it would come wrapped in a task group)."""
    async with Client(url) as client:
        try:
            await client.call_tool(TOOL, {})
        except (MCPError, ValidationError) as exc:
            return exc
    raise AssertionError("call_tool succeeded")


def _records(exchange: Exchange, kind: str) -> list[dict[str, Any]]:
    """The exchange's mutation records of one kind."""
    return [dict(m) for m in exchange.mutations if m.get("kind") == kind]


def _has_one_record(exchange: Exchange, **expected: Any) -> bool:
    """Exactly one record of the expected kind, holding (at least) the expected fields."""
    found = _records(exchange, expected["kind"])
    return len(found) == 1 and found[0].items() >= expected.items()


def _to_client_calls(rec: Recording, run_id: str) -> list[Message]:
    return [
        m
        for m in rec.messages_in(run_id)
        if m.direction == "to-client" and m.method == "tools/call" and m.sse_idx is None
    ]


def test_without_a_plan_the_recording_holds_every_request_and_response_of_the_session(capture: Capture) -> None:
    run = capture.new_run("control")

    async def session() -> tuple[list[str], CallToolResult]:
        async with Client(run.url) as client:
            listed = await client.list_tools()
            return [tool.name for tool in listed.tools], await client.call_tool(TOOL, {})

    names, result = run_sdk(session)
    assert names == [TOOL]
    assert _text_of(result) == REPO_TEXT and result.is_error is False

    rec = close_and_load(capture)
    messages = list(rec.messages_in(run.id))
    assert messages and all(m.run_id == run.id for m in messages)
    for message in messages:
        assert message.payload is not None, f"message #{message.seq} does not parse: {message.text!r}"
        assert message.mutation is None and message.upstream_text is None
    requests = {(m.method, m.jsonrpc_id) for m in messages if m.direction == "to-server" and m.kind == "request"}
    responses = {(m.method, m.jsonrpc_id) for m in messages if m.direction == "to-client" and m.kind == "response"}
    for method in ("server/discover", "tools/list", "tools/call"):
        assert any(found == method for found, _ in requests), f"no {method} request recorded"
    assert requests == responses, "every request has exactly its response, matched by id"
    call_response = next(m for m in messages if m.direction == "to-client" and m.method == "tools/call")
    assert call_response.payload["result"]["content"][0]["text"] == REPO_TEXT
    assert call_response.payload["result"]["resultType"] == "complete"

    exchanges = list(rec.exchanges_in(run.id))
    assert len(exchanges) == len(requests)
    for exchange in exchanges:
        assert exchange.method == "POST" and exchange.status == 200 and exchange.error is None
        assert exchange.path == f"/r/{run.id}/mcp"
        assert exchange.request_body and exchange.upstream_request_body == exchange.request_body
        assert exchange.response_body and exchange.upstream_response_body == exchange.response_body
        assert exchange.mutations == ()
        json.loads(exchange.request_body)
        json.loads(exchange.response_body)
    assert rec.anomalies == ()


def test_drop_result_type_cuts_exactly_the_result_type_member_and_the_sdk_sees_it_missing(capture: Capture) -> None:
    plan = {"mutations": [{"kind": "drop-result-type", "match": CALLS}]}
    run = capture.new_run("drop", plan)

    # mcp 2.3.0 validates a 2026-07-28 tools/call result strictly: a result without resultType is a
    # pydantic ValidationError in Client.call_tool (documented in its docstring), not "absent means complete".
    raised = run_sdk(lambda: _failing_call(run.url))
    assert isinstance(raised, ValidationError)
    assert "resultType" in str(raised) and "Field required" in str(raised)

    # what the client got on the wire: the content, with no resultType
    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        wire = post_rpc(client, run.url, rpc_request(77))
    assert wire.status_code == 200
    assert wire.json()["result"]["content"][0]["text"] == REPO_TEXT
    assert "resultType" not in wire.json()["result"]

    rec = close_and_load(capture)
    responses = _to_client_calls(rec, run.id)
    assert len(responses) == 2
    exchanges = {x.flow_id: x for x in tool_call_exchanges(rec, run.id)}
    for message in responses:
        assert message.mutation == "drop-result-type"
        assert "resultType" not in message.payload["result"]
        assert message.payload["result"]["content"][0]["text"] == REPO_TEXT
        assert message.upstream_text is not None
        assert json.loads(message.upstream_text)["result"]["resultType"] == "complete"
        (record,) = _records(exchanges[message.flow_id], "drop-result-type")
        assert record["kind"] == "drop-result-type"
        start, end, removed = record["start"], record["end"], record["removed"]
        assert message.upstream_text[start:end] == removed
        assert '"resultType"' in removed and '"complete"' in removed
        assert message.upstream_text[:start] + message.upstream_text[end:] == message.text
        exchange = exchanges[message.flow_id]
        assert exchange.upstream_response_body == message.upstream_text.encode()
        assert exchange.response_body == message.text.encode()
    assert wire.content == responses[-1].text.encode()


def test_injected_form_request_is_answered_by_the_sdk_and_the_retry_goes_upstream_without_mrtr_fields(
    capture: Capture,
) -> None:
    plan = {"mutations": [{"kind": "inject-input-requests", "match": CALLS, "times": 1, "inputRequests": FORM_REQUEST}]}
    run = capture.new_run("inject", plan)
    asked: list[Any] = []

    async def on_elicit(ctx: Any, params: Any) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"confirmed": True})

    result = run_sdk(lambda: _call_tool(run.url, elicitation_callback=on_elicit))
    assert _text_of(result) == REPO_TEXT and result.is_error is False
    assert len(asked) == 1 and isinstance(asked[0], ElicitRequestFormParams)
    assert asked[0].message == "Deploy to production?"

    rec = close_and_load(capture)
    calls = [m for m in rec.messages_in(run.id) if m.method == "tools/call" and m.sse_idx is None]
    kinds = [(m.direction, m.kind) for m in calls]
    assert kinds == [("to-server", "request"), ("to-client", "response")] * 2
    first_request, injected, retry, answer = calls

    assert injected.mutation == "inject-input-requests"
    injected_result = injected.payload["result"]
    assert injected_result["resultType"] == "input_required"
    assert injected_result["inputRequests"] == FORM_REQUEST
    state = injected_result["requestState"]
    assert state.startswith("bc1.")
    assert json.loads(injected.upstream_text)["result"]["content"][0]["text"] == REPO_TEXT

    assert retry.mutation == "answer-input-required"
    assert retry.jsonrpc_id != first_request.jsonrpc_id
    retry_params = retry.payload["params"]
    assert retry_params["requestState"] == state
    assert retry_params["inputResponses"] == {"confirm": {"action": "accept", "content": {"confirmed": True}}}
    forwarded = json.loads(retry.upstream_text)
    assert "requestState" not in forwarded["params"] and "inputResponses" not in forwarded["params"]
    assert forwarded["params"]["name"] == TOOL and forwarded["id"] == retry.payload["id"]

    retry_exchange = next(x for x in rec.exchanges_in(run.id) if x.flow_id == retry.flow_id)
    upstream_body = json.loads(retry_exchange.upstream_request_body or b"")
    assert "requestState" not in upstream_body["params"] and "inputResponses" not in upstream_body["params"]
    assert _has_one_record(retry_exchange, kind="answer-input-required", requestState=state)
    assert not _records(retry_exchange, "inject-input-requests"), "the retry is answered, not injected again"

    assert answer.mutation is None and answer.upstream_text is None
    assert answer.payload["result"]["resultType"] == "complete"
    assert answer.payload["result"]["content"][0]["text"] == REPO_TEXT


def test_a_retry_with_a_tampered_or_reused_request_state_gets_invalid_params(capture: Capture) -> None:
    plan = {"mutations": [{"kind": "inject-input-requests", "match": CALLS, "times": 1, "inputRequests": FORM_REQUEST}]}
    run = capture.new_run("tamper", plan)
    answers = {"confirm": {"action": "accept", "content": {"confirmed": True}}}

    def retry(client: httpx.Client, request_id: int, state: str) -> dict[str, Any]:
        extra = {"inputResponses": answers, "requestState": state}
        response = post_rpc(client, run.url, rpc_request(request_id, extra_params=extra))
        answer = dict(response.json())
        # a refusal is -32602 under HTTP 400, as the scripted endpoint answers invalid params on a modern request
        assert response.status_code == (400 if "error" in answer else 200)
        return answer

    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        first = post_rpc(client, run.url, rpc_request(1)).json()
        state = first["result"]["requestState"]
        body, tag = state.removeprefix("bc1.").split(".")
        tampered = f"bc1.{body}.{'A' if tag[0] != 'A' else 'B'}{tag[1:]}"

        refused = retry(client, 2, tampered)
        assert refused["id"] == 2 and refused["error"]["code"] == -32602
        assert "modified" in refused["error"]["message"]

        accepted = retry(client, 3, state)
        assert accepted["result"]["content"][0]["text"] == REPO_TEXT

        stale = retry(client, 4, state)
        assert stale["id"] == 4 and stale["error"]["code"] == -32602
        assert "stale" in stale["error"]["message"]

    rec = close_and_load(capture)
    exchanges = tool_call_exchanges(rec, run.id)
    applied = [[m["kind"] for m in x.mutations] for x in exchanges]
    assert len(applied) == 4
    assert "inject-input-requests" in applied[0]
    assert applied[1:] == [["reject-request-state"], ["answer-input-required"], ["reject-request-state"]]
    for exchange in (exchanges[1], exchanges[3]):
        assert exchange.status == 400
        assert json.loads(exchange.response_body or b"")["error"]["code"] == -32602


def test_a_json_hold_delays_the_whole_response_and_the_sdk_still_succeeds(capture: Capture) -> None:
    hold_ms = 700
    run = capture.new_run("hold-json", {"mutations": [{"kind": "hold", "match": CALLS, "ms": hold_ms}]})

    async def timed_call() -> tuple[CallToolResult, float]:
        async with Client(run.url) as client:
            began = time.monotonic()
            result = await client.call_tool(TOOL, {})
            return result, time.monotonic() - began

    result, elapsed = run_sdk(timed_call)
    assert _text_of(result) == REPO_TEXT
    assert elapsed >= hold_ms / 1000

    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        body = json.dumps(rpc_request(5)).encode()
        began = time.monotonic()
        with client.stream("POST", run.url, content=body, headers=rpc_headers()) as response:
            first_bytes_after = time.monotonic() - began  # the status line is the first byte of any response
            assert response.headers["content-type"].startswith("application/json")
            payload = json.loads(response.read())
    assert first_bytes_after >= hold_ms / 1000, f"response bytes arrived after {first_bytes_after:.3f} s"
    assert payload["result"]["content"][0]["text"] == REPO_TEXT

    rec = close_and_load(capture)
    exchanges = tool_call_exchanges(rec, run.id)
    assert len(exchanges) == 2
    for exchange in exchanges:
        assert _has_one_record(exchange, kind="hold", index=0, **{"as": "json", "ms": hold_ms}), exchange.mutations
        assert exchange.t_response is not None and exchange.t_request is not None
        assert exchange.streamed is False
    assert all(m.payload is not None for m in rec.messages_in(run.id))


def test_an_sse_hold_sends_keepalives_and_progress_before_the_result(capture: Capture) -> None:
    hold_ms, keepalive_ms = 600, 100
    plan = {"mutations": [{"kind": "hold", "match": CALLS, "ms": hold_ms, "as": "sse", "keepaliveMs": keepalive_ms}]}
    run = capture.new_run("hold-sse", plan)
    progress: list[tuple[float, float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((time.monotonic(), value, message))

    async def timed_call() -> tuple[CallToolResult, float, float]:
        async with Client(run.url) as client:
            began = time.monotonic()
            result = await client.call_tool(TOOL, {}, progress_callback=on_progress)
            return result, began, time.monotonic()

    result, began, returned = run_sdk(timed_call)
    assert _text_of(result) == REPO_TEXT
    assert returned - began >= hold_ms / 1000
    assert [value for _, value, _ in progress] == list(range(1, len(progress) + 1))
    assert len(progress) >= 3, progress
    assert all(at < returned for at, _, _ in progress)

    rec = close_and_load(capture)
    (exchange,) = tool_call_exchanges(rec, run.id)
    assert exchange.streamed and exchange.header("content-type", response=True) == "text/event-stream"
    assert _has_one_record(exchange, kind="hold", index=0, **{"as": "sse", "ms": hold_ms}), exchange.mutations
    items = sorted((i for i in rec.sse_events if i.flow_id == exchange.flow_id), key=lambda i: i.idx)
    keepalives = [i for i in items if i.kind == "comment"]
    assert keepalives and all(i.origin == "proxy" and i.client_raw == b":\r\n" for i in keepalives)
    *before, last = items
    assert last.kind == "event" and last.origin == "upstream"
    assert all(i.origin == "proxy" for i in before)
    assert keepalives[0].idx == 0, "the first thing the client gets is a keep-alive"

    client_bytes = exchange.response_body or b""
    assert client_bytes.startswith(b":\r\n")
    events = sse_data_messages(client_bytes)
    *notes, final = events
    assert [n["method"] for n in notes] == ["notifications/progress"] * len(progress)
    assert final["result"]["content"][0]["text"] == REPO_TEXT
    assert json.loads(exchange.upstream_response_body or b"") == final

    streamed = [m for m in rec.messages_in(run.id) if m.flow_id == exchange.flow_id and m.direction == "to-client"]
    assert [m.kind for m in streamed] == ["notification"] * len(progress) + ["response"]
    assert all(m.payload is not None for m in streamed)


def test_json_to_sse_serves_the_result_as_an_event_stream_the_sdk_reads(capture: Capture) -> None:
    run = capture.new_run("to-sse", {"mutations": [{"kind": "json-to-sse", "match": CALLS}]})

    result = run_sdk(lambda: _call_tool(run.url))
    assert _text_of(result) == REPO_TEXT

    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        wire = post_rpc(client, run.url, rpc_request(11))
    assert wire.status_code == 200
    assert wire.headers["content-type"] == "text/event-stream"
    (event,) = sse_data_messages(wire.content)
    assert event["id"] == 11 and event["result"]["content"][0]["text"] == REPO_TEXT

    rec = close_and_load(capture)
    exchanges = tool_call_exchanges(rec, run.id)
    assert len(exchanges) == 2
    for exchange in exchanges:
        assert exchange.header("content-type", response=True) == "text/event-stream"
        assert _has_one_record(exchange, kind="json-to-sse", index=0), exchange.mutations
        assert json.loads(exchange.upstream_response_body or b"") == sse_data_messages(exchange.response_body or b"")[0]
    for message in rec.messages_in(run.id):
        assert message.payload is not None, f"message #{message.seq} does not parse: {message.text!r}"
    responses = [m for m in rec.messages_in(run.id) if m.direction == "to-client" and m.method == "tools/call"]
    assert len(responses) == 2 and all(m.sse_idx == 0 and m.kind == "response" for m in responses)


def test_an_injected_error_reaches_the_sdk_as_an_mcp_error_with_its_code(capture: Capture) -> None:
    error = {"code": -32021, "message": "backchannel says no", "data": {"why": "test"}}
    run = capture.new_run("error", {"mutations": [{"kind": "error", "match": CALLS, "status": 400, "error": error}]})

    raised = run_sdk(lambda: _failing_call(run.url))
    assert isinstance(raised, MCPError)
    assert (raised.code, raised.message, raised.data) == (-32021, "backchannel says no", {"why": "test"})

    with httpx.Client(timeout=HTTP_TIMEOUT) as client:
        wire = post_rpc(client, run.url, rpc_request(12))
    assert wire.status_code == 400
    assert wire.json() == {"jsonrpc": "2.0", "id": 12, "error": error}

    rec = close_and_load(capture)
    exchanges = tool_call_exchanges(rec, run.id)
    assert len(exchanges) == 2
    for exchange in exchanges:
        assert exchange.status == 400
        assert _has_one_record(exchange, kind="error", index=0, status=400, code=-32021), exchange.mutations
    errors = [m for m in rec.messages_in(run.id) if m.direction == "to-client" and m.method == "tools/call"]
    assert [m.kind for m in errors] == ["error", "error"]
    assert all(m.payload["error"]["code"] == -32021 for m in errors)
